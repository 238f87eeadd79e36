/** Real worker processes (fixtures/worker.mjs) against real daemons, started together on one signal. */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { SpawnedDaemon } from '../support/daemon.js';

const WORKER = new URL('./fixtures/worker.mjs', import.meta.url).pathname;

export interface Worker {
  /** Every JSON line it printed after "go", once it exited. */
  lines: Promise<Record<string, unknown>[]>;
  go(): void;
}

async function startWorker(daemon: SpawnedDaemon, agent: string, mode: string, arg: string): Promise<Worker> {
  const child = spawn(process.execPath, [WORKER, daemon.url, daemon.token, agent, mode, arg], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const lines: Record<string, unknown>[] = [];
  const rl = createInterface({ input: child.stdout });
  let ready: () => void = () => {};
  const isReady = new Promise<void>((resolve) => {
    ready = resolve;
  });
  rl.on('line', (line) => {
    const v = JSON.parse(line) as Record<string, unknown>;
    if (v.ready) ready();
    else lines.push(v);
  });
  const exited = new Promise<Record<string, unknown>[]>((resolve, reject) =>
    child.once('exit', (code) =>
      code === 0 ? resolve(lines) : reject(new Error(`worker ${agent} exited ${code}: ${stderr}`)),
    ),
  );
  await Promise.race([isReady, exited]);
  return { lines: exited, go: () => child.stdin.end('go\n') };
}

/** Starts one worker per (daemon, agent), waits until all are ready, releases them together, collects their lines. */
export async function raceWorkers(
  plan: { daemon: SpawnedDaemon; agent: string }[],
  mode: 'claim' | 'drain',
  arg: string,
): Promise<{ agent: string; lines: Record<string, unknown>[] }[]> {
  const workers = await Promise.all(plan.map((p) => startWorker(p.daemon, p.agent, mode, arg)));
  for (const w of workers) w.go();
  return Promise.all(workers.map(async (w, i) => ({ agent: plan[i]!.agent, lines: await w.lines })));
}
