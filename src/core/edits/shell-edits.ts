/**
 * SPEC §10 "Shell edits are seen too": what a shell command changed in a work tree, told from two looks at
 * what git says is changed — one before the command (the shell tool's pre hook), one after — and how the
 * model is told about a path another agent holds. Pure functions over data: the looks are taken by git
 * (src/git for the daemon, the command hook's own `git status` otherwise); `decideShellLooks` is the one decision
 * of a command's changes every shell door makes (the command hooks, the daemon's `http` hooks). Imports only
 * edit-request.ts and holds.ts (the command hooks load it).
 *
 * A look lists the changed files (staged, unstaged, untracked-not-ignored), each with git's status code, its
 * size and mtime, and its ctime. A path counts as changed by the command when its entry appeared, vanished
 * (a `git checkout -- f` of a modified file) or changed, or when its ctime is not older than the look before
 * (a file written twice to the same size within one mtime tick). The look before may leave untracked files
 * out (`untracked: false`, what the daemon takes: walking every folder for untracked files is most of what a
 * `git status` costs); an untracked file then counts as changed only by its ctime — one the command created
 * or wrote — and an untracked file the command deleted is not seen (git never had it).
 */

import { shortTree } from '../worktrees/holds.js';
import { type EditDecision, editRequests } from './edit-request.js';

/** One changed file as git and the file system see it. */
export interface ShellEntry {
  /** `1 .M` / `? ` (the status code, as `git status --porcelain=v2` starts the entry) + size + mtime. */
  stamp: string;
  /** Epoch ms of the inode's last change (0 for a file that is gone). */
  ctimeMs: number;
  /** Epoch ms of the file's birth where the file system keeps it (0: unknown, or gone). */
  bornMs: number;
}

export interface ShellLook {
  /**
   * Epoch ms when the look was done. The look before a command is done before the client starts it (the client
   * waits for the pre hook's answer), so a later ctime is the command's.
   */
  takenAt: number;
  /** Whether untracked files were listed. */
  untracked: boolean;
  entries: Record<string, ShellEntry>;
  /**
   * HEAD's commit when the look was taken (`# branch.oid`, `(initial)` before the first commit); absent from
   * looks that did not ask. A command that moves HEAD or commits (`git commit`, `merge`, `cherry-pick`,
   * `reset`) changes paths in HEAD's tree that the work tree's status no longer shows (SPEC §10).
   */
  head?: string | undefined;
}

/** HEAD's commit from a `--porcelain=v2 --branch` header (`# branch.oid <sha>`), or null for another entry. */
export function headOf(entry: string): string | null {
  return entry.startsWith('# branch.oid ') ? entry.slice('# branch.oid '.length) : null;
}

/** Where HEAD went between the two looks, or null when it did not move (or a look did not ask). */
export function headMove(before: ShellLook, after: ShellLook): { from: string; to: string } | null {
  if (!before.head || !after.head || before.head === after.head) return null;
  return { from: before.head, to: after.head };
}

/**
 * File times come from the kernel's coarse clock, which may lag the wall clock by a tick (a few ms): a file the
 * command wrote just after the look before may carry a ctime a little before it. Anything changed this close
 * to the look counts as the command's.
 */
export const CTIME_SLACK_MS = 20;

const isUntracked = (e: ShellEntry): boolean => e.stamp.startsWith('? ');

/**
 * The paths the command changed, sorted: in the work tree, and `committed` — those that differ between HEAD's
 * tree before and after (headMove), which the caller lists with git.
 */
export function shellChanges(before: ShellLook, after: ShellLook, committed: readonly string[] = []): string[] {
  const since = before.takenAt - CTIME_SLACK_MS;
  const out: string[] = [];
  for (const [p, e] of Object.entries(after.entries)) {
    const was = before.entries[p];
    const touched = e.ctimeMs >= since;
    if (isUntracked(e) && !before.untracked) {
      if (touched) out.push(p);
    } else if (was?.stamp !== e.stamp || touched) out.push(p);
  }
  // Listed before, gone after: restored, deleted (an untracked file), committed.
  for (const p of Object.keys(before.entries)) if (!(p in after.entries)) out.push(p);
  for (const p of committed) out.push(p);
  return [...new Set(out)].sort();
}

/** The path a `--porcelain=v2 -z` entry names: after 8 fields (`1`), 10 (`u`), or 1 (`?`); renames are off. */
export function porcelainPath(entry: string): string | null {
  const skip = entry.startsWith('1 ') ? 8 : entry.startsWith('u ') ? 10 : entry.startsWith('? ') ? 1 : -1;
  if (skip < 0) return null;
  let at = 0;
  for (let i = 0; i < skip; i++) at = entry.indexOf(' ', at) + 1;
  return at > 0 ? entry.slice(at) : null;
}

/** One shell conflict: the path, and who holds it. */
export interface ShellConflict {
  resource: string;
  holder: string;
}

/** Whether the command created the file: untracked now, and not there before (or born after the look). */
function created(path: string, before: ShellLook, after: ShellLook): boolean {
  const entry = after.entries[path];
  if (entry === undefined || !isUntracked(entry)) return false;
  if (before.untracked) return !(path in before.entries);
  return entry.bornMs > 0 && entry.bornMs >= before.takenAt - CTIME_SLACK_MS;
}

/**
 * `lock_conflict: your command changed src/a.ts, which codex#1a2b holds — restore it (git restore src/a.ts)
 * and edit something else`; a file the command created is removed instead; an untracked file it changed
 * (git has no copy to restore) is named as such — never `rm` of a file that may be the holder's work.
 */
export function shellConflictReason(
  conflicts: ShellConflict[],
  before: ShellLook,
  after: ShellLook,
  where?: string | undefined,
): string {
  const byPath = new Map<string, string>();
  for (const c of conflicts) if (!byPath.has(c.resource)) byPath.set(c.resource, c.holder);
  const moved = headMove(before, after);
  // A path of another work tree (`where`, relative to the command's) is named and restored from there.
  const shown = (path: string): string => (where ? `${where}/${path}` : path);
  const gitIn = where ? `git -C ${where}` : 'git';
  const parts = [...byPath].map(([path, holder]) => {
    const entry = after.entries[path];
    // Another work tree's path may also have changed by its own agent's hand meanwhile: never "restore" it whole.
    const undo = where
      ? `undo only what your command wrote to it (${gitIn} diff -- ${path} shows the change; the rest may be ${holder}'s work)`
      : created(path, before, after)
        ? `remove it (rm ${shown(path)})`
        : entry !== undefined && isUntracked(entry)
          ? 'undo your change to it (git has no copy of it to restore)'
          : moved && !(path in after.entries) && !(path in before.entries)
            ? `put it back as it was before your command moved HEAD (${gitIn} checkout ${moved.from.slice(0, 12)} -- ${path}, then commit)`
            : `restore it (${gitIn} restore ${path})`;
    return `your command changed ${shown(path)}, which ${holder} holds — ${undo}`;
  });
  return `lock_conflict: ${parts.join('; ')} and edit something else`;
}

/** The shell tool call's arguments as text (a command string, or an argv list), null when the input has none. */
export function commandText(input: Record<string, unknown>): string | null {
  const args = input.tool_input ?? input.toolInput;
  return args === undefined || args === null ? null : JSON.stringify(args);
}

/**
 * SPEC §14 (the work tree of an edit is the path's): the other work trees a command is looked at in — those it
 * names (their folder's name appears in it, as `../wt-a/src/b.ts` or `cd wt-a` do). Their own agents' edits
 * meanwhile are theirs, and a command that names no other tree pays for no other look. No command text: all.
 */
export function namedTrees(command: string | null, trees: readonly string[]): string[] {
  if (command === null) return [...trees];
  return trees.filter((t) => {
    const name = t.slice(t.lastIndexOf('/') + 1);
    return name !== '' && command.includes(name);
  });
}

/** What deciding one request of a shell command's paths answered (decide_edit's answer, or a refusal). */
export interface ShellDecision {
  decision: 'allow' | 'deny';
  reason?: string | null | undefined;
  conflicts: ShellConflict[];
}

/**
 * The paths a command changed, decided (SPEC §10): each request as an edit; when some of its paths are held,
 * the free ones are decided again so they become the agent's (as if it had edited them with its edit tool).
 * The answer is the one line to tell the model, or null when every path was free. A refusal of the daemon's
 * own (a name it does not take) is told as it is: never read as "nothing to say".
 */
export async function decideShellChanges<R extends { paths: string[] }>(
  requests: R[],
  decide: (request: R) => Promise<ShellDecision>,
  before: ShellLook,
  after: ShellLook,
  where?: string | undefined,
): Promise<string | null> {
  const conflicts: ShellConflict[] = [];
  const refusals: string[] = [];
  for (const r of requests) {
    const first = await decide(r);
    if (first.decision === 'allow') continue;
    if (first.conflicts.length === 0) {
      refusals.push(first.reason ?? 'coord refused to decide the paths your command changed');
      continue;
    }
    conflicts.push(...first.conflicts);
    const held = new Set(first.conflicts.map((c) => c.resource));
    const free = r.paths.filter((k) => !held.has(k));
    if (free.length > 0) await decide({ ...r, paths: free });
  }
  const lines = [...(conflicts.length > 0 ? [shellConflictReason(conflicts, before, after, where)] : []), ...refusals];
  return lines.length > 0 ? [...new Set(lines)].join('\n') : null;
}

/** One work tree's looks around a command, and the paths HEAD's tree changed between them (headMove, git's list). */
export interface TreeLooks {
  root: string;
  before: ShellLook;
  after: ShellLook;
  committed: readonly string[];
}

/**
 * A command's changes in each work tree it was looked at in, decided as edits of that tree's paths (SPEC §10;
 * §14: the work tree of an edit is the path's) on `board`, by an agent whose session works in `sessionTree`:
 * the lines to tell the model, or null. `refused`: a reason that refuses every change undecided (an agent name
 * the daemon would refuse) — never read as "nothing changed".
 */
export async function decideShellLooks(
  looks: TreeLooks[],
  at: { board: string; sessionTree: string; refused?: string | null | undefined },
  decide: (request: ReturnType<typeof editRequests>[number]) => Promise<EditDecision>,
): Promise<string | null> {
  const lines: string[] = [];
  for (const l of looks) {
    const located = shellChanges(l.before, l.after, l.committed).map((key) => ({ board: at.board, tree: l.root, key }));
    const requests = editRequests(located, at.sessionTree);
    if (requests.length === 0) continue;
    const where = l.root === at.sessionTree ? undefined : shortTree(l.root, at.sessionTree);
    const line = at.refused ? at.refused : await decideShellChanges(requests, decide, l.before, l.after, where);
    if (line) lines.push(line);
  }
  return lines.length > 0 ? [...new Set(lines)].join('\n') : null;
}
