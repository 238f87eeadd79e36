/**
 * SPEC §10 "Down is not slow", with real processes: a daemon stopped with
 * SIGSTOP is alive (it holds its daemon lock), so the pre-edit hook waits for
 * it and the edit is then decided — never allowed unchecked; past its wait
 * (2 s before the client's hook timeout) the edit is refused with coord_busy.
 * A daemon killed with kill -9 is down: the edit goes through at once with one
 * warning line. Order and outcome are asserted, never durations (they are reported as diagnostics).
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { boardForDir } from '../../src/state-dir/board-name.js';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { waitFor } from '../support/wait-for.js';
import { repoWithWorktrees } from '../worktrees/git-repo.js';
import { runCoord } from './run-hook.js';

/** Whether process `pid` has a TCP connection established to `port` (read from /proc, Linux). */
function connectedTo(pid: number, port: number): boolean {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      const remPort = Number.parseInt(f[2]!.split(':')[1]!, 16);
      if (remPort === port && f[3] === '01') inodes.add(f[9]!);
    }
  }
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        return m !== null && inodes.has(m[1]!);
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

describe('a stopped daemon is waited for; a dead one is not', () => {
  let d: SpawnedDaemon;
  let repo: { main: string; linked: string[] };
  let board: string;
  before(async () => {
    d = await spawnDaemon();
    repo = repoWithWorktrees(0);
    board = boardForDir(repo.main) ?? '';
  });
  after(async () => {
    try {
      process.kill(d.pid, 'SIGCONT');
    } catch {
      // Already gone (the last test kills it).
    }
    await d.stop();
  });

  const edit = (session: string, file: string, args: string[] = [], started?: (c: ChildProcess) => void) =>
    runCoord(['hook', 'pre-edit', '--client', 'claude', '--state', d.stateDir, ...args], {
      stdin: { hook_event_name: 'PreToolUse', cwd: repo.main, tool_name: 'Edit', tool_input: { file_path: file } },
      env: { CLAUDE_CODE_SESSION_ID: session },
      cwd: repo.main,
      ...(started ? { started } : {}),
    });
  const port = () => Number(new URL(d.url).port);

  test('an edit during SIGSTOP waits for the daemon and, after SIGCONT, is decided (denied: another agent holds the file), not allowed unchecked', async (t) => {
    const file = join(repo.main, 'src/held.ts');
    assert.equal((await edit('sess-owner', file)).code, 0);
    process.kill(d.pid, 'SIGSTOP');
    let hook: ChildProcess | undefined;
    let stopped = true;
    const t0 = performance.now();
    const done = edit('sess-other', file, [], (c) => {
      hook = c;
    }).then((r) => ({ ...r, whileStopped: stopped }));
    // The hook has reached the daemon's socket (the kernel accepts for a stopped process) and is waiting.
    await waitFor(() => hook?.pid !== undefined && connectedTo(hook.pid, port()), 'the hook to connect');
    assert.equal(hook!.exitCode, null, 'the hook is still waiting while the daemon is stopped');
    stopped = false;
    const resumed = performance.now();
    process.kill(d.pid, 'SIGCONT');
    const r = await done;
    t.diagnostic(
      `the hook waited ${Math.round(resumed - t0)} ms while the daemon was stopped and answered ${Math.round(performance.now() - resumed)} ms after SIGCONT`,
    );
    assert.equal(r.whileStopped, false, 'the hook answered only after the daemon ran again');
    const out = JSON.parse(r.stdout).hookSpecificOutput;
    assert.equal(out.permissionDecision, 'deny');
    assert.match(out.permissionDecisionReason, /^lock_conflict: src\/held\.ts is held by /);
    const { locks } = (await (await d.fetch(`/v1/locks?board=${board}`)).json()) as {
      locks: { resources: string[] }[];
    };
    assert.equal(locks.filter((l) => l.resources.includes('src/held.ts')).length, 1);
  });

  test('a daemon still stopped 2 s before the hook timeout: the edit is refused with coord_busy, never allowed', async (t) => {
    process.kill(d.pid, 'SIGSTOP');
    try {
      const t0 = performance.now();
      const r = await edit('sess-busy', join(repo.main, 'src/busy.ts'), ['--timeout', '3']);
      t.diagnostic(`with --timeout 3 the hook refused after ${Math.round(performance.now() - t0)} ms`);
      const out = JSON.parse(r.stdout).hookSpecificOutput;
      assert.equal(out.permissionDecision, 'deny');
      assert.match(out.permissionDecisionReason, /^coord_busy: coord did not answer in \d+s — try the edit again$/);
    } finally {
      process.kill(d.pid, 'SIGCONT');
    }
    // Once it runs again, the same edit is decided.
    const again = await edit('sess-busy', join(repo.main, 'src/busy.ts'));
    assert.deepEqual([again.code, again.stdout, again.stderr], [0, '', '']);
  });

  test('the daemon killed with kill -9 (daemon.json left behind): the edit goes through at once with one warning line', async (t) => {
    await d.kill9();
    // A wait would last ~10 minutes (--timeout 600) and fail the test by its own timeout.
    const t0 = performance.now();
    const r = await edit('sess-after', join(repo.main, 'src/after.ts'), ['--timeout', '600']);
    t.diagnostic(`the hook answered ${Math.round(performance.now() - t0)} ms after it started (daemon killed)`);
    assert.equal(r.code, 0);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr.trim(), /^coord: .*daemon.*; edit allowed without a lock check$/);
  });
});
