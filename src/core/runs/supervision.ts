/**
 * SPEC §18, the supervisor's rules as pure functions over data: what `--agents` asks for, the name and
 * branch of a launch, the prompt an agent starts with, what happens after an agent process ends (done,
 * retry after a backoff, fail, pause at a usage limit) and whether a run's budget allows a new launch.
 * Starting, watching and ending the processes is the supervisor's edge (src/supervisor/); what differs per
 * client is its profile (src/clients/). Nothing here knows of processes, git or HTTP.
 */
import { z } from 'zod';
import { CoordError } from '../errors.js';
import type { ClaimGrant, Task } from '../model.js';

// ─── the run record (GET /v1/runs): plain data the attention list and the dashboard read ─────────

/** SPEC §18 "Supervised": what an agent process is doing, read from its event stream and hooks. */
export const AGENT_STATES = ['starting', 'working', 'idle', 'waiting', 'paused', 'exited'] as const;
export type AgentState = (typeof AGENT_STATES)[number];

export const UsageSchema = z.object({
  input_tokens: z.int().min(0),
  output_tokens: z.int().min(0),
  cost_usd: z.number().min(0).optional(),
  wall_s: z.number().min(0),
});
export type Usage = z.output<typeof UsageSchema>;

/** One agent process a supervisor started, as it reports it to the daemon. */
export const AgentRunSchema = z.object({
  agent: z.string().describe('The claimant name of this process (`claude#k3x9`).'),
  board: z.string(),
  client: z.string().describe("The client's kind (claude, codex, gemini …)."),
  pid: z.int().nullable(),
  task_id: z.string(),
  claim_id: z.string().optional().describe('Never shown on the wire: the supervisor keeps it.'),
  worktree: z.string(),
  branch: z.string(),
  state: z.enum(AGENT_STATES),
  since: z.string().describe('When the process entered this state (RFC 3339).'),
  started_at: z.string(),
  usage: UsageSchema.nullable(),
  /** Set once paused at a usage limit: when the session is resumed. */
  paused_until: z.string().nullable(),
  /** Which try of the task this is (1 = first). */
  attempt: z.int().min(1),
  /** The supervisor that started it: `coord run (pid 123 on host)`. */
  supervisor: z.string(),
  exit_code: z.int().nullable(),
  submitted: z.boolean(),
});
export type AgentRun = z.output<typeof AgentRunSchema>;

// ─── --agents ─────────────────────────────────────────────────────────────────────────────────

export interface AgentSlots {
  client: string;
  slots: number;
}

/** `claude:2,codex:1` → [{claude, 2}, {codex, 1}]; a client named alone gets one slot. */
export function parseAgentsSpec(spec: string): AgentSlots[] {
  const out: AgentSlots[] = [];
  for (const part of spec.split(',').map((s) => s.trim())) {
    if (part === '') continue;
    const m = /^([a-z][a-z0-9-]*)(?::(\d+))?$/.exec(part);
    const slots = Number(m?.[2] ?? 1);
    if (!m?.[1] || !Number.isInteger(slots) || slots < 1 || slots > 64) {
      throw new CoordError(
        'invalid_request',
        `--agents takes CLIENT:N pairs separated by commas (e.g. claude:2,codex:1), got "${part}"`,
      );
    }
    const known = out.find((a) => a.client === m[1]);
    if (known) known.slots += slots;
    else out.push({ client: m[1], slots });
  }
  if (out.length === 0) throw new CoordError('invalid_request', '--agents names no client (e.g. --agents claude:2)');
  return out;
}

// ─── names ────────────────────────────────────────────────────────────────────────────────────

/** A fresh per-process agent name: the client's name and 16 random bits (`claude#k3x9`). */
export function launchName(client: string, random: () => number = Math.random): string {
  return `${client}#${Math.floor(random() * 0x10000)
    .toString(16)
    .padStart(4, '0')}`;
}

/** A title cut to a branch-name slug: lower case, `a-z0-9-`, at most 40 characters. */
export function slugOf(title: string): string {
  const slug = title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return slug || 'task';
}

/** SPEC §18: the branch of a task's work tree. */
export const branchOf = (task: Pick<Task, 'id' | 'title'>): string => `coord/${task.id}-${slugOf(task.title)}`;

// ─── the prompt ───────────────────────────────────────────────────────────────────────────────

export interface PromptFacts {
  grant: Pick<ClaimGrant, 'claim_id' | 'work_left'> & { task: Task };
  branch: string;
  worktree: string;
  port: number | null;
  /** The tasks this one waited for, with what they changed. */
  blockers: Task[];
  /** The note of what the previous try left, when this is a retry. */
  retryOf?: string | null;
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);

/** SPEC §18 "The agent knows its task and its contract": the prompt a launched agent starts with. */
export function taskPrompt(f: PromptFacts): string {
  const t = f.grant.task;
  const lines = [
    `You are working on coord task #${t.id} (claim ${f.grant.claim_id}), already claimed for you.`,
    `Work tree: ${f.worktree} (branch ${f.branch}).${f.port === null ? '' : ` Your port: ${f.port} (COORD_PORT).`}`,
    '',
    `# ${t.title}`,
  ];
  if (t.body.trim()) lines.push('', clip(t.body.trim(), 8000));
  const notes = (t.notes ?? []).filter((n) => n.text.trim());
  if (notes.length > 0) {
    lines.push('', 'Notes on the task:');
    for (const n of notes.slice(-10)) lines.push(`- ${n.agent}: ${clip(n.text.replace(/\s+/g, ' '), 400)}`);
  }
  const done = f.blockers.filter((b) => b.change);
  if (done.length > 0) {
    lines.push('', 'It builds on (already merged into your branch base):');
    for (const b of done) {
      const c = b.change;
      const commits = c?.commits.map((x) => `${x.sha.slice(0, 7)} ${x.subject}`).join('; ') ?? '';
      lines.push(`- #${b.id} ${b.title}: ${c?.paths.slice(0, 10).join(', ') ?? ''}${commits ? ` (${commits})` : ''}`);
    }
  }
  const left = f.retryOf ?? f.grant.work_left;
  if (left) lines.push('', `An earlier try ended without finishing: ${left}. Continue from there.`);
  lines.push(
    '',
    'The contract:',
    `1. Do the task in this work tree only, then commit your changes on branch ${f.branch} (git add, git commit).`,
    `2. Then call coord's submit_result tool with task_id "${t.id}" and status "completed" (your claim is already known to it).`,
    `3. If you cannot finish, call release_task with task_id "${t.id}" and a note saying what is done and what is left.`,
  );
  return lines.join('\n');
}

// ─── endings ──────────────────────────────────────────────────────────────────────────────────

export interface ExitFacts {
  submitted: boolean;
  /** Tries made so far, this one included (1 after the first). */
  tries: number;
  /** `--retries`: tries allowed after the first. */
  retries: number;
  /** ms after launch the process ended: a crash at start backs off longer. */
  ranMs: number;
  baseBackoffMs: number;
}

export type AfterExit = { kind: 'done' } | { kind: 'retry'; delayMs: number } | { kind: 'fail' };

/**
 * SPEC §18 "Endings": a submit ends the agent's part; an exit without one is tried again with a new agent
 * up to `--retries` times, each after a longer wait (doubling; a crash at start waits as long again), then
 * the task fails.
 */
export function afterExit(f: ExitFacts): AfterExit {
  if (f.submitted) return { kind: 'done' };
  if (f.tries > f.retries) return { kind: 'fail' };
  const crashed = f.ranMs < 5000 ? 2 : 1;
  return { kind: 'retry', delayMs: Math.min(f.baseBackoffMs * 2 ** (f.tries - 1) * crashed, 10 * 60_000) };
}

/**
 * SPEC §18 "Usage limits are not failures": a limit whose reset is at least `pauseAfterS` away pauses the
 * task until then (the process is stopped, the lease held, no retry spent); a shorter one is the client's
 * own retry (state `waiting`).
 */
export function limitDecision(
  retryInMs: number,
  pauseAfterS: number,
  now: number,
): { pause: false } | { pause: true; until: number } {
  if (!(retryInMs >= pauseAfterS * 1000)) return { pause: false };
  return { pause: true, until: now + retryInMs };
}

// ─── budgets ──────────────────────────────────────────────────────────────────────────────────

export interface Budget {
  tokens?: number | undefined;
  usd?: number | undefined;
}

/** The usage of a run so far, summed over its agents. */
export function sumUsage(all: (Usage | null)[]): { tokens: number; usd: number } {
  let tokens = 0;
  let usd = 0;
  for (const u of all) {
    if (!u) continue;
    tokens += u.input_tokens + u.output_tokens;
    usd += u.cost_usd ?? 0;
  }
  return { tokens, usd };
}

/** Why a run may launch nothing new (SPEC §18 "Budgets"), or null while its budget allows. */
export function budgetSpent(spent: { tokens: number; usd: number }, b: Budget): string | null {
  if (b.tokens !== undefined && spent.tokens >= b.tokens) return `--budget-tokens ${b.tokens} spent (${spent.tokens})`;
  if (b.usd !== undefined && spent.usd >= b.usd) return `--budget-usd ${b.usd} spent ($${spent.usd.toFixed(4)})`;
  return null;
}
