/**
 * The HTTP face of the operations table: each route names an operation and
 * where its input comes from. Handlers parse, call, map errors — nothing more.
 */
import type { z } from 'zod';
import type { Operation } from '../core/operation.js';
import { operations as op } from '../core/operations.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface Route {
  method: Method;
  url: string;
  op: Operation<z.ZodType, unknown>;
  /** Where the op's input comes from: path params are renamed (id → task_id), the rest from query or body. */
  from: 'body' | 'query';
  /** Path parameters, in the op's input names. */
  params?: Record<string, string>;
  status?: (out: unknown) => number;
  summary?: string;
}

const ID = { id: 'task_id' };
const LOCK = { lock_id: 'lock_id' };

export const routes: Route[] = [
  {
    method: 'POST',
    url: '/v1/tasks',
    op: op.createTask,
    from: 'body',
    status: (o) => ((o as { created: boolean }).created ? 201 : 200),
  },
  { method: 'GET', url: '/v1/tasks', op: op.listTasks, from: 'query' },
  { method: 'GET', url: '/v1/tasks/:id', op: op.showTask, from: 'query', params: ID },
  { method: 'POST', url: '/v1/tasks/:id/claim', op: op.claimTask, from: 'body', params: ID },
  { method: 'POST', url: '/v1/claim', op: op.claimNext, from: 'body', status: (o) => (o === null ? 204 : 200) },
  { method: 'POST', url: '/v1/tasks/:id/heartbeat', op: op.heartbeat, from: 'body', params: ID },
  { method: 'POST', url: '/v1/tasks/:id/release', op: op.releaseTask, from: 'body', params: ID },
  { method: 'POST', url: '/v1/tasks/:id/submit', op: op.submitResult, from: 'body', params: ID },
  { method: 'POST', url: '/v1/tasks/:id/cancel', op: op.cancelTask, from: 'body', params: ID },
  { method: 'GET', url: '/v1/agents', op: op.listAgents, from: 'query' },
  { method: 'POST', url: '/v1/locks', op: op.lockFiles, from: 'body', status: () => 201 },
  { method: 'GET', url: '/v1/locks', op: op.listLocks, from: 'query' },
  { method: 'POST', url: '/v1/locks/:lock_id/renew', op: op.renewLock, from: 'body', params: LOCK },
  { method: 'DELETE', url: '/v1/locks/:lock_id', op: op.unlockFiles, from: 'query', params: LOCK },
  { method: 'GET', url: '/v1/tasks/:id/artifacts', op: op.listArtifacts, from: 'query', params: ID },
];
