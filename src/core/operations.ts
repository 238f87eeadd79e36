/** Every operation of coord, declared once; the transports derive from this table. */
import type { z } from 'zod';
import type { Operation } from './operation.js';
import { listAgents } from './ops/agents.js';
import { getArtifact, listArtifacts, putArtifact } from './ops/artifacts.js';
import { agentWaiting, listAttention } from './ops/attention.js';
import { cancelTask } from './ops/cancel-task.js';
import { listChanges, listWorktrees, setTarget } from './ops/changes.js';
import { claimNext } from './ops/claim-next.js';
import { claimTask } from './ops/claim-task.js';
import { connect, listConnectors, revokeConnector } from './ops/connectors.js';
import { createTask } from './ops/create-task.js';
import { decideEdit } from './ops/decide-edit.js';
import { listEvents } from './ops/events.js';
import { heartbeat, releaseTask, submitResult } from './ops/fenced.js';
import { inbox } from './ops/inbox.js';
import {
  approveIntegration,
  integrationQueue,
  queueIntegration,
  recordIntegration,
  recordIntegrationWindow,
  releaseIntegrationSlot,
  retryIntegration,
  takeIntegrationSlot,
} from './ops/integration.js';
import { listTasks } from './ops/list-tasks.js';
import { listLocks, lockFiles, renewLock, unlockFiles } from './ops/locks.js';
import { ackMessage, listMessages, pendingMessages, sendMessage, showMessage } from './ops/messages.js';
import { addNote } from './ops/notes.js';
import { postPlan } from './ops/post-plan.js';
import { reservePort } from './ops/reserve.js';
import { listRuns, reportRun } from './ops/runs.js';
import { setDeps } from './ops/set-deps.js';
import { showTask } from './ops/show-task.js';

export const operations = {
  connect,
  listConnectors,
  revokeConnector,
  createTask,
  listTasks,
  showTask,
  claimTask,
  claimNext,
  heartbeat,
  releaseTask,
  submitResult,
  cancelTask,
  putArtifact,
  getArtifact,
  inbox,
  listEvents,
  listAgents,
  lockFiles,
  renewLock,
  unlockFiles,
  listLocks,
  decideEdit,
  setDeps,
  postPlan,
  addNote,
  sendMessage,
  listMessages,
  ackMessage,
  pendingMessages,
  showMessage,
  listArtifacts,
  takeIntegrationSlot,
  releaseIntegrationSlot,
  integrationQueue,
  queueIntegration,
  recordIntegration,
  recordIntegrationWindow,
  approveIntegration,
  retryIntegration,
  listWorktrees,
  listChanges,
  setTarget,
  reservePort,
  listAttention,
  agentWaiting,
  reportRun,
  listRuns,
} as const;

export type Operations = typeof operations;

/** An operation's name (its MCP tool name, its OpenAPI operationId, what a route names). */
export type OpName = Operations[keyof Operations]['name'];
/** The operation of a name, as a type (a client names an operation without loading it: client/call.ts). */
export type OperationNamed<N extends OpName> = Extract<Operations[keyof Operations], { name: N }>;

const BY_NAME: ReadonlyMap<string, Operation<z.ZodType, unknown>> = new Map(
  Object.values(operations).map((o) => [o.name, o]),
);

/** The operation a route names (the server's side of api/routes.ts). */
export function operationNamed(name: OpName): Operation<z.ZodType, unknown> {
  const op = BY_NAME.get(name);
  if (!op) throw new Error(`no operation named ${name}`);
  return op;
}
