/**
 * SPEC §10 "A live daemon's answer is never down" and §14 "the work tree of an edit is the path's": what an
 * edit asks the daemon, computed once for every door (the command hooks, the `mcp_tool` tool, the daemon's
 * shell looks). The paths of one edit become lock keys grouped by board and by the work tree each path lies
 * in, each group cut into requests the daemon accepts (never a path skipped), and a daemon's refusal is worded
 * as a refusal of the edit; the daemon's decisions on an edit's requests become one answer (`decideEdits`), the
 * same for every door — each door only puts it in its client's words. Pure; imports only paths.ts, names.ts and
 * edit-decision.ts (the command hooks load it).
 */

import { isAgentName } from '../shared/names.js';
import { type ConflictLine, conflictReason } from './edit-decision.js';
import { isKindKey, MAX_RESOURCE_CHARS, normaliseResource } from './paths.js';

/** Keys per decide_edit request (schemas.ts's ResourceList takes this many): a larger edit is several requests. */
export const MAX_KEYS_PER_REQUEST = 256;

/**
 * The lock key of a repository-relative path, never skipped for its length: a key longer than a store keeps
 * is decided as the deepest folder around it that fits (a directory lock covers its files at any depth, so
 * a lock on `lib/` still refuses it, and the auto-lock taken covers the file). Null for what names no file
 * (the repository root, a path climbing out of it).
 */
export function editKey(rel: string): string | null {
  const n = normaliseResource(rel);
  if (n.ok) return n.key;
  const nfc = rel.normalize('NFC');
  if (nfc.length <= MAX_RESOURCE_CHARS || isKindKey(nfc) || nfc.includes('\0')) return null;
  // Too long: cut the key as normaliseResource would make it at a folder (an absolute path stays refused).
  const path = nfc.replaceAll('\\', '/');
  if (path.startsWith('/') || /^[A-Za-z]:\//.test(path)) return null;
  const kept: string[] = [];
  for (const s of path.split('/')) {
    if (s === '' || s === '.') continue;
    if (s !== '..') kept.push(s);
    else if (kept.pop() === undefined) return null;
  }
  let key = '';
  for (const s of kept.slice(0, -1)) {
    if (key.length + s.length + 1 > MAX_RESOURCE_CHARS) break;
    key += `${s}/`;
  }
  return key === '' ? null : key;
}

/** One located path of an edit: its board, the work tree it lies in, and its key relative to that tree. */
export interface LocatedPath {
  board: string;
  tree: string;
  key: string;
}

/** One decide_edit request: keys of one board and one work tree, at most MAX_KEYS_PER_REQUEST of them. */
export interface EditRequest {
  board: string;
  /** The work tree the paths lie in: the auto-lock is that tree's. */
  worktree: string;
  /** The agent's session does not work in that tree: its holds block the edit as anyone's (SPEC §14). */
  outside: boolean;
  paths: string[];
}

/**
 * The requests of one edit: per board and per work tree of the paths (the work tree of an edit is the path's,
 * not the session's), each cut into requests of at most MAX_KEYS_PER_REQUEST keys. `sessionTree`: the work
 * tree the agent's session works in (null: none).
 */
export function editRequests(
  located: LocatedPath[],
  sessionTree: string | null,
  fixedBoard?: string | undefined,
): EditRequest[] {
  const groups = new Map<string, { board: string; tree: string; keys: string[] }>();
  for (const at of located) {
    const key = editKey(at.key);
    if (key === null) continue;
    const board = fixedBoard || at.board;
    const id = `${board}\0${at.tree}`;
    const g = groups.get(id) ?? { board, tree: at.tree, keys: [] };
    if (!g.keys.includes(key)) g.keys.push(key);
    groups.set(id, g);
  }
  const out: EditRequest[] = [];
  for (const g of groups.values())
    for (let i = 0; i < g.keys.length; i += MAX_KEYS_PER_REQUEST)
      out.push({
        board: g.board,
        worktree: g.tree,
        outside: g.tree !== sessionTree,
        paths: g.keys.slice(i, i + MAX_KEYS_PER_REQUEST),
      });
  return out;
}

/** An agent name the daemon refuses (`bob smith`, `bøb`, a tab): the edit is refused with this, before asking. */
export function badAgentReason(agent: string): string | null {
  if (isAgentName(agent)) return null;
  return `invalid_request: coord does not accept the agent name ${JSON.stringify(agent)} (1–64 characters of A-Z a-z 0-9 . _ : # @ / -) — set COORD_AGENT to such a name (or unset it); edits are refused until then`;
}

/**
 * A live daemon's answer that is not a decision (a 4xx or 5xx): a refusal of the edit naming why — never
 * "daemon down" (only a daemon that does not answer is down).
 */
export function refusalReason(status: number, body: unknown, what = 'edit'): string {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  const code = typeof error?.code === 'string' ? error.code : `http_${status}`;
  const message = typeof error?.message === 'string' ? `: ${error.message}` : '';
  return `${code}: the coord daemon refused to check this ${what}${message} — the ${what} is refused (coord never lets one through unchecked while it runs)`;
}

/** What deciding one request answered: decide_edit's answer (core/ops/decide-edit.ts), or a refusal of it. */
export interface EditDecision {
  decision: 'allow' | 'deny';
  reason?: string | null | undefined;
  conflicts: ConflictLine[];
  /** Allow: changes not merged yet in another work tree that no hold covers (SPEC §14); absent from older daemons. */
  warning?: string | null | undefined;
}

/** A daemon's HTTP answer to one request (the command hooks): a 200 decision, else a refusal of the edit. */
export function decisionOf(status: number, body: unknown, what = 'edit'): EditDecision {
  const d = body as EditDecision | null;
  if (status === 200 && d?.decision) return d;
  return { decision: 'deny', reason: refusalReason(status, body, what), conflicts: [] };
}

/** The daemon's own refusal of a request (an in-process door: a CoordError's code and message) as a decision. */
export const refusedDecision = (error: { code: string; message: string }): EditDecision => ({
  decision: 'deny',
  reason: refusalReason(0, { error: { code: error.code, message: error.message } }),
  conflicts: [],
});

/** The one answer to an edit: refused (`denied`, the reason the model reads), or allowed with `note`s, or plainly. */
export interface EditAnswer {
  denied: string | null;
  note: string | null;
  decisions: EditDecision[];
}

const isHold = (c: ConflictLine): boolean => (c as { hold?: boolean }).hold === true;

/**
 * Every request of an edit decided (`decide`: the door's way to the daemon, which never throws for a refusal),
 * as one answer: plain conflicts of several requests read as one `lock_conflict` line; other refusals (a hold, a
 * daemon's refusal) each say their own; an allowed edit carries the warnings once each (SPEC §14).
 */
export async function decideEdits<R>(requests: R[], decide: (r: R) => Promise<EditDecision>): Promise<EditAnswer> {
  const decisions: EditDecision[] = [];
  for (const r of requests) decisions.push(await decide(r));
  const denied = decisions.filter((d) => d.decision === 'deny');
  if (denied.length === 0) {
    const notes = [...new Set(decisions.flatMap((d) => (d.warning ? [d.warning] : [])))];
    return { denied: null, note: notes.length > 0 ? notes.join('\n') : null, decisions };
  }
  const plain = denied.length > 1 && denied.every((d) => d.conflicts.length > 0 && !d.conflicts.some(isHold));
  const reasons = denied.map((d) => d.reason ?? conflictReason(d.conflicts));
  const reason = plain ? conflictReason(denied.flatMap((d) => d.conflicts)) : [...new Set(reasons)].join('\n');
  return { denied: reason, note: null, decisions };
}
