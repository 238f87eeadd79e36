import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { readMigrations } from '../../src/store/shared/migrations.js';

const dirOf = (backend: string) => new URL(`../../src/store/${backend}/migrations/`, import.meta.url);

test('each backend numbers its migrations 1, 2, 3 … with no number used twice or skipped', () => {
  for (const backend of ['sqlite', 'postgres']) {
    const versions = readMigrations(dirOf(backend)).map((m) => m.version);
    assert.deepEqual(
      versions,
      versions.map((_, i) => i + 1),
      backend,
    );
  }
});

test('two migration files with one number are refused by name instead of one being skipped', () => {
  const dir = mkdtempSync(join(tmpdir(), 'coord-migrations-'));
  writeFileSync(join(dir, '0001-init.sql'), 'select 1;');
  writeFileSync(join(dir, '0002-a.sql'), 'select 2;');
  writeFileSync(join(dir, '0002-b.sql'), 'select 3;');
  assert.throws(() => readMigrations(pathToFileURL(`${dir}/`)), /0002-a\.sql and 0002-b\.sql/);
});
