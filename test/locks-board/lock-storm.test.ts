/**
 * A lock storm: several real OS processes fire concurrent lock requests for
 * random overlapping sets at one real daemon, round after round. After every
 * round the table must show no key held twice (directories included), every
 * 201 present with exactly its keys, and every loser holding nothing. An agent
 * asking again for keys one of its own locks covers is answered that lock,
 * renewed (re-locking your own path is no conflict with yourself). The run
 * must finish: try-locks never wait, so nothing can deadlock.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { isDirectory, overlaps } from '../../src/core/edits/paths.js';
import type { Lock } from '../../src/core/model.js';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';

const LOCKER = new URL('./fixtures/locker.mjs', import.meta.url).pathname;
const WORKERS = 4;
const PER_ROUND = 8;
const ROUNDS = 8;
const BOARD = 'storm';
const POOL = [
  ...'abcdefghijklmnop'.split('').map((c) => `${c}.ts`),
  'src/',
  'src/x.ts',
  'src/y.ts',
  'src/deep/',
  'src/deep/z.ts',
  'docs',
  'docs/guide.md',
  'lib/m.ts',
];

interface Answer {
  agent: string;
  asked: string[];
  status: number;
  lock_id?: string;
  resources?: string[];
  error?: { code: string; conflicts: { resource: string; held: string; holder: string; lock_id: string }[] };
}

interface Locker {
  child: ChildProcess;
  /** Resolves with the lines up to (and including) the first one that `until` accepts. */
  read(until: (v: Record<string, unknown>) => boolean): Promise<Record<string, unknown>[]>;
  send(line: string): void;
}

function startLocker(d: SpawnedDaemon, agent: string): Locker {
  const child = spawn(process.execPath, [LOCKER, d.url, d.token, agent, BOARD, String(PER_ROUND), ...POOL], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines: Record<string, unknown>[] = [];
  let wake: () => void = () => {};
  createInterface({ input: child.stdout! }).on('line', (l) => {
    lines.push(JSON.parse(l));
    wake();
  });
  return {
    child,
    send: (line) => child.stdin!.write(`${line}\n`),
    async read(until) {
      for (;;) {
        const i = lines.findIndex(until);
        if (i !== -1) return lines.splice(0, i + 1);
        await new Promise<void>((r) => {
          wake = r;
        });
      }
    },
  };
}

let d: SpawnedDaemon;
let lockers: Locker[] = [];
before(async () => {
  d = await spawnDaemon();
});
after(async () => {
  for (const l of lockers) l.child.stdin!.end();
  await d.stop();
});

test(`lock storm: ${WORKERS} processes × ${PER_ROUND} concurrent requests × ${ROUNDS} rounds — no key is ever held by two locks, losers hold nothing, and it finishes`, {
  timeout: 180_000,
}, async (t) => {
  lockers = Array.from({ length: WORKERS }, (_, i) => startLocker(d, `agent-${i}`));
  await Promise.all(lockers.map((l) => l.read((v) => v.ready === true)));
  const db = new Database(join(d.stateDir, 'coord.db'), { readonly: true, fileMustExist: true });
  const started = Date.now();
  let requests = 0;
  let granted = 0;
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const l of lockers) l.send(`round ${round}`);
      const answers = (await Promise.all(lockers.map((l) => l.read((v) => v.done === round))))
        .flat()
        .filter((v) => v.done === undefined) as unknown as Answer[];
      requests += answers.length;
      const wins = answers.filter((a) => a.status === 201);
      granted += wins.length;
      const context = () => JSON.stringify({ round, answers }, null, 1);

      for (const a of answers) assert.ok(a.status === 201 || a.error?.code === 'lock_conflict', context());
      assert.ok(wins.length >= 1, 'someone wins every round');

      const { locks } = (await (await d.fetch(`/v1/locks?board=${BOARD}`)).json()) as { locks: Lock[] };
      // A win answering a lock already won this round is the same agent's lock, covering what it asked.
      const first = new Map<string, Answer>();
      for (const w of wins) {
        const seen = first.get(w.lock_id!);
        if (!seen) first.set(w.lock_id!, w);
        else {
          assert.equal(w.agent, seen.agent, context());
          const covers = (k: string) => seen.resources!.some((h) => h === k || (isDirectory(h) && k.startsWith(h)));
          assert.ok(w.asked.every(covers), context());
        }
      }
      // Losers hold nothing and no grant was lost: the table is exactly this round's winners.
      assert.deepEqual(locks.map((l) => l.lock_id).sort(), [...first.keys()].sort(), context());
      for (const w of wins) {
        assert.deepEqual(locks.find((l) => l.lock_id === w.lock_id)?.resources, w.resources);
      }
      // No key is held by two locks, counting directories as covering what is inside them.
      const keys = locks.flatMap((l) => l.resources.map((r) => ({ r, id: l.lock_id })));
      for (const x of keys) {
        for (const y of keys) {
          if (x.id !== y.id) assert.equal(overlaps(x.r, y.r), false, `${x.r} (${x.id}) overlaps ${y.r} (${y.id})`);
        }
      }
      const raw = db.prepare('SELECT resource, lock_id FROM lock_resources WHERE board = ?').all(BOARD) as {
        resource: string;
        lock_id: string;
      }[];
      assert.equal(raw.length, keys.length, 'the raw table holds no stray rows');
      // Every refusal names a lock that really holds an overlapping key.
      for (const a of answers.filter((x) => x.status === 409)) {
        for (const c of a.error!.conflicts) {
          const holder = locks.find((l) => l.lock_id === c.lock_id);
          assert.ok(holder?.resources.includes(c.held), context());
          assert.equal(holder?.agent, c.holder);
          assert.ok(overlaps(c.resource, c.held));
        }
      }
      for (const l of lockers) l.send('release');
      await Promise.all(lockers.map((l) => l.read((v) => v.released !== undefined)));
      const left = (await (await d.fetch(`/v1/locks?board=${BOARD}`)).json()) as { locks: Lock[] };
      assert.deepEqual(left.locks, [], 'every lock released between rounds');
    }
  } finally {
    db.close();
  }
  assert.equal(requests, WORKERS * PER_ROUND * ROUNDS);
  t.diagnostic(`${requests} requests, ${granted} granted, ${requests - granted} refused, ${Date.now() - started} ms`);
});
