/**
 * What `coord top` shows, kept in memory: the tasks of one board (or all), agents, locks and the recent
 * events. A snapshot fills it; events keep it current. Knows nothing of the terminal, so it is tested alone.
 *
 * Fields that other parts of coord add over time (dependencies: `ready`, `blocked`, `children`; messages:
 * agents' `unread`) are read when present and ignored when not.
 */
import type { AttentionItem } from '../../core/attention/attention.js';
import { type ViewTask, viewChange } from '../../core/event-entries.js';
import { type CheckingWindow, checkingAfter } from '../../core/integration/checking-windows.js';
import type { CoordEvent, Task } from '../../core/model.js';

/** The fields other features add are optional here whether or not Task declares them yet. */
type Added = 'blocked_by' | 'blocked' | 'ready' | 'parent' | 'children' | 'notes' | 'notes_count';
export type TopTask = Omit<Task, Added> & {
  ready?: boolean | undefined;
  blocked_by?: string[] | undefined;
  blocked?: { id: string; state: string }[] | undefined;
  parent?: string | null | undefined;
  children?: { total: number; completed: number } | undefined;
  notes_count?: number | undefined;
};

export interface TopAgent {
  name: string;
  active: boolean;
  last_seen: string;
  claims: string[];
  locks: string[];
  unread?: number | undefined;
  /** SPEC §14: the work tree it was last seen working in, and its branch. */
  worktree?: string | null | undefined;
  branch?: string | null | undefined;
}

/** The integrator's name on the board: merges and their notes are recorded as `coord` (SPEC §15). */
export const INTEGRATOR = 'coord';

/**
 * What a name on the board is when it is not an agent: the integrator, or a person at the CLI (`<user>@cli`,
 * the CLI's default name); undefined for an agent.
 */
export function nonAgentRole(name: string): 'integrator' | 'person' | undefined {
  if (name === INTEGRATOR) return 'integrator';
  if (name.endsWith('@cli')) return 'person';
  return undefined;
}

export interface TopLock {
  lock_id: string;
  board: string;
  agent: string;
  resources: string[];
  lease_until: string;
}

export interface Filter {
  kind?: string;
  agent?: string;
  text?: string;
}

/** The groups of the task list, top to bottom. */
export const SECTIONS = ['claimed', 'queued', 'blocked', 'done'] as const;
export type Section = (typeof SECTIONS)[number];

const TERMINAL = new Set(['completed', 'failed', 'cancelled', 'expired']);
/** Finished tasks kept on screen: the most recent few are context, not work. */
export const RECENT_DONE = 30;
export const MAX_EVENTS = 200;

export const isBlocked = (t: TopTask): boolean =>
  t.state === 'queued' && (t.ready === false || (Array.isArray(t.blocked) && t.blocked.length > 0));

export function sectionOf(t: TopTask): Section {
  if (t.state === 'claimed') return 'claimed';
  if (t.state === 'queued') return isBlocked(t) ? 'blocked' : 'queued';
  return 'done';
}

/** `kind:bug agent:cursor some words` → {kind, agent, text}. */
export function parseFilter(input: string): Filter {
  const f: Filter = {};
  const words: string[] = [];
  for (const word of input.trim().split(/\s+/).filter(Boolean)) {
    const m = /^(kind|agent):(.+)$/.exec(word);
    if (m?.[2] && m[1] === 'kind') f.kind = m[2];
    else if (m?.[2] && m[1] === 'agent') f.agent = m[2];
    else words.push(word);
  }
  if (words.length) f.text = words.join(' ').toLowerCase();
  return f;
}

export const filterText = (f: Filter): string =>
  [f.kind && `kind:${f.kind}`, f.agent && `agent:${f.agent}`, f.text].filter(Boolean).join(' ');

export function matches(t: TopTask, f: Filter): boolean {
  if (f.kind && t.kind !== f.kind) return false;
  if (f.agent && t.claimed_by !== f.agent && t.created_by !== f.agent && t.for !== f.agent) return false;
  if (f.text && !`#${t.id} ${t.title} ${t.labels.join(' ')}`.toLowerCase().includes(f.text)) return false;
  return true;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const byClaimOrder = (a: TopTask, b: TopTask) =>
  a.priority - b.priority || cmp(a.created_at, b.created_at) || cmp(a.id, b.id);
const byRecent = (a: TopTask, b: TopTask) => cmp(b.updated_at, a.updated_at) || cmp(b.id, a.id);

export class BoardState {
  /** '' = every board. */
  board = '';
  /** Who is looking (coord top's `--agent`): whose mailbox the header counts. */
  me = '';
  filter: Filter = {};
  tasks = new Map<string, TopTask>();
  agents: TopAgent[] = [];
  locks: TopLock[] = [];
  /** SPEC §19: what waits on a person (coord attention), read with agents and locks. */
  attention: AttentionItem[] = [];
  events: CoordEvent[] = [];
  /** SPEC §15: the windows the integrator is checking now (integration.window events), until decided. */
  checking: CheckingWindow[] = [];
  boards = new Set<string>();
  lastSeq = 0;

  /** Replaces what is known of the board with a fresh snapshot. */
  reset(snapshot: {
    tasks: TopTask[];
    agents: TopAgent[];
    locks: TopLock[];
    events: CoordEvent[];
    attention?: AttentionItem[];
  }): void {
    this.attention = snapshot.attention ?? [];
    this.tasks = new Map();
    for (const t of snapshot.tasks) this.upsert(t);
    this.agents = snapshot.agents;
    this.locks = snapshot.locks;
    const seen = new Set(this.events.map((e) => e.seq));
    this.events = [...this.events, ...snapshot.events.filter((e) => !seen.has(e.seq))].sort((a, b) => a.seq - b.seq);
    this.events = this.events.slice(-MAX_EVENTS);
    this.checking = this.events.filter((e) => this.shows(e.board)).reduce(checkingAfter, []);
    for (const e of snapshot.events) this.lastSeq = Math.max(this.lastSeq, e.seq);
  }

  shows(board: string): boolean {
    return this.board === '' || board === this.board;
  }

  /** A task read from the daemon: newer than what we hold, or ignored. */
  upsert(t: TopTask): void {
    this.boards.add(t.board);
    if (!this.shows(t.board)) return;
    const prev = this.tasks.get(t.id);
    if (prev && prev.updated_at > t.updated_at) return;
    this.tasks.set(t.id, t);
  }

  /**
   * Applies events; returns the ids of tasks it could not update from the event alone (unknown to us, or
   * an event whose effect on the task JSON only the daemon knows, like `task.ready`): the caller re-reads them.
   */
  apply(events: CoordEvent[]): string[] {
    const refetch = new Set<string>();
    for (const e of events) {
      if (e.seq <= this.lastSeq) continue;
      this.lastSeq = e.seq;
      this.boards.add(e.board);
      if (!this.shows(e.board)) continue;
      this.events.push(e);
      this.checking = checkingAfter(this.checking, e);
      if (!e.task_id) continue;
      // The catalogue's reducer (core/event-entries.ts), the same one the dashboard runs.
      const change = viewChange(this.tasks.get(e.task_id), e, fillTask);
      if (change.kind === 'reread') refetch.add(e.task_id);
      if (change.kind !== 'set') continue;
      this.tasks.set(e.task_id, change.task);
      // Read once more what the event does not say: a new task's dependencies and parent; a finished task's
      // dependents (and its parent's counts) changed on the daemon.
      if (change.reread || change.ends) refetch.add(e.task_id);
    }
    if (this.events.length > MAX_EVENTS) this.events.splice(0, this.events.length - MAX_EVENTS);
    return [...refetch];
  }

  /** The window the task is being checked in now, if any. */
  checkingOf(id: string): CheckingWindow | undefined {
    return this.checking.find((w) => w.tasks.includes(id));
  }

  /** The task list as shown: each section's tasks in order, after the filter. */
  sections(): Record<Section, TopTask[]> {
    const out: Record<Section, TopTask[]> = { claimed: [], queued: [], blocked: [], done: [] };
    for (const t of this.tasks.values()) if (matches(t, this.filter)) out[sectionOf(t)].push(t);
    out.claimed.sort(byClaimOrder);
    out.queued.sort(byClaimOrder);
    out.blocked.sort(byClaimOrder);
    out.done = out.done.sort(byRecent).slice(0, RECENT_DONE);
    return out;
  }

  /** Events as shown in the timeline: the filter's agent and text apply to them too. */
  timeline(): CoordEvent[] {
    const f = this.filter;
    return this.events.filter((e) => {
      if (f.agent && e.agent !== f.agent) return false;
      if (f.kind || f.text) {
        const t = e.task_id ? this.tasks.get(e.task_id) : undefined;
        if (!t || !matches(t, f)) return false;
      }
      return true;
    });
  }

  /**
   * The unread messages in the viewer's own mailbox (`me`), not the sum of every agent's: undefined when the
   * daemon reports no count for it (the agents pane shows each agent's own).
   */
  unreadMine(): number | undefined {
    const n = this.agents.find((a) => a.name === this.me)?.unread;
    return typeof n === 'number' ? n : undefined;
  }
}

/** A task known from its task.created event: the fields a board view keeps, the rest empty. */
const fillTask = (t: ViewTask): TopTask => ({
  ...t,
  body: '',
  result_status: null,
  result: null,
  expires_at: t.created_at,
  idempotency_key: null,
  change: null,
});

export const isTerminal = (state: string): boolean => TERMINAL.has(state);
