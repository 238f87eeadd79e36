/**
 * Child process for test/postgres-harness.test.ts: starts a server, reports it on stdout as one JSON
 * line, then ends the way argv[2] says, without calling stop():
 *   exit    - process.exit(3)
 *   throw   - uncaught exception
 *   sigterm - killed by SIGTERM (default action, no handler of ours besides the helper's)
 *   hang    - waits forever (the parent SIGKILLs it; only the watchdog can clean up)
 *   forget  - returns normally; the server must not keep the process alive
 */
import fs from 'node:fs';
import path from 'node:path';
import { startPostgres } from '../postgres.js';

const mode = process.argv[2] ?? 'exit';
const server = await startPostgres();
const pid = Number(fs.readFileSync(path.join(server.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
process.stdout.write(`${JSON.stringify({ pid, dataDir: server.dataDir, port: server.port })}\n`);

switch (mode) {
  case 'exit':
    process.exit(3);
    break;
  case 'throw':
    setTimeout(() => {
      throw new Error('boom (expected by the test)');
    }, 10);
    break;
  case 'sigterm':
    process.kill(process.pid, 'SIGTERM');
    setTimeout(() => {}, 10_000);
    break;
  case 'hang':
    setInterval(() => {}, 1_000);
    break;
  case 'forget':
    break;
  default:
    throw new Error(`unknown mode ${mode}`);
}
