/**
 * SPEC §14: `coord changes` over the work trees of a 10,000-file repository, against a bare loop of
 * `git status --porcelain=v2 -z` + `git diff --name-only -z BASE HEAD` over the same trees. Runs under tsx.
 *
 *   build(dir)                        → a repository with `trees` linked work trees, each with commits and edits
 *   { dir, how, repeats }             → ms per answer (median of repeats)
 *
 * coord: the list_changes operation in process (SQLite store, the real GitRepos). Each repeat drops the
 * cached statuses first, so every answer runs `git status` in every work tree as the floor does; what
 * depends only on HEAD and the target's tip (merge base, ahead/behind, committed paths) stays cached, as in
 * the daemon.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { invoke } from '../../src/core/invoke.js';
import { operations as op } from '../../src/core/operations.js';
import { Presence } from '../../src/core/presence.js';
import { systemClock } from '../../src/core/shared/clock.js';
import { GitRepos } from '../../src/git/git-repos.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { childMain, runChild } from '../lib/child.js';
import { median } from '../lib/stats.js';

export const FILE = 'bench/coord/changes.ts';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@e', ...args], { cwd, stdio: 'pipe' });

/** A repository of `files` files in 100 folders, and `trees` linked work trees each 3 commits and 2 edits ahead. */
export function buildRepo(dir: string, files: number, trees: number): { main: string; trees: string[] } {
  const main = join(dir, 'repo');
  for (let i = 0; i < files; i++) {
    const folder = join(main, 'src', `d${i % 100}`);
    if (i < 100) mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `f${i}.ts`), `export const v${i} = ${i};\n`);
  }
  git(main, 'init', '-q', '-b', 'main');
  git(main, 'add', '.');
  git(main, 'commit', '-qm', 'seed');
  const linked: string[] = [];
  for (let t = 0; t < trees; t++) {
    const tree = join(dir, `wt${t}`);
    git(main, 'worktree', 'add', '-q', '-b', `feat${t}`, tree);
    for (let c = 0; c < 3; c++) {
      writeFileSync(join(tree, 'src', `d${c}`, `f${c + 100 * t}.ts`), `export const changed${t}${c} = 1;\n`);
      git(tree, 'commit', '-qam', `change ${c}`);
    }
    writeFileSync(join(tree, 'src', 'd50', `f${50 + 100 * t}.ts`), 'edited\n');
    writeFileSync(join(tree, `new${t}.ts`), 'new\n');
    linked.push(tree);
  }
  return { main, trees: linked };
}

interface Args {
  dir: string;
  main: string;
  trees: string[];
  how: 'coord' | 'floor';
  repeats: number;
}

export const runChanges = (a: Args): Promise<number> => runChild<number>(FILE, a, { timeoutMs: 300_000 });

const gitOut = (cwd: string, args: string[]): Promise<string> =>
  new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd, stdio: ['ignore', 'pipe', 'ignore'] });
    const out: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.on('error', reject);
    child.on('close', () => resolve(Buffer.concat(out).toString('utf8')));
  });

childMain<Args>(FILE, async (a) => {
  const times: number[] = [];
  if (a.how === 'floor') {
    const bases = new Map<string, string>();
    for (const t of a.trees) bases.set(t, (await gitOut(t, ['merge-base', 'main', 'HEAD'])).trim());
    for (let r = 0; r < a.repeats; r++) {
      const t0 = performance.now();
      for (const t of [a.main, ...a.trees]) {
        await gitOut(t, ['status', '--porcelain=v2', '-z']);
        await gitOut(t, ['diff', '--name-only', '-z', bases.get(t) ?? 'HEAD', 'HEAD']);
      }
      times.push(performance.now() - t0);
    }
    return median(times);
  }
  const store = new SqliteStore({ path: join(a.dir, 'coord.db') });
  const gitPort = new GitRepos();
  const ctx = { store, clock: systemClock, presence: new Presence(), git: gitPort };
  try {
    const input = { board: 'bench', worktree: a.main };
    await invoke(op.listChanges, ctx, input);
    for (let r = 0; r < a.repeats; r++) {
      gitPort.invalidate();
      const t0 = performance.now();
      const out = await invoke(op.listChanges, ctx, input);
      times.push(performance.now() - t0);
      if (out.worktrees.length !== a.trees.length + 1) throw new Error(`saw ${out.worktrees.length} work trees`);
    }
  } finally {
    await store.close();
  }
  return median(times);
});
