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
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { startFakeAnthropic } from './fake-anthropic.js';
import { describeInteractive } from './interactive.js';

const KEY = 'sk-ant-fake-key';

describeInteractive('a real Claude Code session at a permission prompt', 'claude', (session) => {
  it('shows up as waiting in coord attention, with what Claude Code said', async (t) => {
    const agent = await session.setUp('coord-agent-attn-');
    const repo = session.repo;
    // Bash is not in the settings' allow list (coord setup allows only mcp__coord), and the session runs in the
    // default permission mode (this version's own default, auto mode, would judge and run it): Claude Code must ask.
    const fake = await startFakeAnthropic([
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
    session.start(fake, "--permission-mode default 'make a file with bash'");
    const item = await session.waiting();
    const seen = `${JSON.stringify(item)}\n--- model turns ${fake.turns().length}\n--- the terminal\n${session.screen()}`;
    assert.match(item?.why ?? '', /needs your permission/, seen);
    assert.match(item?.agent ?? '', /^claude/, JSON.stringify(item));
    assert.match(session.screen(), /Bash command|Do you want to proceed/, 'the session is stopped at the prompt');
    t.diagnostic(JSON.stringify(item));
  });
});
