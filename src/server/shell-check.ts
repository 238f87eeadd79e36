/**
 * SPEC §10 "Shell edits are seen too", decided in the daemon: the client's `http` hooks (Claude Code, Qwen
 * Code) post the shell tool's pre and post hook input here, so no process starts per shell call. Before the
 * command the daemon takes git's look at the work tree (through the git port, untracked files left out: see
 * shell-edits.ts) and keeps it by call; after it, it looks again, decides the paths the command changed as
 * edits (decide_edit: free ones are auto-locked for the agent) and answers the reason to tell the model when
 * another agent holds one. Looks are kept in memory, bounded in number and age: a pre hook whose post hook
 * never comes (the client was killed) is forgotten. The looks are the daemon's state, so they live here in the
 * server; the rules (which changes are edits, what to tell the model) are core's (shell-edits.ts, edit-request.ts).
 *
 * A work tree a supervisor starts an agent in (SPEC §18, `coord run`: report_run says `starting`) is looked at
 * then, and again after each of its commands: a command with no look of its own before it (coord run starts
 * Claude Code with no pre hook — one hook fewer the agent waits for on every shell call) is compared with the
 * tree's latest look. What changed since that look is the command's or the agent's own edits (decided already:
 * its locks); only such trees are compared this way, never a person's session whose pre hook did not come.
 */

import {
  CTIME_SLACK_MS,
  decideShellLooks,
  headMove,
  type ShellLook,
  type TreeLooks,
} from '../core/edits/shell-edits.js';
import { CoordError } from '../core/errors.js';
import type { Ctx } from '../core/operation.js';
import { findWorkTree } from '../state-dir/board-name.js';
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
  /** Work trees a supervisor started an agent in: their latest look (at the start, then after each command). */
  private readonly latest = new Map<string, Promise<ShellLook | null>>();

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
    makeRoom(this.looks);
    this.looks.set(this.key(call), { look, others });
  }

  /** SPEC §18: a supervisor starts an agent in `tree` (it has run nothing yet): the tree's look now. */
  launched(ctx: Ctx, given: string): void {
    if (!ctx.git) return;
    // Kept under the name its hooks will give it: the physical top folder, as for any hook's work tree.
    const tree = findWorkTree(given)?.root ?? given;
    this.latest.delete(tree);
    makeRoom(this.latest);
    this.latest.set(
      tree,
      // Tracked files only, as a look before a command: an untracked file then counts as changed by its times.
      ctx.git.shellLook(tree, false).catch(() => null),
    );
  }

  /**
   * A command with no look of its own before it, in a tree a supervisor started its agent in: the latest looks. Each
   * is older than the command by a model turn at least, so a file time within the clock's slack of it (a look before
   * a command counts those as the command's: shell-edits.ts) is the last command's write, not this one's.
   */
  private async fromLatest(call: ShellCall): Promise<Before | undefined> {
    const settled = (l: ShellLook): ShellLook => ({ ...l, takenAt: l.takenAt + CTIME_SLACK_MS });
    const look = await this.latest.get(call.worktree);
    if (!look) return undefined;
    const others: [string, ShellLook][] = [];
    for (const tree of call.others ?? []) {
      const other = await this.latest.get(tree);
      if (other) others.push([tree, settled(other)]);
    }
    return { look: settled(look), others };
  }

  /**
   * After it: the reason to tell the model (`lock_conflict: your command changed …`), or a null reason when every
   * path it changed was free (now auto-locked); null when there was no look before to compare with.
   */
  async after(ctx: Ctx, call: ShellCall): Promise<{ reason: string | null } | null> {
    const key = this.key(call);
    const kept = this.looks.get(key) ?? (await this.fromLatest(call));
    if (!kept) return null;
    this.looks.delete(key);
    const git = requireGit(ctx);
    const looks: TreeLooks[] = [];
    for (const [tree, before] of [[call.worktree, kept.look] as const, ...kept.others]) {
      const after = await git.shellLook(tree, true).catch(() => null);
      if (!after) continue;
      if (this.latest.has(tree)) this.latest.set(tree, Promise.resolve(after));
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

/** Room for one more look: the oldest go first once MAX_LOOKS are kept. */
function makeRoom(map: Map<string, unknown>): void {
  while (map.size >= MAX_LOOKS) {
    const oldest = map.keys().next().value;
    if (oldest === undefined) break;
    map.delete(oldest);
  }
}

function requireGit(ctx: Ctx) {
  if (!ctx.git) throw new CoordError('git_failed', 'this daemon runs without git: shell edits cannot be seen');
  return ctx.git;
}
