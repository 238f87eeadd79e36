import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { PATHS } from '../../api/paths.js';
import { invoke } from '../../core/invoke.js';
import { inboxText } from '../../core/messages/inbox-text.js';
import type { Ctx } from '../../core/operation.js';
import { operations } from '../../core/operations.js';
import type { InboxInput } from '../../core/schemas.js';
import { STATUS, toCoordError } from './errors.js';

/** GET /v1/inbox: JSON by default, the compact text a model reads with ?format=text. */
export function registerInboxRoute(app: FastifyInstance, ctx: Ctx): void {
  app.get(PATHS.inbox, async (req, reply) => {
    const query = req.query as Record<string, unknown>;
    const view = await invoke(operations.inbox, ctx, query);
    if (query.format !== 'text') return view;
    return reply.type(TEXT).send(answerText(ctx, view, query.since));
  });
}

const JSON_TYPE = 'application/json; charset=utf-8';
const TEXT = 'text/plain; charset=utf-8';

const answerText = (ctx: Ctx, view: Awaited<ReturnType<typeof operations.inbox.run>>, since: unknown) =>
  inboxText(view, ctx.clock.now(), since === undefined ? undefined : Number(since));

/**
 * The inbox's lane: the poll every idle agent makes, answered straight from node:http — the same guard, the
 * same operation, the same answer as the route above, without fastify's request pipeline (~40 µs of a
 * ~350 µs poll here, issue 15). It takes only a request it can read without doubt: exactly
 * `GET /v1/inbox?…` with no body, a query of plain `key=value` pairs (no %-escape, `+` or repeated key), the
 * guard's admission and input the operation accepts. Anything else — a refusal, bad input, an odd URL — goes
 * to fastify, which answers it as every other route. Returns whether it took the request.
 */
export function inboxLane(
  ctx: Ctx,
  admits: (headers: IncomingMessage['headers']) => boolean,
  log: (err: unknown) => void,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    if (req.method !== 'GET') return false;
    const url = req.url ?? '';
    const query = plainQuery(url);
    if (query === undefined) return false;
    if (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined) return false;
    if (!admits(req.headers)) return false;
    const input = operations.inbox.input.safeParse(query);
    if (!input.success) return false;
    answer(ctx, input.data, query.since, res, log);
    return true;
  };
}

async function answer(
  ctx: Ctx,
  input: InboxInput,
  since: string | undefined,
  res: ServerResponse,
  log: (err: unknown) => void,
): Promise<void> {
  let status = 200;
  let type = JSON_TYPE;
  let body: string;
  try {
    const view = await operations.inbox.run(ctx, input);
    if (input.format === 'text') {
      type = TEXT;
      body = answerText(ctx, view, since);
    } else body = JSON.stringify(view);
  } catch (err) {
    const e = toCoordError(err);
    if (e.code === 'internal') log(err);
    status = STATUS[e.code];
    body = JSON.stringify({ error: e.toJSON() });
  }
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const PREFIX = `${PATHS.inbox}?`;

/** `{key: value}` of a `/v1/inbox?…` URL whose query is plain pairs; undefined for anything else. */
function plainQuery(url: string): Record<string, string> | undefined {
  if (!url.startsWith(PREFIX) || /[%+#]/.test(url)) return undefined;
  const out: Record<string, string> = Object.create(null);
  for (const pair of url.slice(PREFIX.length).split('&')) {
    const eq = pair.indexOf('=');
    const key = eq < 0 ? pair : pair.slice(0, eq);
    if (key === '' || key in out) return undefined;
    out[key] = eq < 0 ? '' : pair.slice(eq + 1);
  }
  return out;
}
