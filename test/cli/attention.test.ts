/**
 * SPEC §19 end to end: a real daemon, a real repository and `coord integrate` runs make each kind of item —
 * a merge held for review, a conflict and a failed check whose follow-ups nobody holds, a dirty target, a
 * failed task, an idle claim, an agent waiting — and each goes away when the command it names is run.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { git, type TestRepo, testRepo } from '../git/repo.js';
import { branches, integrate, queueTasks } from '../integrate/queue-fixture.js';
import { tempDir } from '../support/ctx.js';
import { COORD, childEnv, type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { waitFor } from '../support/wait-for.js';

interface Item {
  id: string;
  kind: string;
  what: string;
  why: string;
  since: string;
  command: string;
  task_id?: string;
  agent?: string;
}

const nowhere = tempDir('coord-att-cwd-');

/** Runs a line as a person types it, `coord` being this checkout's CLI, against the test's daemon and board. */
function shell(d: SpawnedDaemon, board: string, line: string, cwd = nowhere) {
  // tsx by its full path: the line runs from a folder with no node_modules of its own.
  const coord = COORD.map((a) => (a === 'tsx' ? import.meta.resolve('tsx') : a))
    .map((a) => `'${a}'`)
    .join(' ');
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      'sh',
      ['-c', `coord() { ${coord} "$@"; }; ${line}`],
      { cwd, env: childEnv({ COORD_STATE: d.stateDir, COORD_BOARD: board, COORD_AGENT: 'person@cli' }) },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

async function attention(d: SpawnedDaemon, board: string): Promise<Item[]> {
  const out = await shell(d, board, 'coord attention --json');
  assert.equal(out.code, 0, out.stderr);
  return (JSON.parse(out.stdout) as { items: Item[] }).items;
}

/** Runs the item's own command, then waits until the item is gone. */
async function resolveBy(d: SpawnedDaemon, board: string, item: Item, cwd?: string) {
  const out = await shell(d, board, item.command, cwd);
  assert.equal(out.code, 0, `${item.command}: ${out.stderr}${out.stdout}`);
  await waitFor(
    async () => !(await attention(d, board)).some((i) => i.id === item.id),
    `${item.id} to go once \`${item.command}\` ran`,
  );
}

const one = async (d: SpawnedDaemon, board: string, kind: string): Promise<Item> =>
  waitFor(
    async () => (await attention(d, board)).find((i) => i.kind === kind),
    `a ${kind} item on ${board}`,
    30_000,
  ).then((i) => i as Item);

describe('coord attention', () => {
  let d: SpawnedDaemon;
  let r: TestRepo;
  before(async () => {
    d = await spawnDaemon({ args: ['--idle-after', '2'] });
    r = testRepo();
  });
  after(() => d?.stop());

  test('nothing waiting says so in words', async () => {
    const out = await shell(d, 'quiet', 'coord attention');
    assert.equal(out.stdout.trim(), 'nothing waits on you');
  });

  test('a merge held for review is listed with coord approve, and approving it takes it off', async () => {
    const [t] = await queueTasks(d, 'rev', branches(r, 'rv', 1));
    const run = await integrate(d, 'rev', r.main, ['--once', '--review']).done;
    assert.equal(run.code, 0, run.stderr);
    const item = await one(d, 'rev', 'review');
    assert.equal(item.id, `review:${t?.id}`);
    assert.equal(item.command, `coord approve ${t?.id}`);
    assert.ok(Date.parse(item.since) > 0);
    const text = await shell(d, 'rev', 'coord attention');
    assert.match(text.stdout, /^1 thing waits on you:\n1\. #\S+ rv-0 is ready to merge into main\n/);
    assert.match(text.stdout, new RegExp(`→ coord approve ${t?.id}`));
    await resolveBy(d, 'rev', item);
    // The approval is recorded as an event naming the person who approved (COORD_AGENT of the shell).
    const res = await d.fetch(`/v1/events?board=rev&format=json`);
    const { events } = (await res.json()) as { events: { type: string; agent: string | null; task_id: string }[] };
    const approved = events.filter((e) => e.type === 'task.approved' && e.task_id === t?.id);
    assert.deepEqual(
      approved.map((e) => e.agent),
      ['person@cli'],
    );
  });

  test('a conflict whose follow-up nobody holds names the claim that starts it, and the claim takes it off', async () => {
    const work = ['c1', 'c2'].map((b) => {
      const dir = r.worktree(b);
      return { branch: b, head: r.commit(dir, { 'src/a.ts': `export const a = '${b}';\n` }, b) };
    });
    const [, second] = await queueTasks(d, 'con', work);
    await integrate(d, 'con', r.main, ['--once']).done;
    const item = await one(d, 'con', 'conflict');
    assert.equal(item.id, `conflict:${second?.id}`);
    assert.match(item.what, /conflicts with main in src\/a\.ts/);
    assert.match(item.command, /^coord claim \S+ --agent agent-c2$/);
    await resolveBy(d, 'con', item);
  });

  test('a failed check is listed the same way', async () => {
    const [t] = await queueTasks(d, 'chk', branches(r, 'ck', 1));
    await integrate(d, 'chk', r.main, ['--once', '--check', 'false']).done;
    const item = await one(d, 'chk', 'check_failed');
    assert.equal(item.task_id, t?.id);
    await resolveBy(d, 'chk', item);
  });

  test('a dirty target blocking the queue is listed, and the retry it names merges once the tree is clean', async () => {
    const [t] = await queueTasks(d, 'dty', branches(r, 'dt', 1));
    writeFileSync(join(r.main, 'src/a.ts'), 'uncommitted\n');
    await integrate(d, 'dty', r.main, ['--once']).done;
    const item = await one(d, 'dty', 'target_dirty');
    assert.equal(item.id, `target_dirty:${t?.id}`);
    assert.match(item.why, /uncommitted changes: src\/a\.ts/);
    assert.equal(item.command, `coord integrate --retry ${t?.id} --once`);
    git(r.main, 'checkout', '--', '.');
    await resolveBy(d, 'dty', item, r.main);
  });

  test('a failed task is listed with its note until a person writes one', async () => {
    const posted = await shell(d, 'fl', 'coord post "flaky thing" --json');
    const id = (JSON.parse(posted.stdout) as { task: { id: string } }).task.id;
    const claim = await shell(d, 'fl', `coord claim ${id} --agent bob --json`);
    const cid = (JSON.parse(claim.stdout) as { claim_id: string }).claim_id;
    const sub = await shell(
      d,
      'fl',
      `COORD_AGENT=bob coord submit ${id} --claim ${cid} --fail --note 'tests fail on CI'`,
    );
    assert.equal(sub.code, 0, sub.stderr);
    const item = await one(d, 'fl', 'task_failed');
    assert.equal(item.id, `task_failed:${id}`);
    assert.match(item.why, /tests fail on CI/);
    await resolveBy(d, 'fl', item);
  });

  test('a claim with no activity past --idle-after is listed, and cancelling it takes it off', async () => {
    const posted = await shell(d, 'idl', 'coord post "slow thing" --json');
    const id = (JSON.parse(posted.stdout) as { task: { id: string } }).task.id;
    assert.equal((await shell(d, 'idl', `coord claim ${id} --agent sleepy`)).code, 0);
    const item = await one(d, 'idl', 'agent_idle');
    assert.equal(item.agent, 'sleepy');
    assert.equal(item.command, `coord cancel ${id}`);
    await resolveBy(d, 'idl', item);
  });

  test('an agent whose client says it waits is listed until the client says it goes on', async () => {
    const post = (waiting: string | null) =>
      d.fetch('/v1/attention/waiting', { method: 'POST', json: { agent: 'claude#w1', board: 'wt', waiting } });
    assert.equal((await post('Claude needs your permission to use Bash')).status, 200);
    const item = await one(d, 'wt', 'agent_waiting');
    assert.equal(item.id, 'agent_waiting:claude#w1');
    assert.equal(item.why, 'Claude needs your permission to use Bash');
    assert.equal((await post(null)).status, 200);
    assert.deepEqual(await attention(d, 'wt'), []);
  });
});

describe('coord hook notify and resume (Claude Code hook input)', () => {
  let d: SpawnedDaemon;
  before(async () => {
    d = await spawnDaemon();
  });
  after(() => d?.stop());

  test('a permission-prompt notification makes the agent waiting; its next prompt, or its stop, ends it', async () => {
    const input = (extra: Record<string, string>) =>
      `'${JSON.stringify({ session_id: 'f00dfeed-1', cwd: nowhere, ...extra })}'`;
    const hook = (event: string, extra: Record<string, string> = {}) =>
      shell(
        d,
        'default',
        `unset COORD_AGENT COORD_BOARD; printf %s ${input(extra)} | coord hook ${event} --client claude`,
      );
    const notified = await hook('notify', {
      hook_event_name: 'Notification',
      notification_type: 'permission_prompt',
      message: 'Claude needs your permission to use Bash',
    });
    assert.equal(notified.code, 0, notified.stderr);
    assert.equal(notified.stdout, '', 'the hook says nothing to the client');
    const item = await one(d, 'default', 'agent_waiting');
    assert.equal(item.why, 'Claude needs your permission to use Bash');
    assert.match(item.agent ?? '', /^claude#/);
    assert.equal((await hook('resume', { hook_event_name: 'UserPromptSubmit', prompt: 'yes' })).code, 0);
    assert.deepEqual(await attention(d, 'default'), []);
    await hook('notify', {
      hook_event_name: 'Notification',
      notification_type: 'idle_prompt',
      message: 'Claude is waiting for your input',
    });
    assert.equal((await one(d, 'default', 'agent_waiting')).why, 'Claude is waiting for your input');
    assert.equal((await hook('stop', { hook_event_name: 'Stop' })).code, 0);
    assert.deepEqual(await attention(d, 'default'), []);
  });
});
