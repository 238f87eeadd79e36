/**
 * SPEC §10 "Shell edits are seen too", through real hook processes, real git and a real daemon: a
 * snapshot before the shell tool call (pre-shell) and after it (post-shell). A changed path another
 * agent holds is reported to the model with lock_conflict and how to undo it; free changed paths are
 * auto-locked for the agent; paths changed before the command, or ignored by git, are not its doing.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { identify } from '../../src/client/agent-identity.js';
import { boardForDir } from '../../src/state-dir/board-name.js';
import { tempDir } from '../support/ctx.js';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { committedRepo, holdersOn, lockOn } from './daemon-on-repo.js';
import { runCoord } from './run-hook.js';

const agentOf = (session: string) => identify('claude', { CLAUDE_CODE_SESSION_ID: session })?.agent ?? '';

describe('shell edits are seen too', () => {
  let d: SpawnedDaemon;
  let repo: string;
  let board: string;
  before(async () => {
    d = await spawnDaemon();
    repo = committedRepo(['src/held.ts', 'src/free.ts', 'src/dirty.ts', 'src/restored.ts']);
    board = boardForDir(repo) ?? '';
  });
  after(async () => {
    await d.stop();
  });

  const hook = (event: 'pre-shell' | 'post-shell', client: string, session: string, call: string) =>
    runCoord(['hook', event, '--client', client, '--state', d.stateDir], {
      stdin: {
        hook_event_name: event === 'pre-shell' ? 'PreToolUse' : 'PostToolUse',
        cwd: repo,
        tool_name: 'Bash',
        tool_use_id: call,
        tool_input: { command: '…' },
      },
      env: { CLAUDE_CODE_SESSION_ID: session },
      cwd: repo,
    });
  const holders = () => holdersOn(d, board);
  const lock = (agent: string, path: string) => lockOn(d, board, agent, path);

  test("a command that changes a file another agent holds is reported to the model with lock_conflict and the restore hint; the free files it changed become the agent's", async () => {
    assert.equal((await lock('alice', 'src/held.ts')).status, 201);
    // Changed before the command: not its doing.
    appendFileSync(join(repo, 'src/dirty.ts'), 'before\n');
    assert.deepEqual((await hook('pre-shell', 'claude', 'sess-sh', 'call-1')).stdout, '');
    // The command: sed -i, a generator, a build output git ignores.
    appendFileSync(join(repo, 'src/held.ts'), '2\n');
    appendFileSync(join(repo, 'src/free.ts'), '2\n');
    writeFileSync(join(repo, 'src/generated.ts'), 'x\n');
    execFileSync('mkdir', ['-p', join(repo, 'build')]);
    writeFileSync(join(repo, 'build/out.js'), 'x\n');
    const r = await hook('post-shell', 'claude', 'sess-sh', 'call-1');
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.decision, 'block');
    assert.equal(
      out.reason,
      'lock_conflict: your command changed src/held.ts, which alice holds — restore it (git restore src/held.ts) and edit something else',
    );
    const me = agentOf('sess-sh');
    assert.deepEqual(await holders(), { 'src/held.ts': 'alice', 'src/free.ts': me, 'src/generated.ts': me });
  });

  test('a command that changes nothing it did not change before says nothing; Gemini CLI hears a conflict as additionalContext after the output', async () => {
    assert.equal((await hook('pre-shell', 'claude', 'sess-quiet', 'call-2')).stdout, '');
    const quiet = await hook('post-shell', 'claude', 'sess-quiet', 'call-2');
    assert.deepEqual([quiet.code, quiet.stdout, quiet.stderr], [0, '', '']);

    assert.equal((await hook('pre-shell', 'gemini', 'sess-gem', 'call-3')).stdout, '');
    appendFileSync(join(repo, 'src/held.ts'), '3\n');
    const g = await hook('post-shell', 'gemini', 'sess-gem', 'call-3');
    const ctx = JSON.parse(g.stdout).hookSpecificOutput;
    assert.equal(ctx.hookEventName, 'AfterTool');
    assert.match(ctx.additionalContext, /^lock_conflict: your command changed src\/held\.ts, which alice holds/);
  });

  test("git checkout of a held file that was changed before (restoring it to git's copy) is a change too", async () => {
    assert.equal((await lock('bob', 'src/restored.ts')).status, 201);
    appendFileSync(join(repo, 'src/restored.ts'), 'bob was here\n');
    assert.equal((await hook('pre-shell', 'claude', 'sess-co', 'call-4')).stdout, '');
    execFileSync('git', ['checkout', '--', 'src/restored.ts'], { cwd: repo });
    const r = await hook('post-shell', 'claude', 'sess-co', 'call-4');
    assert.match(JSON.parse(r.stdout).reason, /your command changed src\/restored\.ts, which bob holds/);
  });

  /** The look files a command hook kept of its own in a state directory (hooks/shell-edits.ts snapshotFile). */
  const ownLooks = (stateDir: string) =>
    existsSync(join(stateDir, 'hooks'))
      ? readdirSync(join(stateDir, 'hooks')).filter((f) => f.startsWith('shell-'))
      : [];

  test('with a daemon running, the command hooks leave both looks to it (no look file of their own) and still see the change', async () => {
    assert.equal((await hook('pre-shell', 'claude', 'sess-d', 'call-5')).stdout, '');
    assert.deepEqual(ownLooks(d.stateDir), []);
    appendFileSync(join(repo, 'src/held.ts'), '5\n');
    const r = await hook('post-shell', 'claude', 'sess-d', 'call-5');
    assert.match(JSON.parse(r.stdout).reason, /^lock_conflict: your command changed src\/held\.ts, which alice holds/);
  });
});

test('a command hook with no daemon to look keeps its own look, and decides from it once a daemon answers', async () => {
  const repo = committedRepo(['src/a.ts']);
  const stateDir = tempDir('coord-shell-down-');
  const hook = (event: 'pre-shell' | 'post-shell') =>
    runCoord(['hook', event, '--client', 'claude', '--state', stateDir], {
      stdin: {
        cwd: repo,
        tool_name: 'Bash',
        tool_use_id: 'call-down',
        tool_input: { command: 'sed -i s/a/b/ src/a.ts' },
      },
      env: { CLAUDE_CODE_SESSION_ID: 'sess-down' },
      cwd: repo,
    });
  assert.equal((await hook('pre-shell')).code, 0);
  assert.equal(readdirSync(join(stateDir, 'hooks')).filter((f) => f.startsWith('shell-')).length, 1);
  appendFileSync(join(repo, 'src/a.ts'), 'changed\n');
  const d = await spawnDaemon({ stateDir });
  try {
    assert.equal((await hook('post-shell')).code, 0);
    assert.deepEqual(await holdersOn(d, boardForDir(repo) ?? ''), { 'src/a.ts': agentOf('sess-down') });
  } finally {
    await d.stop();
  }
});
