/**
 * SPEC §11 for real: a DAG of tasks posted as one plan, drained by claim-next
 * workers in their own OS processes, checked against the event log alone.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const WORKER = new URL('./fixtures/dag-worker.mjs', import.meta.url).pathname;

export interface Daemonish {
  url: string;
  token: string;
  fetch(path: string, init?: { method?: string; json?: unknown }): Promise<Response>;
}

/** A seeded DAG: task i waits for up to three earlier tasks, so there are chains and wide layers. */
export function dagPlan(n: number, seed = 7): { ref: string; title: string; blocked_by: string[] }[] {
  let s = seed;
  const rand = () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
  return Array.from({ length: n }, (_, i) => {
    const blockers = new Set<string>();
    const k = i === 0 ? 0 : Math.floor(rand() * 4);
    for (let j = 0; j < k; j++) blockers.add(`t${Math.floor(rand() * i)}`);
    return { ref: `t${i}`, title: `step ${i}`, blocked_by: [...blockers] };
  });
}

async function startWorker(d: Daemonish, agent: string, board: string) {
  const child = spawn(process.execPath, [WORKER, d.url, d.token, agent, board], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (x) => {
    stderr += x;
  });
  const lines: Record<string, unknown>[] = [];
  let ready: () => void = () => {};
  const isReady = new Promise<void>((r) => {
    ready = r;
  });
  createInterface({ input: child.stdout }).on('line', (line) => {
    const v = JSON.parse(line) as Record<string, unknown>;
    if (v.ready) ready();
    else lines.push(v);
  });
  const exited = new Promise<Record<string, unknown>[]>((resolve, reject) =>
    child.once('close', (code) =>
      code === 0 ? resolve(lines) : reject(new Error(`${agent} exited ${code}: ${stderr}`)),
    ),
  );
  await Promise.race([isReady, exited]);
  return { go: () => child.stdin.end('go\n'), lines: exited };
}

interface Event {
  seq: number;
  type: string;
  task_id: string | null;
}

async function eventLog(d: Daemonish, board: string): Promise<Event[]> {
  const all: Event[] = [];
  for (let since = 0; ; ) {
    const res = await d.fetch(`/v1/events?format=json&board=${board}&since=${since}&limit=1000`);
    const page = ((await res.json()) as { events: Event[] }).events;
    all.push(...page);
    if (page.length < 1000) return all;
    since = page.at(-1)!.seq;
  }
}

export interface DrainReport {
  tasks: number;
  claims: number;
  completions: number;
  readyEvents: number;
  perWorker: number[];
}

/**
 * Posts the DAG as one plan through the first daemon, drains it with `workers` processes spread over the
 * daemons, and proves from the event log that every task was claimed and completed exactly once, never
 * before each of its blockers had completed.
 */
export async function drainDag(daemons: Daemonish[], board: string, n: number, workers: number): Promise<DrainReport> {
  const plan = dagPlan(n);
  const posted = await daemons[0]!.fetch('/v1/plans', {
    method: 'POST',
    json: { agent: 'planner', board, tasks: plan },
  });
  assert.equal(posted.status, 201);
  const tasks = ((await posted.json()) as { tasks: Record<string, { id: string }> }).tasks;
  const id = (ref: string) => tasks[ref]!.id;
  const blockersOf = new Map(plan.map((t) => [id(t.ref), t.blocked_by.map(id)]));

  const started = await Promise.all(
    Array.from({ length: workers }, (_, i) => startWorker(daemons[i % daemons.length]!, `dag-${i}`, board)),
  );
  for (const w of started) w.go();
  const outputs = await Promise.all(started.map((w) => w.lines));

  const log = await eventLog(daemons[daemons.length - 1]!, board);
  const seqs = (type: string) => {
    const m = new Map<string, number[]>();
    for (const e of log) if (e.type === type && e.task_id) m.set(e.task_id, [...(m.get(e.task_id) ?? []), e.seq]);
    return m;
  };
  const claimed = seqs('task.claimed');
  const completed = seqs('task.completed');
  assert.equal(log.filter((e) => e.type === 'task.requeued').length, 0, 'no claim lapsed or was released');
  for (const [task, blockers] of blockersOf) {
    assert.equal(claimed.get(task)?.length, 1, `${task} claimed exactly once`);
    assert.equal(completed.get(task)?.length, 1, `${task} completed exactly once`);
    for (const b of blockers) {
      assert.ok(
        claimed.get(task)![0]! > completed.get(b)![0]!,
        `${task} was claimed (seq ${claimed.get(task)![0]}) before its blocker ${b} completed (seq ${completed.get(b)![0]})`,
      );
    }
  }
  const byWorkers = outputs.flatMap((lines) => lines.filter((l) => 'claimed' in l).map((l) => l.claimed as string));
  assert.equal(byWorkers.length, n, 'the workers completed every task between them');
  assert.equal(new Set(byWorkers).size, n);
  return {
    tasks: n,
    claims: [...claimed.values()].reduce((a, s) => a + s.length, 0),
    completions: [...completed.values()].reduce((a, s) => a + s.length, 0),
    readyEvents: log.filter((e) => e.type === 'task.ready').length,
    perWorker: outputs.map((lines) => lines.filter((l) => 'claimed' in l).length),
  };
}
