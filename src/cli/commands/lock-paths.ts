/**
 * The CLI's paths become repository-relative lock keys (as `coord mcp` does
 * for agents): `coord lock a.ts` in `repo/src` locks `src/a.ts`, so a human
 * and an agent reach the same key for the same file. An existing directory
 * gains its trailing slash. Outside a git repository, paths are relative to
 * the working directory. Keys are what the files are on disk (SPEC §10, one
 * file, one key): symlinks followed, NFC, case folded where the file system
 * folds it. A file in a submodule or a nested repository is that
 * repository's, on its board — the board its edits are checked on. A
 * `kind:name` key (`port:5173`) is never a path (SPEC §14).
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { CliError } from '../../client/daemon-client.js';
import { isKindKey } from '../../core/edits/paths.js';
import { findRepoRoot, placePath } from '../../state-dir/board-name.js';

const isDir = (path: string): boolean => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

export interface RepoKeys {
  keys: string[];
  /** Set when every path is in one other repository (a submodule, a nested one): the board they belong on. */
  board?: string;
}

export function repoKeys(paths: string[], cwd: string): RepoKeys {
  const root = findRepoRoot(cwd) ?? cwd;
  const boards = new Set<string>();
  const keys = paths.map((p) => {
    // SPEC §14: `port:5173`, `db:dev` name no file: kept as spelt wherever the command runs.
    if (isKindKey(p)) {
      boards.add('');
      return p;
    }
    const abs = resolve(cwd, p);
    const placed = placePath(p.endsWith('/') ? `${abs}/` : abs, root);
    if (placed.kind === 'outside') {
      throw new CliError('invalid_request', `${p} is outside ${root} — lock paths inside the repository`);
    }
    const rel = placed.kind === 'here' ? placed.key : placed.at.key;
    if (placed.kind === 'elsewhere') boards.add(placed.at.board);
    else boards.add('');
    if (rel === '.' || rel === './') return './';
    const key = rel.replace(/\/$/, '');
    return p.endsWith('/') || isDir(abs) ? `${key}/` : key;
  });
  if (boards.size > 1) {
    throw new CliError(
      'invalid_request',
      'these paths are in different repositories (a submodule or nested repository is its own board) — lock each repository’s files with its own coord lock',
    );
  }
  const [board] = boards;
  return board ? { keys, board } : { keys };
}

/** The keys of paths that must all be in this repository (a claim's files go on the task's board). */
export function repoRelative(paths: string[], cwd: string): string[] {
  const located = repoKeys(paths, cwd);
  if (located.board) {
    throw new CliError(
      'invalid_request',
      `${paths.join(' ')} ${paths.length > 1 ? 'are' : 'is'} in another repository (board ${located.board}) — its files are locked on that board`,
    );
  }
  return located.keys;
}

/** SPEC §14: a command run inside a work tree acts from that work tree, as an MCP session does. */
export function cwdTree(cwd: string = process.cwd()): { worktree?: string } {
  const root = findRepoRoot(cwd);
  return root ? { worktree: root } : {};
}
