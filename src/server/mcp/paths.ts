/**
 * SPEC §5: file paths given over MCP are made relative to the session's
 * repository root. An absolute path inside the root is accepted; one outside
 * it is refused, so one agent cannot lock another repository's files.
 * Relative paths are already repo-relative: core normalises them (core/paths.ts).
 */
import { isAbsolute } from 'node:path';
import { CoordError } from '../../core/errors.js';
import { treeRelative } from '../../state-dir/board-name.js';

/**
 * An absolute path becomes relative to the root of the work tree it is in (any work tree of the
 * session's repository: the same file in two worktrees is one resource), else to the session's root.
 */
export function toRepoPath(root: string | null, path: string): string {
  if (!isAbsolute(path)) return path;
  if (root === null) throw refused(path, 'this session has no repository root — give paths relative to the repository');
  const key = treeRelative(path, root);
  if (key === null) throw refused(path, `it is outside the repository ${root}`);
  return key;
}

/** Each string of `files` made repo-relative; anything else is left for the schema to reject. */
export function toRepoPaths(root: string | null, files: unknown): unknown {
  return Array.isArray(files) ? files.map((f) => (typeof f === 'string' ? toRepoPath(root, f) : f)) : files;
}

const refused = (path: string, why: string) =>
  new CoordError('invalid_request', `cannot use "${path}": ${why}`, { issues: [{ path: 'files', message: why }] });
