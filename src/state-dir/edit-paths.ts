/**
 * SPEC §10, §14: an edit's paths as the requests every door asks the daemon (core/edit-request.ts) — the
 * command hooks, the plugins (the same hooks in process) and the `decide_edit` MCP tool. Each path is located on
 * disk (board, work tree, key relative to that tree; outside every repository, none) in both spellings: as spelt
 * (`..` after a symlinked folder climbs from its target, as the OS reads it) and lexically resolved (as clients
 * that normalise paths read it) — both keys are decided. Node's fs and path only (the command hooks load it).
 */
import { isAbsolute, resolve } from 'node:path';
import { type EditRequest, editRequests, type LocatedPath } from '../core/edit-request.js';
import { findWorkTree, locatePath } from './board-name.js';

/**
 * The requests of the edit of `paths` (relative ones from `base`), by an agent whose session works in
 * `sessionDir`'s work tree (null: none); `board` fixes the board of every path ($COORD_BOARD).
 */
export function editRequestsOf(
  paths: readonly string[],
  base: string,
  sessionDir: string | null,
  board?: string | undefined,
): EditRequest[] {
  const located: LocatedPath[] = [];
  for (const p of paths)
    for (const abs of [isAbsolute(p) ? p : `${base}/${p}`, resolve(base, p)]) {
      const at = locatePath(abs);
      if (at) located.push({ board: at.board, tree: at.tree.root, key: at.key });
    }
  return editRequests(located, sessionDir === null ? null : (findWorkTree(sessionDir)?.root ?? null), board);
}
