/**
 * SPEC §15 "A shared remote": `coord integrate --push REMOTE` fetches the remote's target, merges, and
 * advances it by compare-and-swap (force-with-lease); a push refused because the remote moved is computed
 * again on the new tip; task branches only on the remote are fetched; the local target follows.
 * The remote is a bare repository; a person pushes to it the whole time the integrator runs.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { git, type TestRepo } from '../git/repo.js';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { integrate, queueTasks, testRepo } from './queue-fixture.js';

const run = promisify(execFile);
const gitAsync = (cwd: string, ...args: string[]) =>
  run('git', ['-c', 'user.name=person', '-c', 'user.email=p@example.com', ...args], { cwd }).then((r) =>
    r.stdout.trim(),
  );

let d: SpawnedDaemon;
before(async () => {
  d = await spawnDaemon();
});
after(() => d?.stop());

/** A bare remote made from the repository's main, `origin` in the repository, and a clone ("another machine"). */
function withRemote(r: TestRepo, name: string): { bare: string; clone: (as: string) => string } {
  const bare = join(r.top, `${name}.git`);
  git(r.top, 'clone', '-q', '--bare', r.main, bare);
  git(r.main, 'remote', 'add', 'origin', bare);
  git(r.main, 'fetch', '-q', 'origin');
  return {
    bare,
    clone: (as) => {
      const dir = join(r.top, as);
      git(r.top, 'clone', '-q', bare, dir);
      return dir;
    },
  };
}

/** `n` task branches made and pushed on another machine: their commits are only on the remote. */
function remoteBranches(dir: string, prefix: string, n: number): { branch: string; head: string }[] {
  return Array.from({ length: n }, (_, i) => {
    const branch = `${prefix}-${i}`;
    git(dir, 'checkout', '-q', '-b', branch, 'origin/main');
    writeFileSync(join(dir, `${branch}.txt`), `${branch}\n`);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', `work ${branch}`);
    git(dir, 'push', '-q', 'origin', branch);
    return { branch, head: git(dir, 'rev-parse', 'HEAD') };
  });
}

// One at a time; a speculative window (its chain built on the remote's tip, the green prefix pushed); lanes.
const MODES: [string, string[]][] = [
  ['one at a time', []],
  ['window 3', ['--check', 'true', '--window', '3']],
  ['window 2 in lanes', ['--check', 'true', '--window', '2', '--lanes']],
];
for (const [mode, args] of MODES)
  test(`--push (${mode}): a person pushing to the remote the whole time loses nothing, and every task is merged exactly once`, async () => {
    const r = testRepo();
    const board = `remote-${mode.replace(/ /g, '-')}`;
    const remote = withRemote(r, 'shared');
    const work = remoteBranches(remote.clone('agents'), 'rt', 6);
    for (const w of work) assert.throws(() => git(r.main, 'cat-file', '-e', w.head), 'the task commits are not local');
    const tasks = await queueTasks(d, board, work);

    // The person: commit, rebase on the remote, push; again (8 times at most) until told to stop. Each pushed
    // commit is kept.
    const person = remote.clone('person');
    const pushed: string[] = [];
    let stop = false;
    const personLoop = (async () => {
      for (let k = 0; !stop && k < 8; k++) {
        writeFileSync(join(person, `person-${k}.txt`), `${k}\n`);
        await gitAsync(person, 'add', '-A');
        await gitAsync(person, 'commit', '-q', '-m', `person ${k}`);
        for (;;) {
          await gitAsync(person, 'pull', '-q', '--rebase', 'origin', 'main');
          const ok = await gitAsync(person, 'push', '-q', 'origin', 'HEAD:main').then(
            () => true,
            () => false,
          );
          if (ok) break;
        }
        pushed.push(await gitAsync(person, 'rev-parse', 'HEAD'));
      }
    })();

    const first = await integrate(d, board, r.main, ['--once', '--json', '--push', 'origin', ...args]).done;
    stop = true;
    await personLoop;
    // Whatever the race left blocked ("kept moving") is merged once the person has stopped.
    const second = await integrate(d, board, r.main, ['--once', '--json', '--push', 'origin', ...args]).done;
    assert.ok([0, 2].includes(first.code ?? -1), `exit ${first.code}: ${first.stderr}`);
    assert.equal(second.code, 0, second.stderr);

    const history = git(remote.bare, 'rev-list', 'main').split('\n');
    assert.ok(pushed.length > 0);
    for (const sha of pushed)
      assert.ok(history.includes(sha), `the person's ${sha.slice(0, 7)} is in the remote's main`);
    const subjects = git(remote.bare, 'log', '--format=%s', 'main').split('\n');
    for (const t of tasks) {
      assert.equal(history.filter((c) => c === t.head).length, 1, `${t.branch} in the remote's main`);
      assert.equal(
        subjects.filter((s) => s.startsWith(`coord: integrate #${t.id} `)).length,
        1,
        `${t.branch} merged once`,
      );
    }
    // The local target followed the remote (a fast-forward of a clean checked-out main, its files with it).
    const local = r.rev('main');
    git(r.main, 'merge-base', '--is-ancestor', local, git(remote.bare, 'rev-parse', 'main'));
    for (const t of tasks) git(r.main, 'merge-base', '--is-ancestor', t.head, local);
    assert.equal(git(r.main, 'status', '--porcelain'), '');
  });

for (const window of [1, 2])
  test(`--push: a remote that refuses the push (a hook) leaves the tasks blocked with git line, and --once exits 2 (window ${window})`, async () => {
    const r = testRepo();
    const remote = withRemote(r, 'hooked');
    const work = remoteBranches(remote.clone('agents'), 'hk', window);
    // From now on the remote refuses every push.
    const hook = join(remote.bare, 'hooks', 'pre-receive');
    writeFileSync(hook, '#!/bin/sh\necho "pushes are closed today" >&2\nexit 1\n');
    chmodSync(hook, 0o755);
    const tasks = await queueTasks(d, `hooked-${window}`, work);
    const before = git(remote.bare, 'rev-parse', 'main');
    const windowArgs = window === 1 ? [] : ['--check', 'true', '--window', String(window)];
    const out = await integrate(d, `hooked-${window}`, r.main, ['--once', '--json', '--push', 'origin', ...windowArgs])
      .done;
    assert.equal(out.code, 2, out.stderr);
    const results = (JSON.parse(out.stdout) as { results: { task_id: string; state: string; reason: string }[] })
      .results;
    assert.deepEqual(
      results.map((x) => x.task_id),
      tasks.map((t) => t.id),
    );
    for (const result of results) {
      assert.equal(result.state, 'blocked');
      assert.match(result.reason, /the remote origin refused the push to main: .*pushes are closed today/);
    }
    assert.equal(git(remote.bare, 'rev-parse', 'main'), before);
  });

test('--push: a remote without the target branch, or no such remote, is a clear usage error', async () => {
  const r = testRepo();
  withRemote(r, 'plain');
  const missing = await integrate(d, 'nobranch', r.main, ['--once', '--push', 'origin', '--target', 'trunk']).done;
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /the branch trunk does not exist on the remote origin/);
  const unknown = await integrate(d, 'nobranch', r.main, ['--once', '--push', 'upstream']).done;
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /has no git remote named upstream/);
});

test('--push: a push refused because a person pushed between the fetch and the push is computed again on their commit', async () => {
  const r = testRepo();
  const remote = withRemote(r, 'cas');
  const work = remoteBranches(remote.clone('agents'), 'cs', 3);
  const tasks = await queueTasks(d, 'cas', work);
  const person = remote.clone('person');
  // The check runs after the merge is computed and before the push. The person pushes then, once per task: on
  // the first check of a task's merge that their push succeeds in (a push that loses a race with coord's own
  // fails the check, and the flaky-check retry runs it again). Keyed by the task, not by a count of runs: one
  // more run for one task must not shift the others.
  const script = join(r.top, 'person-pushes.sh');
  writeFileSync(
    script,
    [
      '#!/bin/sh',
      'set -e',
      // The task's own commit: the checked commit is its branch's tip (a fast-forward) or a merge of it.
      'task=$( (git log -1 --format=%s HEAD^2 2>/dev/null || git log -1 --format=%s) | tr -c A-Za-z0-9- _)',
      `cd ${person}`,
      '[ -e "done-$task" ] && exit 0',
      'echo "$task" > "person-$task.txt"; git add "person-$task.txt"',
      'git -c user.name=person -c user.email=p@example.com commit -q -m "person $task"',
      'git pull -q --rebase origin main && git push -q origin HEAD:main',
      'touch "done-$task"; git rev-parse HEAD >> pushed',
    ].join('\n'),
  );
  chmodSync(script, 0o755);
  writeFileSync(join(person, '.git', 'info', 'exclude'), 'done-*\npushed\n');
  const out = await integrate(d, 'cas', r.main, ['--once', '--json', '--push', 'origin', '--check', script]).done;
  assert.equal(out.code, 0, out.stderr);
  const pushed = readFileSync(join(person, 'pushed'), 'utf8').trim().split('\n');
  assert.equal(pushed.length, 3, 'the person pushed once during each task');
  const history = git(remote.bare, 'rev-list', 'main').split('\n');
  for (const sha of pushed) assert.ok(history.includes(sha), `the person's ${sha.slice(0, 7)} is in the remote's main`);
  const subjects = git(remote.bare, 'log', '--format=%s', 'main').split('\n');
  for (const t of tasks)
    assert.equal(
      subjects.filter((s) => s.startsWith(`coord: integrate #${t.id} `)).length,
      1,
      `${t.branch} merged once`,
    );
});

test('--push with --window 3: the window is checked on the remote tip and lands in one compare-and-swap push', async () => {
  const r = testRepo();
  const remote = withRemote(r, 'windowed');
  const work = remoteBranches(remote.clone('agents'), 'wp', 3);
  // The remote counts the pushes it accepts.
  const hook = join(remote.bare, 'hooks', 'post-receive');
  writeFileSync(hook, `#!/bin/sh\necho pushed >> ${join(r.top, 'pushes')}\n`);
  chmodSync(hook, 0o755);
  const tasks = await queueTasks(d, 'windowed', work);
  const out = await integrate(d, 'windowed', r.main, [
    '--once',
    '--json',
    '--push',
    'origin',
    '--check',
    'true',
    '--window',
    '3',
  ]).done;
  assert.equal(out.code, 0, out.stderr);
  assert.equal(readFileSync(join(r.top, 'pushes'), 'utf8'), 'pushed\n');
  const history = git(remote.bare, 'rev-list', 'main').split('\n');
  for (const t of tasks)
    assert.equal(history.filter((c) => c === t.head).length, 1, `${t.branch} in the remote's main`);
  assert.equal(r.rev('main'), git(remote.bare, 'rev-parse', 'main'), 'the local target followed');
});
