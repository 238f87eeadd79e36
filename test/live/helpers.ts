/** Helpers for the live tests: condition polling (never sleep-then-assert) and an SSE subscriber. */

import { readSse } from '../../src/client/sse-reader.js';
import type { CoordEvent } from '../../src/core/model.js';

export { waitFor } from '../support/wait-for.js';

export interface Target {
  url: string;
  token: string;
}

export interface Subscription {
  events: CoordEvent[];
  /** Resolves once the server has answered with the stream's headers: it is subscribed from then on. */
  opened: Promise<Response>;
  ended: Promise<void>;
  close(): void;
}

export function subscribe(
  target: Target,
  opts: { board?: string; since?: number; lastEventId?: number | string } = {},
): Subscription {
  const ac = new AbortController();
  const events: CoordEvent[] = [];
  const params = new URLSearchParams();
  if (opts.board) params.set('board', opts.board);
  if (opts.since !== undefined) params.set('since', String(opts.since));
  const opened = fetch(`${target.url}/v1/events?${params}`, {
    signal: ac.signal,
    headers: {
      authorization: `Bearer ${target.token}`,
      accept: 'text/event-stream',
      ...(opts.lastEventId === undefined ? {} : { 'last-event-id': String(opts.lastEventId) }),
    },
  });
  const ended = opened.then(async (res) => {
    if (!res.body) return;
    try {
      for await (const m of readSse(res.body)) {
        const e = JSON.parse(m.data) as CoordEvent;
        if (m.id !== String(e.seq) || m.event !== e.type) throw new Error(`frame fields disagree with data: ${m.id}`);
        events.push(e);
      }
    } catch (e) {
      if ((e as Error).name !== 'AbortError') throw e;
    }
  });
  ended.catch(() => {});
  return { events, opened, ended, close: () => ac.abort() };
}

export { median } from '../support/timing.js';
