/**
 * SPEC §18: a supervisor claims, makes the task's work tree, starts the agent, and tells the claim its work tree
 * with the commit the tree was made at — without waiting for that heartbeat before the agent starts. A commit
 * the agent makes before the heartbeat arrives is the claim's work, not its start: the change record counts it.
 * A `head` that is not in the work tree's history is not believed: the claim then begins at the tree's HEAD.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { invoke } from '../../src/core/invoke.js';
import { operations as op } from '../../src/core/operations.js';
import { Presence } from '../../src/core/presence.js';
import { systemClock } from '../../src/core/shared/clock.js';
import { GitRepos } from '../../src/git/git-repos.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { tempDir } from '../support/ctx.js';
import { type Repo, repoWithWorktrees } from './git-repo.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim();

describe('the claim told its work tree after its agent started (SPEC §18)', () => {
  let repo: Repo;
  let store: SqliteStore;
  let ctx: { store: SqliteStore; clock: typeof systemClock; presence: Presence; git: GitRepos };
  before(async () => {
    repo = repoWithWorktrees(0);
    store = new SqliteStore({ path: join(tempDir(), 'coord.db') });
    ctx = { store, clock: systemClock, presence: new Presence(), git: new GitRepos() };
    await invoke(op.listWorktrees, ctx, { board: 'b', worktree: repo.main });
  });
  after(() => store.close());

  /** Claims a new task for a fresh agent and makes its work tree from main's tip, as `coord run` does. */
  const claimWithTree = async (name: string) => {
    const { task } = await invoke(op.createTask, ctx, { agent: 'planner', board: 'b', title: name });
    const grant = await invoke(op.claimTask, ctx, { task_id: task.id, agent: `run-${name}`, lease_s: 60 });
    const made = git(repo.main, 'rev-parse', 'main');
    const tree = join(`${repo.main}.worktrees`, task.id);
    git(repo.main, 'worktree', 'add', '-q', '-b', `coord/${task.id}`, tree, made);
    return { id: task.id, claim_id: grant.claim_id, tree, made };
  };
  const commit = (tree: string, file: string) => {
    writeFileSync(join(tree, file), `${file}\n`);
    git(tree, 'add', file);
    git(tree, 'commit', '-qm', `add ${file}`);
  };
  const submit = (c: { id: string; claim_id: string; tree: string }) =>
    invoke(op.submitResult, ctx, { task_id: c.id, claim_id: c.claim_id, status: 'completed', worktree: c.tree });

  test("an agent's commit made before the heartbeat that names its work tree is in the task's change record", async () => {
    const c = await claimWithTree('quick');
    commit(c.tree, 'quick.txt');
    await invoke(op.heartbeat, ctx, {
      task_id: c.id,
      claim_id: c.claim_id,
      lease_s: 60,
      worktree: c.tree,
      head: c.made,
    });
    const out = await submit(c);
    assert.deepEqual(
      out.task.change?.commits.map((x) => x.subject),
      ['add quick.txt'],
      JSON.stringify(out.task.change),
    );
    assert.deepEqual(out.task.change?.paths, ['quick.txt']);
  });

  test('a head outside the work tree’s history is not believed: the claim begins at the tree’s HEAD', async () => {
    const c = await claimWithTree('elsewhere');
    commit(c.tree, 'before.txt');
    commit(repo.main, 'main-only.txt');
    const foreign = git(repo.main, 'rev-parse', 'main');
    await invoke(op.heartbeat, ctx, {
      task_id: c.id,
      claim_id: c.claim_id,
      lease_s: 60,
      worktree: c.tree,
      head: foreign,
    });
    commit(c.tree, 'after.txt');
    const out = await submit(c);
    assert.deepEqual(
      out.task.change?.commits.map((x) => x.subject),
      ['add after.txt'],
      JSON.stringify(out.task.change),
    );
  });
});
