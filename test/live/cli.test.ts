import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { COORD, ROOT, runCli, type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { waitFor } from './helpers.js';

describe('coord events, who and open', () => {
  let d: SpawnedDaemon;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    d = await spawnDaemon();
    env = { COORD_STATE: d.stateDir, COORD_BOARD: 'cli-live', COORD_AGENT: 'alice' };
  });
  after(async () => {
    await d.stop();
  });

  const cli = async (...args: string[]) => {
    const out = await runCli(args, env);
    assert.equal(out.code, 0, out.stderr);
    return out.stdout;
  };

  const postOver = async (board: string, title: string): Promise<string> =>
    ((await (await d.fetch('/v1/tasks', { method: 'POST', json: { agent: 'http', board, title } })).json()) as any).task
      .id;

  test('coord events prints the trail one line per event, and --since skips what came before', async () => {
    const id = JSON.parse(await cli('post', 'trail me', '--json')).task.id;
    await cli('claim', id, '--agent', 'bob');
    const lines = (await cli('events')).trim().split('\n');
    assert.equal(lines.length, 2);
    assert.match(lines[0]!, new RegExp(`task\\.created\\s+#${id}\\s+alice.*"trail me"`));
    assert.match(lines[1]!, new RegExp(`task\\.claimed\\s+#${id}\\s+bob\\s+fence 1`));
    const first = JSON.parse(await cli('events', '--json')).events[0].seq;
    const rest = JSON.parse(await cli('events', '--since', String(first), '--json'));
    assert.deepEqual(
      rest.events.map((e: { type: string }) => e.type),
      ['task.claimed'],
    );
  });

  test('coord events --follow --json prints each new event as one JSON line as it happens', async () => {
    const [cmd, ...base] = COORD as [string, ...string[]];
    const child = spawn(cmd, [...base, 'events', '--follow', '--json', '--board', 'cli-follow'], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    createInterface({ input: child.stdout }).on('line', (l) => lines.push(l));
    try {
      // The follower is subscribed once it shows up on the daemon; keep posting until its first line arrives.
      await waitFor(async () => {
        if (lines.length === 0) await postOver('cli-follow', 'ping');
        return lines.length > 0;
      }, 'the follower to print');
      // A ping posted while the follower subscribed may still print after this point: find the task's own line.
      const id = await postOver('cli-follow', 'followed');
      const mine = () => lines.map((l) => JSON.parse(l)).filter((e) => e.task_id === id);
      await waitFor(() => mine().length > 0, 'the followed event');
      assert.deepEqual(
        mine().map((e) => e.type),
        ['task.created'],
      );
      assert.ok(lines.every((l) => JSON.parse(l).board === 'cli-follow'));
    } finally {
      child.kill('SIGTERM');
    }
  });

  test('coord who lists the agents on the board with what each holds', async () => {
    const id = JSON.parse(await cli('post', 'hold me', '--board', 'cli-who', '--json')).task.id;
    await cli('claim', id, '--board', 'cli-who', '--agent', 'carol');
    const text = await cli('who', '--board', 'cli-who');
    assert.match(text, /^AGENT\s+STATUS\s+LAST SEEN\s+WORKTREE\s+CLAIMS\s+LOCKS/);
    // SPEC §14: each agent's work tree and branch (the CLI ran in this checkout), then its claims.
    assert.match(text, new RegExp(`carol\\s+active\\s+\\d+s ago\\s+\\S.*\\s#${id}`));
    const json = JSON.parse(await cli('who', '--board', 'cli-who', '--json'));
    const carol = json.agents.find((a: { name: string }) => a.name === 'carol');
    assert.deepEqual(carol.claims, [id]);
  });

  test('coord open prints the dashboard URL with the token in the fragment, and needs a running daemon', async () => {
    const out = JSON.parse(await cli('open', '--no-browser', '--json'));
    // It opens on this repository's board ($COORD_BOARD here); --all-boards on every board (issue 26).
    assert.equal(out.url, `${d.url}/#token=${d.token}&board=cli-live`);
    assert.equal(
      JSON.parse(await cli('open', '--no-browser', '--all-boards', '--json')).url,
      `${d.url}/#token=${d.token}&board=`,
    );
    assert.equal(out.opened, false);
    assert.equal((await cli('open', '--no-browser')).trim(), out.url);
    const page = await fetch(`${d.url}/`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<title>coord<\/title>/);
    const none = await runCli(['open', '--no-browser'], { COORD_STATE: `${d.stateDir}-missing` });
    assert.equal(none.code, 3);
  });

  test('each new command explains itself with --help', async () => {
    for (const cmd of ['events', 'who', 'open']) {
      const help = await cli(cmd, '--help');
      assert.match(help, new RegExp(`Usage: coord ${cmd}`));
      assert.match(help, /--json/);
    }
  });
});
