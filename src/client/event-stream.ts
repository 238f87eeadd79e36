/**
 * `coord events --follow`: the daemon's SSE stream, resumed with Last-Event-ID
 * after a drop, so a restart of the daemon loses and repeats nothing.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { CoordEvent } from '../core/model.js';
import { operations } from '../core/operations.js';
import { CliError, connect } from './daemon-client.js';
import type { HttpAnswer } from './http.js';
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
  /** Told each time a reconnection finds no daemon (it is stopped or restarting); the loop tries again. */
  onRetry?(): void;
  /** Ends the following, rejecting with the abort reason (an open stream is closed). */
  signal?: AbortSignal;
}

const RETRY_MS = 1000;

export async function followEvents(opts: FollowOptions): Promise<never> {
  let since = opts.since;
  let connectedOnce = false;
  for (;;) {
    opts.signal?.throwIfAborted();
    const res = await open(opts.stateDir, opts.board, since, opts.signal).catch((e: unknown) => {
      // The first connection must succeed (exit 3 otherwise); later, the daemon may be restarting.
      if (!connectedOnce || !(e instanceof CliError && e.code === 'unreachable')) throw e;
      opts.onRetry?.();
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
    await sleep(RETRY_MS, undefined, opts.signal ? { signal: opts.signal } : {});
  }
}

/**
 * Reads daemon.json afresh on every (re)connection: a restarted daemon may listen on another port. Async, so
 * that `connect` throwing at once (daemon.json gone after a clean stop) is a rejection the retry loop catches,
 * not an exception that ends `coord top` and `coord events --follow` before the daemon comes back.
 */
async function open(
  stateDir: string,
  board: string | undefined,
  since: number | undefined,
  signal: AbortSignal | undefined,
): Promise<HttpAnswer> {
  return connect(stateDir).stream(
    operations.listEvents,
    { board },
    since === undefined ? {} : { 'last-event-id': String(since) },
    signal,
  );
}
