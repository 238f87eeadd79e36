/**
 * `coord events --follow`: the daemon's SSE stream, resumed with Last-Event-ID
 * after a drop, so a restart of the daemon loses and repeats nothing.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { CoordEvent } from '../core/model.js';
import { readDaemonInfo } from '../state-dir/index.js';
import { readToken } from '../state-dir/token.js';
import { CliError } from './daemon-client.js';
import { q } from './query.js';
import { readSse } from './sse-reader.js';

export interface FollowOptions {
  stateDir: string;
  board: string | undefined;
  /** Resume after this sequence; undefined = only events from now on. */
  since: number | undefined;
  onEvent(e: CoordEvent): void;
  /** Told once per drop, before reconnecting. */
  onDrop(): void;
  /** Told each time the stream is (re)connected, before its events. */
  onOpen?(): void;
}

const RETRY_MS = 1000;

export async function followEvents(opts: FollowOptions): Promise<never> {
  let since = opts.since;
  let connectedOnce = false;
  for (;;) {
    const res = await open(opts.stateDir, opts.board, since).catch((e: unknown) => {
      // The first connection must succeed (exit 3 otherwise); later, the daemon may be restarting.
      if (!connectedOnce || !(e instanceof CliError && e.code === 'unreachable')) throw e;
      return null;
    });
    if (res?.body) {
      connectedOnce = true;
      opts.onOpen?.();
      try {
        for await (const m of readSse(res.body)) {
          const event = JSON.parse(m.data) as CoordEvent;
          since = event.seq;
          opts.onEvent(event);
        }
      } catch {
        // The connection broke mid-stream; fall through and resume.
      }
      opts.onDrop();
    }
    await sleep(RETRY_MS);
  }
}

async function open(stateDir: string, board: string | undefined, since: number | undefined): Promise<Response> {
  const info = readDaemonInfo(stateDir);
  let token: string;
  try {
    token = readToken(stateDir);
  } catch {
    token = '';
  }
  if (!info || !token) throw unreachable(stateDir);
  let res: Response;
  try {
    res = await fetch(`${info.url}/v1/events${q({ board })}`, {
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'text/event-stream',
        ...(since === undefined ? {} : { 'last-event-id': String(since) }),
      },
    });
  } catch {
    throw unreachable(stateDir, info.url);
  }
  if (!res.ok) {
    const payload = (await res.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
    throw new CliError(payload.error?.code ?? 'internal', payload.error?.message ?? `HTTP ${res.status}`);
  }
  return res;
}

const unreachable = (stateDir: string, url?: string) =>
  new CliError(
    'unreachable',
    `no coord daemon answers for ${stateDir}${url ? ` at ${url}` : ''} — start one with: coord serve --state ${stateDir}`,
  );
