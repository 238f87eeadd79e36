/**
 * SPEC §10 with §18: `coord run` starts Claude Code with no pre hook on its shell calls. The daemon looks at the
 * work tree when the supervisor reports the agent `starting`, and after each command; a command with no look of
 * its own before it is compared with the tree's latest look. Real git, a real daemon, the client's http hooks.
 */
import assert from 'node:assert/strict';
import { appendFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { hookPath, PATHS } from '../../src/api/paths.js';
import { CTIME_SLACK_MS } from '../../src/core/edits/shell-edits.js';
import { boardForDir } from '../../src/state-dir/board-name.js';
import { hookKeyOf } from '../../src/state-dir/token.js';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { waitFor } from '../support/wait-for.js';
import { committedRepo, holdersOn, lockOn } from './daemon-on-repo.js';

describe('shell commands of an agent a supervisor started, with no look before them', () => {
  let d: SpawnedDaemon;
  before(async () => {
    d = await spawnDaemon();
  });
  after(() => d.stop());

  const post = (repo: string, agent: string, call: string) =>
    fetch(d.url + hookPath('claude', 'post-shell'), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${hookKeyOf(d.token)}`,
        'content-type': 'application/json',
        'coord-agent': agent,
      },
      body: JSON.stringify({
        session_id: `sess-${agent}`,
        hook_event_name: 'PostToolUse',
        cwd: repo,
        tool_name: 'Bash',
        tool_use_id: call,
        tool_input: { command: 'sed -i …' },
      }),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));

  /** What a supervisor says as it starts `agent` in `repo` (SPEC §18 report_run). */
  const starting = async (repo: string, board: string, agent: string) => {
    const task = await (await d.fetch(PATHS.tasks, { method: 'POST', json: { agent: 'planner', board, title: 't' } }))
      .json()
      .then((b) => (b as { task: { id: string } }).task.id);
    const now = new Date().toISOString();
    const res = await d.fetch(PATHS.runs, {
      method: 'POST',
      json: {
        agent,
        board,
        client: 'claude',
        pid: null,
        task_id: task,
        worktree: repo,
        branch: 'main',
        state: 'starting',
        since: now,
        started_at: now,
        usage: null,
        paused_until: null,
        attempt: 1,
        supervisor: 'a test',
        exit_code: null,
        submitted: false,
      },
    });
    assert.equal(res.status, 200, await res.text());
  };

  test('a command changing a held file is caught against the look taken at the start, and the next command against the look after it', async () => {
    const repo = committedRepo(['src/held.ts', 'src/free.ts', 'src/later.ts']);
    const board = boardForDir(repo) ?? '';
    assert.equal((await lockOn(d, board, 'alice', 'src/held.ts')).status, 201);
    await starting(repo, board, 'claude#run1');
    // The daemon's look at the start is taken once the report is answered: wait until a command can be compared.
    await new Promise((r) => setTimeout(r, 300));
    appendFileSync(join(repo, 'src/held.ts'), 'mine\n');
    appendFileSync(join(repo, 'src/free.ts'), 'mine\n');
    const first = await post(repo, 'claude#run1', 'call-1');
    assert.equal(first.status, 200);
    assert.deepEqual(first.body, {
      decision: 'block',
      reason:
        'lock_conflict: your command changed src/held.ts, which alice holds — restore it (git restore src/held.ts) and edit something else',
    });
    await waitFor(async () => (await holdersOn(d, board))['src/free.ts'] === 'claude#run1', 'src/free.ts locked');
    // The next command is compared with the look after the first: what the first changed is not the second's (file
    // times within the kernel clock's slack of a look count as the command's: the next one comes later).
    await new Promise((r) => setTimeout(r, CTIME_SLACK_MS * 3));
    writeFileSync(join(repo, 'src/later.ts'), 'later\n');
    const second = await post(repo, 'claude#run1', 'call-2');
    assert.deepEqual(second.body, {});
    assert.equal((await holdersOn(d, board))['src/later.ts'], 'claude#run1');
  });

  test('a work tree reported through a symbolic link is the one its hooks name: its commands are compared too', async () => {
    const repo = committedRepo(['src/held.ts']);
    const board = boardForDir(repo) ?? '';
    const link = `${repo}-link`;
    symlinkSync(repo, link);
    assert.equal((await lockOn(d, board, 'alice', 'src/held.ts')).status, 201);
    await starting(link, board, 'claude#run2');
    await new Promise((r) => setTimeout(r, 300));
    appendFileSync(join(repo, 'src/held.ts'), 'mine\n');
    const told = await post(repo, 'claude#run2', 'call-1');
    assert.match(String(told.body.reason), /your command changed src\/held\.ts, which alice holds/);
  });

  test('in a work tree no supervisor started an agent in, a command with no look before it is not compared', async () => {
    const repo = committedRepo(['src/held.ts']);
    const board = boardForDir(repo) ?? '';
    assert.equal((await lockOn(d, board, 'alice', 'src/held.ts')).status, 201);
    appendFileSync(join(repo, 'src/held.ts'), 'a person’s edit\n');
    assert.deepEqual((await post(repo, 'claude#person', 'call-1')).body, {});
    assert.deepEqual(await holdersOn(d, board), { 'src/held.ts': 'alice' });
  });
});
