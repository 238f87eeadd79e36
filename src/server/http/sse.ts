/**
 * GET /v1/events (SPEC §4): the event log as Server-Sent Events, or as JSON
 * pages for programs (`?format=json`, the list_events operation).
 *
 * Resuming is exact: the stream joins the shared subscription first and
 * buffers what arrives, replays from the store everything after `since` /
 * `Last-Event-ID`, then drains the buffer — writing only events whose `seq`
 * is above the last one written. Nothing committed in between is lost, and
 * nothing replayed is sent twice.
 */
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PATHS } from '../../api/paths.js';
import { invoke, parseInput } from '../../core/invoke.js';
import type { CoordEvent } from '../../core/model.js';
import type { Ctx } from '../../core/operation.js';
import { operations } from '../../core/operations.js';
import { EventHub } from './event-hub.js';

/** Replay page size. */
const PAGE = 500;
/** A client this far behind is dropped; it reconnects with Last-Event-ID and replays from the store. */
const MAX_BUFFERED_BYTES = 1 << 20;

export const sseFrame = (e: CoordEvent): string => `id: ${e.seq}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;

const blankToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

function wantsJson(req: FastifyRequest, query: Record<string, unknown>): boolean {
  if (query.format !== undefined) return query.format === 'json';
  const accept = req.headers.accept ?? '';
  return accept.includes('application/json') && !accept.includes('text/event-stream');
}

export function registerEventsRoute(app: FastifyInstance, ctx: Ctx, hub = new EventHub(ctx.store)): EventHub {
  // Open streams would hold the server open forever: end them when the daemon closes.
  app.addHook('preClose', async () => hub.endAll());

  app.get(PATHS.events, async (req, reply) => {
    const query = req.query as Record<string, unknown>;
    if (wantsJson(req, query)) {
      return invoke(operations.listEvents, ctx, {
        board: query.board,
        since: blankToUndefined(query.since),
        limit: query.limit,
        task: blankToUndefined(query.task),
        tail: blankToUndefined(query.tail),
      });
    }
    // Last-Event-ID (a reconnecting client) wins over ?since (the URL it first opened).
    const input = parseInput(operations.listEvents, {
      board: query.board,
      since: blankToUndefined(req.headers['last-event-id']) ?? blankToUndefined(query.since),
    });
    reply.hijack();
    await streamEvents(reply.raw, ctx, hub, input.board, input.since);
    // Hijacked: the stream wrote its own answer; returning the reply tells fastify there is nothing to send.
    return reply;
  });
  return hub;
}

async function streamEvents(
  raw: ServerResponse,
  ctx: Ctx,
  hub: EventHub,
  board: string | undefined,
  since: number | undefined,
): Promise<void> {
  let last = since ?? 0;
  let closed = false;
  // While replaying, live events wait here; a stream with no `since` is live from the start.
  let backlog: CoordEvent[] | null = since === undefined ? null : [];

  const write = (events: CoordEvent[]) => {
    if (closed) return;
    for (const e of events) {
      if (e.seq <= last || (board !== undefined && e.board !== board)) continue;
      raw.write(sseFrame(e));
      last = e.seq;
    }
    if (raw.writableLength > MAX_BUFFERED_BYTES) raw.destroy();
  };
  const leave = hub.add({
    deliver: (events) => (backlog ? backlog.push(...events) : write(events)),
    keepAlive: () => closed || raw.write(': keep-alive\n\n'),
    end: () => raw.end(),
  });
  raw.once('close', () => {
    closed = true;
    leave();
  });

  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  // The first bytes flush the headers, so the client knows it is subscribed.
  raw.write('retry: 2000\n\n');
  if (!backlog) return;

  try {
    for (;;) {
      const page = await ctx.store.events({ board, since: last, limit: PAGE });
      write(page);
      if (page.length < PAGE || closed) break;
      if (raw.writableNeedDrain) await Promise.race([once(raw, 'drain'), once(raw, 'close')]);
    }
  } catch {
    // The store failed mid-replay: end the stream; the client resumes from its last id.
    raw.destroy();
    return;
  }
  const pending = backlog;
  backlog = null;
  write(pending);
}
