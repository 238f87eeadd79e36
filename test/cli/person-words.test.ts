/**
 * Issue 32: what a person reads — `coord events` opens on the latest page, `coord tree` keeps a plan that has
 * landed, `coord ls` says what `--all` would add, and the inbox names no internal word.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { COORD, childEnv, ROOT, type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';

describe('words for a person', () => {
  let d: SpawnedDaemon;
  before(async () => {
    d = await spawnDaemon();
  });
  after(() => d?.stop());

  const coord = (board: string, ...args: string[]) => {
    const [cmd, ...base] = COORD as [string, ...string[]];
    return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(
        cmd,
        [...base, ...args],
        { cwd: ROOT, env: childEnv({ COORD_STATE: d.stateDir, COORD_BOARD: board, COORD_AGENT: 'person@cli' }) },
        (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
      ),
    );
  };
  const post = async (board: string, title: string, ...args: string[]) =>
    (JSON.parse((await coord(board, 'post', title, '--json', ...args)).stdout) as { task: { id: string } }).task.id;

  test('coord events shows the latest page, newest last; --from-start the beginning', async () => {
    for (const t of ['first', 'second', 'third']) await post('ev', t);
    const latest = (await coord('ev', 'events', '--limit', '2')).stdout.trim().split('\n');
    assert.equal(latest[0], '(the latest 2 events; the whole trail: coord events --from-start)');
    assert.equal(latest.length, 3);
    const seqs = latest.slice(1).map((l) => Number(l.trim().split(/\s+/)[0]));
    assert.ok((seqs[0] ?? 0) < (seqs[1] ?? 0), 'newest last');
    const all = (await coord('ev', 'events', '--from-start')).stdout.trim().split('\n');
    assert.equal(all.length, 3);
    assert.equal(all.at(-1), latest.at(-1));
    const start = (await coord('ev', 'events', '--from-start', '--limit', '2')).stdout.trim().split('\n');
    assert.equal(start[0], all[0]);
    assert.match(start.at(-1) ?? '', /^more: coord events --since \d+$/);
  });

  test('coord tree keeps a finished plan with --all and says so without it', async () => {
    const id = await post('tr', 'landed work');
    const claim = JSON.parse((await coord('tr', 'claim', id, '--json')).stdout) as { claim_id: string };
    assert.equal((await coord('tr', 'submit', id, '--claim', claim.claim_id, '--ok')).code, 0);
    assert.equal((await coord('tr', 'tree')).stdout.trim(), 'no open tasks — 1 finished task: coord tree --all');
    assert.equal((await coord('tr', 'tree', '--all')).stdout.trim(), `#${id} [completed] landed work`);
  });

  test('coord ls says how many tasks --all would add', async () => {
    await post('ls', 'mine');
    await coord('ls', 'post', 'for bob only', '--for', 'bob', '--agent', 'alice');
    const out = (await coord('ls', 'ls')).stdout;
    assert.match(out, /mine/);
    assert.doesNotMatch(out, /for bob only/);
    assert.match(out, /^1 more task is private to other agents: coord ls --all$/m);
    assert.match((await coord('ls', 'ls', '--all')).stdout, /for bob only/);
  });

  test('the inbox a person reads names no cursor', async () => {
    await post('ib', 'something to claim');
    const out = (await coord('ib', 'inbox')).stdout;
    assert.doesNotMatch(out, /cursor/);
    assert.match(out.split('\n')[0] ?? '', /^1 to claim \(what changes from here: coord inbox --since \d+\)$/);
  });
});
