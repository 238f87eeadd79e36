/**
 * SPEC §14 "The work tree of an edit is the work tree the path lies in, not the session's": bob, whose session
 * works in wt-B, writing `wt-A/src/c.ts` (by its path, with his edit tool) is refused while alice's change
 * hold of wt-A covers it — a hold protects its own work tree from outside writers — and gets no lock in her
 * work tree; an agent working in wt-A edits on. A `cp` into `../wt-A/src/b.ts` from bob's shell is reported to
 * him. Real git work trees, a real daemon, the real hook processes.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { hookPath } from '../../src/api/paths.js';
import { identify } from '../../src/client/agent-identity.js';
import { boardForDir } from '../../src/state-dir/board-name.js';
import { hookKeyOf } from '../../src/state-dir/token.js';
import { runCoord } from '../hooks/run-hook.js';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { repoWithWorktrees } from './git-repo.js';

const agentOf = (session: string) => identify('claude', { CLAUDE_CODE_SESSION_ID: session })?.agent ?? '';

describe("the work tree of an edit is the path's", () => {
  let d: SpawnedDaemon;
  let wtA = '';
  let wtB = '';
  let board: string;
  before(async () => {
    d = await spawnDaemon();
    const repo = repoWithWorktrees(2);
    [wtA = '', wtB = ''] = repo.linked;
    board = boardForDir(repo.main) ?? '';
    // alice edits src/c.ts in wt-A (her auto-lock is wt-A's), changes it, and her lock ends: a hold of wt-A.
    const decided = await d.fetch('/v1/locks/decide', {
      method: 'POST',
      json: { agent: 'alice', board, paths: ['src/c.ts'], worktree: wtA },
    });
    const { lock_id } = (await decided.json()) as { lock_id: string };
    writeFileSync(join(wtA, 'src/c.ts'), 'alice was here\n');
    assert.equal((await d.fetch(`/v1/locks/${lock_id}?agent=alice`, { method: 'DELETE' })).status, 200);
    const { locks } = (await (await d.fetch(`/v1/locks?board=${board}`)).json()) as {
      locks: { hold?: boolean; resources: string[]; worktree?: string }[];
    };
    const hold = locks.find((l) => l.resources.includes('src/c.ts'));
    assert.ok(hold?.hold && hold.worktree === wtA, JSON.stringify(locks));
  });
  after(async () => {
    await d.stop();
  });

  const edit = async (session: string, cwd: string, file: string) => {
    const r = await runCoord(['hook', 'pre-edit', '--client', 'claude', '--state', d.stateDir], {
      stdin: { hook_event_name: 'PreToolUse', cwd, tool_name: 'Edit', tool_input: { file_path: file } },
      env: { CLAUDE_CODE_SESSION_ID: session },
      cwd,
    });
    assert.equal(r.code, 0, r.stderr);
    const out = r.stdout ? JSON.parse(r.stdout).hookSpecificOutput : null;
    return out?.permissionDecision === 'deny' ? String(out.permissionDecisionReason) : null;
  };
  const locksOf = async (agent: string) => {
    const { locks } = (await (await d.fetch(`/v1/locks?board=${board}`)).json()) as {
      locks: { agent: string; resources: string[] }[];
    };
    return locks.filter((l) => l.agent === agent).flatMap((l) => l.resources);
  };

  test("bob, working in wt-B, editing wt-A's held src/c.ts by its path is refused naming wt-A's hold, and takes no lock there", async () => {
    const refused = await edit('bob-b', wtB, join(wtA, 'src/c.ts'));
    assert.match(
      refused ?? 'allowed',
      new RegExp(`^lock_conflict: src/c\\.ts has changes not merged yet in worktree .*${basename(wtA)} \\(branch wt1`),
    );
    assert.deepEqual(await locksOf(agentOf('bob-b')), []);
  });

  test('an agent whose session works in wt-A edits src/c.ts on (it continues that branch)', async () => {
    assert.equal(await edit('carol-a', wtA, join(wtA, 'src/c.ts')), null);
  });

  for (const door of ['command', 'http'] as const)
    test(`${door} shell hook: a cp into ../wt-A/src/b.ts from bob's shell in wt-B is reported to him with the other work tree's path`, async () => {
      const taken = await d.fetch('/v1/locks/decide', {
        method: 'POST',
        json: { agent: 'alice', board, paths: [`src/b-${door}.ts`], worktree: wtA },
      });
      assert.equal(taken.status, 200);
      const command = `cp src/a.ts ../${basename(wtA)}/src/b-${door}.ts`;
      const input = (event: 'pre-shell' | 'post-shell') => ({
        session_id: `bob-b-${door}`,
        hook_event_name: event === 'pre-shell' ? 'PreToolUse' : 'PostToolUse',
        cwd: wtB,
        tool_name: 'Bash',
        tool_use_id: `call-cp-${door}`,
        tool_input: { command },
      });
      const shell = async (event: 'pre-shell' | 'post-shell'): Promise<{ reason?: string }> => {
        if (door === 'http') {
          const res = await fetch(d.url + hookPath('claude', event), {
            method: 'POST',
            headers: { authorization: `Bearer ${hookKeyOf(d.token)}`, 'content-type': 'application/json' },
            body: JSON.stringify(input(event)),
          });
          assert.equal(res.status, 200);
          return (await res.json()) as { reason?: string };
        }
        const r = await runCoord(['hook', event, '--client', 'claude', '--state', d.stateDir], {
          stdin: input(event),
          env: { CLAUDE_CODE_SESSION_ID: `bob-b-${door}` },
          cwd: wtB,
        });
        assert.equal(r.code, 0, r.stderr);
        return r.stdout ? JSON.parse(r.stdout) : {};
      };
      assert.deepEqual(await shell('pre-shell'), {});
      writeFileSync(join(wtA, `src/b-${door}.ts`), 'export const a = 1;\n');
      assert.match(
        (await shell('post-shell')).reason ?? 'not reported',
        new RegExp(
          `^lock_conflict: your command changed \\.\\./${basename(wtA)}/src/b-${door}\\.ts, which alice holds`,
        ),
      );
    });
});
