import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
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
  say(`${store}: ${r.checks} fact checks in all; ${r.refusals} refused claims (lost races, nothing written)`);
  say(
    `${store}: ${Object.values(r.inFlight).reduce((a, b) => a + b, 0)} unacknowledged in-flight writes (${kinds(r.inFlight)}); ` +
      `retried: ${r.inFlightCommitted} had committed, ${r.inFlightNotCommitted} had not`,
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
      acksPerRound: [140, 260],
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
});
