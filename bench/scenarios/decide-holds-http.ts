/**
 * SPEC §14's holds in the edit decision, over HTTP against the real daemon: POST /v1/locks/decide by 500
 * agents working in one linked work tree of a real git repository while another work tree holds 200 change
 * holds (its locks ended with their paths pending), each agent re-editing the file it already holds —
 * side by side with today's decision: the same 500 agents on a board with no repository and no holds.
 * coord: decide_edit p50 with the holds (and the warning look-up of other work trees' pending paths).
 * floor: decide_edit p50 with no holds, no work tree (decide-edit-http's coord row).
 * target: with holds ≤ 1.2× without (issue 21).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CoordDaemon, startCoordDaemon } from '../coord/daemon.js';
import { pick } from '../lib/config.js';
import { measureLatency } from '../lib/latency-client.js';
import { tempDir } from '../lib/template-db.js';
import { defineScenario } from '../lib/types.js';

const AGENTS = 500;
const HOLDS = 200;
const FILES = 1_000;
const READS = pick(1_000, 2_000);
const agents = Array.from({ length: AGENTS }, (_, i) => `agent-${i}`);
const fileOf = (i: number) => `src/d${i % 100}/f${i}.ts`;

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@example.com', ...args], { cwd, stdio: 'pipe' });

let dir = '';
let wtA = '';
let wtB = '';

/** A repository of FILES files; work tree A has the first HOLDS files changed (not merged); B works on the rest. */
function buildRepo(): void {
  const main = join(dir, 'repo');
  for (let i = 0; i < FILES; i++) {
    const folder = join(main, 'src', `d${i % 100}`);
    if (i < 100) mkdirSync(folder, { recursive: true });
    writeFileSync(join(main, fileOf(i)), `export const v${i} = ${i};\n`);
  }
  git(main, 'init', '-q', '-b', 'main');
  git(main, 'add', '.');
  git(main, 'commit', '-qm', 'seed');
  wtA = join(dir, 'wt-a');
  wtB = join(dir, 'wt-b');
  git(main, 'worktree', 'add', '-q', '-b', 'feat-a', wtA);
  git(main, 'worktree', 'add', '-q', '-b', 'feat-b', wtB);
  for (let i = 0; i < HOLDS; i++) writeFileSync(join(wtA, fileOf(i)), `export const changed${i} = 1;\n`);
  git(wtA, 'commit', '-qam', 'work in A');
}

async function call(d: CoordDaemon, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${d.url}${path}`, {
    method,
    headers: { ...d.headers, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${await res.text()}`);
  return res.status === 204 ? null : res.json();
}

/** 500 agents, each re-editing the file it holds (the first edit, taking the auto-lock, is warm-up). */
async function decisions(d: CoordDaemon, extra: Record<string, unknown>) {
  const bodies = agents.map((a, i) =>
    JSON.stringify({ agent: a, board: 'bench', paths: [fileOf(HOLDS + i)], ...extra }),
  );
  const r = await measureLatency({
    url: d.url,
    paths: ['/v1/locks/decide'],
    method: 'POST',
    requests: READS,
    warmup: AGENTS,
    ok: [200],
    headers: d.headers,
    bodies,
  });
  if (r.errors > 0) throw new Error(`${r.errors} failed decisions`);
  return { value: r.p50_ms, extra: { p99_ms: r.p99_ms } };
}

export default defineScenario({
  name: `decide an edit with ${HOLDS} change holds of another work tree vs with none`,
  metric: 'p50 latency',
  unit: 'ms',
  better: 'lower',
  target: { kind: 'ratio_to_floor_max', value: 1.2 },
  note: `${READS} decisions per round on one keep-alive connection, ${AGENTS} agents in work tree B re-editing the file each holds while work tree A holds ${HOLDS} paths until merged (a ${FILES}-file repository, real git); the floor is the same decisions on a board with no repository and no holds`,
  setup: async () => {
    dir = realpathSync(tempDir('coord-bench-holds-'));
    buildRepo();
  },
  teardown: async () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  },
  contenders: {
    coord: async () => {
      const d = await startCoordDaemon();
      try {
        // A's locks end with their paths pending: each becomes a hold of work tree A.
        for (let i = 0; i < HOLDS; i++) {
          const l = await call(d, 'POST', '/v1/locks', {
            agent: 'holder',
            board: 'bench',
            resources: [fileOf(i)],
            worktree: wtA,
          });
          await call(d, 'DELETE', `/v1/locks/${l.lock_id}?agent=holder`);
        }
        const { locks } = await call(d, 'GET', '/v1/locks?board=bench');
        const holds = locks.filter((l: { hold: unknown }) => l.hold).length;
        if (holds !== HOLDS) throw new Error(`expected ${HOLDS} holds, found ${holds}`);
        const r = await decisions(d, { worktree: wtB });
        return { value: r.value, extra: { ...r.extra, holds } };
      } finally {
        await d.stop();
      }
    },
    floor: async () => {
      const d = await startCoordDaemon();
      try {
        return await decisions(d, {});
      } finally {
        await d.stop();
      }
    },
  },
});
