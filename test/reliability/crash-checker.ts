/**
 * The crash-durability checker (SPEC §3.14: a 2xx means committed; kill -9 at any instant loses no
 * acknowledged write). Each round starts the daemon on the same state (directory or database), lets
 * client processes write, kills the daemon with SIGKILL at a seeded random instant, restarts it, retries
 * the writes that were in flight, and checks every acknowledged write of every round so far.
 */
import { isDeepStrictEqual } from 'node:util';
import type { SpawnedDaemon } from '../support/daemon.js';
import { waitFor } from '../support/wait-for.js';
import { startClients } from './crash-clients.js';
import { IMMUTABLE, Ledger, OPS, type Op, type Step, type TaskJson } from './crash-ledger.js';

export interface CrashOptions {
  /** Starts the daemon on the shared state; called once per round and once more for the last check. */
  start: () => Promise<SpawnedDaemon>;
  rounds: number;
  clients: number;
  seed: number;
  /** Acknowledged writes to wait for in a round before the kill may fall (a seeded pick in this range). */
  acksPerRound: [number, number];
  log?: (line: string) => void;
  /** Called after each kill, before the restart (with the writes in flight): the checker's own test plants faults here. */
  afterKill?: (ledger: Ledger, inFlight: Step[]) => void;
}

export interface CrashReport {
  rounds: number;
  acked: Record<Op, number>;
  ackedTotal: number;
  /** Requests that were in flight at a kill, by kind, and what their retry showed. */
  inFlight: Record<Op, number>;
  inFlightCommitted: number;
  inFlightNotCommitted: number;
  /** Facts checked over all verifications (each round re-checks all facts so far). */
  checks: number;
  /** Acknowledged claims that locked files in the same transaction (rule 10). */
  claimsWithFiles: number;
  refusals: number;
  violations: string[];
}

/** mulberry32: a seeded stream, so a failing run can be replayed with COORD_TEST_SEED. */
export function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Answer {
  status: number;
  body: any;
}

async function call(d: SpawnedDaemon, method: string, path: string, json?: unknown): Promise<Answer> {
  const res = await d.fetch(path, json === undefined ? { method } : { method, json });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** Runs `fn` over `items`, `width` at a time: the checks are many small requests. */
async function pool<T>(items: T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

export async function runCrashRounds(opts: CrashOptions): Promise<CrashReport> {
  const rnd = prng(opts.seed);
  const ledger = new Ledger();
  const inFlight = Object.fromEntries(OPS.map((o) => [o, 0])) as Record<Op, number>;
  const tally = { committed: 0, notCommitted: 0, checks: 0, refusals: 0 };
  const log = opts.log ?? (() => {});
  let lost: Step[] = [];

  for (let round = 0; round <= opts.rounds; round++) {
    const t0 = Date.now();
    const [lo, hi] = opts.acksPerRound;
    const target = lo + Math.floor(rnd() * (hi - lo + 1));
    const extraMs = Math.floor(rnd() * 30);
    const clients = Array.from({ length: opts.clients }, (_, i) => ({
      agent: `r${round}-c${i}`,
      seed: Math.floor(rnd() * 2 ** 31),
    }));
    // The clients boot while the daemon does; they write only once told where it is.
    const run = round < opts.rounds ? startClients(clients) : undefined;
    const d = await opts.start().catch((err) => {
      run?.kill();
      throw err;
    });
    const t1 = Date.now();
    try {
      if (round > 0) {
        await retryLost(d, ledger, lost, tally);
        tally.checks += await verify(d, ledger);
        if (ledger.violations.length > 0) break;
      }
      const t2 = Date.now();
      if (!run) {
        await d.stop();
        break;
      }
      run.go(d.url, d.token);
      await run.ready;
      const t3 = Date.now();
      // The instant of the kill: after a seeded number of acks plus a seeded few ms, wherever the clients
      // are then (mid-request, mid-commit, mid-answer). Clients that all stopped (out of work, or the
      // daemon died by itself) end the wait early.
      await waitFor(() => run.acks() >= target || run.idle(), `${target} acks`, 60_000);
      if (extraMs > 0) await new Promise((r) => setTimeout(r, extraMs));
      const ackedAtKill = run.acks();
      if (d.child.exitCode !== null || d.child.signalCode !== null) {
        ledger.violations.push(`round ${round}: the daemon died before the kill: ${d.stderr().slice(-2000)}`);
      }
      await d.kill9();
      const steps = await run.done;
      for (const s of steps) ledger.note(s);
      for (const s of steps.filter((s) => s.outcome === 'ack')) ledger.apply(s);
      for (const s of steps.filter((s) => s.outcome === 'nack')) refusal(ledger, s, tally);
      lost = steps.filter((s) => s.outcome === 'lost');
      for (const s of lost) inFlight[s.op] += 1;
      opts.afterKill?.(ledger, lost);
      log(
        `round ${round}: kill -9 after ${ackedAtKill} acks (target ${target} + ${extraMs} ms); ` +
          `${steps.length} requests, in flight: ${lost.map((s) => s.op).join(', ') || 'none'}` +
          ` [start ${t1 - t0} ms, check ${t2 - t1} ms, clients ${t3 - t2} ms, writes ${Date.now() - t3} ms]`,
      );
    } finally {
      // A round cut short (violations found, the loop breaks) kills its clients: their exit is expected
      // then, and must not hide the violations behind an unhandled "client exited SIGKILL".
      run?.done.catch(() => {});
      run?.kill();
      await d.kill9();
    }
  }
  const ackedTotal = Object.values(ledger.acked).reduce((a, b) => a + b, 0);
  return {
    rounds: opts.rounds,
    acked: ledger.acked,
    ackedTotal,
    inFlight,
    inFlightCommitted: tally.committed,
    inFlightNotCommitted: tally.notCommitted,
    checks: tally.checks,
    claimsWithFiles: [...ledger.claims.values()].filter((c) => c.lock).length,
    refusals: tally.refusals,
    violations: ledger.violations,
  };
}

/** Another client claimed (and maybe finished or cancelled) a public task first: nothing was written. */
const LOST_RACE = new Set(['claimed', 'not_claimable', 'cancelled']);

/** Only a claim by id may be refused, having lost a race to another client; anything else is a bug. */
function refusal(ledger: Ledger, s: Step, tally: { refusals: number }): void {
  tally.refusals += 1;
  if (s.op === 'claim' && s.status === 409 && LOST_RACE.has(s.body?.error?.code)) return;
  ledger.violations.push(`${s.agent}#${s.n} ${s.op} ${s.path}: refused ${s.status} ${JSON.stringify(s.body)}`);
}

/**
 * Sends again each write whose answer the kill swallowed, exactly as the client would on reconnect.
 * It may have committed or not; either way the retry must be safe, and its answer is a new fact.
 */
async function retryLost(
  d: SpawnedDaemon,
  ledger: Ledger,
  lost: Step[],
  tally: { committed: number; notCommitted: number },
): Promise<void> {
  // Not idempotent by design: a second claim-next takes another task, a keyless create posts again.
  // Their way back is a read: find what they may have made, at most one thing each.
  const blind = (s: Step) => s.op === 'claim_next' || (s.op === 'create' && !s.json.idempotency_key);
  const board = lost.some(blind) ? await listAll(d, '/v1/tasks') : [];
  for (const s of lost) {
    const bad = (why: string): void => {
      ledger.violations.push(`retry of ${s.agent}#${s.n} ${s.op} ${s.path}: ${why}`);
    };
    if (s.op === 'create' && blind(s)) {
      const made = board.filter((t) => t.title === String(s.json.title).trim());
      if (made.length > 1) bad(`${made.length} tasks with its title`);
      tally[made.length > 0 ? 'committed' : 'notCommitted'] += 1;
      continue;
    }
    if (s.op === 'claim_next') {
      const orphans = board.filter(
        (t) => t.state === 'claimed' && t.claimed_by === s.agent && !ledger.claims.has(t.id),
      );
      if (orphans.length > 1) bad(`${orphans.length} claims it never heard of`);
      if (orphans.length === 0) {
        tally.notCommitted += 1;
        continue;
      }
      // The agent finds its claim on the board and claims it by id: rule 2 gives back the same claim.
      const path = `/v1/tasks/${orphans[0]!.id}/claim`;
      const a = await call(d, 'POST', path, { agent: s.agent, lease_s: 3600 });
      if (a.status !== 200 || a.body.reclaimed !== true) bad(`re-claim answered ${a.status} ${JSON.stringify(a.body)}`);
      else ledger.apply({ ...s, path, outcome: 'ack', status: 200, body: a.body, retried: true });
      tally.committed += 1;
      continue;
    }
    const a = await call(d, s.method, s.path, s.json);
    const step: Step = {
      ...s,
      outcome: a.status < 300 ? 'ack' : 'nack',
      status: a.status,
      body: a.body,
      retried: true,
    };
    if (s.op === 'lock' && a.status === 409 && a.body?.error?.code === 'lock_conflict') {
      // The first try committed: the only holder is this agent's own lock, which the conflict names.
      const conflicts = a.body.error.conflicts as { resource: string; lock_id: string; holder: string }[];
      const ids = new Set(conflicts.map((c) => c.lock_id));
      if (ids.size !== 1 || conflicts.some((c) => c.holder !== s.json.agent)) bad(`conflict ${JSON.stringify(a.body)}`);
      const resources = [...new Set(conflicts.map((c) => c.resource))].sort();
      ledger.apply({ ...step, outcome: 'ack', body: { lock_id: [...ids][0], resources } });
      tally.committed += 1;
      continue;
    }
    if (s.op === 'claim' && a.status === 409) {
      tally.notCommitted += 1; // someone else holds it: our claim did not commit
      if (!LOST_RACE.has(a.body?.error?.code) || a.body.error.holder === s.json.agent) bad(JSON.stringify(a.body));
      continue;
    }
    if (a.status >= 300) {
      bad(`answered ${a.status} ${JSON.stringify(a.body)}`);
      continue;
    }
    const committed =
      s.op === 'create'
        ? !a.body.created
        : s.op === 'claim'
          ? a.body.reclaimed
          : s.op === 'submit'
            ? a.body.replayed
            : null;
    if (committed === true) tally.committed += 1;
    if (committed === false) tally.notCommitted += 1;
    ledger.apply(step);
  }
}

async function listAll(d: SpawnedDaemon, path: string): Promise<TaskJson[]> {
  const out: TaskJson[] = [];
  let cursor: string | null = null;
  do {
    const a = await call(d, 'GET', `${path}?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (a.status !== 200) throw new Error(`list ${path}: ${a.status} ${JSON.stringify(a.body)}`);
    out.push(...a.body.tasks);
    cursor = a.body.next_cursor;
  } while (cursor);
  return out;
}

/** Checks every fact in the ledger against the restarted daemon; returns how many facts it checked. */
async function verify(d: SpawnedDaemon, ledger: Ledger): Promise<number> {
  let checks = 0;
  const bad = (what: string): void => {
    ledger.violations.push(what);
  };
  const board = await listAll(d, '/v1/tasks');
  const byId = new Map(board.map((t) => [t.id, t]));
  if (byId.size !== board.length) bad(`the task list repeats ids (${board.length} rows, ${byId.size} ids)`);

  // Nothing invented, nothing doubled (every intended title is unique; a re-sent keyed create reuses one).
  const keys = new Map<string, number>();
  const titles = new Set<string>();
  for (const t of board) {
    if (!ledger.titles.has(t.title)) bad(`task ${t.id} "${t.title}" was never intended by any client`);
    if (titles.has(t.title)) bad(`two tasks titled "${t.title}"`);
    titles.add(t.title);
    if (t.idempotency_key) {
      const k = `${t.board}\n${t.idempotency_key}`;
      keys.set(k, (keys.get(k) ?? 0) + 1);
    }
  }
  for (const [k, count] of keys) if (count > 1) bad(`${count} tasks for one idempotency key ${JSON.stringify(k)}`);

  for (const [id, acked] of ledger.tasks) {
    checks += 1;
    const t = byId.get(id);
    if (!t) {
      bad(`acknowledged task ${id} "${acked.title}" is gone`);
      continue;
    }
    for (const f of IMMUTABLE) {
      if (!isDeepStrictEqual(t[f], acked[f]))
        bad(`task ${id}.${f} is ${JSON.stringify(t[f])}, acknowledged ${JSON.stringify(acked[f])}`);
    }
  }
  for (const [k, id] of ledger.keys) {
    checks += 1;
    if (byId.get(id)?.idempotency_key !== k.split('\n')[1]) bad(`idempotency key ${JSON.stringify(k)} lost task ${id}`);
  }
  for (const id of ledger.cancelled) {
    checks += 1;
    if (byId.get(id)?.state !== 'cancelled') bad(`task ${id} was acknowledged cancelled, is ${byId.get(id)?.state}`);
  }

  await pool([...ledger.claims], 8, async ([id, c]) => {
    checks += 1;
    const t = byId.get(id);
    const where = `task ${id} (claim ${c.fence} by ${c.agent})`;
    if (!t) return bad(`${where}: gone`);
    if (c.end?.kind === 'submit') {
      const { status, result } = c.end.req;
      if (t.state !== status || t.result_status !== status || !isDeepStrictEqual(t.result, result ?? null)) {
        return bad(
          `${where}: acknowledged ${status} ${JSON.stringify(result)}, is ${t.state} ${JSON.stringify(t.result)}`,
        );
      }
      // The same submit again must be recognised: claim_id and result hash survived the crash.
      const a = await call(d, 'POST', `/v1/tasks/${id}/submit`, c.end.req);
      if (a.status !== 200 || a.body.replayed !== true)
        bad(`${where}: submit again answered ${a.status} ${JSON.stringify(a.body)}`);
      return;
    }
    if (c.end?.kind === 'cancel') {
      if (t.state !== 'cancelled') return bad(`${where}: acknowledged cancelled, is ${t.state}`);
      const a = await call(d, 'POST', `/v1/tasks/${id}/heartbeat`, { claim_id: c.claim_id });
      if (a.status !== 409 || a.body.error.code !== 'cancelled')
        bad(`${where}: heartbeat after cancel answered ${a.status}`);
      return;
    }
    if (
      t.state !== 'claimed' ||
      t.claimed_by !== c.agent ||
      t.attempts !== c.fence ||
      t.lease_until !== c.lease_until
    ) {
      return bad(
        `${where}: acknowledged claimed by ${c.agent} fence ${c.fence} until ${c.lease_until}, ` +
          `is ${t.state} by ${t.claimed_by} attempts ${t.attempts} until ${t.lease_until}`,
      );
    }
    // The claim_id is still the fencing token of a live claim.
    const a = await call(d, 'POST', `/v1/tasks/${id}/heartbeat`, { claim_id: c.claim_id, lease_s: 3600 });
    if (a.status !== 200) return bad(`${where}: heartbeat answered ${a.status} ${JSON.stringify(a.body)}`);
    c.lease_until = a.body.lease_until;
  });

  const locks = (await call(d, 'GET', '/v1/locks')).body.locks as {
    lock_id: string;
    agent: string;
    board: string;
    resources: string[];
    task_id: string | null;
  }[];
  const held = new Map(locks.map((l) => [l.lock_id, l]));
  // Rule 10 across a crash: a claim's lock never outlives or predates its claim, acknowledged or not.
  for (const l of locks) {
    const t = l.task_id ? byId.get(l.task_id) : undefined;
    if (l.task_id && (t?.state !== 'claimed' || t.claimed_by !== l.agent)) {
      bad(`lock ${l.lock_id} of ${l.agent} is bound to task ${l.task_id}, which is ${t?.state} by ${t?.claimed_by}`);
    }
  }
  for (const [id, c] of ledger.claims) {
    if (!c.lock) continue;
    checks += 1;
    const now = held.get(c.lock.lock_id);
    if (c.end && now) bad(`lock ${c.lock.lock_id} outlived the claim of task ${id} that took it`);
    if (!c.end && !isDeepStrictEqual([now?.task_id, now?.agent, now?.resources], [id, c.agent, c.lock.resources])) {
      bad(
        `the files locked with the claim of task ${id} read back as ${JSON.stringify(now)}, acknowledged ${JSON.stringify(c.lock)}`,
      );
    }
  }
  for (const [id, l] of ledger.locks) {
    checks += 1;
    const now = held.get(id);
    if (l.unlocked && now) bad(`lock ${id} was acknowledged unlocked, is still held`);
    if (!l.unlocked && !now) bad(`acknowledged lock ${id} of ${l.agent} on ${l.resources.join(' ')} is gone`);
    if (
      !l.unlocked &&
      now &&
      !isDeepStrictEqual([now.agent, now.board, now.resources], [l.agent, l.board, l.resources])
    ) {
      bad(`lock ${id} is ${JSON.stringify(now)}, acknowledged ${JSON.stringify(l)}`);
    }
  }
  return checks;
}
