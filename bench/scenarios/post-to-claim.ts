/**
 * post → claim by a waiting agent (long-poll).
 * coord: the real daemon from dist/, an agent parked in POST /v1/claim {wait_s: 30}, another connection
 *        posting (bench/coord/post-claim-client.ts); time from sending the post to the claim answer.
 * floor: an agent polling every 1 s (floors/polling-claimer.ts), expected ≈ 500 ms.
 * target: coord p50 ≤ 5 ms.
 */
import { startCoordDaemon } from '../coord/daemon.js';
import { runPostClaim } from '../coord/post-claim-client.js';
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
  note: `${TRIALS} trials per round (median per round, then median of rounds); coord: one parked long-poll claim (wait_s 30) per trial, timed from sending the post (its own HTTP request included) to the claim answer, trials one after another, the daemon at --durability normal (at full, add the post's and the claim's syncs: two lone commits); the floor's trials run side by side, one polling agent each, so a round takes ≈ 2.5 s`,
  contenders: {
    coord: async () => {
      // The wake-up path, not the disk: at the default durability the post and the claim each wait for their
      // own sync (two lone commits), which is the disk's latency, not coord's.
      const d = await startCoordDaemon({ env: { COORD_DURABILITY: 'normal' } });
      try {
        return await runPostClaim({ url: d.url, token: d.token, trials: TRIALS });
      } finally {
        await d.stop();
      }
    },
    floor: () => runPollingRound(TRIALS, 1000),
  },
});
