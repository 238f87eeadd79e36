/**
 * SPEC §19 with the real Gemini CLI: a session whose model asks for a shell command the settings do not
 * allow stops at Gemini CLI's confirmation, and — through the Notification hook `coord setup gemini --write`
 * installed — the agent shows up as waiting in `coord attention` with Gemini CLI's words. Interactive, in
 * tmux: `gemini -p` refuses such a tool at once ("requires user confirmation, which is not supported in
 * non-interactive mode"), so it never raises the notification. One short session.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { waitFor } from '../support/wait-for.js';
import { startFakeGemini } from './fake-gemini.js';
import { describeInteractive } from './interactive.js';

describeInteractive('a real Gemini CLI session at a tool confirmation', 'gemini', (session) => {
  it('shows up as waiting in coord attention, with what Gemini CLI said', async (t) => {
    await session.setUp('coord-agent-attn-gemini-');
    const repo = session.repo;
    // `touch` is not allowed by the settings (coord's setup allows nothing in the shell): Gemini CLI must ask.
    const fake = await startFakeGemini([
      { tool: 'run_shell_command', args: { command: 'touch made-by-shell', description: 'Make a file' } },
      { say: 'done' },
    ]);
    session.start(fake, "-m gemini-2.5-flash -i 'make a file with the shell'");
    const item = await session.waiting();
    const seen = `${JSON.stringify(item)}\n--- model turns ${fake.turns().length}\n--- the terminal\n${session.screen()}`;
    assert.match(item?.why ?? '', /requires execution: touch made-by-shell$/, seen);
    assert.match(item?.agent ?? '', /^gemini#/, JSON.stringify(item));
    t.diagnostic(JSON.stringify(item));
    // The person allows it (the dialog's first choice, "Allow once"): the command runs, the turn ends, and its
    // AfterAgent hook says the agent goes on.
    // The hook can fire before the dialog takes keys: press once it is drawn, and again while it stays (a key
    // that lands after the dialog closed falls on an empty prompt, which Gemini CLI ignores).
    const dialog = () => session.screen().includes('Allow execution of');
    await waitFor(dialog, 'the confirmation dialog on screen', 60_000);
    session.keys('Enter');
    let pressed = Date.now();
    await waitFor(
      async () => {
        if (Date.now() - pressed > 5_000 && dialog()) {
          session.keys('Enter');
          pressed = Date.now();
        }
        return (
          existsSync(join(repo, 'made-by-shell')) &&
          !(await session.attention()).some((i) => i.kind === 'agent_waiting')
        );
      },
      'the command to run and the agent to leave the list',
      60_000,
    ).catch((e: Error) => {
      throw new Error(`${e.message}\n--- the terminal\n${session.screen()}`);
    });
  });
});
