/**
 * Each real client, set up by `coord setup <client> --write` alone, claims a task over MCP — and its
 * model reads coord's short text, within the §6 budget: what is measured is the tool result in the
 * next request the client sent its (fake) model, byte for byte.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { suiteDaemon } from '../support/suite-daemon.js';
import { bytes, CLIENT_NAMES, coordText, setUpAgent, startAgent, startFake, toolName } from './clients.js';
import { coord, describeRun, makeRepo } from './support.js';

/** An 80-character title: the §6 budget is stated for one. */
const TITLE = 'Fix the flaky login test: the session cookie expires between the two retries now';

describe('real clients claim over MCP and read coord text', () => {
  const daemon = suiteDaemon();

  for (const client of CLIENT_NAMES) {
    it(`${client}: set up by coord setup --write only, it is primed at session start, claims a task, and its model reads an empty inbox in ≤ 64 bytes and a task line in ≤ 140`, async (t) => {
      assert.equal(TITLE.length, 80);
      const repo = makeRepo(`coord-agent-claim-${client}-`);
      const agent = await setUpAgent(client, repo, daemon.stateDir);
      if (agent.setup.stderr.includes(`unknown client "${client}"`)) {
        t.skip(`coord setup ${client} does not exist yet`);
        return;
      }
      assert.equal(agent.setup.code, 0, `coord setup ${client} --write: ${describeRun(agent.setup)}`);
      let taskId = '';
      let stateWhileRunning = '';
      const fake = await startFake(client, [
        { tool: toolName(client, 'inbox'), args: {} },
        {
          tool: toolName(client, 'inbox'),
          args: {},
          before: async () => {
            const posted = await coord(['post', TITLE, '--json'], { cwd: repo, env: agent.env });
            assert.equal(posted.code, 0, describeRun(posted));
            taskId = (JSON.parse(posted.stdout) as { task: { id: string } }).task.id;
          },
        },
        { tool: toolName(client, 'claim_task'), args: {} },
        {
          say: 'done',
          // While the client still runs (its session's claims end with it, rule 13), the board agrees.
          before: async () => {
            const shown = await coord(['show', taskId, '--json'], { cwd: repo, env: agent.env });
            stateWhileRunning = (JSON.parse(shown.stdout) as { task: { state: string } }).task.state;
          },
        },
      ]);
      try {
        const run = await startAgent(agent, fake, repo, 'Check your coord inbox, then claim the next task.').done;
        assert.equal(run.code, 0, describeRun(run));
        // The last three coord results are the script's; any before them answer a call the model made
        // before the client listed coord's tools (Claude Code may ask its model before MCP is up).
        const results = fake
          .results()
          .filter((r) => r.tool.includes('coord'))
          .slice(-3);
        assert.equal(results.length, 3, `tool results the model got: ${JSON.stringify(fake.results())}`);
        const [empty, one, claimed] = results.map((r) => ({
          raw: r.text,
          coord: coordText(client, r),
          isError: r.isError,
        }));
        if (!empty || !one || !claimed) throw new Error('unreachable');
        t.diagnostic(`${client}: empty inbox → model received ${bytes(empty.raw)} bytes: ${JSON.stringify(empty.raw)}`);
        t.diagnostic(`${client}: one task → model received ${bytes(one.raw)} bytes: ${JSON.stringify(one.raw)}`);
        t.diagnostic(
          `${client}: coord's own text: empty ${bytes(empty.coord)} bytes, one task ${bytes(one.coord)} bytes (task line ${Math.max(
            ...one.coord
              .split('\n')
              .filter((l) => l.includes(taskId))
              .map(bytes),
          )})`,
        );

        // What the model reads is coord's text, not JSON.
        for (const r of [empty, one, claimed]) {
          assert.ok(!r.coord.trimStart().startsWith('{'), `the model was handed JSON: ${r.raw}`);
          assert.equal(r.isError, false, r.raw);
        }
        assert.ok(
          bytes(empty.coord) <= 64,
          `empty inbox is ${bytes(empty.coord)} bytes: ${JSON.stringify(empty.coord)}`,
        );
        const lines = one.coord.split('\n');
        const taskLines = lines.filter((l) => l.includes(`#${taskId}`));
        assert.equal(taskLines.length, 1, `one line names #${taskId}: ${JSON.stringify(one.coord)}`);
        for (const l of lines) assert.ok(bytes(l) <= 140, `a line of ${bytes(l)} bytes: ${JSON.stringify(l)}`);
        assert.ok(
          bytes(one.coord) <= 64 + 140,
          `one-task inbox is ${bytes(one.coord)} bytes (≤ 64 for the rest + ≤ 140 for the line): ${JSON.stringify(one.coord)}`,
        );
        assert.match(claimed.coord, new RegExp(`^claimed: #${taskId}`), claimed.raw);

        assert.equal(stateWhileRunning, 'claimed', 'the board showed the task claimed while the client ran');

        // Primed by setup alone: coord prime's session-start context reached the model's first request.
        const first = JSON.stringify(fake.turns()[0]?.body ?? '');
        const primed = /coord: you are [^ ]+ on board/.test(first);
        t.diagnostic(`${client}: coord prime's text in the model's first request: ${primed ? 'yes' : 'no'}`);
        assert.ok(primed, `the session-start hook's text is not in the first request: ${first.slice(0, 2000)}`);
      } finally {
        await fake.close();
      }
    });
  }
});
