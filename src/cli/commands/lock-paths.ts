/**
 * The CLI's paths become repository-relative lock keys (as `coord mcp` does
 * for agents): `coord lock a.ts` in `repo/src` locks `src/a.ts`, so a human
 * and an agent reach the same key for the same file. An existing directory
 * gains its trailing slash. Outside a git repository, paths are relative to
 * the working directory.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { CliError } from '../../client/daemon-client.js';
import { findRepoRoot, treeRelative } from '../../state-dir/board-name.js';

const isDir = (path: string): boolean => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

export function repoRelative(paths: string[], cwd: string): string[] {
  const root = findRepoRoot(cwd) ?? cwd;
  return paths.map((p) => {
    const abs = resolve(cwd, p);
    const rel = treeRelative(abs, root);
    if (rel === null) {
      throw new CliError('invalid_request', `${p} is outside ${root} — lock paths inside the repository`);
    }
    if (rel === '.' || rel === './') return './';
    const key = rel.replace(/\/$/, '');
    return p.endsWith('/') || isDir(abs) ? `${key}/` : key;
  });
}

/** SPEC §14: a command run inside a work tree acts from that work tree, as an MCP session does. */
export function cwdTree(cwd: string = process.cwd()): { worktree?: string } {
  const root = findRepoRoot(cwd);
  return root ? { worktree: root } : {};
}
