/**
 * post → claim by a waiting agent (long-poll).
 * floor: an agent polling every 1 s (floors/polling-claimer.ts), expected ≈ 500 ms.
 * target: coord p50 ≤ 5 ms.
 */
import { runPollingRound } from '../floors/polling-claimer.js';
import { pick } from '../lib/config.js';
import { defineScenario } from '../lib/types.js';

/** Trials per round; quick: 3 rounds × 10 = 30 trials, full: 5 rounds × 40 = 200 trials. */
export const TRIALS = pick(10, 40);

export default defineScenario({
  name: 'post → claim by a waiting agent (long-poll)',
  metric: 'p50 post → claim latency',
  unit: 'ms',
  better: 'lower',
  target: { kind: 'abs_max', value: 5 },
  note: `${TRIALS} trials per round (median per round, then median of rounds); the floor's trials run side by side, one polling agent each, so a round takes ≈ 2.5 s`,
  contenders: {
    // coord contender: plugged in by scenarios/post-to-claim.ts (see bench/README.md, "Plugging in coord")
    floor: () => runPollingRound(TRIALS, 1000),
  },
});
