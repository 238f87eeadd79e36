/**
 * SPEC §10 "The client's cheapest hook", with the real Claude Code: `coord setup claude --write` makes its
 * pre-edit an `mcp_tool` hook answered by the session's own `coord mcp` (tool decide_edit). The model's
 * edit of a file another agent holds is refused (the file unchanged, the model told lock_conflict and the
 * holder); its edit of a free file goes through and the auto-lock is held by the MCP session's own agent
 * (the one its claim names); the lock dies with the session.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { suiteDaemon } from '../support/suite-daemon.js';
import { waitFor } from '../support/wait-for.js';
import { editResults, editSteps, setUpAgent, startAgent, startFake, toolName } from './clients.js';
import { coord, describeRun, makeRepo, tempDir } from './support.js';

interface Who {
  agents: { name: string; locks: string[]; claims: unknown[] }[];
}

describe('real Claude Code: the native (mcp_tool) pre-edit hook', () => {
  const daemon = suiteDaemon();

  it("blocks the edit of a file another agent holds, auto-locks a free one for the MCP session's own agent, and the lock dies with the session", async (t) => {
    const repo = makeRepo('coord-agent-native-');
    const agent = await setUpAgent('claude', repo, daemon.stateDir);
    assert.equal(agent.setup.code, 0, describeRun(agent.setup));
    const settings = readFileSync(join(agent.home, '.claude', 'settings.json'), 'utf8');
    assert.match(settings, /"type": "mcp_tool"/);
    // The mcp_tool hook's statusMessage carries the old command hook's mark (so setup replaces it): no command runs it.
    const commands = (JSON.parse(settings) as { hooks: Record<string, { hooks: { command?: string }[] }[]> }).hooks;
    const perEdit = Object.values(commands)
      .flat()
      .flatMap((g) => g.hooks)
      .filter((h) => h.command?.includes('hook pre-edit'));
    assert.deepEqual(perEdit, [], 'no command hook per edit');
    const held = await coord(['lock', 'src/a.ts', '--agent', 'alice', '--lease', '600', '--json'], {
      cwd: repo,
      env: agent.env,
    });
    assert.equal(held.code, 0, describeRun(held));
    const posted = await coord(['post', 'Bump b', '--json'], { cwd: repo, env: agent.env });
    const task = (JSON.parse(posted.stdout) as { task: { id: string; board: string } }).task;
    let who: Who = { agents: [] };
    const fake = await startFake('claude', [
      { tool: toolName('claude', 'claim_task'), args: { task_id: task.id } },
      ...editSteps('claude', repo, 'src/a.ts', 'export const a = 1;', 'export const a = 2;'),
      ...editSteps('claude', repo, 'src/b.ts', 'export const b = 1;', 'export const b = 2;'),
      {
        tool: toolName('claude', 'who'),
        args: {},
        before: async () => {
          who = JSON.parse((await coord(['who', '--json'], { cwd: repo, env: agent.env })).stdout) as Who;
        },
      },
      { say: 'done' },
    ]);
    const debug = join(tempDir('coord-agent-debug-'), 'claude.log');
    try {
      const run = await startAgent(agent, fake, repo, `Claim #${task.id}, set a and b to 2.`, {
        extraArgs: ['--debug-file', debug],
      }).done;
      assert.equal(run.code, 0, describeRun(run));
    } finally {
      await fake.close();
    }
    const hookLog = () =>
      readFileSync(debug, 'utf8')
        .split('\n')
        .filter((l) => /mcp_tool|PreToolUse/.test(l))
        .join('\n');
    const [toA, toB] = editResults('claude', fake).map((r) => r.text);
    t.diagnostic(`the model was told ${JSON.stringify(toA)}`);
    assert.equal(readFileSync(join(repo, 'src/a.ts'), 'utf8'), 'export const a = 1;\n', `a unchanged\n${hookLog()}`);
    assert.match(toA ?? '', /lock_conflict: src\/a\.ts is held by alice/, hookLog());
    assert.doesNotMatch(toB ?? '', /lock_conflict/);
    assert.equal(readFileSync(join(repo, 'src/b.ts'), 'utf8'), 'export const b = 2;\n');
    const claimant = who.agents.filter((a) => a.claims.length > 0).map((a) => a.name);
    const holder = who.agents.filter((a) => a.locks.includes('src/b.ts')).map((a) => a.name);
    assert.equal(claimant.length, 1);
    assert.deepEqual(holder, claimant, "the auto-lock is held by the MCP session's own agent");
    // The session is over: its auto-lock goes with it (rule 13); the file's uncommitted change stays as its work
    // tree's hold (SPEC §14), which is no lock of that agent. The deadline only bounds a hang.
    await waitFor(
      async () => {
        const res = await daemon.fetch(`/v1/locks?board=${encodeURIComponent(task.board)}`);
        const { locks } = (await res.json()) as { locks: { resources: string[]; hold?: boolean }[] };
        return !locks.some((l) => l.resources.includes('src/b.ts') && !l.hold);
      },
      'the auto-lock freed',
      30_000,
    );
  });
});
