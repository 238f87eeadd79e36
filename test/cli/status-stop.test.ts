/** SPEC §19: `coord status` tells the daemon, the board and what waits; `coord stop` ends that daemon cleanly. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { tempDir } from '../support/ctx.js';
import { COORD, childEnv, ROOT, spawnDaemon } from '../support/daemon.js';

function coord(stateDir: string, ...args: string[]) {
  const [cmd, ...base] = COORD as [string, ...string[]];
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(
      cmd,
      [...base, ...args, '--state', stateDir],
      { cwd: ROOT, env: childEnv({ COORD_BOARD: 'st', COORD_AGENT: 'person@cli' }) },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

describe('coord status and coord stop', () => {
  test('status names the daemon, counts the board by state and what waits; stop ends it and then exits 3', async () => {
    const d = await spawnDaemon();
    const exited = new Promise<number | null>((resolve) => d.child.once('exit', resolve));
    try {
      await coord(d.stateDir, 'post', 'one');
      const posted = JSON.parse((await coord(d.stateDir, 'post', 'two', '--json')).stdout) as { task: { id: string } };
      const claim = JSON.parse((await coord(d.stateDir, 'claim', posted.task.id, '--json')).stdout) as {
        claim_id: string;
      };
      await coord(d.stateDir, 'submit', posted.task.id, '--claim', claim.claim_id, '--fail');

      const json = await coord(d.stateDir, 'status', '--json');
      assert.equal(json.code, 0, json.stderr);
      const s = JSON.parse(json.stdout) as {
        daemon: { pid: number; url: string; version: string; store: string; durability: string };
        board: string;
        tasks: Record<string, number>;
        attention: number;
      };
      assert.equal(s.daemon.pid, d.pid);
      assert.equal(s.daemon.url, d.url);
      assert.equal(s.daemon.store, 'sqlite');
      assert.equal(s.daemon.durability, 'full');
      assert.match(s.daemon.version, /^\d+\.\d+\.\d+/);
      assert.equal(s.board, 'st');
      assert.deepEqual(s.tasks, { queued: 1, claimed: 0, completed: 0, failed: 1, cancelled: 0, expired: 0 });
      assert.equal(s.attention, 1, 'the failed task waits on a person');

      const text = (await coord(d.stateDir, 'status')).stdout;
      assert.match(
        text,
        new RegExp(`^daemon   pid ${d.pid} · ${d.url} · coord \\S+ · sqlite \\(durability full\\)$`, 'm'),
      );
      assert.match(text, /^tasks {4}1 queued · 0 claimed · 0 completed · 1 failed · 0 cancelled · 0 expired$/m);
      assert.match(text, /^needs you 1 — coord attention$/m);

      const stopped = await coord(d.stateDir, 'stop');
      assert.equal(stopped.code, 0, stopped.stderr);
      assert.match(stopped.stdout, new RegExp(`stopped the coord daemon \\(pid ${d.pid}\\)`));
      assert.equal(await exited, 0, 'the daemon exits cleanly');
      assert.equal(existsSync(join(d.stateDir, 'daemon.json')), false);
    } finally {
      await d.stop();
    }
    const again = await coord(d.stateDir, 'stop');
    assert.equal(again.code, 3);
    assert.match(again.stderr, /no coord daemon runs for/);
    assert.equal((await coord(d.stateDir, 'status')).code, 3);
  });

  test('stop with no daemon ever started exits 3 and starts none', async () => {
    const dir = tempDir('coord-nostate-');
    const r = await coord(dir, 'stop');
    assert.equal(r.code, 3);
    assert.equal(existsSync(join(dir, 'daemon.json')), false);
  });
});
