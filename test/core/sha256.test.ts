import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { sha256Hex } from '../../src/core/shared/sha256.js';

test("coord's own sha256 gives node:crypto's digest for every length around a block and for any UTF-8", () => {
  const inputs = ['', 'abc', 'claude:0d6f7c1e-5c0b-4d7b-9b43-b0b5a8a3c9e1', '/home/me/src/café', 'é€😀\u0000\uffff'];
  for (let n = 0; n <= 200; n++) inputs.push('x'.repeat(n), 'é'.repeat(n));
  for (let i = 0; i < 50; i++)
    inputs.push(
      String.fromCodePoint(
        ...Array.from({ length: i * 7 }, (_, j) => (j * 7919 + i) % 0x10ffff).filter((c) => c < 0xd800 || c > 0xdfff),
      ),
    );
  for (const s of inputs) assert.equal(sha256Hex(s), createHash('sha256').update(s).digest('hex'), JSON.stringify(s));
});
