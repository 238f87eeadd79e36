/**
 * The one visibility rule of store/shared: the row check (get, cancel, notes, messages, links) and the SQL
 * condition (lists) answer alike for every combination of target, author and viewer.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { visibleTo } from '../../src/core/board/rules.js';
import { rowVisibleTo, visibleSql } from '../../src/store/shared/visibility.js';

const AGENTS = ['alice', 'bob', 'carol'];

test('the SQL visibility condition and the row check agree with core visibleTo for every target, author, handing-over agent and viewer', () => {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE tasks (id INTEGER PRIMARY KEY, for_agent TEXT, created_by TEXT NOT NULL, handed_by TEXT)');
  const insert = db.prepare('INSERT INTO tasks (for_agent, created_by, handed_by) VALUES (?, ?, ?)');
  for (const f of [null, ...AGENTS]) for (const c of AGENTS) for (const h of [null, ...AGENTS]) insert.run(f, c, h);
  const rows = db.prepare('SELECT * FROM tasks').all() as {
    id: number;
    for_agent: string | null;
    created_by: string;
    handed_by: string | null;
  }[];
  const seen = db.prepare(`SELECT id FROM tasks WHERE ${visibleSql('@agent')}`);
  for (const agent of [undefined, ...AGENTS, 'dave']) {
    const bySql = new Set((seen.all({ agent: agent ?? null }) as { id: number }[]).map((r) => r.id));
    for (const r of rows) {
      const rule = visibleTo({ for: r.for_agent, created_by: r.created_by, handed_by: r.handed_by }, agent);
      assert.equal(rowVisibleTo(r, agent), rule, `row check: ${JSON.stringify(r)} to ${agent}`);
      assert.equal(bySql.has(r.id), rule, `SQL: ${JSON.stringify(r)} to ${agent}`);
    }
  }
  db.close();
});
