/**
 * SPEC §5: file paths given over MCP are made relative to the session's
 * repository root. An absolute path inside the root is accepted; one outside
 * it is refused, so one agent cannot lock another repository's files.
 * Relative paths are already repo-relative: core normalises them (core/edits/paths.ts).
 */
import { isAbsolute, resolve } from 'node:path';
import { isKindKey } from '../../core/edits/paths.js';
import { CoordError } from '../../core/errors.js';
import { placePath } from '../../state-dir/board-name.js';

/**
 * An absolute path becomes relative to the root of the work tree it is in (any work tree of the
 * session's repository: the same file in two worktrees is one resource), else to the session's root.
 */
export function toRepoPath(root: string | null, path: string): string {
  if (isKindKey(path)) return path;
  if (!isAbsolute(path)) {
    if (root === null) return path;
    // A relative path is read from the root as the file system would (symlinks, NFC, case): one file, one key.
    const placed = placePath(`${resolve(root, path)}${/[\\/]$/.test(path) ? '/' : ''}`, root);
    if (placed.kind === 'here') return placed.key;
    if (placed.kind === 'outside') return path; // climbs out: core refuses it with its own words
    throw elsewhere(path, placed.at.tree.root, placed.at.board);
  }
  if (root === null) throw refused(path, 'this session has no repository root — give paths relative to the repository');
  const placed = placePath(path, root);
  if (placed.kind === 'outside') throw refused(path, `it is outside the repository ${root}`);
  if (placed.kind === 'elsewhere') throw elsewhere(path, placed.at.tree.root, placed.at.board);
  return placed.key;
}

/** A submodule's or nested repository's files are locked on its own board, where its edits are checked. */
const elsewhere = (path: string, root: string, board: string) =>
  refused(
    path,
    `it is in another repository (${root}, board ${board}) — its files are locked on that board: run coord lock there`,
  );

/** Each string of `files` made repo-relative; anything else is left for the schema to reject. */
export function toRepoPaths(root: string | null, files: unknown): unknown {
  return Array.isArray(files) ? files.map((f) => (typeof f === 'string' ? toRepoPath(root, f) : f)) : files;
}

const refused = (path: string, why: string) =>
  new CoordError('invalid_request', `cannot use "${path}": ${why}`, { issues: [{ path: 'files', message: why }] });
