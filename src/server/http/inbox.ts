import type { FastifyInstance } from 'fastify';
import { inboxText } from '../../core/inbox-text.js';
import { invoke } from '../../core/invoke.js';
import type { Ctx } from '../../core/operation.js';
import { operations } from '../../core/operations.js';

/** GET /v1/inbox: JSON by default, the compact text a model reads with ?format=text. */
export function registerInboxRoute(app: FastifyInstance, ctx: Ctx): void {
  app.get('/v1/inbox', async (req, reply) => {
    const query = req.query as Record<string, unknown>;
    const view = await invoke(operations.inbox, ctx, query);
    if (query.format !== 'text') return view;
    const since = query.since === undefined ? undefined : Number(query.since);
    return reply.type('text/plain; charset=utf-8').send(inboxText(view, ctx.clock.now(), since));
  });
}
