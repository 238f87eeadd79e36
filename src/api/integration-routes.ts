/** The HTTP routes of the integration queue (SPEC §15), part of the route table. */
import type { Route } from './routes.js';

const ID = { id: 'task_id' };

export const integrationRoutes: Route[] = [
  { method: 'POST', url: '/v1/integration/slot', op: 'take_integration_slot', from: 'body' },
  { method: 'POST', url: '/v1/integration/slot/release', op: 'release_integration_slot', from: 'body' },
  { method: 'GET', url: '/v1/integration/queue', op: 'integration_queue', from: 'query' },
  { method: 'POST', url: '/v1/integration/window', op: 'record_integration_window', from: 'body' },
  { method: 'POST', url: '/v1/tasks/:id/integration', op: 'queue_integration', from: 'body', params: ID },
  { method: 'POST', url: '/v1/tasks/:id/integration/result', op: 'record_integration', from: 'body', params: ID },
  { method: 'POST', url: '/v1/tasks/:id/approve', op: 'approve_integration', from: 'body', params: ID },
  { method: 'POST', url: '/v1/tasks/:id/integration/retry', op: 'retry_integration', from: 'body', params: ID },
];
