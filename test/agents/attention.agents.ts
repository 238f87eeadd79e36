/**
 * SPEC §19 with the real Claude Code: a session whose model asks for a tool the settings do not allow stops
 * at Claude Code's permission prompt, and — through the Notification hook `coord setup claude --write`
 * installed, nothing else — the agent shows up as waiting in `coord attention`.
 *
 * Interactive, in tmux: `claude -p` never shows a permission prompt (a tool the settings do not allow is
 * denied at once, or sent to --permission-prompt-tool), so it never raises the `permission_prompt`
 * notification. One short session; its HOME has Claude Code's first-run screens marked done (theme,
 * the API key, the folder's trust), as a person who has used it before would.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { waitFor } from '../support/wait-for.js';
import { modelEnv, setUpAgent } from './clients.js';
import { startFakeAnthropic } from './fake-anthropic.js';
import type { FakeModel } from './fake-model.js';
import { clientBin, coord, describeRun, makeRepo } from './support.js';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const KEY = 'sk-ant-fake-key';

interface Item {
  kind: string;
  what: string;
  why: string;
  agent?: string;
  command: string;
}

describe('a real Claude Code session at a permission prompt', {
  skip: hasTmux ? false : 'tmux is not installed',
}, () => {
  const socket = `coord-attn-agent-${process.pid}`;
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  let daemon: SpawnedDaemon | undefined;
  let fake: FakeModel | undefined;
  after(async () => {
    let pane: string | undefined;
    try {
      pane = tmux('list-panes', '-a', '-F', '#{pane_pid}').trim();
      tmux('kill-server');
    } catch {
      // never started, or gone
    }
    // Wait for Claude Code to be gone before its HOME is removed: it writes its state as it exits.
    for (let i = 0; pane && i < 50 && isAlive(Number(pane)); i++) await new Promise((r) => setTimeout(r, 100));
    await fake?.close();
    await daemon?.stop();
  });

  it('shows up as waiting in coord attention, with what Claude Code said', async (t) => {
    daemon = await spawnDaemon();
    const repo = makeRepo('coord-agent-attn-');
    const agent = await setUpAgent('claude', repo, daemon.stateDir);
    assert.equal(agent.setup.code, 0, describeRun(agent.setup));
    // Bash is not in the settings' allow list (coord setup allows only mcp__coord), and the session runs in the
    // default permission mode (this version's own default, auto mode, would judge and run it): Claude Code must ask.
    fake = await startFakeAnthropic([
      { tool: 'Bash', args: { command: 'touch made-by-bash', description: 'Make a file' } },
      { say: 'done' },
    ]);
    writeFileSync(
      join(agent.home, '.claude.json'),
      JSON.stringify({
        hasCompletedOnboarding: true,
        theme: 'dark',
        customApiKeyResponses: { approved: [KEY.slice(-20)], rejected: [] },
        projects: { [repo]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } },
      }),
    );
    const env = { ...agent.env, ...modelEnv('claude', fake), TERM: 'xterm-256color' };
    const vars = Object.entries(env).map(([k, v]) => `${k}='${v}'`);
    const line = `cd '${repo}' && exec env -i ${vars.join(' ')} '${clientBin('claude')}' --permission-mode default 'make a file with bash'`;
    tmux('new-session', '-d', '-s', 'claude', '-x', '120', '-y', '40', line);
    const screen = () => {
      try {
        return tmux('capture-pane', '-p', '-t', 'claude');
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
    assert.match(item?.why ?? '', /needs your permission/, seen);
    assert.match(item?.agent ?? '', /^claude/, JSON.stringify(item));
    assert.match(screen(), /Bash command|Do you want to proceed/, 'the session is stopped at the prompt');
    t.diagnostic(JSON.stringify(item));
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
