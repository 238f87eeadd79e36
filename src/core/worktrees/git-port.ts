/**
 * What core asks of git (SPEC §14), as a port: the server wires the real
 * one (src/git/), so the rules about holds and change records stay pure
 * functions over data. Every method may throw `CoordError('git_failed')`.
 */
import type { z } from 'zod';
import type { ShellLook } from '../edits/shell-edits.js';
import type { ChangeRecordSchema } from './change-schemas.js';

export type ChangeRecord = z.output<typeof ChangeRecordSchema>;

export interface WorkTreeFacts {
  /** The work tree's top folder (physical path). */
  root: string;
  /** The repository's common git directory: what ties work trees into one repository. */
  commonDir: string;
  branch: string | null;
  head: string | null;
}

export interface GitTree {
  path: string;
  branch: string | null;
  head: string | null;
  /** git says its folder is gone. */
  prunable: boolean;
}

/** What a work tree would bring into the target: every path (unbounded — callers bound what they list). */
export interface PendingFacts {
  path: string;
  branch: string | null;
  head: string | null;
  base: string | null;
  paths: string[];
}

export interface GitPort {
  /** The work tree containing `dir`; null when `dir` is in none (or does not exist). */
  locate(dir: string): Promise<WorkTreeFacts | null>;
  /** Every work tree of the repository (`git worktree list`), main first. */
  worktrees(repo: string): Promise<GitTree[]>;
  /** Commits since the merge base with `target`, staged, unstaged and untracked-not-ignored paths. */
  pending(tree: string, target: string): Promise<PendingFacts>;
  /** How many commits the work tree's HEAD has that `target` has not (`ahead`), and the other way (`behind`). */
  aheadBehind(tree: string, target: string): Promise<{ ahead: number; behind: number }>;
  /** The branch checked out in the main work tree, else `main`, else `master`. */
  defaultTarget(repo: string): Promise<string>;
  branchExists(repo: string, branch: string): Promise<boolean>;
  /** SPEC §11: `commit` is in `branch` (an ancestor of its tip, or the tip); false for an unknown commit. */
  contains(repo: string, branch: string, commit: string): Promise<boolean>;
  /** The change record of `tree` at its HEAD, and its uncommitted paths. */
  changeRecord(
    tree: string,
    claimHead: string | null,
    target: string,
  ): Promise<{ record: ChangeRecord; uncommitted: string[] }>;
  /** Paths with uncommitted changes (staged, unstaged, untracked-not-ignored). */
  uncommitted(tree: string): Promise<string[]>;
  /** SPEC §10 shell edits: what git says is changed in `tree` now, each with its file times (never cached). */
  shellLook(tree: string, untracked: boolean): Promise<ShellLook>;
  /** SPEC §10: the paths that differ between two HEADs of `tree` (a command moved HEAD or committed). */
  headChanges(tree: string, from: string, to: string): Promise<string[]>;
  /**
   * SPEC §14: a stamp of the repository's refs, HEADs and indexes (file stats, no git run) — it changes when
   * anything is committed, merged, reset or checked out in `trees` or on `target`. `shared: false`: the trees'
   * own files only; `list: false`: all but the list of work trees.
   */
  refsStamp(repo: string, trees: readonly string[], target: string, o?: { shared?: boolean; list?: boolean }): string;
  /** Forget what is cached about `tree` (a hook saw it change). */
  invalidate(tree?: string): void;
}
