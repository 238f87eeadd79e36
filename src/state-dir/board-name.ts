import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** The git work tree containing `cwd`, found by walking up to a `.git` entry; null outside any repository. */
export function findRepoRoot(cwd: string): string | null {
  let dir = cwd;
  for (;;) {
    if (existsSync(join(dir, '.git'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/**
 * SPEC §5: the board of an agent working in a repository is the name of its
 * top-level folder plus a short hash of its path — two agents in one repo
 * share a board, two repos never collide.
 */
export function boardForRepo(root: string): string {
  const name =
    basename(root)
      .replace(/[^A-Za-z0-9._-]/g, '-')
      .slice(0, 48) || 'repo';
  return `${name}-${createHash('sha256').update(root).digest('hex').slice(0, 6)}`;
}

export function resolveBoard(flag: string | undefined, env: NodeJS.ProcessEnv, cwd: string): string {
  if (flag) return flag;
  if (env.COORD_BOARD) return env.COORD_BOARD;
  const root = findRepoRoot(cwd);
  return root ? boardForRepo(root) : 'default';
}
