/**
 * SPEC §17 with the real Copilot CLI, OpenCode, Kilo, Qwen Code, Cline and Pi, each set up by `coord
 * setup <client> --write` alone and driven headless by the fake Chat Completions model. One session per
 * client covers every check (the suite must stay fast): coord's tools reach its model and a claim
 * reaches coord; the empty inbox, a task line and a lost claim fit their budgets as the model reads
 * them (the client's wrapper reported apart); its own edit tool on a file another agent holds is
 * refused — file unchanged, the model told `lock_conflict` with the holder — while an edit of a free
 * file takes an auto-lock held by the session's own agent, freed once the client has exited.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { suiteDaemon } from '../support/suite-daemon.js';
import { waitFor } from '../support/wait-for.js';
import { startFakeChat } from './fake-chat.js';
import {
  binOf,
  coordBytesOf,
  coordTool,
  coordToolDefBytes,
  EDIT_TOOL,
  editSteps,
  failedPartOf,
  NEW_CLIENTS,
  pinOf,
  setUpNew,
  startNew,
  stopClineHubs,
} from './new-clients.js';
import { coord, describeRun, makeRepo } from './support.js';

const TITLE = 'Fix the flaky login test: the session cookie expires between the two retries now';
const A1 = 'export const a = 1;';
const B1 = 'export const b = 1;';
const B2 = 'export const b = 2;';

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
const read = (repo: string, file: string) => readFileSync(join(repo, file), 'utf8');

interface Who {
  agents: { name: string; locks: string[]; claims: unknown[] }[];
}

describe('the clients of SPEC §17, set up by coord setup alone', () => {
  const daemon = suiteDaemon();

  for (const client of NEW_CLIENTS) {
    it(`${client}: its model gets coord's tools and claims a task; an empty inbox, a task line and a lost claim fit their budgets; its edit of a file another agent holds is refused with the holder named, and its edit of a free file auto-locks it for its own agent until it exits`, async (t) => {
      const repo = makeRepo(`coord-agent-${client}-`);
      const agent = await setUpNew(client, repo, daemon.stateDir);
      assert.equal(agent.setup.code, 0, `coord setup ${client} --write: ${describeRun(agent.setup)}`);
      const cli = (args: string[]) => coord(args, { cwd: repo, env: agent.env });
      const held = await cli(['lock', 'src/a.ts', '--agent', 'alice', '--lease', '600', '--json']);
      assert.equal(held.code, 0, describeRun(held));

      let taskId = '';
      // A task bob holds: the claim is lost, and the model must read who holds it (the step's arguments
      // are filled in when it is reached, before it is answered).
      const lostClaim = {
        tool: coordTool(client, 'claim_task'),
        args: {} as Record<string, unknown>,
        before: async () => {
          const posted = await cli(['post', 'Bob has this one', '--json']);
          const otherId = (JSON.parse(posted.stdout) as { task: { id: string } }).task.id;
          const claimed = await cli(['claim', otherId, '--agent', 'bob', '--json']);
          assert.equal(claimed.code, 0, describeRun(claimed));
          lostClaim.args.task_id = otherId;
        },
      };
      let whoDuring: Who = { agents: [] };
      const fake = await startFakeChat([
        { tool: coordTool(client, 'inbox'), args: {} },
        {
          tool: coordTool(client, 'inbox'),
          args: {},
          before: async () => {
            const posted = await cli(['post', TITLE, '--json']);
            assert.equal(posted.code, 0, describeRun(posted));
            taskId = (JSON.parse(posted.stdout) as { task: { id: string } }).task.id;
          },
        },
        { tool: coordTool(client, 'claim_task'), args: {} },
        lostClaim,
        ...editSteps(client, repo, 'src/a.ts', A1, '// clobbered'),
        ...editSteps(client, repo, 'src/b.ts', B1, B2),
        {
          say: 'done',
          before: async () => {
            whoDuring = JSON.parse((await cli(['who', '--json'])).stdout) as Who;
          },
        },
      ]);
      let run: Awaited<ReturnType<typeof startNew>['done']>;
      try {
        run = await startNew(agent, fake, repo, 'Check the inbox, claim the task, then set a and b to 2.').done;
      } finally {
        await fake.close();
      }
      const ended = Date.now();
      const results = fake.results();
      const seen = `${describeRun(run)}\nresults: ${JSON.stringify(results).slice(0, 3000)}`;
      t.diagnostic(
        `${client} ${pinOf(client).version} (${binOf(client)}): ${fake.turns().length} model turns, exit ${run.code}`,
      );

      // coord's tools reached the model (Qwen Code defers them behind tool_search: none are listed).
      const first = fake.turns()[0]?.body;
      const defBytes = coordToolDefBytes(client, first);
      const listed = [...JSON.stringify(first ?? {}).matchAll(new RegExp(`"name":"${coordTool(client, '')}`, 'g'))]
        .length;
      t.diagnostic(`${client}: coord's tool definitions in a request: ${defBytes} bytes (${listed} tools)`);

      // coord prime's text reached the model (Copilot CLI may send its first request before its
      // session-start hook has answered): a session-start hook (Copilot CLI, Qwen Code), coord's
      // plugin (OpenCode, Kilo: the system prompt; Cline: beforeRun's appendContext) or extension (Pi).
      {
        const prime = /coord: you are [^ ]+ on board/;
        const at = fake.turns().findIndex((r) => prime.test(JSON.stringify(r.body ?? '')));
        t.diagnostic(`${client}: coord prime's text reached the model in request ${at + 1} of ${fake.turns().length}`);
        assert.ok(at >= 0, `the session-start context never reached the model: ${seen}`);
      }

      const coordResults = results.filter((r) => r.tool.startsWith(coordTool(client, '')));
      assert.ok(coordResults.length >= 4, `four coord results reached the model: ${seen}`);
      const [empty, one, claimed, lost] = coordResults.slice(-4);
      if (!empty || !one || !claimed || !lost) throw new Error('unreachable');
      const own = (r: typeof empty) => coordBytesOf(client, r);
      for (const [what, r] of [
        ['empty inbox', empty],
        ['one task', one],
        ['claim', claimed],
        ['lost claim', lost],
      ] as const) {
        t.diagnostic(
          `${client}: ${what} → model read ${bytes(r.text)} B (coord's text ${bytes(own(r))} B, wrapper ${bytes(r.text) - bytes(own(r))} B): ${JSON.stringify(r.text)}`,
        );
      }
      assert.match(own(claimed), new RegExp(`^claimed: #${taskId}`), seen);
      assert.ok(bytes(own(empty)) <= 64, `empty inbox ${bytes(own(empty))} B: ${own(empty)}`);
      const line = own(one)
        .split('\n')
        .find((l) => l.includes(`#${taskId}`));
      assert.ok(line && bytes(line) <= 140, `task line ${line ? bytes(line) : '?'} B: ${own(one)}`);
      assert.match(lost.text, /bob/, `the lost claim names the holder: ${lost.text}`);

      // The held file: refused, unchanged, the model told lock_conflict and the holder.
      const edits = results.filter((r) => r.tool === EDIT_TOOL[client]);
      assert.equal(edits.length, 2, `both edits answered: ${seen}`);
      const [toA, toB] = edits.map((r) => r.text);
      // The edit tool's time as the client saw it (its own work and coord's pre-edit check): reported, never asserted.
      t.diagnostic(
        `${client}: ${EDIT_TOOL[client]} took ${JSON.stringify(fake.toolMs(EDIT_TOOL[client]))} ms (blocked, then allowed)`,
      );
      t.diagnostic(`${client}: the blocked edit → model read ${bytes(toA ?? '')} B: ${JSON.stringify(toA)}`);
      assert.equal(read(repo, 'src/a.ts'), `${A1}\n`, 'the held file is unchanged');
      assert.match(toA ?? '', /lock_conflict[\s\S]*alice/, seen);
      // The free file: edited, and auto-locked by the agent that claimed the task (one session, one agent).
      assert.doesNotMatch(toB ?? '', /lock_conflict/, seen);
      assert.equal(read(repo, 'src/b.ts'), `${B2}\n`, 'the free file was edited');
      const claimer = whoDuring.agents.filter((a) => a.claims.length > 0 && a.name !== 'bob').map((a) => a.name);
      const holder = whoDuring.agents.filter((a) => a.locks.includes('src/b.ts')).map((a) => a.name);
      t.diagnostic(
        `${client}: claimed by ${JSON.stringify(claimer)}, src/b.ts auto-locked by ${JSON.stringify(holder)}`,
      );
      assert.equal(claimer.length, 1, JSON.stringify(whoDuring));
      assert.deepEqual(holder, claimer, "the auto-lock is held by the session's own agent");

      // The session is over: its auto-lock goes with it (rule 13); the file's uncommitted change stays as its work
      // tree's hold (SPEC §14), which is no lock of that agent. The deadline only bounds a hang.
      const board = (JSON.parse((await cli(['show', taskId, '--json'])).stdout) as { task: { board: string } }).task
        .board;
      const lockedB = async () => {
        const res = await daemon.fetch(`/v1/locks?board=${encodeURIComponent(board)}`);
        const { locks } = (await res.json()) as { locks: { resources: string[]; hold?: boolean }[] };
        return locks.some((l) => l.resources.includes('src/b.ts') && !l.hold);
      };
      // Cline's hub outlives the CLI run; it ends the session's MCP server when the session ends.
      try {
        await waitFor(async () => !(await lockedB()), `${client}'s auto-lock freed after it exited`, 60_000);
      } finally {
        if (client === 'cline') stopClineHubs(agent.home);
      }
      t.diagnostic(`${client}: the auto-lock was gone ${Date.now() - ended} ms after the client exited`);

      // Budgets last, so that a client over one still shows every other check above.
      // A lost claim: coord's part ≤ 300 B with no JSON of coord's data for programs; the wrapper apart.
      const lostOwn = failedPartOf(client, lost);
      t.diagnostic(
        `${client}: lost claim → coord's part ${bytes(lostOwn)} B, the client's wrapper ${bytes(lost.text) - bytes(lostOwn)} B`,
      );
      assert.doesNotMatch(lost.text, /coord\/data|_meta/, "coord's data for programs reached the model");
      assert.ok(bytes(lostOwn) <= 300, `a lost claim, coord's part: ${bytes(lostOwn)} B: ${lostOwn}`);
      assert.ok(bytes(lost.text) <= 300, `a lost claim as the model read it: ${bytes(lost.text)} B: ${lost.text}`);
      assert.ok(defBytes <= 6000, `coord's tool definitions in one request: ${defBytes} B (${listed} tools)`);
    });
  }
});
