/**
 * SPEC §10's race, for real: two OS processes, each an agent, decide the same
 * free path at the same instant against one real daemon, round after round.
 * Every round exactly one is allowed and holds the path; the other is denied
 * naming it. (A hook that looked, then locked, let both through here.)
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { after, before, test } from 'node:test';
import type { Lock } from '../../src/core/model.js';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';

const DECIDER = new URL('./fixtures/decider.mjs', import.meta.url).pathname;
const ROUNDS = 40;
const BOARD = 'race';

interface Answer {
  round: number;
  agent: string;
  status: number;
  decision: 'allow' | 'deny';
  lock_id: string | null;
  conflicts: { holder: string; lock_id: string }[];
}

function startDecider(d: SpawnedDaemon, agent: string) {
  const child: ChildProcess = spawn(process.execPath, [DECIDER, d.url, d.token, agent, BOARD], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines: Record<string, unknown>[] = [];
  let wake = () => {};
  createInterface({ input: child.stdout! }).on('line', (l) => {
    lines.push(JSON.parse(l));
    wake();
  });
  return {
    child,
    send: (line: string) => child.stdin!.write(`${line}\n`),
    async next(): Promise<Record<string, unknown>> {
      while (lines.length === 0) await new Promise<void>((r) => (wake = r));
      return lines.shift()!;
    },
  };
}

let d: SpawnedDaemon;
let deciders: ReturnType<typeof startDecider>[] = [];
before(async () => {
  d = await spawnDaemon();
});
after(async () => {
  for (const x of deciders) x.child.stdin!.end();
  await d.stop();
});

test(`two processes deciding one free path at the same instant, ${ROUNDS} rounds: exactly one is allowed and holds it, the other is denied naming it`, {
  timeout: 120_000,
}, async () => {
  deciders = ['alice', 'bob'].map((a) => startDecider(d, a));
  for (const x of deciders) assert.deepEqual(await x.next(), { ready: true });
  const wins = { alice: 0, bob: 0 };
  for (let round = 1; round <= ROUNDS; round++) {
    for (const x of deciders) x.send(`round ${round}`);
    const answers = (await Promise.all(deciders.map((x) => x.next()))) as unknown as Answer[];
    const context = JSON.stringify(answers);
    for (const a of answers) assert.equal(a.status, 200, context);
    const allowed = answers.filter((a) => a.decision === 'allow');
    assert.equal(allowed.length, 1, `round ${round}: exactly one allowed — ${context}`);
    const winner = allowed[0]!;
    const loser = answers.find((a) => a !== winner)!;
    assert.equal(loser.decision, 'deny');
    assert.deepEqual(
      loser.conflicts.map((c) => [c.holder, c.lock_id]),
      [[winner.agent, winner.lock_id]],
    );
    const { locks } = (await (await d.fetch(`/v1/locks?board=${BOARD}`)).json()) as { locks: Lock[] };
    const holding = locks.filter((l) => l.resources.includes(`race-${round}.ts`));
    assert.deepEqual(
      holding.map((l) => l.agent),
      [winner.agent],
    );
    wins[winner.agent as 'alice' | 'bob']++;
  }
  assert.equal(wins.alice + wins.bob, ROUNDS);
});
