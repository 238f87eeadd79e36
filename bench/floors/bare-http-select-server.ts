/**
 * Floor for the empty-inbox poll: bare node:http answering one plain indexed
 * SELECT (the agent's open inbox on the board) per GET. The database is opened
 * read-only: by construction it performs zero write transactions.
 *
 *   GET /inbox?agent=NAME → 200 {"tasks": [...]}
 *   GET /stats            → {"reads", "write_tx", "rss_mb"}
 */
import { createServer } from 'node:http';
import { serverMain } from '../lib/child.js';
import { BOARD, openBenchDb } from './sqlite-claim-loop.js';

export const FILE = 'bench/floors/bare-http-select-server.ts';

/**
 * The plain indexed read on coord's table (both scenarios that use this server seed coord's schema): the
 * agent's claimable tasks, queued and ready (blockers_open = 0, SPEC §11), found by coord's tasks_ready index.
 */
export const INBOX_SQL = `SELECT * FROM tasks
WHERE board = ? AND state = 'queued' AND blockers_open = 0 AND (for_agent IS NULL OR for_agent = ?)
ORDER BY priority, created_at LIMIT 50`;

export interface SelectServerArgs {
  /** A seeded SQLite file; opened read-only, so the template itself can be served. */
  path: string;
  sql?: string;
}

serverMain<SelectServerArgs>(FILE, async (a) => {
  const db = openBenchDb(a.path, { readonly: true });
  const read = db.prepare(a.sql ?? INBOX_SQL);
  const changesAtStart = db.prepare('SELECT total_changes() AS n').pluck().get() as number;
  let reads = 0;

  const server = createServer((req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://x');
      if (req.method === 'GET' && url.pathname === '/inbox') {
        const agent = url.searchParams.get('agent') ?? 'anonymous';
        const tasks = read.all(BOARD, agent);
        reads++;
        const out = JSON.stringify({ tasks });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) }).end(out);
        return;
      }
      if (req.method === 'GET' && url.pathname === '/stats') {
        const writeTx = (db.prepare('SELECT total_changes() AS n').pluck().get() as number) - changesAtStart;
        const out = JSON.stringify({ reads, write_tx: writeTx, rss_mb: process.memoryUsage().rss / 2 ** 20 });
        res.writeHead(200, { 'content-type': 'application/json' }).end(out);
        return;
      }
      res.writeHead(404).end();
    } catch (err) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          db.close();
          resolve();
        });
      }),
  };
});
