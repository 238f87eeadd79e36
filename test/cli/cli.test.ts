import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/program.js';
import { tempDir } from '../support/ctx.js';
import { runCli, type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';

describe('the coord CLI', () => {
  let d: SpawnedDaemon;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    d = await spawnDaemon();
    env = { COORD_STATE: d.stateDir, COORD_BOARD: 'cli', COORD_AGENT: 'tester' };
  });
  after(async () => {
    await d.stop();
  });

  const json = async (args: string[], extra: NodeJS.ProcessEnv = {}) => {
    const r = await runCli([...args, '--json'], { ...env, ...extra });
    return { ...r, body: r.stdout ? JSON.parse(r.stdout) : null };
  };

  test('post, claim, heartbeat and submit walk a task through its life, with --json on every step', async () => {
    const posted = await json(['post', 'fix the flaky test', '--kind', 'bug', '--priority', '2', '--label', 'ci']);
    assert.equal(posted.code, 0);
    const id = posted.body.task.id;
    assert.deepEqual(posted.body.task.labels, ['ci']);
    const claimed = await json(['claim', id, '--lease', '60']);
    assert.equal(claimed.code, 0);
    const claim = claimed.body.claim_id;
    assert.equal((await json(['heartbeat', id, '--claim', claim])).code, 0);
    const done = await json(['submit', id, '--claim', claim, '--ok', '--result', '{"pr": 7}']);
    assert.equal(done.code, 0);
    assert.equal(done.body.task.state, 'completed');
    assert.deepEqual(done.body.task.result, { pr: 7 });
    const shown = await json(['show', id]);
    assert.equal(shown.body.task.state, 'completed');
  });

  test("control characters in another agent's task body reach the terminal as caret notation, never as raw ESC sequences", async () => {
    const res = await d.fetch('/v1/tasks', {
      method: 'POST',
      json: {
        title: 'pasted log',
        body: 'red \u001b[31mERROR\u001b[0m\n\u001b[2Jgone\tok',
        agent: 'other',
        board: 'cli',
      },
    });
    const id = ((await res.json()) as { task: { id: string } }).task.id;
    const shown = await runCli(['show', id], env);
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal(shown.stdout.includes('\u001b'), false, 'no raw ESC');
    assert.match(shown.stdout, /red \^\[\[31mERROR\^\[\[0m\n\^\[\[2Jgone\tok/);
    const asJson = await json(['show', id]);
    assert.equal(
      asJson.body.task.body,
      'red \u001b[31mERROR\u001b[0m\n\u001b[2Jgone\tok',
      '--json keeps the exact text',
    );
  });

  test('losing a claim exits 2 and says who holds the task', async () => {
    const id = (await json(['post', 'contested'])).body.task.id;
    assert.equal((await json(['claim', id], { COORD_AGENT: 'first' })).code, 0);
    const lost = await runCli(['claim', id], { ...env, COORD_AGENT: 'second' });
    assert.equal(lost.code, 2);
    assert.match(lost.stderr, /claimed: .* held by first/);
    const lostJson = await json(['claim', id], { COORD_AGENT: 'second' });
    assert.equal(lostJson.code, 2);
    assert.equal(lostJson.body.error.code, 'claimed');
  });

  test('claim with no id takes the next task, and says so when there is none', async () => {
    const empty = await runCli(['claim', '--board', 'nothing-here'], env);
    assert.equal(empty.code, 0);
    assert.match(empty.stdout, /nothing to claim/);
    assert.deepEqual((await json(['claim', '--board', 'nothing-here'])).body, { task: null });
  });

  test('usage errors exit 1 with a message that says what is wrong', async () => {
    const noTitle = await runCli(['post'], env);
    assert.equal(noTitle.code, 1);
    assert.match(noTitle.stderr, /missing required argument/);
    const badPriority = await runCli(['post', 'x', '--priority', 'high'], env);
    assert.equal(badPriority.code, 1);
    assert.match(badPriority.stderr, /invalid_request: .*priority/);
    const both = await runCli(['submit', 'abc', '--claim', 'c', '--ok', '--fail'], env);
    assert.equal(both.code, 1);
    assert.match(both.stderr, /--ok or --fail/);
  });

  test('a state directory with no daemon exits 3 and says how to start one', async () => {
    const r = await runCli(['ls'], { ...env, COORD_STATE: tempDir() });
    assert.equal(r.code, 3);
    assert.match(r.stderr, /coord serve/);
  });

  test('the inbox prints the compact text form, and --json the data', async () => {
    const text = await runCli(['inbox', '--board', 'inbox-cli'], env);
    assert.equal(text.code, 0);
    assert.match(text.stdout, /^inbox empty/);
    const data = await json(['inbox', '--board', 'inbox-cli']);
    assert.deepEqual(data.body.tasks, []);
  });

  test('every command the program registers, subcommands included, has --help and --json', async () => {
    const names: string[][] = [];
    // A group (`coord guard`) runs nothing itself: its --help lists the subcommands, each of which takes --json.
    const groups = new Set<string>();
    const walk = (parent: Command, path: string[]) => {
      for (const cmd of parent.commands) {
        names.push([...path, cmd.name()]);
        if (cmd.commands.length > 0) groups.add([...path, cmd.name()].join(' '));
        walk(cmd, [...path, cmd.name()]);
      }
    };
    walk(buildProgram(), []);
    assert.ok(names.length >= 19, `only ${names.length} commands registered`);
    // Four at a time: each is a real `coord … --help` process.
    for (let i = 0; i < names.length; i += 4)
      await Promise.all(
        names.slice(i, i + 4).map(async (path) => {
          const r = await runCli([...path, '--help']);
          assert.equal(r.code, 0, path.join(' '));
          if (groups.has(path.join(' ')))
            assert.match(r.stdout, /Commands:/, `${path.join(' ')} --help lists its commands`);
          else assert.match(r.stdout, /--json/, `${path.join(' ')} --help lists --json`);
        }),
      );
  });
});
