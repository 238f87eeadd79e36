/**
 * SPEC §14's rules over data (no git here): what a hold says to the agent it
 * blocks, and which keys of a hold are still pending in its work tree.
 */
import { overlaps } from '../edits/paths.js';
import type { LockConflict } from '../ports.js';
import type { HoldTrim } from './worktree-ports.js';

/** `../wt-b` from the caller's work tree, else the path as it is. */
export function shortTree(tree: string, from: string | null): string {
  if (!from) return tree;
  const a = from.split('/').filter(Boolean);
  const b = tree.split('/').filter(Boolean);
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (i === 0) return tree;
  const up = a.length - i;
  const rel = [...Array(up).fill('..'), ...b.slice(i)].join('/');
  return rel === '' ? '.' : up === 0 ? `./${rel}` : rel;
}

const clock = (isoTime: string): string => isoTime.slice(11, 19);

/**
 * One line per conflict: a lock says who holds it until when; a hold says the path has changes not merged
 * yet in which work tree, on which branch, for which task, by whom.
 */
export function conflictLine(c: LockConflict & { branch?: string | null }, from: string | null): string {
  const as = c.held === c.resource ? '' : ` (as ${c.held})`;
  if (c.hold && c.worktree) {
    const who = [
      c.branch ? `branch ${c.branch}` : null,
      c.task_id ? `task #${c.task_id} by ${c.holder}` : `by ${c.holder}`,
    ].filter(Boolean);
    return `${c.resource}${as} has changes not merged yet in worktree ${shortTree(c.worktree, from)} (${who.join(', ')})`;
  }
  return `${c.resource} is held by ${c.holder}${as} until ${clock(c.lease_until)} UTC${c.task_id ? `, task #${c.task_id}` : ''}`;
}

export const holdAdvice =
  'edit something else, or wait until that work is merged (coord changes shows it); a person can end a hold with coord unlock --force';

/**
 * The keys of each hold still pending in its work tree; a hold whose tree is gone keeps nothing. An ended
 * lock (`ended`) is always answered: its pending keys become the hold, with none it ends (SPEC §14: a lock
 * becomes a hold only of paths that are pending).
 */
export function holdTrims(
  holds: { lock_id: string; worktree: string; resources: string[]; ended?: boolean }[],
  pending: Map<string, string[] | null>,
): HoldTrim[] {
  const out: HoldTrim[] = [];
  for (const h of holds) {
    const paths = pending.get(h.worktree);
    if (paths === undefined) continue;
    if (paths === null) {
      out.push({ lock_id: h.lock_id, keep: [], reason: 'worktree_gone' });
      continue;
    }
    // A `kind:name` key is never pending: it stays a hold no longer than the lock it was.
    const keep = h.resources.filter((r) => !isResource(r) && paths.some((p) => overlaps(r, p)));
    if (h.ended || keep.length < h.resources.length) out.push({ lock_id: h.lock_id, keep, reason: 'merged' });
  }
  return out;
}

/** `kind:name` keys (port:5173, db:dev) are not paths: git never says they are merged. */
export const isResource = (key: string): boolean => /^[a-z][a-z0-9_-]*:/.test(key) && !key.includes('/');
