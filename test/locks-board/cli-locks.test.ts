import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tempDir } from '../support/ctx.js';
import { COORD, runProcess, type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';

// From another working directory `--import tsx` must name the loader by path.
const [cmd, ...base] = COORD as [string, ...string[]];

/** Runs the CLI from `cwd` (paths are resolved against it) and collects what it said. */
function coord(cwd: string, env: NodeJS.ProcessEnv, ...args: string[]) {
  return runProcess(cmd, [...base, ...args], { cwd, env: { ...process.env, ...env } });
}

describe('coord lock, unlock, locks and claim --files against a real daemon', () => {
  let d: SpawnedDaemon;
  let repo: string;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    d = await spawnDaemon();
    repo = tempDir('coord-repo-');
    mkdirSync(join(repo, '.git'));
    mkdirSync(join(repo, 'src', 'deep'), { recursive: true });
    env = { COORD_STATE: d.stateDir, COORD_BOARD: 'cli' };
  });
  after(async () => {
    await d.stop();
  });

  test('paths are locked relative to the repository root, directories gain their slash, and a conflict exits 2 naming the holder', async () => {
    const src = join(repo, 'src');
    const mine = await coord(src, env, 'lock', 'a.ts', 'deep', '--agent', 'alice', '--json');
    assert.equal(mine.code, 0, mine.stderr);
    const lock = JSON.parse(mine.stdout) as { lock_id: string; resources: string[] };
    assert.deepEqual(lock.resources, ['src/a.ts', 'src/deep/']);

    const theirs = await coord(repo, env, 'lock', 'src/deep/x.ts', 'free.ts', '--agent', 'bob');
    assert.equal(theirs.code, 2);
    assert.match(theirs.stderr, /lock_conflict: src\/deep\/x\.ts is held by alice \(as src\/deep\/\)/);

    const json = await coord(repo, env, 'lock', 'src/a.ts', '--agent', 'bob', '--json');
    assert.equal(json.code, 2);
    const err = JSON.parse(json.stdout).error;
    assert.equal(err.code, 'lock_conflict');
    assert.deepEqual(err.conflicts[0].lock_id, lock.lock_id);

    const outside = await coord(repo, env, 'lock', '../elsewhere.ts', '--agent', 'bob');
    assert.equal(outside.code, 1);
    assert.match(outside.stderr, /outside .* inside the repository/);

    const list = await coord(repo, env, 'locks', '--json');
    assert.deepEqual(
      JSON.parse(list.stdout).locks.map((l: { agent: string; resources: string[] }) => [l.agent, l.resources]),
      [['alice', ['src/a.ts', 'src/deep/']]],
      'bob holds nothing after his refused attempts',
    );
    const table = await coord(repo, env, 'locks');
    assert.match(table.stdout, new RegExp(`${lock.lock_id}\\s+alice\\s+.*src/a\\.ts src/deep/`));

    for (let i = 0; i < 2; i++) {
      const un = await coord(repo, env, 'unlock', lock.lock_id, '--json');
      assert.equal(un.code, 0, un.stderr);
      assert.deepEqual(JSON.parse(un.stdout), { released: true });
    }
  });

  test('coord unlock PATH releases your own lock covering that path; a path you hold nothing on releases nothing and exits 1 saying so', async () => {
    const src = join(repo, 'src');
    const never = await coord(src, env, 'unlock', 'never.ts', '--agent', 'carol');
    assert.equal(never.code, 1, never.stdout + never.stderr);
    assert.match(never.stderr, /nothing released: carol holds no lock on src\/never\.ts/);
    assert.doesNotMatch(never.stdout, /released/);

    const held = JSON.parse((await coord(src, env, 'lock', 'b.ts', '--agent', 'carol', '--json')).stdout);
    const notYours = await coord(repo, env, 'unlock', 'src/b.ts', '--agent', 'dave');
    assert.equal(notYours.code, 1, notYours.stdout + notYours.stderr);
    assert.match(notYours.stderr, /nothing released: dave holds no lock on src\/b\.ts — it is held by a lock of carol/);
    const listed = async () =>
      JSON.parse((await coord(repo, env, 'locks', '--json')).stdout).locks.map((l: { lock_id: string }) => l.lock_id);
    assert.ok((await listed()).includes(held.lock_id), "carol's lock is untouched");

    const mine = await coord(src, env, 'unlock', 'b.ts', '--agent', 'carol', '--json');
    assert.equal(mine.code, 0, mine.stderr);
    assert.deepEqual(JSON.parse(mine.stdout), { released: true, lock_ids: [held.lock_id] });
    assert.ok(!(await listed()).includes(held.lock_id), 'released');
  });

  test('a kind:name key is never a path: coord lock port:5173 in a subfolder locks port:5173, and unlock by that key releases it', async () => {
    const src = join(repo, 'src', 'deep');
    const locked = await coord(src, env, 'lock', 'port:5173', 'db:dev', '--agent', 'erin', '--json');
    assert.equal(locked.code, 0, locked.stderr);
    assert.deepEqual(JSON.parse(locked.stdout).resources, ['db:dev', 'port:5173']);
    const un = await coord(src, env, 'unlock', 'port:5173', '--agent', 'erin');
    assert.equal(un.code, 0, un.stderr);
    assert.match(un.stdout, /^released l_/);
  });

  test('coord claim ID --files exits 2 while a file is held and leaves the task queued; it succeeds once the holder submits', async () => {
    const post = async (title: string) =>
      (
        (await (
          await d.fetch('/v1/tasks', { method: 'POST', json: { title, agent: 'alice', board: 'cli' } })
        ).json()) as {
          task: { id: string };
        }
      ).task.id;
    const first = await post('holder');
    const second = await post('waiter');
    const holder = await coord(repo, env, 'claim', first, '--files', 'src/shared.ts', '--agent', 'alice', '--json');
    assert.equal(holder.code, 0, holder.stderr);
    const grant = JSON.parse(holder.stdout) as { claim_id: string; lock: { resources: string[] } };
    assert.deepEqual(grant.lock.resources, ['src/shared.ts']);

    const refused = await coord(join(repo, 'src'), env, 'claim', second, '--files', 'shared.ts', '--agent', 'bob');
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /lock_conflict: src\/shared\.ts is held by alice/);
    const shown = (await (await d.fetch(`/v1/tasks/${second}`)).json()) as { task: { state: string } };
    assert.equal(shown.task.state, 'queued');

    await d.fetch(`/v1/tasks/${first}/submit`, {
      method: 'POST',
      json: { claim_id: grant.claim_id, status: 'completed' },
    });
    const ok = await coord(repo, env, 'claim', second, '--files', 'src/shared.ts', '--agent', 'bob');
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /locked src\/shared\.ts until the claim ends/);
  });
});
