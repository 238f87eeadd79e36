import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { tempDir } from '../support/ctx.js';
import { spawnDaemon } from '../support/daemon.js';

describe('durability', () => {
  test('kill -9 of the daemon mid-stream loses no acknowledged write', async () => {
    const stateDir = tempDir('coord-durable-');
    const d = await spawnDaemon({ stateDir });
    const acked: string[] = [];
    let stop = false;
    // Four writers post as fast as they can; an id counts only once its 201 arrived.
    const writers = Array.from({ length: 4 }, async (_, w) => {
      for (let i = 0; !stop; i++) {
        try {
          const res = await d.fetch('/v1/tasks', { method: 'POST', json: { title: `w${w}-${i}`, agent: `w${w}` } });
          if (res.status === 201) acked.push(((await res.json()) as { task: { id: string } }).task.id);
        } catch {
          return; // the daemon is gone
        }
      }
    });
    while (acked.length < 200) await sleep(5);
    await d.kill9();
    stop = true;
    await Promise.all(writers);
    assert.ok(existsSync(join(stateDir, 'daemon.lock')), 'kill -9 leaves the lock file behind');

    const again = await spawnDaemon({ stateDir });
    try {
      const seen = new Set<string>();
      let cursor: string | null = null;
      do {
        const res = await again.fetch(`/v1/tasks?limit=500${cursor ? `&cursor=${cursor}` : ''}`);
        const page = (await res.json()) as { tasks: { id: string }[]; next_cursor: string | null };
        for (const t of page.tasks) seen.add(t.id);
        cursor = page.next_cursor;
      } while (cursor);
      const lost = acked.filter((id) => !seen.has(id));
      console.log(`# ${acked.length} acknowledged writes before kill -9, ${lost.length} lost`);
      assert.deepEqual(lost, []);
    } finally {
      await again.stop();
    }
  });

  test('SIGTERM shuts the daemon down cleanly: exit 0, daemon.json and daemon.lock removed', async () => {
    const stateDir = tempDir('coord-term-');
    const d = await spawnDaemon({ stateDir });
    assert.ok(existsSync(join(stateDir, 'daemon.json')));
    assert.equal(await d.stop(), 0);
    assert.ok(!existsSync(join(stateDir, 'daemon.json')));
    assert.ok(!existsSync(join(stateDir, 'daemon.lock')));
    assert.ok(existsSync(join(stateDir, 'coord.db')), 'the board survives');
  });
});
