/**
 * SPEC §10 + §14, raced for real: two agents in two work trees of one repository run the pre-edit hook
 * (as Claude Code does) on the same path at the same instant, round after round. Never are both allowed;
 * and once the winner's work is committed and its lock has become a hold, the other work tree stays out.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { boardForDir } from '../../src/state-dir/board-name.js';
import { runCoord } from '../hooks/run-hook.js';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { type Repo, repoWithWorktrees } from './git-repo.js';

const ROUNDS = 8;

describe('two work trees racing for one path', () => {
  let d: SpawnedDaemon;
  let repo: Repo;
  before(async () => {
    d = await spawnDaemon();
    repo = repoWithWorktrees(2);
  });
  after(async () => {
    await d.stop();
  });

  const edit = async (session: string, tree: string, file: string) => {
    const r = await runCoord(['hook', 'pre-edit', '--client', 'claude', '--state', d.stateDir], {
      stdin: {
        hook_event_name: 'PreToolUse',
        cwd: tree,
        tool_name: 'Write',
        tool_input: { file_path: join(tree, file) },
      },
      env: { CLAUDE_CODE_SESSION_ID: session },
      cwd: tree,
    });
    assert.equal(r.code, 0, r.stderr);
    return !r.stdout.includes('"deny"');
  };

  test(`in ${ROUNDS} rounds of simultaneous edits of one path from two work trees, exactly one agent is allowed each time, and the loser stays out once the winner's lock is a hold`, async () => {
    const [one = '', two = ''] = repo.linked;
    const board = boardForDir(repo.main) ?? '';
    for (let i = 0; i < ROUNDS; i++) {
      const file = `src/race${i}.ts`;
      const [a, b] = await Promise.all([edit(`race-a${i}`, one, file), edit(`race-b${i}`, two, file)]);
      assert.equal(Number(a) + Number(b), 1, `round ${i}: a=${a} b=${b}`);
      // The winner writes and commits; its lock ends (unlock) and becomes a hold of its work tree.
      const [tree, loser, session] = a ? [one, two, `race-b${i}`] : [two, one, `race-a${i}`];
      writeFileSync(join(tree, file), `export const r${i} = ${i};\n`);
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', 'add', file], { cwd: tree });
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-qm', `r${i}`], { cwd: tree });
      const locks = ((await (await d.fetch(`/v1/locks?board=${board}`)).json()) as any).locks;
      const won = locks.find((l: any) => l.resources.includes(file));
      await d.fetch(`/v1/locks/${won.lock_id}`, { method: 'DELETE' });
      assert.equal(await edit(session, loser, file), false, `round ${i}: the hold keeps the other work tree out`);
    }
  });
});
