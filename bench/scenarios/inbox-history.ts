/**
 * Inbox read vs history size: 10k and 1M historical tasks.
 * No floor is required by the target; as a reference, the floor row measures the same
 * ratio for the plain indexed SELECT server (floors/bare-http-select-server.ts).
 * target: coord's p50 at 1M ≤ 1.3× its p50 at 10k (the measured value IS that ratio).
 */
import { FILE as SELECT_SERVER } from '../floors/bare-http-select-server.js';
import { seededTemplate } from '../floors/sqlite-claim-loop.js';
import { startServer } from '../lib/child.js';
import { pick } from '../lib/config.js';
import { measureLatency } from '../lib/latency-client.js';
import { defineScenario, type Measurement } from '../lib/types.js';
import { AGENT_NAMES, AGENTS } from './empty-inbox-http.js';

export const SMALL = 10_000;
export const LARGE = 1_000_000;
export const READS = pick(1_000, 2_000);

let small = '';
let large = '';

/** p50 of READS inbox reads against a server on each size; returns p50(large) / p50(small). */
export async function historyRatio(p50At: (size: 'small' | 'large') => Promise<number>): Promise<Measurement> {
  const a = await p50At('small');
  const b = await p50At('large');
  return { value: b / a, extra: { p50_10k_ms: a, p50_1m_ms: b } };
}

export default defineScenario({
  name: 'inbox read vs history size (p50 at 1M / p50 at 10k)',
  metric: 'p50(1M) / p50(10k)',
  unit: '×',
  better: 'lower',
  target: { kind: 'abs_max', value: 1.3 },
  note: `${READS} reads at each size per round over ${AGENTS} agents; the 1M-row template is built once into bench/.cache (≈5 s, ≈220 MB)`,
  async setup() {
    small = await seededTemplate([{ rows: SMALL, state: 'completed', agents: AGENTS }]);
    large = await seededTemplate([{ rows: LARGE, state: 'completed', agents: AGENTS }]);
  },
  contenders: {
    // coord contender: plugged in by scenarios/inbox-history.ts (see bench/README.md, "Plugging in coord")
    floor: () =>
      historyRatio(async (size) => {
        const server = await startServer(SELECT_SERVER, { path: size === 'small' ? small : large });
        try {
          const r = await measureLatency({
            url: server.url,
            paths: AGENT_NAMES.map((a) => `/inbox?agent=${a}`),
            requests: READS,
            warmup: 100,
            ok: [200],
          });
          return r.p50_ms;
        } finally {
          await server.stop();
        }
      }),
  },
});
