/** One real PostgreSQL server and several real `coord serve --store postgres://…` daemons on one database. */
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { type PgServer, startPostgres } from '../support/postgres.js';

export interface Cluster {
  server: PgServer;
  url: string;
  daemons: SpawnedDaemon[];
  /** JSON answer of a daemon: status and parsed body. */
  call(d: SpawnedDaemon, method: string, path: string, json?: unknown): Promise<{ status: number; body: any }>;
  stop(): Promise<void>;
}

/** Each daemon has its own state directory (as on its own machine); all share the database. */
export async function startCluster(n = 2, env: NodeJS.ProcessEnv = {}): Promise<Cluster> {
  const server = await startPostgres();
  const url = await server.createDatabase();
  const daemons: SpawnedDaemon[] = [];
  try {
    // One after the other is not required (the migrator is safe at once), but keeps startup light on CPU.
    for (let i = 0; i < n; i++) daemons.push(await spawnDaemon({ args: ['--store', url], env }));
  } catch (e) {
    await Promise.all(daemons.map((d) => d.stop()));
    await server.stop();
    throw e;
  }
  return {
    server,
    url,
    daemons,
    async call(d, method, path, json) {
      const res = await d.fetch(path, { method, json });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    },
    async stop() {
      await Promise.all(daemons.map((d) => d.stop()));
      await server.stop();
    },
  };
}
