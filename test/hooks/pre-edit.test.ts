/**
 * SPEC §10 pre-edit, through real hook processes against a real daemon: stdin JSON in each client's
 * shape → exit code and answer in that client's format; conflicts, own locks, auto-locks, daemon down.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { identify } from '../../src/client/agent-identity.js';
import { boardForDir } from '../../src/state-dir/board-name.js';
import { tempDir } from '../support/ctx.js';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { repoWithWorktrees } from '../worktrees/git-repo.js';
import { runCoord } from './run-hook.js';

const claudeAgent = (session: string) => identify('claude', { CLAUDE_CODE_SESSION_ID: session })?.agent ?? '';

describe('the pre-edit hook', () => {
  let d: SpawnedDaemon;
  let repo: { main: string; linked: string[] };
  let board: string;
  before(async () => {
    d = await spawnDaemon();
    repo = repoWithWorktrees(1);
    board = boardForDir(repo.main) ?? '';
  });
  after(async () => {
    await d.stop();
  });

  const edit = (client: string, session: string, input: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) =>
    runCoord(['hook', 'pre-edit', '--client', client, '--state', d.stateDir], {
      stdin: { hook_event_name: 'PreToolUse', cwd: repo.main, ...input },
      env: { CLAUDE_CODE_SESSION_ID: session, ...env },
      cwd: repo.main,
    });
  const locks = async () => ((await (await d.fetch(`/v1/locks?board=${board}`)).json()) as { locks: any[] }).locks;

  test("Claude Code editing a free file is allowed silently and leaves a 10-minute auto-lock held by that session's agent", async () => {
    const r = await edit('claude', 'sess-free', {
      tool_name: 'Write',
      tool_input: { file_path: join(repo.main, 'src/free.ts') },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '');
    const lock = (await locks()).find((l) => l.resources.includes('src/free.ts'));
    assert.equal(lock?.agent, claudeAgent('sess-free'));
    const left = Date.parse(lock.lease_until) - Date.now();
    assert.ok(left > 8 * 60_000 && left <= 10 * 60_000, `lease ${left} ms`);
  });

  test("another agent's edit of that file is denied in Claude Code's JSON, naming path, holder, lease end; the file's owner edits on", async () => {
    const file = join(repo.main, 'src/held.ts');
    assert.equal((await edit('claude', 'sess-owner', { tool_name: 'Edit', tool_input: { file_path: file } })).code, 0);
    const r = await edit('claude', 'sess-other', { tool_name: 'Edit', tool_input: { file_path: file } });
    assert.equal(r.code, 0);
    const out = JSON.parse(r.stdout).hookSpecificOutput;
    assert.equal(out.hookEventName, 'PreToolUse');
    assert.equal(out.permissionDecision, 'deny');
    assert.match(
      out.permissionDecisionReason,
      new RegExp(
        `^lock_conflict: src/held\\.ts is held by ${claudeAgent('sess-owner').replace('#', '#')} until \\d\\d:\\d\\d:\\d\\d UTC`,
      ),
    );
    const again = await edit('claude', 'sess-owner', { tool_name: 'Edit', tool_input: { file_path: file } });
    assert.equal(again.stdout, '', 'its own auto-lock never blocks the owner');
  });

  test('the same path in a linked work tree is the same lock', async () => {
    const r = await edit('claude', 'sess-other', {
      cwd: repo.linked[0],
      tool_name: 'Edit',
      tool_input: { file_path: join(repo.linked[0] ?? '', 'src/held.ts') },
    });
    assert.match(JSON.parse(r.stdout).hookSpecificOutput.permissionDecisionReason, /^lock_conflict: src\/held\.ts/);
  });

  test('an agent holding a file through lock_files with a task is not blocked by it; others are told the task', async () => {
    const me = claudeAgent('sess-locker');
    const posted = (await (
      await d.fetch('/v1/tasks', { method: 'POST', json: { title: 'with files', board, agent: me } })
    ).json()) as any;
    const claimed = await d.fetch(`/v1/tasks/${posted.task.id}/claim`, {
      method: 'POST',
      json: { agent: me, files: ['src/task.ts'] },
    });
    assert.equal(claimed.status, 200);
    const mine = await edit('claude', 'sess-locker', {
      tool_name: 'Edit',
      tool_input: { file_path: join(repo.main, 'src/task.ts') },
    });
    assert.equal(mine.stdout, '');
    const theirs = await edit('claude', 'sess-other', {
      tool_name: 'Edit',
      tool_input: { file_path: join(repo.main, 'src/task.ts') },
    });
    assert.match(
      JSON.parse(theirs.stdout).hookSpecificOutput.permissionDecisionReason,
      new RegExp(`task #${posted.task.id}`),
    );
  });

  test("Codex's apply_patch is parsed for its files and refused with a deny decision; Gemini CLI's write_file exits 2 with the reason on stderr", async () => {
    const patch = [
      '*** Begin Patch',
      '*** Add File: src/new.ts',
      '+x',
      '*** Update File: src/held.ts',
      '@@',
      '-a',
      '+b',
      '*** End Patch',
    ].join('\n');
    const codex = await edit('codex', '', { tool_name: 'apply_patch', tool_input: { command: patch } });
    assert.equal(codex.code, 0);
    const out = JSON.parse(codex.stdout).hookSpecificOutput;
    assert.equal(out.permissionDecision, 'deny');
    assert.match(out.permissionDecisionReason, /^lock_conflict: src\/held\.ts is held by claude#/);
    assert.equal(
      (await locks()).some((l) => l.resources.includes('src/new.ts')),
      false,
      'a refused patch locks nothing',
    );

    const gemini = await edit('gemini', '', {
      tool_name: 'write_file',
      tool_input: { file_path: 'src/held.ts', content: 'x' },
    });
    assert.equal(gemini.code, 2);
    assert.equal(gemini.stdout, '');
    assert.match(gemini.stderr, /^lock_conflict: src\/held\.ts is held by claude#/);
  });

  test('COORD_GUARD=warn lets a conflicting edit through with the conflict as one warning; off checks nothing', async () => {
    const input = { tool_name: 'Edit', tool_input: { file_path: join(repo.main, 'src/held.ts') } };
    const warned = await edit('claude', 'sess-other', input, { COORD_GUARD: 'warn' });
    assert.equal(warned.stdout, '');
    assert.match(warned.stderr, /lock_conflict: src\/held\.ts/);
    const off = await edit('claude', 'sess-other', input, { COORD_GUARD: 'off' });
    assert.deepEqual([off.code, off.stdout, off.stderr], [0, '', '']);
  });

  test('with no daemon the edit goes through with one warning line; COORD_GUARD=strict refuses it', async () => {
    const nowhere = tempDir('coord-no-daemon-');
    const input = {
      hook_event_name: 'PreToolUse',
      cwd: repo.main,
      tool_name: 'Edit',
      tool_input: { file_path: join(repo.main, 'src/a.ts') },
    };
    const run = (env: NodeJS.ProcessEnv) =>
      runCoord(['hook', 'pre-edit', '--client', 'claude', '--state', nowhere], {
        stdin: input,
        env: { CLAUDE_CODE_SESSION_ID: 's', ...env },
      });
    const open = await run({});
    assert.equal(open.code, 0);
    assert.equal(open.stdout, '');
    assert.equal(open.stderr.trim().split('\n').length, 1, open.stderr);
    assert.match(open.stderr, /^coord: no coord daemon runs for /);
    const strict = await run({ COORD_GUARD: 'strict' });
    assert.equal(JSON.parse(strict.stdout).hookSpecificOutput.permissionDecision, 'deny');
  });
});
