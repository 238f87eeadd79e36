/**
 * SPEC §10, what a hook does when something is wrong, through real hook and CLI processes: the token goes
 * only to a daemon that holds the state directory's lock (daemon.json outlives a kill -9, and a stranger
 * may bind the port next); COORD_GUARD=strict refuses an edit it could not check for every failure —
 * malformed hook JSON, an oversized input, an answer that is not the daemon's JSON — and without strict
 * each of them is allowed with one warning line, never silently.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { acquireDaemonLock, type DaemonLock, writeDaemonInfo } from '../../src/state-dir/daemon-lock.js';
import { ensureToken } from '../../src/state-dir/token.js';
import { tempDir } from '../support/ctx.js';
import { spawnDaemon } from '../support/daemon.js';
import { repoWithWorktrees } from '../worktrees/git-repo.js';
import { runCoord } from './run-hook.js';

/** An HTTP server that is not coord: it answers every request with plain text and remembers the headers. */
async function stranger(port = 0): Promise<{ server: Server; url: string; seen: IncomingHttpHeaders[] }> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('hello, I am not coord');
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

describe('hooks when something is wrong', () => {
  let main: string;
  before(() => {
    main = repoWithWorktrees(0).main;
  });

  const edit = (stateDir: string, stdin: unknown, guard = '') =>
    runCoord(['hook', 'pre-edit', '--client', 'claude', '--state', stateDir], {
      stdin,
      env: { CLAUDE_CODE_SESSION_ID: 'sess-fail', COORD_GUARD: guard },
      cwd: main,
    });
  const editOf = (file: string) => ({
    hook_event_name: 'PreToolUse',
    cwd: main,
    tool_name: 'Edit',
    tool_input: { file_path: join(main, file) },
  });
  const decision = (stdout: string) => (stdout ? JSON.parse(stdout).hookSpecificOutput?.permissionDecision : 'allow');

  describe('after the daemon was killed and a stranger took its port', () => {
    let stateDir: string;
    let other: Awaited<ReturnType<typeof stranger>>;
    before(async () => {
      const d = await spawnDaemon();
      stateDir = d.stateDir;
      const port = Number(new URL(d.url).port);
      await d.kill9();
      other = await stranger(port);
    });
    after(() => other.server.close());

    test('neither the hook nor the CLI sends the token to a port whose daemon no longer holds the lock', async () => {
      const hook = await edit(stateDir, editOf('src/a.ts'));
      assert.equal(decision(hook.stdout), 'allow');
      assert.match(hook.stderr, /^coord: no coord daemon runs/m, 'down: allowed with one warning');
      const cli = await runCoord(['who', '--state', stateDir], { env: { COORD_AGENT: 'me' } });
      assert.notEqual(cli.code, 0);
      assert.match(cli.stderr, /unreachable|no coord daemon/);
      assert.deepEqual(
        other.seen.filter((h) => h.authorization !== undefined),
        [],
        'requests that carried the token to a stranger',
      );
    });
  });

  describe('a live daemon (its lock held) that answers something other than JSON', () => {
    let stateDir: string;
    let lock: DaemonLock;
    let other: Awaited<ReturnType<typeof stranger>>;
    before(async () => {
      stateDir = tempDir('coord-garbled-');
      ensureToken(stateDir);
      const got = acquireDaemonLock(stateDir);
      assert.ok(got.ok);
      lock = got.lock;
      other = await stranger();
      writeDaemonInfo(stateDir, { pid: process.pid, url: other.url, version: 'test' });
    });
    after(() => {
      other.server.close();
      lock.release();
    });

    test('COORD_GUARD=strict refuses the edit; otherwise it is allowed with one warning line', async () => {
      const strict = await edit(stateDir, editOf('src/a.ts'), 'strict');
      assert.equal(decision(strict.stdout), 'deny', strict.stderr);
      const plain = await edit(stateDir, editOf('src/a.ts'));
      assert.equal(plain.code, 0);
      assert.equal(decision(plain.stdout), 'allow');
      assert.equal(plain.stderr.trim().split('\n').length, 1, plain.stderr);
      assert.match(plain.stderr, /allowed/);
    });
  });

  describe('input the hook cannot read', () => {
    let stateDir: string;
    let stop: () => Promise<unknown>;
    before(async () => {
      const d = await spawnDaemon();
      stateDir = d.stateDir;
      stop = () => d.stop();
    });
    after(async () => {
      await stop();
    });

    test('malformed hook JSON and an oversized input are refused under COORD_GUARD=strict and warned otherwise', async () => {
      const oversized = JSON.stringify({ ...editOf('src/a.ts'), padding: 'x'.repeat(9 * 1024 * 1024) });
      for (const stdin of ['{"tool_name": "Edit", "tool_input": {"file_path": ', '[1, 2]', oversized]) {
        const label = stdin.slice(0, 40);
        const strict = await edit(stateDir, stdin, 'strict');
        assert.equal(decision(strict.stdout), 'deny', `${label}: ${strict.stderr}`);
        assert.match(JSON.parse(strict.stdout).hookSpecificOutput.permissionDecisionReason, /COORD_GUARD=strict/);
        const plain = await edit(stateDir, stdin);
        assert.equal(decision(plain.stdout), 'allow', label);
        assert.match(plain.stderr, /^coord hook: the hook input .*; allowed$/m, `${label}: warned`);
      }
    });
  });
});
