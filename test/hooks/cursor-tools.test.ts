/**
 * Cursor runs its preToolUse hook for every tool (issue 25 hole 8): the tools that only read are
 * skipped by their exact names, never by a prefix — `search_replace` writes — and a `tool_input` sent
 * as a JSON string is read like an object.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { boardForDir } from '../../src/state-dir/board-name.js';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { repoWithWorktrees } from '../worktrees/git-repo.js';
import { runCoord } from './run-hook.js';

describe("Cursor's preToolUse hook", () => {
  let d: SpawnedDaemon;
  let repo: string;
  before(async () => {
    d = await spawnDaemon();
    repo = repoWithWorktrees(0).main;
    const held = await runCoord(['lock', 'src/held.ts', '--agent', 'alice', '--state', d.stateDir], { cwd: repo });
    assert.equal(held.code, 0, held.stderr);
  });
  after(async () => {
    await d.stop();
  });

  const cursor = (tool: string, toolInput: unknown) =>
    runCoord(['hook', 'pre-edit', '--client', 'cursor', '--state', d.stateDir], {
      stdin: { hook_event_name: 'preToolUse', cwd: repo, tool_name: tool, tool_input: toolInput },
      cwd: repo,
    });
  const holders = async (file: string) =>
    ((await (await d.fetch(`/v1/locks?board=${boardForDir(repo)}`)).json()) as { locks: any[] }).locks
      .filter((l) => l.resources.includes(file))
      .map((l) => l.agent);

  test('search_replace on a file alice holds is refused, naming alice', async () => {
    const r = await cursor('search_replace', {
      file_path: join(repo, 'src/held.ts'),
      old_string: 'a',
      new_string: 'b',
    });
    assert.equal(r.code, 2, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.permission, 'deny');
    assert.match(out.agent_message, /^lock_conflict: src\/held\.ts is held by alice/);
  });

  test('a tool_input sent as a JSON string is read: the edit of a held file is refused', async () => {
    const r = await cursor('edit_file', JSON.stringify({ target_file: join(repo, 'src/held.ts'), code_edit: 'x' }));
    assert.equal(r.code, 2, `${r.stdout}\n${r.stderr}`);
    assert.equal(JSON.parse(r.stdout).permission, 'deny');
  });

  test('read_file of a held file is allowed and locks nothing; a free file read takes no auto-lock', async () => {
    const held = await cursor('read_file', { target_file: join(repo, 'src/held.ts') });
    assert.equal(held.code, 0, held.stderr);
    assert.equal(held.stdout, '');
    const free = await cursor('read_file', { target_file: join(repo, 'src/readme-only.ts') });
    assert.equal(free.code, 0, free.stderr);
    assert.deepEqual(await holders('src/readme-only.ts'), []);
  });
});
