import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { raceClaimers } from './processes.js';

describe('claims race across real OS processes over real HTTP', () => {
  let d: SpawnedDaemon;
  before(async () => {
    d = await spawnDaemon();
  });
  after(async () => {
    await d.stop();
  });

  const post = async (title: string, board = 'race') => {
    const res = await d.fetch('/v1/tasks', { method: 'POST', json: { title, agent: 'poster', board } });
    return ((await res.json()) as { task: { id: string } }).task.id;
  };

  test('16 processes race for one task: exactly one wins, every other gets 409 claimed naming the winner', async () => {
    const id = await post('the one task');
    const agents = Array.from({ length: 16 }, (_, i) => `racer-${i}`);
    const attempts = await raceClaimers(d.url, d.token, agents, [id]);
    assert.equal(attempts.length, 16);
    const winners = attempts.filter((a) => a.status === 200);
    assert.equal(winners.length, 1);
    const winner = winners[0]!.agent;
    for (const loser of attempts.filter((a) => a.status !== 200)) {
      assert.equal(loser.status, 409);
      assert.equal(loser.code, 'claimed');
      assert.equal(loser.holder, winner);
    }
    const shown = (await (await d.fetch(`/v1/tasks/${id}`)).json()) as {
      task: { claimed_by: string; attempts: number };
    };
    assert.equal(shown.task.claimed_by, winner);
    assert.equal(shown.task.attempts, 1);
  });

  test('200 tasks, 8 concurrent claimers each: exactly one winner per task', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 200; i++) ids.push(await post(`task ${i}`, 'race-200'));
    const agents = Array.from({ length: 8 }, (_, i) => `worker-${i}`);
    const attempts = await raceClaimers(d.url, d.token, agents, ids);
    assert.equal(attempts.length, 1600);
    const winsByTask = new Map<string, string[]>();
    for (const a of attempts) {
      if (a.status === 200) winsByTask.set(a.task, [...(winsByTask.get(a.task) ?? []), a.agent]);
      else assert.equal(a.code, 'claimed');
    }
    assert.equal(winsByTask.size, 200);
    for (const [task, winners] of winsByTask) assert.equal(winners.length, 1, `task ${task} won by ${winners}`);
    const claimIds = attempts.filter((a) => a.status === 200).map((a) => a.claim_id);
    assert.equal(new Set(claimIds).size, 200, 'every claim has its own claim_id');
  });
});
