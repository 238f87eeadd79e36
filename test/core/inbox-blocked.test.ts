import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inboxText } from '../../src/core/messages/inbox-text.js';
import type { InboxOutput } from '../../src/core/output-schemas.js';

const NOW = Date.UTC(2026, 0, 31);
const view = (over: Partial<InboxOutput>): InboxOutput => ({
  agent: 'me',
  board: 'default',
  cursor: Number.MAX_SAFE_INTEGER,
  claims: [],
  tasks: [],
  more: 0,
  gone: [],
  blocked: 0,
  ...over,
});

test('the inbox header counts blocked tasks, and an empty inbox with a million blocked still fits 64 bytes (SPEC §6, §11)', () => {
  for (const since of [undefined, 7]) {
    const text = inboxText(view({ blocked: 1_000_000 }), NOW, since);
    assert.match(text, /· 1000000 blocked · cursor/);
    assert.equal(text.includes('\n'), false);
    assert.ok(Buffer.byteLength(text) <= 64, `${Buffer.byteLength(text)} bytes: ${text}`);
  }
  assert.equal(inboxText(view({}), NOW, undefined).includes('blocked'), false, 'no count when none is blocked');
});
