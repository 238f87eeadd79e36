import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { overlapProbe } from '../../src/core/edits/paths.js';
import { storeMigrations } from '../../src/store/shared/migrations.js';
import { openDatabase } from '../../src/store/sqlite/database.js';
import { CONFLICTS } from '../../src/store/sqlite/locks.js';
import { makeSqliteStore, tempDir } from '../support/ctx.js';
import { runLockContract } from './contract-locks.js';

runLockContract('sqlite', makeSqliteStore);

describe('sqlite locks', () => {
  test('the conflict check is index lookups on lock_resources, never a scan of it', () => {
    const db = openDatabase(join(tempDir(), 'coord.db'));
    for (const key of ['src/deep/a.ts', 'src/']) {
      const probe = overlapProbe(key);
      const plan = db.prepare(`EXPLAIN QUERY PLAN ${CONFLICTS}`).all({
        board: 'b',
        now: 0,
        worktree: null,
        exact: JSON.stringify(probe.exact),
        lo: probe.lo,
        hi: probe.hi,
      }) as {
        detail: string;
      }[];
      const lines = plan.map((p) => p.detail);
      const touching = lines.filter((d) => /lock_resources/.test(d));
      assert.ok(touching.length >= 2, lines.join('\n'));
      for (const d of touching) assert.match(d, /^SEARCH lock_resources USING PRIMARY KEY/, lines.join('\n'));
    }
    db.close();
  });

  test('a database made before the locks migration upgrades in place and keeps its tasks', () => {
    const path = join(tempDir(), 'coord.db');
    const old = new Database(path);
    const first = storeMigrations('sqlite')[0]!;
    old.exec(first.sql);
    old.pragma(`user_version = ${first.version}`);
    old
      .prepare(
        `INSERT INTO tasks (id, board, kind, title, state, created_by, created_at, updated_at, expires_at, payload_hash)
         VALUES ('old1', 'default', 'task', 'from before', 'queued', 'alice', 1, 1, 9e15, 'h')`,
      )
      .run();
    old.close();
    const db = openDatabase(path);
    assert.equal(db.pragma('user_version', { simple: true }), storeMigrations('sqlite').at(-1)!.version);
    assert.equal(
      (db.prepare("SELECT title FROM tasks WHERE id = 'old1'").get() as { title: string }).title,
      'from before',
    );
    assert.equal((db.prepare('SELECT COUNT(*) AS n FROM locks').get() as { n: number }).n, 0);
    db.close();
  });

  test('the locks migration is append-only: 0001 is untouched and 0002 adds the lock tables', () => {
    const names = storeMigrations('sqlite').map((m) => m.name);
    assert.deepEqual(names.slice(0, 2), ['0001-init.sql', '0002-locks.sql']);
    const sql = readFileSync(new URL('../../src/store/sqlite/migrations/0002-locks.sql', import.meta.url), 'utf8');
    assert.match(sql, /CREATE TABLE locks/);
    assert.match(sql, /CREATE TABLE lock_resources/);
  });
});
