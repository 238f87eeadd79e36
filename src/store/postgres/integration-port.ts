/** The integration queue (SPEC §15) of the PostgreSQL store: its port (core/integration/integration-ports.ts) over integration.ts. */
import type { IntegrationStore } from '../../core/integration/integration-ports.js';
import {
  approveIntegration,
  integrationBoards,
  integrationQueue,
  integrationsOf,
  integrationTaskIds,
  queueIntegration,
  recordIntegration,
  recordWindow,
  releaseSlot,
  retryIntegration,
  takeSlot,
} from './integration.js';
import { guarded } from './pg-errors.js';
import type { PostgresCore } from './store-core.js';

export const integrationPort = (s: PostgresCore): IntegrationStore => ({
  queueIntegration: (cmd) => s.write((tx) => queueIntegration(tx, cmd)),
  takeIntegrationSlot: (cmd) => s.write((tx) => takeSlot(tx, cmd)),
  releaseIntegrationSlot: (board, slot_id) => s.write((tx) => releaseSlot(tx, board, slot_id)),
  integrationQueue: (board) => guarded(() => integrationQueue(s.pool, board)),
  recordIntegration: (cmd) => s.write((tx) => recordIntegration(tx, cmd)),
  recordIntegrationWindow: (cmd) => s.write((tx) => recordWindow(tx, cmd)),
  approveIntegration: (task_id, agent) => s.write((tx) => approveIntegration(tx, task_id, agent)),
  retryIntegration: (task_id) => s.write((tx) => retryIntegration(tx, task_id)),
  integrationsOf: (ids) => guarded(() => integrationsOf(s.pool, ids)),
  integrationBoards: () => guarded(() => integrationBoards(s.pool)),
  integrationTaskIds: (q) => guarded(() => integrationTaskIds(s.pool, q)),
});
