/** Real git repositories with real linked work trees, for the tests of SPEC §5's one board per repository. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/ctx.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd, stdio: 'pipe' });

export interface Repo {
  /** The main work tree. */
  main: string;
  /** Linked work trees (`git worktree add`). */
  linked: string[];
}

/** A repository with one commit holding src/a.ts, and `linked` work trees beside it. */
export function repoWithWorktrees(linked = 2): Repo {
  const top = realpathSync(tempDir('coord-wt-'));
  const main = join(top, 'project');
  mkdirSync(join(main, 'src'), { recursive: true });
  writeFileSync(join(main, 'src', 'a.ts'), 'export const a = 1;\n');
  git(main, 'init', '-q', '-b', 'main');
  git(main, 'add', '.');
  git(main, 'commit', '-q', '-m', 'init');
  const trees = Array.from({ length: linked }, (_, i) => {
    const dir = join(top, `project-wt${i + 1}`);
    git(main, 'worktree', 'add', '-q', '-b', `wt${i + 1}`, dir);
    return dir;
  });
  return { main, linked: trees };
}

/** A bare repository `repo.git` with one linked work tree. */
export function bareRepoWithWorktree(): { bare: string; tree: string } {
  const top = realpathSync(tempDir('coord-bare-'));
  const seed = join(top, 'seed');
  mkdirSync(seed);
  writeFileSync(join(seed, 'x.txt'), 'x\n');
  git(seed, 'init', '-q', '-b', 'main');
  git(seed, 'add', '.');
  git(seed, 'commit', '-q', '-m', 'init');
  const bare = join(top, 'repo.git');
  git(top, 'clone', '-q', '--bare', seed, bare);
  const tree = join(top, 'repo-main');
  git(bare, 'worktree', 'add', '-q', tree, 'main');
  return { bare, tree };
}
