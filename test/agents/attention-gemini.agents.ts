/**
 * SPEC §19 with the real Gemini CLI: a session whose model asks for a shell command the settings do not
 * allow stops at Gemini CLI's confirmation, and — through the Notification hook `coord setup gemini --write`
 * installed — the agent shows up as waiting in `coord attention` with Gemini CLI's words. Interactive, in
 * tmux: `gemini -p` refuses such a tool at once ("requires user confirmation, which is not supported in
 * non-interactive mode"), so it never raises the notification. One short session.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { waitFor } from '../support/wait-for.js';
import { modelEnv, setUpAgent } from './clients.js';
import { startFakeGemini } from './fake-gemini.js';
import type { FakeModel } from './fake-model.js';
import { clientBin, coord, describeRun, makeRepo } from './support.js';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;

interface Item {
  kind: string;
  what: string;
  why: string;
  agent?: string;
  command: string;
}

describe('a real Gemini CLI session at a tool confirmation', {
  skip: hasTmux ? false : 'tmux is not installed',
}, () => {
  const socket = `coord-attn-gemini-${process.pid}`;
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  let daemon: SpawnedDaemon | undefined;
  let fake: FakeModel | undefined;
  after(async () => {
    try {
      tmux('kill-server');
    } catch {
      // never started, or gone
    }
    await fake?.close();
    await daemon?.stop();
  });

  it('shows up as waiting in coord attention, with what Gemini CLI said', async (t) => {
    daemon = await spawnDaemon();
    const repo = makeRepo('coord-agent-attn-gemini-');
    const agent = await setUpAgent('gemini', repo, daemon.stateDir);
    assert.equal(agent.setup.code, 0, describeRun(agent.setup));
    // `touch` is not allowed by the settings (coord's setup allows nothing in the shell): Gemini CLI must ask.
    fake = await startFakeGemini([
      { tool: 'run_shell_command', args: { command: 'touch made-by-shell', description: 'Make a file' } },
      { say: 'done' },
    ]);
    const env = { ...agent.env, ...modelEnv('gemini', fake), TERM: 'xterm-256color' };
    const vars = Object.entries(env).map(([k, v]) => `${k}='${v}'`);
    const line = `cd '${repo}' && exec env -i ${vars.join(' ')} '${clientBin('gemini')}' -m gemini-2.5-flash -i 'make a file with the shell'`;
    tmux('new-session', '-d', '-s', 'gemini', '-x', '120', '-y', '40', line);
    const screen = () => {
      try {
        return tmux('capture-pane', '-p', '-t', 'gemini');
      } catch {
        return '(the pane is gone)';
      }
    };
    const attention = async (): Promise<Item[]> => {
      const out = await coord(['attention', '--json'], { cwd: repo, env: agent.env });
      assert.equal(out.code, 0, describeRun(out));
      return (JSON.parse(out.stdout) as { items: Item[] }).items;
    };
    let last = '';
    const item = await waitFor(
      async () => {
        last = screen();
        return (await attention()).find((i) => i.kind === 'agent_waiting');
      },
      'an agent_waiting item',
      120_000,
    ).catch((e: Error) => {
      throw new Error(`${e.message}\n--- the terminal\n${last}`);
    });
    const seen = `${JSON.stringify(item)}\n--- model turns ${fake.turns().length}\n--- the terminal\n${screen()}`;
    assert.match(item?.why ?? '', /requires execution: touch made-by-shell$/, seen);
    assert.match(item?.agent ?? '', /^gemini#/, JSON.stringify(item));
    t.diagnostic(JSON.stringify(item));
    // The person allows it (the dialog's first choice, "Allow once"): the command runs, the turn ends, and its
    // AfterAgent hook says the agent goes on.
    tmux('send-keys', '-t', 'gemini', 'Enter');
    await waitFor(
      async () =>
        existsSync(join(repo, 'made-by-shell')) && !(await attention()).some((i) => i.kind === 'agent_waiting'),
      'the command to run and the agent to leave the list',
      60_000,
    ).catch((e: Error) => {
      throw new Error(`${e.message}\n--- the terminal\n${screen()}`);
    });
  });
});
