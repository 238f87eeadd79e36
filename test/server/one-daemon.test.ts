/** Rule 12 with real `coord serve` processes: one daemon per state directory, and recovery after kill -9. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { join, relative } from 'node:path';
import { after, describe, test } from 'node:test';
import { tempDir } from '../support/ctx.js';
import { runCli, type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';

/** What the daemon itself rewrites on start: its lock, its address file, and the database it opens. */
const DAEMON_OWN = new Set(['daemon.lock', 'daemon.json', 'coord.db', 'coord.db-wal', 'coord.db-shm']);

/** Every other file under `dir`: identity, size, mtime and content, to prove nothing touched it. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      const rel = relative(dir, path);
      const st = statSync(path);
      if (st.isDirectory()) walk(path);
      else if (!DAEMON_OWN.has(rel)) {
        const sha = createHash('sha256').update(readFileSync(path)).digest('hex');
        out[rel] = `ino=${st.ino} size=${st.size} mtime=${st.mtimeMs} mode=${st.mode.toString(8)} sha=${sha}`;
      }
    }
  };
  walk(dir);
  return out;
}

describe('one daemon per state directory (real coord serve processes)', () => {
  const daemons: SpawnedDaemon[] = [];
  after(async () => {
    for (const d of daemons) await d.stop();
  });

  test("a second coord serve on the same state directory exits at once, non-zero, naming the first's pid and url; the first keeps serving", async () => {
    const first = await spawnDaemon();
    daemons.push(first);
    const second = await runCli(['serve', '--port', '0', '--state', first.stateDir]);
    assert.notEqual(second.code, 0);
    assert.equal(second.code, 2, 'a conflict exits 2');
    assert.match(second.stderr, new RegExp(`already serves .*pid ${first.pid}, ${first.url}`));

    const health = await first.fetch('/v1/health');
    assert.equal(health.status, 200);
    const posted = await first.fetch('/v1/tasks', { method: 'POST', json: { title: 'still here', agent: 'a' } });
    assert.equal(posted.status, 201);
    const info = JSON.parse(readFileSync(join(first.stateDir, 'daemon.json'), 'utf8')) as { pid: number };
    assert.equal(info.pid, first.pid, "the loser did not overwrite the first's daemon.json");
    assert.equal(readFileSync(join(first.stateDir, 'daemon.lock'), 'utf8').trim(), String(first.pid));
  });

  test('coord serve on a port another process listens on exits with one sentence naming the port and --port, no stack', async () => {
    const other = createServer();
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const { port } = other.address() as AddressInfo;
    try {
      const run = await runCli(['serve', '--port', String(port), '--state', tempDir('coord-port-taken-')]);
      assert.equal(run.code, 1);
      const lines = run.stderr
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('coord:'));
      assert.equal(lines.length, 1, run.stderr);
      assert.match(lines[0] ?? '', new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already taken .*--port N`));
      assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
    } finally {
      other.close();
    }
  });

  test('kill -9 leaves daemon.lock behind; the next coord serve starts, and touches no other file in the state directory', async () => {
    const first = await spawnDaemon();
    const state = first.stateDir;
    const posted = (await (
      await first.fetch('/v1/tasks', { method: 'POST', json: { title: 'before the crash', agent: 'a' } })
    ).json()) as { task: { id: string } };
    // Bystanders that a careless cleanup might take for stale locks.
    writeFileSync(join(state, 'notes.txt'), 'mine\n');
    writeFileSync(join(state, 'daemon.lock.old'), '12345\n');
    mkdirSync(join(state, 'sessions'), { recursive: true });
    writeFileSync(join(state, 'sessions', 'not-a-session.lock'), '');

    await first.kill9();
    assert.ok(existsSync(join(state, 'daemon.lock')), 'the kernel dropped the flock but the file stays');
    const before = snapshot(state);
    assert.ok(before.token && before['notes.txt'] && before['sessions/not-a-session.lock']);

    const next = await spawnDaemon({ stateDir: state });
    daemons.push(next);
    assert.notEqual(next.pid, first.pid);
    assert.equal(readFileSync(join(state, 'daemon.lock'), 'utf8').trim(), String(next.pid));
    assert.equal(next.token, first.token, 'the token is kept: clients keep working');
    const shown = await next.fetch(`/v1/tasks/${posted.task.id}`);
    assert.equal(shown.status, 200, 'the data survived');
    assert.deepEqual(snapshot(state), before);
  });
});
