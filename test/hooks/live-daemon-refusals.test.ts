/**
 * SPEC §10 "A live daemon's answer is never down", through real hook processes against a real daemon: a
 * request the daemon would refuse (too many paths for one request, an agent name it does not accept, a key
 * longer than it keeps) is never read as "daemon down" and let through unchecked. A large patch is split into
 * several requests; a bad agent name refuses the edit, saying why; a deep path under a locked folder is
 * refused, in every guard mode that checks.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { daemonOnRepo, lockOn } from './daemon-on-repo.js';
import { runCoord } from './run-hook.js';

describe("a live daemon's refusal is never read as down", () => {
  const on = daemonOnRepo();

  const edit = (client: string, input: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) =>
    runCoord(['hook', 'pre-edit', '--client', client, '--state', on.d.stateDir], {
      stdin: { hook_event_name: 'PreToolUse', cwd: on.root, ...input },
      env,
      cwd: on.root,
    });
  const lock = async (agent: string, path: string) =>
    assert.equal((await lockOn(on.d, on.board, agent, path)).status, 201);
  const reasonOf = (stdout: string): string => {
    const out = JSON.parse(stdout).hookSpecificOutput;
    assert.equal(out.permissionDecision, 'deny');
    return out.permissionDecisionReason;
  };

  test('a Codex patch of 300 files, one of them locked by another agent, is refused naming that file (split into requests the daemon takes)', async () => {
    await lock('alice', 'big/f-299.ts');
    const files = Array.from({ length: 300 }, (_, i) => `*** Add File: big/f-${i}.ts\n+x`);
    const patch = ['*** Begin Patch', ...files, '*** End Patch'].join('\n');
    const r = await edit('codex', {
      session_id: 'codex-big',
      tool_name: 'apply_patch',
      tool_input: { command: patch },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /allowed/);
    assert.match(reasonOf(r.stdout), /^lock_conflict: big\/f-299\.ts is held by alice/);

    // Without a locked file the same size of patch is allowed, and every file is the agent's.
    const free = Array.from({ length: 300 }, (_, i) => `*** Add File: free/g-${i}.ts\n+x`);
    const ok = await edit('codex', {
      session_id: 'codex-big',
      tool_name: 'apply_patch',
      tool_input: { command: ['*** Begin Patch', ...free, '*** End Patch'].join('\n') },
    });
    assert.deepEqual([ok.code, ok.stdout, ok.stderr], [0, '', '']);
    const { locks } = (await (await on.d.fetch(`/v1/locks?board=${on.board}`)).json()) as {
      locks: { resources: string[] }[];
    };
    const held = new Set(locks.flatMap((l) => l.resources));
    assert.equal(
      free.filter((_, i) => held.has(`free/g-${i}.ts`)).length,
      300,
      'all 300 files are locked for the agent',
    );
  });

  for (const name of ['bob smith', 'bøb', 'bob\tsmith']) {
    test(`an agent name the daemon does not accept (${JSON.stringify(name)}) refuses the edit, saying why — never "edit allowed"`, async () => {
      const r = await edit(
        'claude',
        { tool_name: 'Write', tool_input: { file_path: join(on.root, 'src/named.ts') } },
        { COORD_AGENT: name, CLAUDE_CODE_SESSION_ID: 'sess-name' },
      );
      assert.equal(r.code, 0, r.stderr);
      assert.doesNotMatch(r.stderr, /allowed/);
      const reason = reasonOf(r.stdout);
      assert.match(reason, /^invalid_request: coord does not accept the agent name/);
      assert.ok(reason.includes(JSON.stringify(name)), reason);
    });
  }

  test('a path deeper than a lock key can be (over 1,024 characters) under a locked lib/ is refused, in strict mode too; a free deep file becomes the agent’s', async () => {
    await lock('alice', 'lib/');
    const deep = join(...Array.from({ length: 60 }, (_, i) => `folder-number-${String(i).padStart(3, '0')}`));
    assert.ok(deep.length > 1024);
    mkdirSync(join(on.root, 'lib', deep), { recursive: true });
    for (const mode of ['', 'strict']) {
      const r = await edit(
        'claude',
        { tool_name: 'Write', tool_input: { file_path: join(on.root, 'lib', deep, 'x.ts') } },
        { CLAUDE_CODE_SESSION_ID: 'sess-deep', COORD_GUARD: mode },
      );
      assert.equal(r.code, 0, r.stderr);
      assert.match(reasonOf(r.stdout), /^lock_conflict: lib\/folder-number-000\/.* is held by alice \(as lib\/\)/);
    }

    mkdirSync(join(on.root, 'other', deep), { recursive: true });
    const file = { tool_name: 'Write', tool_input: { file_path: join(on.root, 'other', deep, 'y.ts') } };
    const mine = await edit('claude', file, { CLAUDE_CODE_SESSION_ID: 'sess-deep' });
    assert.deepEqual([mine.code, mine.stdout, mine.stderr], [0, '', '']);
    const theirs = await edit('claude', file, { CLAUDE_CODE_SESSION_ID: 'sess-deep-2' });
    assert.match(reasonOf(theirs.stdout), /^lock_conflict: other\/folder-number-000\/.* is held by claude#/);
  });
});
