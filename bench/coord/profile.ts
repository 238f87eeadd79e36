/**
 * Profiles coord under one scenario's load and prints the frames with the most self
 * time (not part of `npm run bench`; see bench/README.md, "Profiling a miss").
 *
 *   node --import tsx bench/coord/profile.ts claim-http     # daemon under 50-connection claim-next
 *   node --import tsx bench/coord/profile.ts claim-latency  # daemon under 1-connection claims
 *   node --import tsx bench/coord/profile.ts inbox          # daemon under empty inbox polls
 *   node --import tsx bench/coord/profile.ts claim-next     # SqliteStore.claimNext in process
 *   node --import tsx bench/coord/profile.ts cycle          # post + claim + submit through the operations
 *
 * The daemon runs from dist/ with --cpu-prof; profiles land in bench/.cache/prof/<name>/.
 */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { seededTemplate } from '../floors/sqlite-claim-loop.js';
import { repoPath } from '../lib/child.js';
import { topFrames } from '../lib/cpu-profile.js';
import { measureLatency } from '../lib/latency-client.js';
import { freshCopy, tempDir } from '../lib/template-db.js';
import { loadClaims } from '../scenarios/claim-next-http.js';
import { AGENT_NAMES } from '../scenarios/empty-inbox-http.js';
import { runCoordClaims } from './claim-next.js';
import { startCoordDaemon } from './daemon.js';
import { runCoordCycle } from './job-cycle.js';
import { coordSchema } from './schema.js';

const what = process.argv[2] ?? 'claim-http';
const dir = repoPath(`bench/.cache/prof/${what}`);
rmSync(dir, { recursive: true, force: true });
const prof = ['--cpu-prof', `--cpu-prof-dir=${dir}`];

async function daemonUnder(dbFile: string, load: (url: string, headers: Record<string, string>) => Promise<unknown>) {
  const d = await startCoordDaemon({ dbFile, nodeArgs: prof });
  try {
    await load(d.url, d.headers);
  } finally {
    await d.stop();
  }
}

if (what === 'claim-http') {
  const tpl = await seededTemplate([{ rows: 100_000 }], coordSchema());
  await daemonUnder(tpl, (url, h) => loadClaims(`${url}/v1/claim`, '{"agent":"bench-agent"}', h));
} else if (what === 'claim-latency') {
  const tpl = await seededTemplate([{ rows: 100_000 }], coordSchema());
  await daemonUnder(tpl, (url, headers) =>
    measureLatency({ url, paths: ['/v1/claim'], method: 'POST', body: '{"agent":"a-{i}"}', requests: 5000, headers }),
  );
} else if (what === 'inbox') {
  const tpl = await seededTemplate([{ rows: 10_000, state: 'completed', agents: 500 }], coordSchema());
  await daemonUnder(tpl, (url, headers) =>
    measureLatency({ url, paths: AGENT_NAMES.map((a) => `/v1/inbox?agent=${a}`), requests: 8000, headers }),
  );
} else if (what === 'claim-next') {
  const tpl = await seededTemplate([{ rows: 100_000 }], coordSchema());
  const db = freshCopy(tpl);
  try {
    console.log('claims/s', await runCoordClaims({ path: db.path, claims: 30_000, warmup: 500 }, prof));
  } finally {
    db.cleanup();
  }
} else if (what === 'cycle') {
  const t = tempDir();
  try {
    console.log('jobs/s', await runCoordCycle({ path: join(t, 'cycle.sqlite'), jobs: 8_000 }, prof));
  } finally {
    rmSync(t, { recursive: true, force: true });
  }
} else {
  console.error(`unknown profile "${what}"`);
  process.exit(2);
}

// The main thread's profile is the biggest one (tsx adds a mostly idle loader thread).
const files = readdirSync(dir)
  .map((f) => join(dir, f))
  .sort((a, b) => statSync(b).size - statSync(a).size);
if (!files[0]) throw new Error(`no profile written to ${dir}`);
console.log(`${files[0]}\n`);
for (const f of topFrames(files[0], 30)) console.log(`${String(f.share).padStart(5)} %  ${f.self_ms} ms  ${f.frame}`);
process.exit(0);
