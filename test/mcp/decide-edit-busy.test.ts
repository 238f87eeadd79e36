/**
 * SPEC §10 "Down is not slow" for the native hook: Claude Code's mcp_tool hook calls decide_edit through
 * the session's `coord mcp`, and lets the edit through if that call outlives the hook's timeout. So when the
 * daemon does not answer (here: stopped with SIGSTOP) until 2 s before `timeout_s`, `coord mcp` answers the
 * hook's deny itself with coord_busy — never nothing — and once the daemon runs again the edit is decided.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { repoWithWorktrees } from '../worktrees/git-repo.js';
import { type StdioAgent, startMcp } from './stdio-support.js';

describe('decide_edit through coord mcp while the daemon is stopped', () => {
  let d: SpawnedDaemon;
  let agent: StdioAgent;
  let repo: string;
  before(async () => {
    d = await spawnDaemon();
    repo = repoWithWorktrees(0).main;
    agent = await startMcp(d.stateDir, { env: { COORD_BOARD: '' }, args: ['--agent', 'hooked'] });
  });
  after(async () => {
    process.kill(d.pid, 'SIGCONT');
    await agent.close();
    await d.stop();
  });

  test("a stopped daemon: the hook's call is answered with a coord_busy deny before its timeout, and after SIGCONT the edit is decided", async () => {
    const file = join(repo, 'src/a.ts');
    const first = await agent.call('decide_edit', { file_path: file, timeout_s: 3 });
    assert.equal(first.text, '{}', 'a free file: go ahead');
    process.kill(d.pid, 'SIGSTOP');
    let busy: Awaited<ReturnType<StdioAgent['call']>>;
    try {
      busy = await agent.call('decide_edit', { file_path: file, timeout_s: 3 });
    } finally {
      process.kill(d.pid, 'SIGCONT');
    }
    const out = JSON.parse(busy.text).hookSpecificOutput;
    assert.equal(out.permissionDecision, 'deny');
    assert.match(out.permissionDecisionReason, /^coord_busy: coord did not answer in 1s — try the edit again$/);
    // The daemon's late answer to that call is not a second answer; the next call is decided as usual.
    const again = await agent.call('decide_edit', { file_path: file, timeout_s: 3 });
    assert.equal(again.text, '{}');
  });
});
