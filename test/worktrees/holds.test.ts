/** SPEC §14's holds suite on the SQLite store (one daemon); test/postgres/holds.test.ts runs it on PostgreSQL. */
import { spawnDaemon } from '../support/daemon.js';
import { holdsSuite } from './suites/holds.js';

holdsSuite('sqlite', async () => {
  const d = await spawnDaemon();
  return { daemons: [d], stop: async () => void (await d.stop()) };
});
