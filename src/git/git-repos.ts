/**
 * The real GitPort (core/worktrees/git-port.ts): plumbing commands with `-z` output,
 * each with a deadline, cached while nothing they depend on changed.
 *
 * Committed facts (merge base, commits since it, ahead/behind) depend only on
 * the commits named, so branch.ts keeps git's answers by commit id. Uncommitted paths can change with no trace git can see cheaply, so a
 * status is kept for a short while only (and dropped when a hook reports an
 * edit in that work tree): `coord changes` is fresh within a second.
 */

import type { ShellLook } from '../core/edits/shell-edits.js';
import type { ChangeRecord, GitPort, GitTree, PendingFacts, WorkTreeFacts } from '../core/worktrees/git-port.js';
import {
  aheadBehind,
  branchExists,
  branchTip,
  changedPaths,
  commitsBetween,
  diffStat,
  headOf,
  mergeBase,
  ownWork,
} from './branch.js';
import { defaultTarget } from './integrate-target.js';
import { treeFromFiles } from './read-refs.js';
import { refsStamp } from './refs-stamp.js';
import { runGit } from './run-git.js';
import { headChanges, shellLook, uncommitted } from './status.js';
import { listWorktrees } from './worktree-list.js';

/** How long a status (or a work tree's branch and HEAD) is trusted. */
const FRESH_MS = 1000;

interface Kept<T> {
  at: number;
  value: Promise<T>;
}

export class GitRepos implements GitPort {
  private readonly located = new Map<string, Kept<WorkTreeFacts | null>>();
  private readonly statuses = new Map<string, Kept<string[]>>();

  constructor(private readonly now: () => number = Date.now) {}

  private fresh<T>(map: Map<string, Kept<T>>, key: string, make: () => Promise<T>): Promise<T> {
    const kept = map.get(key);
    if (kept && this.now() - kept.at < FRESH_MS) return kept.value;
    const value = make();
    map.set(key, { at: this.now(), value });
    // A failure is not kept: the next question asks git again.
    value.catch(() => map.delete(key));
    return value;
  }

  locate(dir: string): Promise<WorkTreeFacts | null> {
    return this.fresh(this.located, dir, async () => {
      // A work tree's top folder in a plain repository: its files say it all (read-refs.ts).
      const read = await treeFromFiles(dir);
      if (read !== undefined) return read;
      // Else one git process in the usual case (a work tree on a branch with a commit): its top, common dir, HEAD
      // and HEAD's ref — the first thing a new work tree's first hook (or a supervisor's claim) waits for.
      const run = await runGit(
        dir,
        [
          'rev-parse',
          '--path-format=absolute',
          '--show-toplevel',
          '--git-common-dir',
          'HEAD^{commit}',
          '--symbolic-full-name',
          'HEAD',
        ],
        { ok: [128] },
      ).catch(() => null);
      const [root = '', commonDir = '', sha = '', ref = ''] = run?.stdout.split('\n') ?? [];
      if (!root || !commonDir) return null;
      if (run?.code === 0 && /^[0-9a-f]{40,64}$/.test(sha) && (ref === 'HEAD' || ref.startsWith('refs/heads/')))
        return { root, commonDir, head: sha, branch: ref === 'HEAD' ? null : ref.slice('refs/heads/'.length) };
      // No commit yet (or a name git finds ambiguous): asked one fact at a time.
      const head = await headOf(root);
      const sym = await runGit(root, ['symbolic-ref', '-q', '--short', 'HEAD'], { ok: [1] });
      return { root, commonDir, head, branch: sym.code === 0 ? sym.stdout.trim() : null };
    });
  }

  async worktrees(repo: string): Promise<GitTree[]> {
    return (await listWorktrees(repo))
      .filter((t) => !t.bare)
      .map((t) => ({ path: t.path, branch: t.branch, head: t.head, prunable: t.prunable }));
  }

  uncommitted(tree: string): Promise<string[]> {
    return this.fresh(this.statuses, tree, () => uncommitted(tree));
  }

  async pending(tree: string, target: string): Promise<PendingFacts> {
    const at = await this.locate(tree);
    const head = at?.head ?? null;
    const tip = await branchTip(tree, target);
    const [committed, dirty] = await Promise.all([this.committedFacts(tree, head, tip), this.uncommitted(tree)]);
    const paths = [...new Set([...committed.paths, ...dirty])].sort();
    return { path: at?.root ?? tree, branch: at?.branch ?? null, head, ...committed, paths };
  }

  async aheadBehind(tree: string, target: string): Promise<{ ahead: number; behind: number }> {
    const [at, tip] = await Promise.all([this.locate(tree), branchTip(tree, target)]);
    return at?.head && tip ? aheadBehind(tree, tip, at.head) : { ahead: 0, behind: 0 };
  }

  /**
   * Merge base and the paths committed since it: a function of (HEAD, target tip), whose git answers branch.ts
   * keeps by commit id. Only `changes` shows how far ahead and behind a tree is (aheadBehind): the edit
   * decisions and the holds need the paths alone.
   */
  private async committedFacts(tree: string, head: string | null, tip: string | null) {
    if (!head || !tip) return { base: null, paths: [] };
    // A tree at the target's tip (a new one, the main tree) needs no git: its own commit is the base.
    const base = head === tip ? head : await mergeBase(tree, tip, head);
    return { base, paths: base ? await changedPaths(tree, base, head) : [] };
  }

  /** The branch the main work tree has checked out, else main or master; `main` when the repository has none. */
  async defaultTarget(repo: string): Promise<string> {
    return (await defaultTarget(repo)) ?? 'main';
  }

  branchExists(repo: string, branch: string): Promise<boolean> {
    return branchExists(repo, branch);
  }

  async contains(repo: string, branch: string, commit: string): Promise<boolean> {
    // 1: not an ancestor; 128: a commit (or branch) this repository does not have.
    const run = await runGit(repo, ['merge-base', '--is-ancestor', commit, `refs/heads/${branch}`], { ok: [1, 128] });
    return run.code === 0;
  }

  async changeRecord(
    tree: string,
    claimHead: string | null,
    target: string,
  ): Promise<{ record: ChangeRecord; uncommitted: string[] }> {
    this.invalidate(tree);
    // The looks that do not depend on each other run at once (a submit waits for this record).
    const [at, tip] = await Promise.all([this.locate(tree), branchTip(tree, target)]);
    const head = at?.head;
    if (!at || !head) throw new Error(`${tree} is not a git work tree with a commit`);
    const baseLook = tip ? mergeBase(tree, tip, head) : Promise.resolve(null);
    // What the target gained since the claim began (for the check below), looked at meanwhile.
    const sinceClaim = claimHead && tip ? commitsBetween(tree, claimHead, tip) : null;
    sinceClaim?.catch(() => {});
    // The task's own work: since the claim began, else since the merge base.
    const from = claimHead ?? (await baseLook);
    const [listed, stat, dirty, base] = await Promise.all([
      from === head ? Promise.resolve([]) : commitsBetween(tree, from, head),
      from ? diffStat(tree, from, head) : Promise.resolve({ paths: [], insertions: 0, deletions: 0 }),
      // Kept like any status: the submit's settling of its ended locks that follows asks the same (settle-holds.ts).
      this.uncommitted(tree),
      baseLook,
    ]);
    // SPEC §15: a claim that merged the target meanwhile (a follow-up resolving a conflict) counts only
    // the commits since its claim that are not in the target — not the other agents' work it brought in.
    let [commits, paths, lines] = [listed, stat.paths, { insertions: stat.insertions, deletions: stat.deletions }];
    if (sinceClaim && claimHead && tip && commits.length > 0) {
      const inTarget = new Set((await sinceClaim).map((c) => c.sha));
      if (commits.some((c) => inTarget.has(c.sha))) {
        commits = commits.filter((c) => !inTarget.has(c.sha));
        const own = await ownWork(tree, claimHead, head, tip);
        paths = own.paths;
        lines = { insertions: own.insertions, deletions: own.deletions };
      }
    }
    const record: ChangeRecord = {
      worktree: at.root,
      branch: at.branch,
      claim_head: claimHead,
      base,
      head,
      commits,
      paths: paths.slice(0, 500),
      ...lines,
      clean: dirty.length === 0,
    };
    return { record, uncommitted: dirty };
  }

  shellLook(tree: string, untracked: boolean): Promise<ShellLook> {
    return shellLook(tree, untracked);
  }

  headChanges(tree: string, from: string, to: string): Promise<string[]> {
    return headChanges(tree, from, to);
  }

  refsStamp(repo: string, trees: readonly string[], target: string, o?: { shared?: boolean; list?: boolean }): string {
    return refsStamp(repo, trees, target, o);
  }

  invalidate(tree?: string): void {
    if (tree === undefined) {
      this.located.clear();
      this.statuses.clear();
      return;
    }
    this.located.delete(tree);
    this.statuses.delete(tree);
  }
}

export { runGit };
