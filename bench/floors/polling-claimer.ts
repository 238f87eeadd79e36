/**
 * Floor for post → claim latency: an agent that polls every second instead of
 * waiting on a long-poll. Expected median ≈ 500 ms (half the polling interval).
 *
 * Two processes share one SQLite file (WAL):
 *   poller — T independent agents, each polling claim-next for its own tasks
 *            every `intervalMs` with a random phase; records claim time − post time;
 *   poster — (spawned by the poller once the file exists) posts one task for each
 *            agent at a random moment within `spreadMs`.
 * Trials run side by side (one agent per trial) so a round of T trials takes about
 * spreadMs + intervalMs instead of T seconds; each trial is still "one post, one
 * waiting poller". Post times are wall-clock (performance.timeOrigin + now()) so the
 * two processes agree on them.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { childMain, runChild, spawnTs } from '../lib/child.js';
import { median } from '../lib/stats.js';
import { tempDir } from '../lib/template-db.js';
import { openBenchDb } from './sqlite-claim-loop.js';

export const FILE = 'bench/floors/polling-claimer.ts';

interface Args {
  role: 'poller' | 'poster';
  path?: string;
  trials: number;
  intervalMs?: number;
  spreadMs?: number;
}

const DDL = `
CREATE TABLE tasks (
  id TEXT PRIMARY KEY, board TEXT NOT NULL, for_agent TEXT NOT NULL, state TEXT NOT NULL,
  posted_at REAL NOT NULL, claimed_by TEXT, claim_id TEXT, lease_until INTEGER, attempts INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX tasks_inbox ON tasks (board, for_agent, state, posted_at);`;

const wallNow = (): number => performance.timeOrigin + performance.now();

/** One round: returns the median post → claim latency (ms) over `trials` trials, and all samples. */
export const runPollingRound = (
  trials: number,
  intervalMs = 1000,
): Promise<{ value: number; extra: Record<string, number> }> =>
  runChild(FILE, { role: 'poller', trials, intervalMs, spreadMs: 1500 }, { timeoutMs: 60_000 });

childMain<Args>(FILE, async (a) => {
  if (a.role === 'poster') {
    const db = openBenchDb(a.path as string);
    const post = db.prepare(
      "INSERT INTO tasks (id, board, for_agent, state, posted_at) VALUES (?, 'default', ?, 'queued', ?)",
    );
    const spread = a.spreadMs ?? 1500;
    await Promise.all(
      Array.from(
        { length: a.trials },
        (_, i) =>
          new Promise<void>((resolve) =>
            setTimeout(() => {
              post.run(`t${i}`, `agent-${i}`, wallNow());
              resolve();
            }, Math.random() * spread),
          ),
      ),
    );
    db.close();
    return { posted: a.trials };
  }

  const dir = tempDir();
  const path = join(dir, 'poll.sqlite');
  const db = openBenchDb(path);
  db.exec(DDL);
  const claim =
    db.prepare(`UPDATE tasks SET state = 'claimed', claimed_by = ?, claim_id = ?, lease_until = ?, attempts = attempts + 1
    WHERE id = (SELECT id FROM tasks WHERE board = 'default' AND for_agent = ? AND state = 'queued' ORDER BY posted_at LIMIT 1)
    RETURNING posted_at`);
  const interval = a.intervalMs ?? 1000;
  const latencies: number[] = [];
  const poster = await spawnTs(FILE, { role: 'poster', path, trials: a.trials, spreadMs: a.spreadMs });
  let posterFailed = '';
  poster.stderr?.setEncoding('utf8').on('data', (d: string) => {
    posterFailed += d;
  });
  await new Promise<void>((resolve, reject) => {
    let left = a.trials;
    const timers: NodeJS.Timeout[] = [];
    const guard = setTimeout(() => reject(new Error(`poller timed out; poster: ${posterFailed.slice(-500)}`)), 45_000);
    for (let i = 0; i < a.trials; i++) {
      const agent = `agent-${i}`;
      const poll = () => {
        const row = claim.get(agent, `c${i}`, Date.now() + 300_000, agent) as { posted_at: number } | undefined;
        if (!row) return;
        latencies.push(wallNow() - row.posted_at);
        clearInterval(timers[i]);
        if (--left === 0) {
          clearTimeout(guard);
          resolve();
        }
      };
      // each agent polls on its own schedule: a random phase, then every `interval`
      setTimeout(() => {
        timers[i] = setInterval(poll, interval);
        poll();
      }, Math.random() * interval);
    }
  });
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return {
    value: median(latencies),
    extra: { max_ms: Math.max(...latencies), min_ms: Math.min(...latencies), trials: latencies.length },
  };
});
