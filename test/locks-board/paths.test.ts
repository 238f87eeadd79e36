import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { canonicalSet, normaliseResource, overlapIndex, overlapProbe, overlaps } from '../../src/core/edits/paths.js';

const key = (raw: string): string => {
  const n = normaliseResource(raw);
  if (!n.ok) throw new Error(n.message);
  return n.key;
};

test('normalising resolves . and .., collapses slashes, keeps a directory slash and refuses what leaves the root', () => {
  assert.equal(key('./a//b/../c'), 'a/c');
  assert.equal(key('src/'), 'src/');
  assert.equal(key('src/.'), 'src/');
  assert.equal(key('src/lib/..'), 'src/');
  assert.equal(key('a\\b.ts'), 'a/b.ts');
  for (const bad of ['', '..', '../x', 'a/../../x', '/etc/passwd', 'C:/x', '.', './', 'a/..', 'x\0y']) {
    assert.equal(normaliseResource(bad).ok, false, bad);
  }
});

const segment = fc.constantFrom('a', 'b', 'src', 'src-old', 'src.ts', 'x.ts', '.', '..', '');
const rawPath = fc.array(segment, { minLength: 1, maxLength: 5 }).map((s) => s.join('/'));
const keys = fc
  .array(rawPath, { maxLength: 8 })
  .map((ps) => ps.map(normaliseResource).flatMap((n) => (n.ok ? [n.key] : [])));

test('normalising is idempotent: a key normalises to itself', () => {
  fc.assert(
    fc.property(rawPath, (p) => {
      const n = normaliseResource(p);
      return !n.ok || key(n.key) === n.key;
    }),
  );
});

test('a canonical set is sorted, has no two overlapping keys, and covers every key it was made from', () => {
  fc.assert(
    fc.property(keys, (ks) => {
      const set = canonicalSet(ks);
      assert.deepEqual(set, [...set].sort());
      for (const x of set) for (const y of set) if (x !== y) assert.equal(overlaps(x, y), false, `${x} ${y}`);
      for (const k of ks)
        assert.ok(
          set.some((s) => overlaps(s, k)),
          k,
        );
    }),
  );
});

test('the store probe finds exactly the overlapping keys: equality on the exact keys, or inside [lo, hi)', () => {
  fc.assert(
    fc.property(keys, keys, (as, bs) => {
      for (const a of as) {
        const p = overlapProbe(a);
        for (const b of bs) {
          const found = p.exact.includes(b) || (b >= p.lo && b < p.hi);
          assert.equal(found, overlaps(a, b), `${a} vs ${b}`);
        }
      }
    }),
  );
});

test('an overlap index answers as overlaps with any key of its set (the pending paths a decision warns about)', () => {
  fc.assert(
    fc.property(keys, keys, (set, asked) => {
      const index = overlapIndex(set);
      for (const a of [...asked, ...set])
        assert.equal(
          index(a),
          set.some((s) => overlaps(a, s)),
          a,
        );
    }),
  );
});
