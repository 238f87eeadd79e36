/**
 * SPEC §14: "An edit of a path pending in another work tree that has no hold (changed by a person, or before
 * coord knew) is allowed with a warning line naming that work tree." The line is told from what each work
 * tree would bring into the target — and the first decision after a while idle must read that afresh: a path
 * a person committed in another work tree meanwhile is warned about, and a path merged meanwhile is not.
 * In process (a hand-driven clock for "idle"), real git work trees.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { test } from 'node:test';
import { invoke } from '../../src/core/invoke.js';
import type { Ctx } from '../../src/core/operation.js';
import { decideEdit } from '../../src/core/ops/decide-edit.js';
import { GitRepos } from '../../src/git/git-repos.js';
import { harness, makeSqliteStore } from '../support/ctx.js';
import { repoWithWorktrees } from './git-repo.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd, stdio: 'pipe' });

test('the first edit after idle warns about a path a person committed in another work tree meanwhile, and not about one merged meanwhile', async () => {
  const h = await harness(makeSqliteStore);
  const ctx: Ctx = { ...h.ctx, git: new GitRepos(() => h.clock.now()) };
  const repo = repoWithWorktrees(2);
  const [wtA = '', wtB = ''] = repo.linked;
  const edit = (path: string) => invoke(decideEdit, ctx, { agent: 'alice', paths: [path], worktree: wtA });

  // A person commits src/q.ts in wt-B before anything: the first decision of the board sees it.
  writeFileSync(join(wtB, 'src/q.ts'), 'export const q = 1;\n');
  git(wtB, 'add', '.');
  git(wtB, 'commit', '-qm', 'q by a person');
  const first = await edit('src/q.ts');
  assert.equal(first.decision, 'allow');
  assert.match(
    first.warning ?? 'no warning',
    new RegExp(`^coord warning: src/q\\.ts in worktree \\.\\./${basename(wtB)}`),
  );

  // Meanwhile, after the board was last looked at: a person commits src/p.ts in wt-B, and wt-B is merged.
  writeFileSync(join(wtB, 'src/p.ts'), 'export const p = 1;\n');
  git(wtB, 'add', '.');
  git(wtB, 'commit', '-qm', 'p by a person');
  git(repo.main, 'merge', '-q', '--no-edit', 'wt2');
  writeFileSync(join(wtB, 'src/r.ts'), 'export const r = 1;\n');
  git(wtB, 'add', '.');
  git(wtB, 'commit', '-qm', 'r by a person, not merged');
  h.clock.advance(8000);

  const merged = await edit('src/q.ts');
  assert.equal(merged.decision, 'allow');
  assert.doesNotMatch(merged.warning ?? '', /src\/q\.ts/, 'q was merged 8 s ago: nothing pending to warn about');
  const committed = await edit('src/r.ts');
  assert.match(
    committed.warning ?? 'no warning',
    new RegExp(
      `^coord warning: src/r\\.ts in worktree \\.\\./${basename(wtB)} \\(branch wt2\\) has changes not merged yet`,
    ),
  );
});

/**
 * A board whose repository has two linked work trees, a person's commit of src/q.ts in the second, and alice's
 * first edit of it in the first, warned about: the looks that follow go through `make`'s git.
 */
async function warnedAboutQ<G extends GitRepos>(make: (clock: () => number) => G) {
  const h = await harness(makeSqliteStore);
  const gated = make(() => h.clock.now());
  const ctx: Ctx = { ...h.ctx, git: gated };
  const repo = repoWithWorktrees(2);
  const [wtA = '', wtB = ''] = repo.linked;
  writeFileSync(join(wtB, 'src/q.ts'), 'export const q = 1;\n');
  git(wtB, 'add', '.');
  git(wtB, 'commit', '-qm', 'q by a person');
  const edit = (path: string) => invoke(decideEdit, ctx, { agent: 'alice', paths: [path], worktree: wtA });
  assert.match((await edit('src/q.ts')).warning ?? 'no warning', /^coord warning: src\/q\.ts in worktree/);
  return { repo, wtA, wtB, edit, gated };
}

/** GitRepos whose `pending` looks wait while the gate is shut: a decision that waits for git cannot answer. */
class GatedGit extends GitRepos {
  private opened: Promise<void> = Promise.resolve();
  open: () => void = () => {};
  shut(): void {
    this.opened = new Promise((resolve) => {
      this.open = resolve;
    });
  }
  override async pending(tree: string, target: string) {
    await this.opened;
    return super.pending(tree, target);
  }
}

test("an agent's own commit does not make its next edit wait for git: what the other work trees would bring is unchanged", {
  timeout: 60_000,
}, async () => {
  const { wtA, edit, gated } = await warnedAboutQ((clock) => new GatedGit(clock));

  // alice commits in her own work tree; git's looks are held: her next edit answers from what was kept.
  writeFileSync(join(wtA, 'src/a2.ts'), 'export const a2 = 1;\n');
  git(wtA, 'add', '.');
  git(wtA, 'commit', '-qm', 'a2 by alice');
  gated.shut();
  try {
    const next = await edit('src/q.ts');
    assert.match(next.warning ?? 'no warning', /^coord warning: src\/q\.ts in worktree/);
  } finally {
    gated.open();
  }
});

test('a commit in another work tree is warned about at once, while the trees whose refs did not move are kept from the last look', {
  timeout: 60_000,
}, async () => {
  const h = await harness(makeSqliteStore);
  const ctx: Ctx = { ...h.ctx, git: new GitRepos(() => h.clock.now()) };
  const repo = repoWithWorktrees(3);
  const [wtA = '', wtB = '', wtC = ''] = repo.linked;
  const edit = (path: string) => invoke(decideEdit, ctx, { agent: 'alice', paths: [path], worktree: wtA });
  writeFileSync(join(wtC, 'src/c.ts'), 'export const c = 1;\n');
  git(wtC, 'add', '.');
  git(wtC, 'commit', '-qm', 'c by a person');
  assert.match((await edit('src/c.ts')).warning ?? 'no warning', /^coord warning: src\/c\.ts in worktree/);

  // No time passes (the last look is fresh), the target and the list of trees stay: only wt-B's refs move.
  writeFileSync(join(wtB, 'src/b2.ts'), 'export const b2 = 1;\n');
  git(wtB, 'add', '.');
  git(wtB, 'commit', '-qm', 'b2 by a person');
  const moved = await edit('src/b2.ts');
  assert.match(
    moved.warning ?? 'no warning',
    new RegExp(`^coord warning: src/b2\\.ts in worktree \\.\\./${basename(wtB)}`),
    'wt-B moved: it is looked at again, not kept',
  );
  // wt-C did not move: what the last look found there still warns.
  assert.match((await edit('src/c.ts')).warning ?? 'no warning', /^coord warning: src\/c\.ts in worktree/);
});

/** GitRepos whose `pending` looks at the given trees never finish: a decision that waits for one cannot answer. */
class TreeGatedGit extends GitRepos {
  readonly held = new Set<string>();
  override async pending(tree: string, target: string) {
    if (this.held.has(tree)) await new Promise<never>(() => {});
    return super.pending(tree, target);
  }
}

test('a work tree added beside the others makes the next decision look at that tree only: what the others would bring is kept', {
  timeout: 60_000,
}, async () => {
  const { repo, wtA, wtB, edit, gated } = await warnedAboutQ((clock) => new TreeGatedGit(clock));

  // A new work tree (as `coord run` makes one per task); the trees that were there are not to be looked at again.
  git(repo.main, 'worktree', 'add', '-q', '-b', 'wt-new', `${repo.main}-new`);
  for (const tree of [repo.main, wtA, wtB]) gated.held.add(tree);
  let timer: NodeJS.Timeout | undefined;
  const answered = await Promise.race([
    edit('src/q.ts'),
    new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), 10_000);
    }),
  ]);
  clearTimeout(timer);
  assert.ok(answered, 'the decision waited for a look at a work tree that did not move');
  assert.match(answered.warning ?? 'no warning', /^coord warning: src\/q\.ts in worktree/);
});
