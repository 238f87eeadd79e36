/**
 * SPEC §10 "Shell edits are seen too": what a shell command changed in a work tree, told from two looks at
 * what git says is changed — one before the command (the shell tool's pre hook), one after — and how the
 * model is told about a path another agent holds. Pure functions over data: the looks are taken by git
 * (src/git for the daemon, the command hook's own `git status` otherwise). Imports nothing (the command
 * hooks load it).
 *
 * A look lists the changed files (staged, unstaged, untracked-not-ignored), each with git's status code, its
 * size and mtime, and its ctime. A path counts as changed by the command when its entry appeared, vanished
 * (a `git checkout -- f` of a modified file) or changed, or when its ctime is not older than the look before
 * (a file written twice to the same size within one mtime tick). The look before may leave untracked files
 * out (`untracked: false`, what the daemon takes: walking every folder for untracked files is most of what a
 * `git status` costs); an untracked file then counts as changed only by its ctime — one the command created
 * or wrote — and an untracked file the command deleted is not seen (git never had it).
 */

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
}

/**
 * File times come from the kernel's coarse clock, which may lag the wall clock by a tick (a few ms): a file the
 * command wrote just after the look before may carry a ctime a little before it. Anything changed this close
 * to the look counts as the command's.
 */
export const CTIME_SLACK_MS = 20;

const isUntracked = (e: ShellEntry): boolean => e.stamp.startsWith('? ');

/** The paths the command changed, sorted. */
export function shellChanges(before: ShellLook, after: ShellLook): string[] {
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
  return out.sort();
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
export function shellConflictReason(conflicts: ShellConflict[], before: ShellLook, after: ShellLook): string {
  const byPath = new Map<string, string>();
  for (const c of conflicts) if (!byPath.has(c.resource)) byPath.set(c.resource, c.holder);
  const parts = [...byPath].map(([path, holder]) => {
    const entry = after.entries[path];
    const undo = created(path, before, after)
      ? `remove it (rm ${path})`
      : entry !== undefined && isUntracked(entry)
        ? 'undo your change to it (git has no copy of it to restore)'
        : `restore it (git restore ${path})`;
    return `your command changed ${path}, which ${holder} holds — ${undo}`;
  });
  return `lock_conflict: ${parts.join('; ')} and edit something else`;
}
