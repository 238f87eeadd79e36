/**
 * A reader that stops early — `coord top | head -3`, `coord tree … | head -5`, `coord events --follow | head -1`,
 * `grep -m1`, a pager closed — closes the pipe. The command must exit 0 and say nothing (no EPIPE stack
 * trace). Each command that prints more than one line is run with its stdout already closed, so its first
 * write meets EPIPE every time (a real `head` might read everything before it exits, and prove nothing).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { tempDir } from '../support/ctx.js';
import { COORD, childEnv, ROOT, runCli, type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';

/** Runs coord with stdout closed before it starts. */
function runWithStdoutClosed(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  const [cmd, ...base] = COORD as [string, ...string[]];
  const child = spawn(cmd, [...base, ...args], { cwd: ROOT, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.destroy();
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stderr })));
}

describe('a command whose reader closes the pipe early exits 0, quietly', () => {
  let d: SpawnedDaemon;
  let env: NodeJS.ProcessEnv;
  let first = '';
  let message = '';
  before(async () => {
    d = await spawnDaemon();
    env = { COORD_STATE: d.stateDir, COORD_BOARD: 'pipes', COORD_AGENT: 'reader', HOME: tempDir('coord-home-') };
    const post = async (args: string[]) => {
      const r = await runCli([...args, '--json'], env);
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout) as { task: { id: string } };
    };
    first = (await post(['post', 'first task'])).task.id;
    await post(['post', 'second task', '--after', first]);
    await post(['post', 'third task', '--after', first]);
    assert.equal((await runCli(['claim', first], env)).code, 0);
    assert.equal((await runCli(['lock', 'src/a.ts', 'src/b.ts'], env)).code, 0);
    const sent = await runCli(['send', 'reader', 'hello there', '--json'], { ...env, COORD_AGENT: 'writer' });
    assert.equal(sent.code, 0, sent.stderr);
    message = (JSON.parse(sent.stdout) as { message: { id: string } }).message.id;
  });
  after(async () => {
    await d.stop();
  });

  const commands: [string, () => string[]][] = [
    ['coord ls', () => ['ls']],
    ['coord ls --json', () => ['ls', '--json']],
    ['coord show', () => ['show', first]],
    ['coord tree', () => ['tree']],
    ['coord tree <id>', () => ['tree', first]],
    ['coord who', () => ['who']],
    ['coord locks', () => ['locks']],
    ['coord inbox', () => ['inbox']],
    ['coord messages', () => ['messages']],
    ['coord events', () => ['events']],
    // From the start, so it writes at once: from now, on a quiet board, it would wait for the next event
    // before it could learn that its reader is gone (minutes, in CI).
    ['coord events --follow --since 0', () => ['events', '--follow', '--since', '0']],
    ['coord top (not a terminal)', () => ['top']],
    ['coord prime', () => ['prime']],
    ['coord --help', () => ['--help']],
    ['coord setup --help', () => ['setup', '--help']],
  ];
  for (const [name, args] of commands)
    test(`${name} with its stdout closed exits 0 and writes nothing to stderr`, async () => {
      assert.ok(message);
      const r = await runWithStdoutClosed(args(), env);
      assert.equal(r.stderr, '');
      assert.equal(r.code, 0);
    });
});
