/** The HTTP routes of the integration queue (SPEC §15), part of the route table. */
import { operations as op } from '../core/operations.js';
import type { Route } from './routes.js';

const ID = { id: 'task_id' };

export const integrationRoutes: Route[] = [
  { method: 'POST', url: '/v1/integration/slot', op: op.takeIntegrationSlot, from: 'body' },
  { method: 'POST', url: '/v1/integration/slot/release', op: op.releaseIntegrationSlot, from: 'body' },
  { method: 'GET', url: '/v1/integration/queue', op: op.integrationQueue, from: 'query' },
  { method: 'POST', url: '/v1/tasks/:id/integration', op: op.queueIntegration, from: 'body', params: ID },
  { method: 'POST', url: '/v1/tasks/:id/integration/result', op: op.recordIntegration, from: 'body', params: ID },
  { method: 'POST', url: '/v1/tasks/:id/approve', op: op.approveIntegration, from: 'body', params: ID },
  { method: 'POST', url: '/v1/tasks/:id/integration/retry', op: op.retryIntegration, from: 'body', params: ID },
];
