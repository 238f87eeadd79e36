/**
 * core/edits/edit-request.ts, the one builder of the edit path's requests (SPEC §10, §14): paths become keys per
 * board and per work tree the path lies in, cut into requests the daemon takes; no path is ever skipped for
 * its length; a daemon's refusal reads as a refusal.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  badAgentReason,
  editKey,
  editRequests,
  MAX_KEYS_PER_REQUEST,
  refusalReason,
} from '../../src/core/edits/edit-request.js';
import { MAX_RESOURCE_CHARS } from '../../src/core/edits/paths.js';
import { namedTrees } from '../../src/core/edits/shell-edits.js';
import { MAX_RESOURCES } from '../../src/core/schemas.js';

test('a key too long for a lock is its deepest folder that fits; what names no file stays null', () => {
  assert.equal(editKey('./src//a.ts'), 'src/a.ts');
  const deep = `lib/${'d'.repeat(200)}/${'e'.repeat(900)}/f.ts`;
  assert.equal(editKey(deep), `lib/${'d'.repeat(200)}/`);
  const cut = editKey(`${Array.from({ length: 80 }, () => 'abcdefghijklmnop').join('/')}/x.ts`) ?? '';
  assert.ok(cut.endsWith('/') && cut.length <= MAX_RESOURCE_CHARS && cut.length > MAX_RESOURCE_CHARS - 20, cut);
  for (const none of ['', '.', '../x', `/${'a/'.repeat(600)}x`]) assert.equal(editKey(none), null, none);
});

test('requests are per board and per work tree of the path, at most as many keys as the daemon takes, outside when the session works elsewhere', () => {
  assert.equal(MAX_RESOURCES, MAX_KEYS_PER_REQUEST);
  const located = [
    ...Array.from({ length: 300 }, (_, i) => ({ board: 'b', tree: '/wt-b', key: `f${i}.ts` })),
    { board: 'b', tree: '/wt-a', key: 'src/c.ts' },
    { board: 'b', tree: '/wt-b', key: 'f0.ts' },
  ];
  const r = editRequests(located, '/wt-b');
  assert.deepEqual(
    r.map((q) => [q.worktree, q.outside, q.paths.length]),
    [
      ['/wt-b', false, 256],
      ['/wt-b', false, 44],
      ['/wt-a', true, 1],
    ],
  );
  assert.deepEqual(editRequests(located.slice(300), null)[0]?.outside, true, 'no session tree: outside every tree');
  assert.deepEqual(editRequests(located.slice(300), null, 'fixed')[0]?.board, 'fixed');
});

test('a bad agent name and a daemon error are refusals naming why', () => {
  assert.equal(badAgentReason('codex#1a2b'), null);
  for (const bad of ['bob smith', 'bøb', 'a\tb', '', 'x'.repeat(65)])
    assert.match(badAgentReason(bad) ?? '', /^invalid_request: coord does not accept the agent name/);
  assert.match(
    refusalReason(400, { error: { code: 'invalid_request', message: 'agent: must be …' } }),
    /^invalid_request: the coord daemon refused to check this edit: agent: must be … — the edit is refused/,
  );
  assert.match(refusalReason(502, null), /^http_502: /);
});

test('a shell command is looked at in the other work trees it names, or in all when its text is unknown', () => {
  const trees = ['/x/wt-a', '/x/wt-b'];
  assert.deepEqual(namedTrees(JSON.stringify({ command: 'cp a ../wt-a/src/b.ts' }), trees), ['/x/wt-a']);
  assert.deepEqual(namedTrees(JSON.stringify({ command: 'npm test' }), trees), []);
  assert.deepEqual(namedTrees(null, trees), trees);
});
