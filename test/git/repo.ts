/** Real repositories for the integration queue's tests (SPEC §15): a main work tree on `main`, linked ones per agent. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tempDir } from '../support/ctx.js';

export const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=person', '-c', 'user.email=p@example.com', ...args], {
    cwd,
    stdio: 'pipe',
    encoding: 'utf8',
  }).trim();

export interface TestRepo {
  top: string;
  /** The main work tree, with `main` checked out. */
  main: string;
  /** Adds a linked work tree on a new branch from `main`; answers its path. */
  worktree(branch: string): string;
  /** Writes files in a work tree and commits them; answers the new commit. */
  commit(dir: string, files: Record<string, string>, message: string): string;
  rev(ref: string): string;
  /** The commits reachable from `ref`, newest first. */
  history(ref: string): string[];
}

export function testRepo(files: Record<string, string> = { 'src/a.ts': 'export const a = 1;\n' }): TestRepo {
  const top = realpathSync(tempDir('coord-int-'));
  const main = join(top, 'project');
  mkdirSync(main, { recursive: true });
  git(main, 'init', '-q', '-b', 'main');
  const commit = (dir: string, fs: Record<string, string>, message: string) => {
    for (const [path, text] of Object.entries(fs)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '--allow-empty', '-m', message);
    return git(dir, 'rev-parse', 'HEAD');
  };
  commit(main, files, 'init');
  return {
    top,
    main,
    worktree(branch) {
      const dir = join(top, `wt-${branch.replace(/\//g, '-')}`);
      git(main, 'worktree', 'add', '-q', '-b', branch, dir, 'main');
      return dir;
    },
    commit,
    rev: (ref) => git(main, 'rev-parse', ref),
    history: (ref) => git(main, 'rev-list', ref).split('\n').filter(Boolean),
  };
}
