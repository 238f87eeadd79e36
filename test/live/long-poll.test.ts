import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runCli, type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { median, waitFor } from './helpers.js';

/** POST /v1/claim with wait_s over a real daemon: woken by the event, not by a timer. */
describe('the long-poll claim', () => {
  let d: SpawnedDaemon;
  before(async () => {
    d = await spawnDaemon();
  });
  after(async () => {
    await d.stop();
  });

  const call = async (method: string, path: string, json?: unknown) => {
    const res = await d.fetch(path, { method, json });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const post = async (board: string, title: string, extra: Record<string, unknown> = {}) =>
    (await call('POST', '/v1/tasks', { agent: 'poster', board, title, ...extra })).body.task.id as string;
  const waitClaim = (agent: string, board: string, wait_s = 30) =>
    call('POST', '/v1/claim', { agent, board, wait_s, lease_s: 60 });
  /**
   * A waiting claim subscribes before it first looks, and is seen (presence) in the same tick:
   * once /v1/agents lists it, a task posted now cannot be missed.
   */
  const waiting = (agent: string, board: string) =>
    waitFor(async () => {
      const { body } = await call('GET', `/v1/agents?board=${board}`);
      return (body.agents as { name: string }[]).some((a) => a.name === agent);
    }, `${agent} to be waiting`);

  test('a claim waiting before the task is posted returns that task', async () => {
    const claim = waitClaim('early-bird', 'lp-1');
    await waiting('early-bird', 'lp-1');
    const id = await post('lp-1', 'arrives later');
    const res = await claim;
    assert.equal(res.status, 200);
    assert.equal(res.body.task.id, id);
    assert.equal(res.body.task.claimed_by, 'early-bird');
  });

  test('post → claim latency over 50 trials (median printed, not asserted)', async () => {
    const latencies: number[] = [];
    for (let i = 0; i < 50; i++) {
      const agent = `lat-${i}`;
      const board = `lat-${i}`;
      const claim = waitClaim(agent, board);
      await waiting(agent, board);
      const t0 = performance.now();
      const posted = call('POST', '/v1/tasks', { agent: 'poster', board, title: `trial ${i}` });
      const res = await claim;
      latencies.push(performance.now() - t0);
      assert.equal(res.status, 200);
      assert.equal(res.body.task.id, (await posted).body.task.id);
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    console.log(
      `post→claim over HTTP, 50 trials: median ${median(latencies).toFixed(2)} ms, ` +
        `p90 ${sorted[44]!.toFixed(2)} ms, max ${sorted[49]!.toFixed(2)} ms`,
    );
  });

  test('a long-poll with nothing to claim answers 204 after wait_s', async () => {
    const res = await waitClaim('patient', 'lp-empty', 1);
    assert.equal(res.status, 204);
    assert.equal(res.body, null);
  });

  test('a long-poll that loses the race for a new task keeps waiting and gets the next one', async () => {
    const board = 'lp-race';
    const a = waitClaim('racer-a', board);
    const b = waitClaim('racer-b', board);
    await Promise.all([waiting('racer-a', board), waiting('racer-b', board)]);
    const first = await post(board, 'only one of you');
    const winner = await Promise.race([a.then(() => 'a' as const), b.then(() => 'b' as const)]);
    const [won, loser] = winner === 'a' ? [await a, b] : [await b, a];
    assert.equal(won.status, 200);
    assert.equal(won.body.task.id, first);
    const second = await post(board, 'the next one');
    const late = await loser;
    assert.equal(late.status, 200, 'the loser kept waiting instead of answering 204');
    assert.equal(late.body.task.id, second);
  });

  test('a waiter is not fooled by tasks it may not take: another board, or private to someone else', async () => {
    const board = 'lp-picky';
    const claim = waitClaim('picky', board);
    await waiting('picky', board);
    await post('lp-elsewhere', 'other board');
    await post(board, 'not yours', { for: 'someone-else' });
    const mine = await post(board, 'yours');
    const res = await claim;
    assert.equal(res.status, 200);
    assert.equal(res.body.task.id, mine);
  });

  test('`coord claim --wait S` waits for a task posted after it started', async () => {
    const env = { COORD_STATE: d.stateDir, COORD_BOARD: 'lp-cli', COORD_AGENT: 'cli-waiter' };
    const cli = runCli(['claim', '--wait', '30', '--json'], env);
    await waiting('cli-waiter', 'lp-cli');
    const id = await post('lp-cli', 'for the cli');
    const out = await cli;
    assert.equal(out.code, 0, out.stderr);
    assert.equal(JSON.parse(out.stdout).task.id, id);
  });
});
