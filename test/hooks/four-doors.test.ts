/**
 * "One door, not four" (issue 34): the edit path has four entry routes — the command hook (a process per edit),
 * the hook run inside a client (plugins: hooks/main.ts `hookAnswer` in process), the `decide_edit` MCP tool
 * (Claude Code's `mcp_tool` hook) and the shell hooks (the command hooks' pre-shell/post-shell, and the
 * daemon's `http` ones) — and each must give the same answer for the same edit. One table of edits, each door
 * fed it in its own input shape over a fresh repository with the same locks and holds: the same paths allowed, the same refused, naming the same holder.
 * Real git, a real daemon (the MCP door on its own in-process store, with real git too).
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { hookPath } from '../../src/api/paths.js';
import { CTIME_SLACK_MS } from '../../src/core/edits/shell-edits.js';
import { invoke } from '../../src/core/invoke.js';
import type { Ctx } from '../../src/core/operation.js';
import { decideEdit } from '../../src/core/ops/decide-edit.js';
import { lockFiles, unlockFiles } from '../../src/core/ops/locks.js';
import { GitRepos } from '../../src/git/git-repos.js';
import { hookAnswer } from '../../src/hooks/main.js';
import { boardForDir } from '../../src/state-dir/board-name.js';
import { hookKeyOf } from '../../src/state-dir/token.js';
import { mcpHarness } from '../mcp/harness.js';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { repoWithWorktrees } from '../worktrees/git-repo.js';
import { runCoord } from './run-hook.js';

/** A path deeper than a lock key can be (over 1,024 characters). */
const DEEP = Array.from({ length: 60 }, (_, i) => `folder-number-${String(i).padStart(3, '0')}`).join('/');

/** Where an edit happens: the session's work tree and the files it writes (relative to the work tree `in`). */
interface Row {
  name: string;
  session: 'A' | 'B';
  in: 'A' | 'B';
  files: string[];
  /** null: allowed; else the refusal (or the shell report) names this path and holder. */
  refused: { path: string; holder: string } | null;
}

const TABLE: Row[] = [
  { name: 'a free file', session: 'B', in: 'B', files: ['src/free.ts'], refused: null },
  {
    name: 'a file another agent locked',
    session: 'B',
    in: 'B',
    files: ['src/locked.ts'],
    refused: { path: 'src/locked.ts', holder: 'alice' },
  },
  {
    name: 'a deep file under a locked folder',
    session: 'B',
    in: 'B',
    files: [`lib/${DEEP}/x.ts`],
    refused: { path: 'lib/folder-number-000/', holder: 'alice' },
  },
  {
    name: '300 files, the last one locked',
    session: 'B',
    in: 'B',
    files: Array.from({ length: 300 }, (_, i) => `big/f-${i}.ts`),
    refused: { path: 'big/f-299.ts', holder: 'alice' },
  },
  {
    name: '300 files, the first and the last locked (two requests refused)',
    session: 'B',
    in: 'B',
    files: Array.from({ length: 300 }, (_, i) => `two/f-${i}.ts`),
    refused: { path: 'two/f-299.ts', holder: 'alice' },
  },
  {
    name: "wt-A's held file, from a session in wt-B",
    session: 'B',
    in: 'A',
    files: ['src/c.ts'],
    refused: { path: 'src/c.ts', holder: 'alice' },
  },
  { name: "wt-A's held file, from a session in wt-A", session: 'A', in: 'A', files: ['src/c.ts'], refused: null },
];

/** One door: decides the row's edit for a session of `agent`, answering null (allowed) or the reason told. */
type Door = (row: Row, trees: { A: string; B: string }, session: string) => Promise<string | null>;

/** alice's locks and her hold of wt-A (src/c.ts changed there, her lock ended), set through `call`. */
async function givenLocks(
  trees: { A: string; B: string },
  lock: (paths: string[]) => Promise<unknown>,
  holdInA: (path: string) => Promise<void>,
) {
  await lock(['src/locked.ts', 'lib/', 'big/f-299.ts', 'two/f-0.ts', 'two/f-299.ts']);
  writeFileSync(join(trees.A, 'src/c.ts'), 'alice was here\n');
  await holdInA('src/c.ts');
  for (const t of [trees.A, trees.B]) mkdirSync(join(t, 'lib', DEEP), { recursive: true });
}

/** The shell command of a shell door's row: it writes each file. */
let lastWrite = 0;
const writeAll = (files: string[], text: string) => {
  for (const f of files) {
    mkdirSync(dirname(f), { recursive: true });
    writeFileSync(f, `${text}\n`);
  }
  lastWrite = Date.now();
};

/**
 * A file changed within CTIME_SLACK_MS before a look counts as the next command's (file times lag the wall
 * clock by a kernel tick): the next row's command starts only once the last row's writes are past that slack,
 * as two commands of an agent are.
 */
const pastSlack = async () => {
  while (Date.now() - lastWrite <= 2 * CTIME_SLACK_MS) await new Promise((r) => setTimeout(r, CTIME_SLACK_MS));
};

const denyOf = (stdout: string): string | null => {
  const out = stdout ? JSON.parse(stdout).hookSpecificOutput : null;
  return out?.permissionDecision === 'deny' ? String(out.permissionDecisionReason) : null;
};

describe('the four doors of the edit path give one answer for one table of edits', () => {
  let d: SpawnedDaemon;
  const answers: Record<string, (string | null)[]> = {};
  /** Each door's reasons, the clock masked (every door's locks are taken at their own time) and the temporary folder. */
  const reasons: Record<string, (string | null)[]> = {};
  before(async () => {
    d = await spawnDaemon();
  });
  after(async () => {
    await d.stop();
  });

  /** A fresh repository with alice's locks and hold on the daemon. */
  const daemonRepo = async () => {
    const repo = repoWithWorktrees(2);
    const trees = { A: repo.linked[0] ?? '', B: repo.linked[1] ?? '' };
    const board = boardForDir(repo.main) ?? '';
    await givenLocks(
      trees,
      async (resources) =>
        assert.equal(
          (await d.fetch('/v1/locks', { method: 'POST', json: { agent: 'alice', board, resources, lease_s: 600 } }))
            .status,
          201,
        ),
      async (path) => {
        const r = await d.fetch('/v1/locks/decide', {
          method: 'POST',
          json: { agent: 'alice', board, paths: [path], worktree: trees.A },
        });
        const { lock_id } = (await r.json()) as { lock_id: string };
        assert.equal((await d.fetch(`/v1/locks/${lock_id}?agent=alice`, { method: 'DELETE' })).status, 200);
      },
    );
    return trees;
  };
  const patchOf = (root: string, files: string[]) =>
    ['*** Begin Patch', ...files.map((f) => `*** Add File: ${join(root, f)}\n+x`), '*** End Patch'].join('\n');

  const doors: Record<string, () => Promise<Door>> = {
    'command hook': async () => async (row, trees, session) => {
      const cwd = trees[row.session];
      const r = await runCoord(['hook', 'pre-edit', '--client', 'codex', '--state', d.stateDir], {
        stdin: {
          hook_event_name: 'PreToolUse',
          session_id: session,
          cwd,
          tool_name: 'apply_patch',
          tool_input: { command: patchOf(trees[row.in], row.files) },
        },
        cwd,
      });
      assert.equal(r.code, 0, r.stderr);
      return denyOf(r.stdout);
    },
    'in-process hook (plugins)': async () => async (row, trees, session) => {
      const cwd = trees[row.session];
      const r = await hookAnswer(
        ['hook', 'pre-edit', '--client', 'claude', '--state', d.stateDir],
        { ...process.env, CLAUDE_CODE_SESSION_ID: session, COORD_AGENT: '', COORD_BOARD: '', COORD_GUARD: '' },
        {
          hook_event_name: 'PreToolUse',
          cwd,
          tool_name: 'Edit',
          tool_input: { file_path: join(trees[row.in], row.files[0] ?? ''), edits: [] },
          ...(row.files.length > 1 ? { tool_input: { command: patchOf(trees[row.in], row.files) } } : {}),
        },
      );
      assert.equal(r.code, 0, r.stderr);
      return denyOf(r.stdout);
    },
    'decide_edit MCP tool': async () => {
      const h = await mcpHarness();
      const ctx: Ctx = { ...h.ctx, git: new GitRepos() };
      (h.ctx as { git?: unknown }).git = ctx.git;
      const repo = repoWithWorktrees(2);
      const trees = { A: repo.linked[0] ?? '', B: repo.linked[1] ?? '' };
      const board = boardForDir(repo.main) ?? '';
      await givenLocks(
        trees,
        (resources) => invoke(lockFiles, ctx, { agent: 'alice', board, resources }),
        async (path) => {
          const taken = await invoke(decideEdit, ctx, { agent: 'alice', board, paths: [path], worktree: trees.A });
          await invoke(unlockFiles, ctx, { lock_id: taken.lock_id ?? '', agent: 'alice' });
        },
      );
      mcpTrees = trees;
      return async (row, _trees, session) => {
        const agent = await h.agent({ agent: session, board, root: mcpTrees[row.session] });
        const [first = '', ...rest] = row.files.map((f) => join(mcpTrees[row.in], f));
        const r = await agent.call('decide_edit', { file_path: first, paths: rest });
        await agent.close();
        return denyOf(r.text === '{}' ? '' : r.text);
      };
    },
    'shell hook (command pre-shell, post-shell)': async () => async (row, trees, session) => {
      const cwd = trees[row.session];
      const written = row.files.map((f) => join(trees[row.in], f));
      const command = `touch ${written.map((f) => relative(cwd, f)).join(' ')}`;
      const hook = async (event: 'pre-shell' | 'post-shell') => {
        const r = await runCoord(['hook', event, '--client', 'claude', '--state', d.stateDir], {
          stdin: { cwd, tool_name: 'Bash', tool_use_id: session, tool_input: { command } },
          env: { CLAUDE_CODE_SESSION_ID: session },
          cwd,
        });
        assert.equal(r.code, 0, r.stderr);
        return r.stdout.trim() ? (JSON.parse(r.stdout) as { reason?: string }) : {};
      };
      await pastSlack();
      await hook('pre-shell');
      writeAll(written, session);
      return (await hook('post-shell')).reason ?? null;
    },
    'shell hook (http post-shell)': async () => async (row, trees, session) => {
      const cwd = trees[row.session];
      const written = row.files.map((f) => join(trees[row.in], f));
      const command = `touch ${written.map((f) => relative(cwd, f)).join(' ')}`;
      const post = async (event: 'pre-shell' | 'post-shell') => {
        const res = await fetch(d.url + hookPath('claude', event), {
          method: 'POST',
          headers: { authorization: `Bearer ${hookKeyOf(d.token)}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            session_id: session,
            cwd,
            tool_name: 'Bash',
            tool_use_id: session,
            tool_input: { command },
          }),
        });
        assert.equal(res.status, 200);
        return (await res.json()) as { reason?: string };
      };
      await pastSlack();
      await post('pre-shell');
      writeAll(written, session);
      return (await post('post-shell')).reason ?? null;
    },
  };
  let mcpTrees = { A: '', B: '' };

  for (const [name, open] of Object.entries(doors))
    test(`${name}: the table's edits are allowed and refused as the table says`, async () => {
      const door = await open();
      const trees = name === 'decide_edit MCP tool' ? mcpTrees : await daemonRepo();
      const got: (string | null)[] = [];
      for (const [i, row] of TABLE.entries()) {
        const reason = await door(row, trees, `${basename(name).replace(/\W+/g, '-')}-${i}`);
        got.push(reason);
        if (row.refused === null) assert.equal(reason, null, `${row.name}: allowed`);
        else {
          assert.ok(reason?.includes(row.refused.path), `${row.name}: names ${row.refused.path}: ${reason}`);
          assert.match(reason ?? '', new RegExp(`\\b${row.refused.holder}\\b`), `${row.name}: names the holder`);
        }
      }
      answers[name] = got.map((r) => (r === null ? 'allow' : 'refuse'));
      // Each door's repository is its own temporary folder: its name is masked too.
      const masked = (r: string) =>
        r.replace(/until \d\d:\d\d:\d\d UTC( \(in [^)]*\))?/g, 'until T').replace(/\/\S*\/project-wt/g, '…/project-wt');
      reasons[name] = got.map((r) => (r === null ? null : masked(r)));
    });

  test('every door answered the whole table alike', () => {
    const shapes = Object.values(answers).map((a) => JSON.stringify(a));
    assert.equal(shapes.length, Object.keys(doors).length);
    assert.equal(new Set(shapes).size, 1, JSON.stringify(answers));
  });

  test('the edit doors word every refusal alike (several refused requests read as one lock_conflict line)', () => {
    const edit = ['command hook', 'in-process hook (plugins)', 'decide_edit MCP tool'].map((n) => reasons[n]);
    assert.equal(edit.length, 3);
    for (const r of edit.slice(1)) assert.deepEqual(r, edit[0]);
    const two = edit[0]?.[TABLE.findIndex((r) => r.name.startsWith('300 files, the first'))] ?? '';
    assert.equal(two.split('\n').length, 1, two);
    assert.match(two, /^lock_conflict: two\/f-0\.ts is held by alice until T; two\/f-299\.ts is held by alice/);
  });

  test('the two shell doors (command hooks, http hooks) word every report alike', () => {
    const shell = reasons['shell hook (command pre-shell, post-shell)'];
    assert.ok(shell);
    assert.deepEqual(reasons['shell hook (http post-shell)'], shell);
  });
});
