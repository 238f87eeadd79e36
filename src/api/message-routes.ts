/** The HTTP routes of notes and messages (SPEC §12), part of the route table. */
import type { Route } from './routes.js';

/** 201 for a new note or message; 200 when the same key and payload named it already. */
const created = { ok: 201, replay: 200 } as const;

export const messageRoutes: Route[] = [
  {
    method: 'POST',
    url: '/v1/tasks/:id/notes',
    op: 'add_note',
    from: 'body',
    params: { id: 'task_id' },
    status: created,
  },
  { method: 'POST', url: '/v1/messages', op: 'send_message', from: 'body', status: created },
  { method: 'GET', url: '/v1/messages', op: 'list_messages', from: 'query' },
  { method: 'POST', url: '/v1/messages/pending', op: 'pending_messages', from: 'body' },
  { method: 'GET', url: '/v1/messages/:id', op: 'show_message', from: 'query', params: { id: 'message_id' } },
  { method: 'POST', url: '/v1/messages/:id/ack', op: 'ack_message', from: 'body', params: { id: 'message_id' } },
];
