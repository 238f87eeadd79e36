/**
 * Inbox read vs history size: 10k and 1M historical tasks.
 * coord: the real daemon from dist/ on a copy of each seeded file (coord's schema), GET /v1/inbox.
 * No floor is required by the target; as a reference, the floor row measures the same
 * ratio for the plain indexed SELECT server (floors/bare-http-select-server.ts) on the same files.
 * target: coord's p50 at the large size ≤ 1.3× its p50 at 10k (the measured value IS that ratio).
 */
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startCoordDaemon } from '../coord/daemon.js';
import { coordSchema } from '../coord/schema.js';
import { FILE as SELECT_SERVER } from '../floors/bare-http-select-server.js';
import { seededTemplate } from '../floors/sqlite-claim-loop.js';
import { startServer } from '../lib/child.js';
import { pick } from '../lib/config.js';
import { measureLatency } from '../lib/latency-client.js';
import { tempDir } from '../lib/template-db.js';
import { defineScenario, type Measurement } from '../lib/types.js';
import { AGENT_NAMES, AGENTS } from './empty-inbox-http.js';

export const SMALL = 10_000;
/** The 1M file is built once into bench/.cache (≈ 4 s, ≈ 250 MB) and copied once per run for coord. */
export const LARGE = 1_000_000;
export const READS = pick(500, 2_000);

const sizeLabel = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`);

let small = '';
let large = '';
/** coord's state dirs, one per size, each with a copy of its file, made once per run (reads change nothing). */
const stateDirs: Record<'small' | 'large', string> = { small: '', large: '' };

/** p50 of READS inbox reads against a server on each size; returns p50(large) / p50(small). */
export async function historyRatio(p50At: (size: 'small' | 'large') => Promise<number>): Promise<Measurement> {
  const a = await p50At('small');
  const b = await p50At('large');
  return { value: b / a, extra: { p50_10k_ms: a, [`p50_${sizeLabel(LARGE).toLowerCase()}_ms`]: b } };
}

const reads = async (url: string, pathFor: (agent: string) => string, headers: Record<string, string> = {}) =>
  (
    await measureLatency({
      url,
      paths: AGENT_NAMES.map(pathFor),
      requests: READS,
      warmup: 100,
      ok: [200],
      headers,
    })
  ).p50_ms;

export default defineScenario({
  name: `inbox read vs history size (p50 at ${sizeLabel(LARGE)} / p50 at 10k)`,
  metric: `p50(${sizeLabel(LARGE)}) / p50(10k)`,
  unit: '×',
  better: 'lower',
  target: { kind: 'abs_max', value: 1.3 },
  note: `${READS} reads at each size per round over ${AGENTS} agents, coord's schema; the ${sizeLabel(LARGE)}-row file is built once into bench/.cache (≈ 4 s, ≈ 250 MB); coord reads a copy made once per run`,
  async setup() {
    small = await seededTemplate([{ rows: SMALL, state: 'completed', agents: AGENTS }], coordSchema());
    large = await seededTemplate([{ rows: LARGE, state: 'completed', agents: AGENTS }], coordSchema());
    for (const [size, file] of [
      ['small', small],
      ['large', large],
    ] as const) {
      stateDirs[size] = tempDir('coord-bench-state-');
      copyFileSync(file, join(stateDirs[size], 'coord.db'));
    }
  },
  async teardown() {
    for (const dir of Object.values(stateDirs)) if (dir) rmSync(dir, { recursive: true, force: true });
  },
  contenders: {
    coord: () =>
      historyRatio(async (size) => {
        const d = await startCoordDaemon({ stateDir: stateDirs[size] });
        try {
          return await reads(d.url, (a) => `/v1/inbox?agent=${a}`, d.headers);
        } finally {
          await d.stop();
        }
      }),
    floor: () =>
      historyRatio(async (size) => {
        const server = await startServer(SELECT_SERVER, { path: size === 'small' ? small : large });
        try {
          return await reads(server.url, (a) => `/inbox?agent=${a}`);
        } finally {
          await server.stop();
        }
      }),
  },
});
