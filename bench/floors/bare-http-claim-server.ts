/**
 * Floor: a bare node:http server doing one claim-next UPDATE … RETURNING per POST
 * and answering JSON. Run as a separate process (startServer), so the load
 * generator (another process) and the server compete for the same two cores,
 * exactly as they will for coord's HTTP server.
 *
 *   POST /claim   body {"agent": "..."} → 200 {"task": row, "claim_id": "..."} | 204 when the queue is empty
 *   GET  /stats   → {"claims", "empty", "rss_mb"}
 *   POST /seed?rows=N   adds N queued tasks in one transaction (for the RSS scenario)
 */
import { createServer, type IncomingMessage } from 'node:http';
import { serverMain } from '../lib/child.js';
import { BOARD, createSchema, FLOOR_SCHEMA, type FloorSchema, openBenchDb, seed } from './sqlite-claim-loop.js';

export const FILE = 'bench/floors/bare-http-claim-server.ts';

export interface ClaimServerArgs {
  /** SQLite file (a fresh copy of a seeded template, or a new path with `create`). */
  path: string;
  /** Create the schema first (an empty board). */
  create?: boolean;
  schema?: FloorSchema;
  /** 'FULL': every claim its own synced commit (the per-request durable floor); default NORMAL. */
  synchronous?: 'NORMAL' | 'FULL';
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => {
      body += d;
    });
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

serverMain<ClaimServerArgs>(FILE, async (a) => {
  const schema = a.schema ?? FLOOR_SCHEMA;
  const db = openBenchDb(a.path, a.synchronous ? { synchronous: a.synchronous } : {});
  if (a.create) createSchema(db, schema.ddl);
  const claim = db.prepare(schema.claimSql);
  let claims = 0;
  let empty = 0;
  let seq = 0;

  const server = createServer(async (req, res) => {
    try {
      if (req.method === 'POST' && req.url === '/claim') {
        const body = await readBody(req);
        const agent = body ? ((JSON.parse(body) as { agent?: string }).agent ?? 'anonymous') : 'anonymous';
        const claimId = `c${++seq}`;
        const row = claim.get(agent, claimId, Date.now() + 300_000, BOARD);
        if (!row) {
          empty++;
          res.writeHead(204).end();
          return;
        }
        claims++;
        const out = JSON.stringify({ task: row, claim_id: claimId });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) }).end(out);
        return;
      }
      if (req.method === 'GET' && req.url === '/stats') {
        const out = JSON.stringify({ claims, empty, rss_mb: process.memoryUsage().rss / 2 ** 20 });
        res.writeHead(200, { 'content-type': 'application/json' }).end(out);
        return;
      }
      if (req.method === 'POST' && req.url?.startsWith('/seed')) {
        await readBody(req);
        const rows = Number(new URL(req.url, 'http://x').searchParams.get('rows') ?? 0);
        seed(db, schema, { rows, t0: Date.now() });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ rows }));
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
