/** The integration queue (SPEC §15) of the SQLite store: its port (core/integration/integration-ports.ts) over integration.ts. */
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
import type { SqliteCore } from './store-core.js';

export const integrationPort = (s: SqliteCore): IntegrationStore => ({
  queueIntegration: (cmd) => s.write((tx) => queueIntegration(tx, cmd)),
  takeIntegrationSlot: (cmd) => s.write((tx) => takeSlot(tx, cmd)),
  releaseIntegrationSlot: (board, slot_id) => s.write((tx) => releaseSlot(tx, board, slot_id)),
  integrationQueue: async (board) => s.read(() => integrationQueue(s.db, board)),
  recordIntegration: (cmd) => s.write((tx) => recordIntegration(tx, cmd)),
  recordIntegrationWindow: (cmd) => s.write((tx) => recordWindow(tx, cmd)),
  approveIntegration: (task_id, agent) => s.write((tx) => approveIntegration(tx, task_id, agent)),
  retryIntegration: (task_id) => s.write((tx) => retryIntegration(tx, task_id)),
  integrationsOf: async (ids) => s.read(() => integrationsOf(s.db, ids)),
  integrationBoards: async () => s.read(() => integrationBoards(s.db)),
  integrationTaskIds: async (q) => s.read(() => integrationTaskIds(s.db, q)),
});
