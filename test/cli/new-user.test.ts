/** What a new user met (issue 26, item 7), each answered in words that say what happened and what to do. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tempDir } from '../support/ctx.js';
import { COORD, childEnv, ROOT, runCli, type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { waitFor } from '../support/wait-for.js';

describe('what a new user met', () => {
  let d: SpawnedDaemon;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    d = await spawnDaemon();
    env = { COORD_STATE: d.stateDir, COORD_BOARD: 'newbie', COORD_AGENT: 'alice' };
  });
  after(async () => {
    await d.stop();
  });
  const cli = (args: string[], extra: NodeJS.ProcessEnv = {}) => runCli(args, { ...env, ...extra });
  const json = async (args: string[]) => {
    const r = await cli([...args, '--json']);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout);
  };

  test('a mistyped claim_id is answered as not the task’s current claim, not as a claim that ended', async () => {
    const id = (await json(['post', 'typo claim'])).task.id;
    const claim = (await json(['claim', id])).claim_id as string;
    const wrong = `${claim.slice(0, -2)}${claim.endsWith('aa') ? 'bb' : 'aa'}`;
    const r = await cli(['submit', id, '--claim', wrong, '--ok']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /the claim_id you sent is not #\w+'s current claim/);
    assert.doesNotMatch(r.stderr, /no longer current/);
    assert.equal((await json(['show', id])).task.state, 'claimed', 'the task is still yours');
  });

  test('locking a path you already hold renews your lock instead of a conflict with yourself', async () => {
    const first = await json(['lock', 'src/mine.ts']);
    const again = await json(['lock', 'src/mine.ts', '--lease', '600']);
    assert.equal(again.lock_id, first.lock_id);
    assert.ok(again.lease_until > first.lease_until, 'renewed');
    const other = await cli(['lock', 'src/mine.ts'], { COORD_AGENT: 'bob' });
    assert.equal(other.code, 2);
    assert.match(other.stderr, /held by alice/);
  });

  test('a plan with a typo names the missing key and the typo, an unknown ref is named as such, and one task is "1 task"', async () => {
    const dir = tempDir('coord-plan-');
    const plan = (name: string, body: unknown) => {
      writeFileSync(join(dir, name), JSON.stringify(body));
      return join(dir, name);
    };
    const typo = await cli(['plan', plan('typo.json', { tasks: [{ ref: 'a', titel: 'x' }] })]);
    assert.equal(typo.code, 1);
    assert.match(typo.stderr, /`title` is missing \(is `titel` a typo of it\?\)/);
    const ref = await cli(['plan', plan('ref.json', { tasks: [{ ref: 'a', title: 'x', blocked_by: ['zzz'] }] })]);
    assert.match(ref.stderr, /zzz is neither a ref of this plan \(a\) nor a task id on board newbie/);
    const one = await cli(['plan', plan('one.json', { tasks: [{ ref: 'solo', title: 'one' }] })]);
    assert.equal(one.code, 0, one.stderr);
    assert.match(one.stdout, /^posted 1 task: 1 ready$/m);
  });

  test('sending to an agent never seen on the board says so', async () => {
    const r = await cli(['send', 'nobdy', 'hello']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /no agent named nobdy has been seen on board newbie/);
    const known = await cli(['send', 'alice', 'note to self']);
    assert.doesNotMatch(known.stdout, /has been seen/);
  });

  test('claim --help says --files needs a task id', async () => {
    assert.match((await cli(['claim', '--help'])).stdout, /--files <path\.\.\.>\s+with a task id: lock these files/);
  });

  test('after release --to bob the agent who handed off still sees the task and its tree; bob’s inbox shows the handoff and its note', async () => {
    const carol = { COORD_AGENT: 'carol' };
    const post = async (args: string[]) => {
      const r = await cli(['post', ...args, '--json'], carol);
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout).task.id as string;
    };
    const child = await post(['the part alice hands on']);
    const after = await post(['what waits for it', '--after', child]);
    const claim = (await json(['claim', child])).claim_id as string;
    const handed = await cli(['release', child, '--claim', claim, '--to', 'bob', '--note', 'tests pass, docs left']);
    assert.equal(handed.code, 0, handed.stderr);

    const shown = await json(['show', child]);
    assert.equal(shown.task.for, 'bob');
    assert.equal(shown.task.handed_by, 'alice');
    const tree = await cli(['tree', after]);
    assert.equal(tree.code, 0, tree.stderr);
    assert.match(tree.stdout, /the part alice hands on/);
    assert.doesNotMatch(tree.stdout, /not visible/);

    const inbox = await cli(['inbox'], { COORD_AGENT: 'bob' });
    assert.match(inbox.stdout, new RegExp(`^#${child} task p0 \\S+ alice>you: the part alice hands on$`, 'm'));
    assert.match(inbox.stdout, /^ {2}handoff from alice: tests pass, docs left$/m);
    // Still private to everyone else.
    const other = await cli(['show', child], { COORD_AGENT: 'dave' });
    assert.notEqual(other.code, 0);
    assert.match(other.stderr, /not_found/);
  });

  test('coord events shows a lapsed lease as "lease lapsed"', async () => {
    await json(['lock', 'src/short.ts', '--lease', '1']);
    await waitFor(async () => (await cli(['events'])).stdout.includes('src/short.ts (lease lapsed)'), 'the lapse');
  });

  test('coord open where there is no display prints the URL and does not claim to open a browser', async () => {
    const r = await cli(['open'], { DISPLAY: '', WAYLAND_DISPLAY: '' });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /opening/);
    assert.match(r.stdout, /#token=/);
  });

  test('a token file that does not match the running daemon is said in those words, not as an HTTP hint', async () => {
    // The token file replaced while the daemon runs (another daemon's setup, a restore from backup).
    const { readFileSync } = await import('node:fs');
    const file = join(d.stateDir, 'token');
    const kept = readFileSync(file, 'utf8');
    writeFileSync(file, 'not-the-daemons-token-not-the-daemons-token\n', { mode: 0o600 });
    let r: { code: number | null; stderr: string };
    try {
      r = await cli(['ls']);
    } finally {
      writeFileSync(file, kept, { mode: 0o600 });
    }
    assert.equal(r.code, 1);
    assert.match(r.stderr, /token file .* does not match the running daemon's/);
    assert.doesNotMatch(r.stderr, /Authorization: Bearer/);
  });
});

test('coord serve says it is listening once', async () => {
  const state = tempDir('coord-serve-');
  const [cmd, ...base] = COORD as [string, ...string[]];
  const child = spawn(cmd, [...base, 'serve', '--port', '0', '--state', state], {
    cwd: ROOT,
    env: childEnv({ COORD_LOG_LEVEL: 'info', COORD_LOG_FORMAT: 'json' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (s) => {
    out += s;
  });
  child.stderr.on('data', (s) => {
    out += s;
  });
  try {
    await waitFor(() => out.includes('stop with Ctrl-C') && out.includes('coord daemon listening'), 'the start lines');
    assert.equal(out.match(/listening/gi)?.length, 1, out);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
});
