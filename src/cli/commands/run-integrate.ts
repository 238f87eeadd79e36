/**
 * `coord run --integrate` (SPEC §18, §15): the integrator beside the supervisor, reaching the board over
 * HTTP, its results in `coord run`'s log; its turns run until the supervisor is done, then one last turn.
 */
import { followEvents } from '../../client/event-stream.js';
import { WAKES_INTEGRATOR } from '../../core/integration/integration.js';
import { operations } from '../../core/operations.js';
import { Integrator, SlotLost } from '../../git/integrator.js';
import type { Waker } from '../../supervisor/waker.js';
import type { Invocation } from '../common.js';
import { boardOverHttp, resultLine } from './integrate.js';
import type { RunFlags } from './run-options.js';

export interface RunIntegrator {
  repo: string;
  target: string;
  holder: string;
  /** Hears each result's task first (its agent submitted), then its line for the log. */
  submitted: (task_id: string) => void;
  log: (line: string) => void;
}

/** The integrator `--integrate` asks for, or null. */
export function integratorFor(inv: Invocation, flags: RunFlags, o: RunIntegrator): Integrator | null {
  if (!flags.integrate) return null;
  return new Integrator(boardOverHttp(inv), {
    board: inv.board,
    repo: o.repo,
    target: o.target,
    stateDir: inv.stateDir,
    check: flags.check ? { command: flags.check, timeoutMs: 600_000 } : undefined,
    review: false,
    holder: o.holder,
    leaseMs: 60_000,
    onResult: (q, r) => {
      // Its agent submitted: said first, so the log never shows a merge before its submit.
      o.submitted(q.task_id);
      o.log(resultLine(q, o.target, r));
    },
  });
}

/**
 * The integrator's turns, beside the supervisor, until it is told to end (then one last turn). Between turns with
 * nothing to do it waits up to 500 ms, or until `waker` is woken: a submit (the daemon's event stream, followed
 * by `wakeOnSubmits`) or the run's end.
 */
export async function integrateLoop(integrator: Integrator, go: () => boolean, waker: Waker): Promise<void> {
  for (;;) {
    const last = !go();
    waker.look();
    let progressed = 0;
    try {
      progressed = (await integrator.turn()).progressed;
    } catch (e) {
      if (!(e instanceof SlotLost) && (e as { code?: string }).code !== 'stale_claim') throw e;
    }
    if (last) return;
    if (progressed === 0) await waker.nap(500);
  }
}

/**
 * Wakes the integrator when the board has work for it (a submit, a queue change), read from the daemon's event
 * stream: a submit is merged as it lands, not at the next look — a dependent task's readiness waits on it
 * (SPEC §11). Without the stream (the daemon restarting) the loop's own 500 ms looks go on.
 */
export function wakeOnSubmits(inv: Invocation, waker: Waker): () => void {
  const stop = new AbortController();
  void followEvents({
    stateDir: inv.stateDir,
    board: inv.board,
    since: undefined,
    onEvent: (e) => {
      if (WAKES_INTEGRATOR.has(e.type)) waker.wake();
    },
    onDrop: () => {},
    signal: stop.signal,
  }).catch(() => undefined);
  return () => stop.abort();
}

/** With --integrate and --once: work still waiting to be merged may make a task ready. */
export async function integrationPending(inv: Invocation): Promise<boolean> {
  const q = await inv.client.call(operations.integrationQueue, { board: inv.board });
  return q.queue.some((e) => e.state === 'pending');
}
