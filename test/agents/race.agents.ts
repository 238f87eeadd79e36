/**
 * The claim race with real clients (SPEC rule 1, §17): Copilot CLI, OpenCode, Kilo, Qwen Code, Cline and
 * Pi, each set up by `coord setup <client> --write` alone, have their models claim the same task at
 * once, round after round within one session each (a client starts once: the suite stays fast). In
 * every round exactly one wins; every other model reads that the task is held, and by whom.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { suiteDaemon } from '../support/suite-daemon.js';
import { startFakeChat } from './fake-chat.js';
import type { FakeModel } from './fake-model.js';
import {
  coordBytesOf,
  coordTool,
  NEW_CLIENTS,
  type NewAgent,
  setUpNew,
  startNew,
  stopClineHubs,
} from './new-clients.js';
import { coord, describeRun, makeRepo } from './support.js';

/** Rounds of the race: each a fresh task all six claim at once. */
const ROUNDS = 3;

describe('real clients race for one task', () => {
  const daemon = suiteDaemon();

  it('six clients claim one task at once, three rounds: in each exactly one wins, and every other model is told the task is held and by whom', async (t) => {
    const repo = makeRepo('coord-agent-race-');
    const agents: NewAgent[] = [];
    for (const client of NEW_CLIENTS) {
      const a = await setUpNew(client, repo, daemon.stateDir);
      assert.equal(a.setup.code, 0, describeRun(a.setup));
      agents.push(a);
    }
    const first = agents[0] as NewAgent;
    const ids: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const posted = await coord(['post', `The one task of round ${round}`, '--json'], { cwd: repo, env: first.env });
      ids.push((JSON.parse(posted.stdout) as { task: { id: string } }).task.id);
    }

    // Barriers: each round's claims go out once all six are ready to claim (their start-up times differ
    // by tens of seconds, a round's answers by seconds), and no session ends — taking its claims with
    // it — before all have claimed in the last round.
    const barrier = (n: number) => {
      let arrived = 0;
      let open: () => void = () => {};
      const opened = new Promise<void>((resolve) => {
        open = resolve;
      });
      return () => {
        arrived += 1;
        if (arrived === n) open();
        return opened;
      };
    };
    const rounds = ids.map((id) => ({ id, readyToClaim: barrier(agents.length) }));
    const allClaimed = barrier(agents.length);
    const fakes: FakeModel[] = [];
    try {
      const runs = await Promise.all(
        agents.map(async (a) => {
          const fake = await startFakeChat([
            ...rounds.map(({ id, readyToClaim }) => ({
              tool: coordTool(a.client, 'claim_task'),
              args: { task_id: id },
              before: readyToClaim,
            })),
            { tool: coordTool(a.client, 'who'), args: {}, before: allClaimed },
            { say: 'done' },
          ]);
          fakes.push(fake);
          return { a, fake, run: await startNew(a, fake, repo, `Claim ${ids.map((id) => `#${id}`).join(', ')}.`).done };
        }),
      );
      const won: string[] = [];
      ids.forEach((id, round) => {
        const outcomes = runs.map(({ a, fake, run }) => {
          const r = fake.results().filter((x) => x.tool === coordTool(a.client, 'claim_task'))[round];
          return { client: a.client, text: r ? coordBytesOf(a.client, r) : '', raw: r?.text ?? '', run };
        });
        for (const o of outcomes) t.diagnostic(`round ${round + 1}, ${o.client}: ${JSON.stringify(o.raw)}`);
        const winners = outcomes.filter((o) => o.text.startsWith(`claimed: #${id}`) && !/is held by/.test(o.text));
        assert.equal(
          winners.length,
          1,
          `round ${round + 1}: ${JSON.stringify(outcomes.map((o) => [o.client, o.raw, describeRun(o.run)]))}`,
        );
        const winner = winners[0]?.client ?? '?';
        won.push(winner);
        for (const o of outcomes) {
          if (o.client === winner) continue;
          assert.match(
            o.raw,
            new RegExp(`#${id} is held by ${winner}#`),
            `round ${round + 1}: ${o.client} is told the holder: ${o.raw}`,
          );
        }
      });
      t.diagnostic(`winners by round: ${won.join(', ')}`);
    } finally {
      await Promise.all(fakes.map((f) => f.close()));
      for (const a of agents) if (a.client === 'cline') stopClineHubs(a.home);
    }
  });
});
