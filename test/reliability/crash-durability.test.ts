import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { tempDir } from '../support/ctx.js';
import { spawnDaemon } from '../support/daemon.js';
import { startPostgres } from '../support/postgres.js';
import { type CrashReport, runCrashRounds } from './crash-checker.js';

const SEED = Number(process.env.COORD_TEST_SEED ?? Math.floor(Math.random() * 2 ** 31));
const say = (line: string) => console.log(`# ${line}`);

function print(store: string, r: CrashReport): void {
  const kinds = (o: Record<string, number>) =>
    Object.entries(o)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
  say(`${store}: ${r.rounds} rounds of kill -9, seed ${SEED} (COORD_TEST_SEED=${SEED} replays the choices)`);
  say(`${store}: ${r.ackedTotal} acknowledged writes checked after every restart (${kinds(r.acked)})`);
  say(`${store}: ${r.claimsWithFiles} of the claims locked files in the same transaction (rule 10)`);
  say(`${store}: ${r.checks} fact checks in all; ${r.refusals} refused claims (lost races, nothing written)`);
  say(
    `${store}: ${Object.values(r.inFlight).reduce((a, b) => a + b, 0)} unacknowledged in-flight writes (${kinds(r.inFlight)}); ` +
      `retried or looked up after restart: ${r.inFlightCommitted} had committed, ${r.inFlightNotCommitted} had not, the rest (heartbeat, cancel, unlock) answer the same either way`,
  );
  say(`${store}: lost = ${r.violations.length}`);
}

// The two stores run side by side: each round mostly waits on processes, and the file stays bounded.
describe('kill -9 at a random instant loses no acknowledged write (SPEC §3.14)', { concurrency: true }, () => {
  test('SQLite: 8 rounds of 4 client processes, each acknowledged write reads back exactly as acknowledged', async () => {
    const stateDir = tempDir('coord-crash-');
    let starts = 0;
    const report = await runCrashRounds({
      start: () => {
        // Each restart after the first finds the lock file the killed daemon left, and takes it over.
        if (starts++ > 0) assert.ok(existsSync(join(stateDir, 'daemon.lock')), 'kill -9 leaves daemon.lock behind');
        return spawnDaemon({ stateDir });
      },
      rounds: 8,
      clients: 4,
      seed: SEED,
      acksPerRound: [130, 220],
      log: (line) => say(`sqlite ${line}`),
    });
    print('sqlite', report);
    assert.deepEqual(report.violations.slice(0, 20), []);
    assert.ok(report.ackedTotal > 1000, `only ${report.ackedTotal} acknowledged writes`);
  });

  test('PostgreSQL: 5 rounds of 4 client processes, each acknowledged write reads back exactly as acknowledged (the database server stays up)', async () => {
    const pg = await startPostgres();
    try {
      const url = await pg.createDatabase();
      const stateDir = tempDir('coord-crash-pg-');
      const report = await runCrashRounds({
        start: () => spawnDaemon({ stateDir, args: ['--store', url] }),
        rounds: 5,
        clients: 4,
        seed: SEED + 1,
        acksPerRound: [100, 200],
        log: (line) => say(`postgres ${line}`),
      });
      print('postgres', report);
      assert.deepEqual(report.violations.slice(0, 20), []);
      assert.ok(report.ackedTotal > 400, `only ${report.ackedTotal} acknowledged writes`);
    } finally {
      await pg.stop();
    }
  });

  test('the checker itself notices a lost task, a changed result, a requeued claim and a dropped lock', async () => {
    // A checker that cannot fail proves nothing: plant four losses in acknowledged writes while the
    // daemon is down (as a store that lied about committing would), and expect each to be named.
    const stateDir = tempDir('coord-crash-plant-');
    const planted: string[] = [];
    const report = await runCrashRounds({
      start: () => spawnDaemon({ stateDir }),
      rounds: 1,
      clients: 4,
      seed: SEED + 2,
      acksPerRound: [200, 200],
      log: (line) => say(`planted ${line}`),
      afterKill(ledger, inFlight) {
        // Only facts no in-flight write touches: its retry could legitimately change them.
        const touched = (id: string) => inFlight.some((s) => s.path.includes(id));
        const db = new Database(join(stateDir, 'coord.db'));
        const [task] = [...ledger.tasks.keys()].filter((id) => !touched(id));
        const claims = [...ledger.claims].filter(([id]) => !touched(id) && id !== task);
        const [submitted] = claims.find(([, c]) => c.end?.kind === 'submit') ?? [];
        const [held] = claims.find(([, c]) => !c.end) ?? [];
        const [lock] = [...ledger.locks].find(([id, l]) => !l.unlocked && !touched(id)) ?? [];
        const found = { task, submitted, held, lock, acked: ledger.acked, violations: ledger.violations };
        assert.ok(task && submitted && held && lock, `round 0 left each kind of fact: ${JSON.stringify(found)}`);
        db.prepare('DELETE FROM tasks WHERE id = ?').run(task);
        db.prepare(`UPDATE tasks SET result = '"planted"' WHERE id = ?`).run(submitted);
        db.prepare(
          `UPDATE tasks SET state = 'queued', claim_id = NULL, claimed_by = NULL, lease_until = NULL WHERE id = ?`,
        ).run(held);
        db.prepare('DELETE FROM locks WHERE lock_id = ?').run(lock);
        db.close();
        planted.push(`acknowledged task ${task} `, `task ${submitted} `, `task ${held} `, `acknowledged lock ${lock} `);
      },
    });
    say(`planted 4 losses, the checker named ${report.violations.length} violations`);
    assert.equal(planted.length, 4);
    for (const p of planted)
      assert.ok(
        report.violations.some((v) => v.startsWith(p)),
        `nothing names ${p}: ${JSON.stringify(report.violations)}`,
      );
  });
});
