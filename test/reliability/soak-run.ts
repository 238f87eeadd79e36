/**
 * The soak's moving parts: worker processes (fixtures/soak-worker.mjs) started on one signal against one or
 * more daemons, the daemon's resident memory sampled from /proc while they run, and the event log read back
 * page by page afterwards. The checks over what they produce live in soak-invariants.ts.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { CoordEvent } from '../../src/core/model.js';
import { childEnv, type SpawnedDaemon } from '../support/daemon.js';

const WORKER = new URL('./fixtures/soak-worker.mjs', import.meta.url).pathname;

/** One acknowledged answer as a worker logged it (fields depend on `op`; see the fixture). */
export interface Line {
  op: string;
  agent: string;
  status: number;
  code?: string;
  task_id?: string;
  claim_id?: string;
  fence?: number;
  reclaimed?: boolean;
  lock_id?: string;
  resources?: string[];
  lock?: { lock_id: string; resources: string[] };
  files?: string[];
  result_status?: 'completed' | 'failed';
  result?: unknown;
  replayed?: boolean;
  changed?: boolean;
  key?: string;
  to?: string;
  conflicts?: number;
  /** list and inbox: claims shown whose lease had ended before the request was sent (must be 0). */
  past?: number;
  error?: string;
}

export interface SoakPlan {
  daemons: SpawnedDaemon[];
  workers: number;
  lanes: number;
  durationMs: number;
  seed: number;
  board: string;
}

export const agentName = (i: number): string => `soak-w${i}`;

/** Starts every worker (worker i on daemon i mod n), releases them together, and resolves with all their lines. */
export async function runWorkers(plan: SoakPlan): Promise<Line[]> {
  const peers = Array.from({ length: plan.workers }, (_, i) => agentName(i));
  const started = await Promise.all(
    peers.map((agent, i) => {
      const d = plan.daemons[i % plan.daemons.length]!;
      const cfg = { url: d.url, token: d.token, agent, peers, board: plan.board, seed: plan.seed * 1000 + i };
      return startWorker(JSON.stringify({ ...cfg, durationMs: plan.durationMs, lanes: plan.lanes }), agent);
    }),
  );
  for (const w of started) w.go();
  return (await Promise.all(started.map((w) => w.lines))).flat();
}

function startWorker(cfg: string, agent: string): Promise<{ go(): void; lines: Promise<Line[]> }> {
  const child = spawn(process.execPath, [WORKER, cfg], { stdio: ['pipe', 'pipe', 'pipe'], env: childEnv() });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const lines: Line[] = [];
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  createInterface({ input: child.stdout }).on('line', (text) => {
    const v = JSON.parse(text) as Partial<Line> & { ready?: boolean; done?: number };
    if (v.ready) markReady();
    else if (v.done === undefined) lines.push({ ...(v as Line), agent });
  });
  const exited = new Promise<Line[]>((resolve, reject) =>
    child.once('exit', (code) =>
      code === 0 ? resolve(lines) : reject(new Error(`soak worker ${agent} exited ${code}: ${stderr}`)),
    ),
  );
  return Promise.race([ready, exited.then(() => {})]).then(() => ({
    go: () => child.stdin.end('go\n'),
    lines: exited,
  }));
}

/** VmRSS of a live process in kB, from /proc (Linux). */
export function rssKb(pid: number): number | null {
  try {
    const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** Samples a process's RSS every `everyMs` until stopped; returns the samples in kB, oldest first. */
export function sampleRss(pid: number, everyMs = 500): { stop(): number[] } {
  const samples: number[] = [];
  const take = () => {
    const kb = rssKb(pid);
    if (kb !== null) samples.push(kb);
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      return samples;
    },
  };
}

/** A board's event log after `since`, read through GET /v1/events?format=json one page at a time. */
export async function readEvents(d: SpawnedDaemon, board: string, since = 0): Promise<CoordEvent[]> {
  const all: CoordEvent[] = [];
  for (;;) {
    const res = await d.fetch(`/v1/events?format=json&board=${board}&since=${since}&limit=1000`);
    if (res.status !== 200) throw new Error(`GET /v1/events answered ${res.status}: ${await res.text()}`);
    const page = (await res.json()) as { events: CoordEvent[]; next_since: number };
    all.push(...page.events);
    if (page.events.length === 0) return all;
    since = page.next_since;
  }
}

/** Every task of a board in one state, through GET /v1/tasks (operator view), following the cursor. */
export interface TaskRowSeen {
  id: string;
  state: string;
  lease_until: string | null;
  result_status: string | null;
  result: unknown;
}

export async function readTasks(d: SpawnedDaemon, board: string, state?: string): Promise<TaskRowSeen[]> {
  const out: TaskRowSeen[] = [];
  let cursor: string | undefined;
  for (;;) {
    const q = new URLSearchParams({ board, limit: '500' });
    if (state) q.set('state', state);
    if (cursor) q.set('cursor', cursor);
    const res = await d.fetch(`/v1/tasks?${q}`);
    if (res.status !== 200) throw new Error(`GET /v1/tasks answered ${res.status}: ${await res.text()}`);
    const page = (await res.json()) as { tasks: TaskRowSeen[]; next_cursor: string | null };
    out.push(...page.tasks);
    if (!page.next_cursor) return out;
    cursor = page.next_cursor;
  }
}

export { median } from '../support/timing.js';
