/**
 * Where `coord top` gets its data: one snapshot from the daemon's HTTP API, then the event stream (SSE).
 * The stream resumes from the snapshot's last event, so nothing that happens while the snapshot loads
 * is missed; agents and locks are re-read after the events that change them, never on a timer.
 */
import type { DaemonClient } from '../../client/daemon-client.js';
import { followEvents } from '../../client/event-stream.js';
import type { AttentionItem } from '../../core/attention/attention.js';
import type { CoordEvent, TaskState } from '../../core/model.js';
import { operations } from '../../core/operations.js';
import type { TopAgent, TopLock, TopTask } from './board-state.js';

/** Queued and claimed tasks are loaded whole up to this many; finished ones only the latest few. */
const ACTIVE_MAX = 2000;
const DONE_PER_STATE = 10;
const HISTORY = 100;

export interface Snapshot {
  tasks: TopTask[];
  agents: TopAgent[];
  locks: TopLock[];
  events: CoordEvent[];
  /** The stream resumes after this sequence. */
  since: number;
}

async function tasksIn(client: DaemonClient, board: string, state: string, max: number): Promise<TopTask[]> {
  const out: TopTask[] = [];
  let cursor: string | null = null;
  do {
    const page: { tasks: TopTask[]; next_cursor: string | null } = await client.call(operations.listTasks, {
      board: board || undefined,
      state: state as TaskState,
      limit: Math.min(500, max),
      cursor: cursor ?? undefined,
    });
    out.push(...page.tasks);
    cursor = page.next_cursor;
  } while (cursor && out.length < max);
  return out;
}

export async function loadAgentsAndLocks(
  client: DaemonClient,
  board: string,
): Promise<{ agents: TopAgent[]; locks: TopLock[]; attention: AttentionItem[] }> {
  const b = { board: board || undefined };
  const [agents, locks, attention] = await Promise.all([
    client.call(operations.listAgents, b),
    client.call(operations.listLocks, b),
    // SPEC §19: what waits on a person (a daemon without the route answers nothing to count).
    client.call(operations.listAttention, b).catch(() => ({ items: [] as AttentionItem[] })),
  ]);
  return { agents: agents.agents, locks: locks.locks, attention: attention.items };
}

export async function loadSnapshot(client: DaemonClient, board: string): Promise<Snapshot> {
  // The events first: whatever the task lists miss after this point arrives through the stream.
  const history = await client.call(operations.listEvents, { board: board || undefined, tail: true, limit: HISTORY });
  const [queued, claimed, completed, failed, cancelled, expired, rest] = await Promise.all([
    tasksIn(client, board, 'queued', ACTIVE_MAX),
    tasksIn(client, board, 'claimed', ACTIVE_MAX),
    tasksIn(client, board, 'completed', DONE_PER_STATE),
    tasksIn(client, board, 'failed', DONE_PER_STATE),
    tasksIn(client, board, 'cancelled', DONE_PER_STATE),
    tasksIn(client, board, 'expired', DONE_PER_STATE),
    loadAgentsAndLocks(client, board),
  ]);
  return {
    tasks: [...queued, ...claimed, ...completed, ...failed, ...cancelled, ...expired],
    ...rest,
    events: history.events,
    since: history.next_since,
  };
}

export async function loadTask(client: DaemonClient, id: string): Promise<TopTask | null> {
  try {
    return (await client.call(operations.showTask, { task_id: id })).task;
  } catch {
    return null;
  }
}

export async function loadHistory(client: DaemonClient, id: string): Promise<CoordEvent[]> {
  const res = await client.call(operations.listEvents, { task: id, tail: true, limit: 200 });
  return res.events;
}

/** Streams every board's events (the board list grows from them); resumes after drops. */
export function follow(
  stateDir: string,
  since: number,
  onEvents: (events: CoordEvent[]) => void,
  onLive: (live: boolean) => void,
): Promise<never> {
  return followEvents({
    stateDir,
    board: undefined,
    since,
    onOpen: () => onLive(true),
    onEvent: (e) => onEvents([e]),
    onDrop: () => onLive(false),
  });
}
