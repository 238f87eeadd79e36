/**
 * The claim race with real clients (SPEC rule 1, §17): Copilot CLI, OpenCode, Kilo, Qwen Code, Cline and
 * Pi, each set up by `coord setup <client> --write` alone, have their models claim the same task at
 * once. Exactly one wins; every other model reads that the task is held, and by whom.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
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

describe('real clients race for one task', () => {
  let daemon: SpawnedDaemon;
  before(async () => {
    daemon = await spawnDaemon();
  });
  after(async () => {
    await daemon.stop();
  });

  it('six clients claim one task at once: exactly one wins, and every other model is told the task is held and by whom', async (t) => {
    const repo = makeRepo('coord-agent-race-');
    const agents: NewAgent[] = [];
    for (const client of NEW_CLIENTS) {
      const a = await setUpNew(client, repo, daemon.stateDir);
      assert.equal(a.setup.code, 0, describeRun(a.setup));
      agents.push(a);
    }
    const first = agents[0] as NewAgent;
    const posted = await coord(['post', 'The one task', '--json'], { cwd: repo, env: first.env });
    const id = (JSON.parse(posted.stdout) as { task: { id: string } }).task.id;

    // Two barriers: every client's claim goes out once all six are ready to claim (their start-up times
    // differ by tens of seconds), and no session ends — taking its claim with it — before all have claimed.
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
    const readyToClaim = barrier(agents.length);
    const allClaimed = barrier(agents.length);
    const fakes: FakeModel[] = [];
    try {
      const runs = await Promise.all(
        agents.map(async (a) => {
          const fake = await startFakeChat([
            { tool: coordTool(a.client, 'claim_task'), args: { task_id: id }, before: readyToClaim },
            { tool: coordTool(a.client, 'who'), args: {}, before: allClaimed },
            { say: 'done' },
          ]);
          fakes.push(fake);
          return { a, fake, run: await startNew(a, fake, repo, `Claim #${id}.`).done };
        }),
      );
      const outcomes = runs.map(({ a, fake, run }) => {
        const r = fake.results().find((x) => x.tool === coordTool(a.client, 'claim_task'));
        return { client: a.client, text: r ? coordBytesOf(a.client, r) : '', raw: r?.text ?? '', run };
      });
      for (const o of outcomes) t.diagnostic(`${o.client}: ${JSON.stringify(o.raw)}`);
      const winners = outcomes.filter((o) => o.text.startsWith(`claimed: #${id}`) && !/is held by/.test(o.text));
      assert.equal(winners.length, 1, JSON.stringify(outcomes.map((o) => [o.client, o.raw, describeRun(o.run)])));
      const winner = winners[0]?.client ?? '?';
      for (const o of outcomes) {
        if (o.client === winner) continue;
        assert.match(o.raw, new RegExp(`is held by ${winner}#`), `${o.client} is told the holder: ${o.raw}`);
      }
    } finally {
      await Promise.all(fakes.map((f) => f.close()));
      for (const a of agents) if (a.client === 'cline') stopClineHubs(a.home);
    }
  });
});
