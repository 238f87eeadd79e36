/**
 * SPEC §10 "Shell edits are seen too", decided in the daemon: the client's `http` hooks (Claude Code, Qwen
 * Code) post the shell tool's pre and post hook input here, so no process starts per shell call. Before the
 * command the daemon takes git's look at the work tree (through the git port, untracked files left out: see
 * shell-edits.ts) and keeps it by call; after it, it looks again, decides the paths the command changed as
 * edits (decide_edit: free ones are auto-locked for the agent) and answers the reason to tell the model when
 * another agent holds one. Looks are kept in memory, bounded in number and age: a pre hook whose post hook
 * never comes (the client was killed) is forgotten. The looks are the daemon's state, so they live here in the
 * server; the rules (which changes are edits, what to tell the model) are core's (shell-edits.ts, edit-request.ts).
 */

import { decideShellLooks, headMove, type ShellLook, type TreeLooks } from '../core/edits/shell-edits.js';
import { CoordError } from '../core/errors.js';
import type { Ctx } from '../core/operation.js';
import { invokeDecide } from './edit-decide.js';

/** Looks kept at once, and for how long: a shell call longer than this is checked against no look (allowed). */
const MAX_LOOKS = 512;
const LOOK_TTL_MS = 6 * 60 * 60 * 1000;

export interface ShellCall {
  /** The agent and its session (the auto-locks die with it). */
  agent: string;
  sessionId: string;
  board: string;
  /** The work tree's top folder (physical). */
  worktree: string;
  /** The client's id of the tool call, which pairs the pre hook with the post hook. */
  callId: string;
  /**
   * Other work trees of the repository the command names (SPEC §14: the work tree of an edit is the path's;
   * shell-edits.ts namedTrees): looked at too, their changes decided as edits of theirs from outside.
   */
  others?: string[] | undefined;
}

/** The looks before one command: its own work tree's, and the named other trees'. */
interface Before {
  look: ShellLook;
  others: [string, ShellLook][];
}

export class ShellLooks {
  private readonly looks = new Map<string, Before>();

  private key(c: ShellCall): string {
    return `${c.agent}\0${c.worktree}\0${c.callId}`;
  }

  /** Before the command: git's look now (tracked changes only), kept for the post hook. */
  async before(ctx: Ctx, call: ShellCall): Promise<void> {
    const git = requireGit(ctx);
    // The named other trees are looked at while the session's is (the client waits for all of them).
    const [look, ...named] = await Promise.all([
      git.shellLook(call.worktree, false),
      ...(call.others ?? []).map((tree) =>
        git.shellLook(tree, false).then(
          (l): [string, ShellLook] => [tree, l],
          () => null,
        ),
      ),
    ]);
    const others = named.flatMap((o) => (o ? [o] : []));
    // Looks carry the wall clock's time (file times are compared with it), so their age does too.
    const now = Date.now();
    for (const [k, v] of this.looks) if (now - v.look.takenAt > LOOK_TTL_MS) this.looks.delete(k);
    while (this.looks.size >= MAX_LOOKS) {
      const oldest = this.looks.keys().next().value;
      if (oldest === undefined) break;
      this.looks.delete(oldest);
    }
    this.looks.set(this.key(call), { look, others });
  }

  /**
   * After it: the reason to tell the model (`lock_conflict: your command changed …`), or a null reason when every
   * path it changed was free (now auto-locked); null when there was no look before to compare with.
   */
  async after(ctx: Ctx, call: ShellCall): Promise<{ reason: string | null } | null> {
    const key = this.key(call);
    const kept = this.looks.get(key);
    if (!kept) return null;
    this.looks.delete(key);
    const git = requireGit(ctx);
    const looks: TreeLooks[] = [];
    for (const [tree, before] of [[call.worktree, kept.look] as const, ...kept.others]) {
      const after = await git.shellLook(tree, true).catch(() => null);
      if (!after) continue;
      // A command that moved HEAD or committed changed the paths HEAD's tree changed too (SPEC §10).
      const moved = headMove(before, after);
      looks.push({
        root: tree,
        before,
        after,
        committed: moved ? await git.headChanges(tree, moved.from, moved.to) : [],
      });
    }
    const decide = invokeDecide({ ...ctx, session_id: call.sessionId }, call.agent);
    return { reason: await decideShellLooks(looks, { board: call.board, sessionTree: call.worktree }, decide) };
  }

  get size(): number {
    return this.looks.size;
  }
}

function requireGit(ctx: Ctx) {
  if (!ctx.git) throw new CoordError('git_failed', 'this daemon runs without git: shell edits cannot be seen');
  return ctx.git;
}
