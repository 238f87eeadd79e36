/**
 * SPEC §10 "Shell edits are seen too", answered by the daemon itself: a client's own `http` hook (Claude Code,
 * Qwen Code) posts the shell call's pre and post hook input to `POST /v1/hooks/<client>/<event>` with the hook
 * key, and the daemon takes git's looks (real git, a real daemon). A changed path another agent holds comes back
 * in the client's hook JSON; free ones are auto-locked for the session's agent; a file untouched by the
 * command — changed before it, untracked and left alone, ignored by git — is not its doing. The hook key opens
 * that route and nothing else.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { hookPath, PATHS } from '../../src/api/paths.js';
import { identify } from '../../src/client/agent-identity.js';
import { CTIME_SLACK_MS } from '../../src/core/edits/shell-edits.js';
import { boardForDir } from '../../src/state-dir/board-name.js';
import { hookKeyOf } from '../../src/state-dir/token.js';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { committedRepo, holdersOn, lockOn } from './daemon-on-repo.js';

/** File times tell what a command wrote: a file changed before it must be older than the kernel's clock slack. */
const aged = () => new Promise((r) => setTimeout(r, CTIME_SLACK_MS * 3));
const agentOf = (session: string) => identify('claude', { CLAUDE_CODE_SESSION_ID: session })?.agent ?? '';

describe('shell edits seen by the daemon through the http hook', () => {
  let d: SpawnedDaemon;
  let repo: string;
  let board: string;
  let key: string;
  before(async () => {
    d = await spawnDaemon();
    key = hookKeyOf(d.token);
    repo = committedRepo(['src/held.ts', 'src/free.ts', 'src/dirty.ts', 'src/restored.ts', 'src/gone.ts']);
    board = boardForDir(repo) ?? '';
  });
  after(async () => {
    await d.stop();
  });

  const hook = async (
    event: 'pre-shell' | 'post-shell',
    client: string,
    session: string,
    call: string,
    headers: Record<string, string> = {},
  ) => {
    const res = await fetch(d.url + hookPath(client, event), {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({
        session_id: session,
        hook_event_name: event === 'pre-shell' ? 'PreToolUse' : 'PostToolUse',
        cwd: repo,
        tool_name: 'Bash',
        tool_use_id: call,
        tool_input: { command: '…' },
      }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const holders = () => holdersOn(d, board);
  const lock = (agent: string, path: string) => lockOn(d, board, agent, path);

  test("a command that changes a file another agent holds is answered with Claude Code's block and the restore hint; the free files it changed become the session agent's", async () => {
    assert.equal((await lock('alice', 'src/held.ts')).status, 201);
    // Before the command: a tracked file changed, an untracked file there already.
    appendFileSync(join(repo, 'src/dirty.ts'), 'before\n');
    writeFileSync(join(repo, 'src/scratch.ts'), 'mine\n');
    await aged();
    assert.deepEqual(await hook('pre-shell', 'claude', 'sess-sh', 'call-1'), { status: 200, body: {} });
    // The command: sed -i, a generator, a deletion, a build output git ignores.
    appendFileSync(join(repo, 'src/held.ts'), '2\n');
    appendFileSync(join(repo, 'src/free.ts'), '2\n');
    writeFileSync(join(repo, 'src/generated.ts'), 'x\n');
    execFileSync('rm', [join(repo, 'src/gone.ts')]);
    mkdirSync(join(repo, 'build'), { recursive: true });
    writeFileSync(join(repo, 'build/out.js'), 'x\n');
    const r = await hook('post-shell', 'claude', 'sess-sh', 'call-1');
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, {
      decision: 'block',
      reason:
        'lock_conflict: your command changed src/held.ts, which alice holds — restore it (git restore src/held.ts) and edit something else',
    });
    const me = agentOf('sess-sh');
    assert.deepEqual(await holders(), {
      'src/held.ts': 'alice',
      'src/free.ts': me,
      'src/generated.ts': me,
      'src/gone.ts': me,
    });
  });

  test('a command that changes nothing says nothing ({}); Coord-Agent names the agent; a post hook with no pre hook is allowed', async () => {
    assert.deepEqual(await hook('pre-shell', 'claude', 'sess-quiet', 'call-2'), { status: 200, body: {} });
    assert.deepEqual(await hook('post-shell', 'claude', 'sess-quiet', 'call-2'), { status: 200, body: {} });
    assert.deepEqual(await hook('post-shell', 'claude', 'sess-quiet', 'never-pre'), { status: 200, body: {} });

    const named = { 'coord-agent': 'carol' };
    assert.equal((await hook('pre-shell', 'claude', 'sess-carol', 'call-3', named)).status, 200);
    writeFileSync(join(repo, 'src/carol.ts'), 'c\n');
    assert.deepEqual((await hook('post-shell', 'claude', 'sess-carol', 'call-3', named)).body, {});
    assert.equal((await holders())['src/carol.ts'], 'carol');
  });

  test("git checkout of a held file changed before (restoring it to git's copy) is a change too; Coord-Guard warn tells without blocking", async () => {
    assert.equal((await lock('bob', 'src/restored.ts')).status, 201);
    appendFileSync(join(repo, 'src/restored.ts'), 'bob was here\n');
    await aged();
    assert.equal((await hook('pre-shell', 'claude', 'sess-co', 'call-4')).status, 200);
    execFileSync('git', ['checkout', '--', 'src/restored.ts'], { cwd: repo });
    const r = await hook('post-shell', 'claude', 'sess-co', 'call-4');
    assert.match(String(r.body.reason), /your command changed src\/restored\.ts, which bob holds/);

    const warn = { 'coord-guard': 'warn' };
    assert.equal((await hook('pre-shell', 'claude', 'sess-warn', 'call-5', warn)).status, 200);
    appendFileSync(join(repo, 'src/held.ts'), '5\n');
    const w = await hook('post-shell', 'claude', 'sess-warn', 'call-5', warn);
    assert.equal(w.body.decision, undefined);
    assert.match(
      String(w.body.systemMessage),
      /^coord \(COORD_GUARD=warn\): lock_conflict: your command changed src\/held\.ts/,
    );
  });

  test('the hook key opens the hook route only; a wrong key opens nothing', async () => {
    const locks = await fetch(d.url + PATHS.locks, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(locks.status, 401);
    const wrong = await fetch(d.url + hookPath('claude', 'pre-shell'), {
      method: 'POST',
      headers: { authorization: `Bearer ${hookKeyOf('another token')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: 's', cwd: repo, tool_use_id: 'x' }),
    });
    assert.equal(wrong.status, 401);
    const token = await d.fetch(hookPath('claude', 'pre-shell'), {
      method: 'POST',
      json: { session_id: 's', cwd: repo, tool_use_id: 'x' },
    });
    assert.equal(token.status, 200);
  });
});
