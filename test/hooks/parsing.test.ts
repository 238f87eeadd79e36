/** The pieces of the hooks that need no daemon: patch paths, paths per client, identity, answers. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { clientProcess, identify } from '../../src/client/agent-identity.js';
import { speak } from '../../src/hooks/answer.js';
import { patchPaths, pathsToWrite } from '../../src/hooks/input.js';

describe('hook parsing', () => {
  test('Codex apply_patch paths come from its Add, Update, Delete and Move-to lines', () => {
    const patch = [
      '*** Begin Patch',
      '*** Add File: src/new.ts',
      '+export {};',
      '*** Update File: src/old.ts',
      '*** Move to: src/renamed.ts',
      '@@',
      '-a',
      '+b',
      '*** Delete File: docs/gone.md',
      '*** End Patch',
    ].join('\n');
    assert.deepEqual(patchPaths(patch), ['src/new.ts', 'src/old.ts', 'src/renamed.ts', 'docs/gone.md']);
    assert.deepEqual(pathsToWrite({ tool_name: 'apply_patch', tool_input: { command: patch } }).length, 4);
  });

  test('Claude Code, Gemini CLI and NotebookEdit name their file in tool_input', () => {
    assert.deepEqual(pathsToWrite({ tool_input: { file_path: '/r/a.ts', old_string: 'x' } }), ['/r/a.ts']);
    assert.deepEqual(pathsToWrite({ tool_input: { notebook_path: '/r/n.ipynb' } }), ['/r/n.ipynb']);
    assert.deepEqual(pathsToWrite({ tool_input: { content: 'no path' } }), []);
  });

  test('Claude Code sessions are named by CLAUDE_CODE_SESSION_ID; the session id is a uuid; COORD_AGENT wins', () => {
    const a = identify('claude', { CLAUDE_CODE_SESSION_ID: 'one' });
    const b = identify('claude', { CLAUDE_CODE_SESSION_ID: 'one' });
    const c = identify('claude', { CLAUDE_CODE_SESSION_ID: 'two' });
    assert.deepEqual(a, b);
    assert.notEqual(a?.agent, c?.agent);
    assert.match(a?.agent ?? '', /^claude#[0-9a-f]{6}$/);
    assert.match(a?.sessionId ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(identify('claude', { CLAUDE_CODE_SESSION_ID: 'one', COORD_AGENT: 'alice' })?.agent, 'alice');
  });

  test('other clients are named by the nearest ancestor that is not a shell: this test process for a child of it', () => {
    assert.equal(clientProcess(process.pid)?.pid, process.ppid);
    const gemini = identify('gemini', {});
    assert.match(gemini?.agent ?? '', /^gemini#[0-9a-f]{6}$/);
  });

  test('each client hears a refusal in its own words; allowing is answering nothing', () => {
    const deny = { kind: 'deny' as const, reason: 'lock_conflict: src/a.ts is held by x' };
    assert.equal(JSON.parse(speak('claude', 'pre-edit', deny).stdout).hookSpecificOutput.permissionDecision, 'deny');
    assert.equal(
      JSON.parse(speak('codex', 'pre-edit', deny).stdout).hookSpecificOutput.permissionDecisionReason,
      deny.reason,
    );
    assert.deepEqual(speak('gemini', 'pre-edit', deny), { code: 2, stdout: '', stderr: `${deny.reason}\n` });
    assert.equal(JSON.parse(speak('cursor', 'pre-edit', deny).stdout).permission, 'deny');
    assert.deepEqual(speak('codex', 'pre-edit', { kind: 'allow' }), { code: 0, stdout: '', stderr: '' });
  });
});
