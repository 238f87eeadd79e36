/**
 * SPEC §15: 50 independent one-commit tasks integrated by coord's integrator (in process, SQLite, no
 * check) against a bare shell loop of `git merge-tree --write-tree` + `commit-tree` + `update-ref` over
 * the same 50 branches. Each side gets a fresh repository of the same shape (main not checked out: the
 * floor updates no work tree either). Runs under tsx (it imports src/).
 *
 *   { dir, how: 'coord' | 'floor', tasks } → ms for all tasks
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { invoke } from '../../src/core/invoke.js';
import { operations as op } from '../../src/core/operations.js';
import { Presence } from '../../src/core/presence.js';
import { ManualClock } from '../../src/core/shared/clock.js';
import { Integrator } from '../../src/git/integrator.js';
import { boardInProcess } from '../../src/server/integrate/board-in-process.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { childMain, runChild } from '../lib/child.js';

export const FILE = 'bench/coord/integrate-queue.ts';

interface Args {
  dir: string;
  how: 'coord' | 'floor';
  tasks: number;
  /** The speculative window (SPEC §15): `--check CMD` run with `--window N`. */
  check?: { command: string; window: number };
  /** This task also adds the file `red`, which the check may refuse. */
  red?: number;
}

export const runIntegrateQueue = (a: Args): Promise<number> => runChild<number>(FILE, a, { timeoutMs: 300_000 });

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'b',
  GIT_AUTHOR_EMAIL: 'b@example.com',
  GIT_COMMITTER_NAME: 'b',
  GIT_COMMITTER_EMAIL: 'b@example.com',
};
const git = (cwd: string, args: string[], input?: string) =>
  execFileSync('git', args, { cwd, env: GIT_ENV, input, encoding: 'utf8' }).trim();

/** A repository with main (one commit) and `n` branches t-0… each adding its own file; HEAD elsewhere. */
function repository(dir: string, n: number, red?: number): { repo: string; heads: string[] } {
  const repo = join(dir, 'repo');
  mkdirSync(repo);
  git(repo, ['init', '-q', '-b', 'main']);
  writeFileSync(join(repo, 'README'), 'bench\n');
  git(repo, ['add', '.']);
  git(repo, ['commit', '-q', '-m', 'init']);
  git(repo, ['checkout', '-q', '-b', 'elsewhere']);
  const from = git(repo, ['rev-parse', 'main']);
  let stream = '';
  for (let i = 0; i < n; i++) {
    const msg = `task ${i}\n`;
    const text = `file ${i}\n`;
    const marker = i === red ? 'M 644 inline red\ndata 4\nred\n' : '';
    stream += `commit refs/heads/t-${i}\ncommitter b <b@example.com> 1700000000 +0000\ndata ${msg.length}\n${msg}from ${from}\nM 644 inline f/${i}.txt\ndata ${text.length}\n${text}${marker}\n`;
  }
  git(repo, ['fast-import', '--quiet'], stream);
  const heads = Array.from({ length: n }, (_, i) => git(repo, ['rev-parse', `t-${i}`]));
  return { repo, heads };
}

childMain<Args>(FILE, async (a) => {
  const { repo, heads } = repository(a.dir, a.tasks, a.red);
  if (a.how === 'floor') {
    const script = `for b in ${heads.map((_, i) => `t-${i}`).join(' ')}; do
  old=$(git rev-parse refs/heads/main)
  tree=$(git merge-tree --write-tree main "$b") || exit 1
  c=$(git commit-tree "$tree" -p "$old" -p "$b" -m "merge $b")
  git update-ref refs/heads/main "$c" "$old"
done`;
    const t0 = performance.now();
    execFileSync('sh', ['-c', script], { cwd: repo, env: GIT_ENV });
    return performance.now() - t0;
  }
  const store = new SqliteStore({ path: join(a.dir, 'coord.db') });
  const ctx = { store, clock: new ManualClock(), presence: new Presence() };
  for (const [i, head] of heads.entries()) {
    const { task } = await invoke(op.createTask, ctx, { agent: 'planner', board: 'b', title: `task ${i}` });
    const grant = await invoke(op.claimTask, ctx, { task_id: task.id, agent: 'w' });
    await invoke(op.submitResult, ctx, { task_id: task.id, claim_id: grant.claim_id, status: 'completed', agent: 'w' });
    await invoke(op.queueIntegration, ctx, { task_id: task.id, branch: `t-${i}`, head });
  }
  const integrator = new Integrator(boardInProcess(ctx), {
    board: 'b',
    repo,
    target: 'main',
    stateDir: join(a.dir, 'state'),
    holder: 'bench',
    ...(a.check ? { check: { command: a.check.command, timeoutMs: 600_000 }, window: a.check.window } : {}),
  });
  const t0 = performance.now();
  for (;;) if ((await integrator.turn()).progressed === 0) break;
  const ms = performance.now() - t0;
  const merged = git(repo, ['rev-list', '--count', 'main']);
  if (a.red === undefined && Number(merged) !== 1 + 2 * a.tasks - 1)
    throw new Error(`main has ${merged} commits, expected ${2 * a.tasks}`);
  await store.close();
  return ms;
});
