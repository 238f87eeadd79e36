/**
 * Keeps `coord top`'s BoardState current from the daemon: events apply through the catalogue's reducer
 * (board-state.ts), and what an event cannot say — a dependent's `blocked`, a parent's counts, a task we never
 * loaded, agents and locks — is read again. Knows nothing of the screen: it says `changed()` and the app draws.
 */
import type { DaemonClient } from '../../client/daemon-client.js';
import type { CoordEvent } from '../../core/model.js';
import { loadAgentsAndLocks, loadSnapshot, loadTask } from './board-feed.js';
import type { BoardState } from './board-state.js';
import { countdown } from './cells.js';

/** Agents and locks are read once a burst of events has passed, not once per event. */
const REFRESH_AFTER_EVENT_MS = 300;
/** A lapsed lease may have been renewed by a heartbeat (no event): it is read again after this long. */
const LAPSED_RECHECK_MS = 1500;

export interface LiveBoardHooks {
  /** The state changed: draw. */
  changed(): void;
  /** Events arrived (after they were applied): the detail view may want to read its task again. */
  events(events: CoordEvent[]): void;
}

export class LiveBoard {
  private readonly refetching = new Set<string>();
  private readonly lapsedChecked = new Set<string>();
  private readonly missingAsked = new Set<string>();
  private sideTimer: NodeJS.Timeout | undefined;
  /** While a snapshot loads, events wait here and apply on top of it in order. */
  private loading = false;
  private buffered: CoordEvent[] = [];

  constructor(
    readonly state: BoardState,
    private readonly client: DaemonClient,
    private readonly hooks: LiveBoardHooks,
  ) {}

  /** Reads one task again (once at a time per task). */
  async refetch(id: string): Promise<void> {
    if (this.refetching.has(id)) return;
    this.refetching.add(id);
    try {
      const t = await loadTask(this.client, id);
      if (t) this.state.upsert(t);
      this.hooks.changed();
    } finally {
      this.refetching.delete(id);
    }
  }

  /** Reads the tasks a view names but the board does not hold (the plan's older steps), each once. */
  loadMissing(ids: Iterable<string>): void {
    for (const id of ids) {
      if (this.missingAsked.has(id)) continue;
      this.missingAsked.add(id);
      void this.refetch(id);
    }
  }

  /** Reads agents and locks again, shortly (events come in bursts). */
  refreshSide(): void {
    clearTimeout(this.sideTimer);
    this.sideTimer = setTimeout(async () => {
      try {
        const { agents, locks, attention } = await loadAgentsAndLocks(this.client, this.state.board);
        this.state.agents = agents;
        this.state.locks = locks;
        this.state.attention = attention;
        this.hooks.changed();
      } catch {
        // The daemon is restarting: the stream's reconnect brings a fresh read.
      }
    }, REFRESH_AFTER_EVENT_MS);
  }

  onEvents(events: CoordEvent[]): void {
    if (this.loading) {
      this.buffered.push(...events);
      return;
    }
    for (const id of this.state.apply(events)) {
      // A dependent's `blocked` changes when its blocker ends; a parent's counts when a child does.
      for (const t of this.state.tasks.values()) {
        if (t.blocked_by?.includes(id) || (t.id !== id && this.state.tasks.get(id)?.parent === t.id))
          void this.refetch(t.id);
      }
      void this.refetch(id);
    }
    this.hooks.events(events);
    this.refreshSide();
    this.hooks.changed();
  }

  /** Loads the board (`state.board`) afresh; events that arrive meanwhile apply after it. */
  async reload(): Promise<void> {
    this.loading = true;
    try {
      const snap = await loadSnapshot(this.client, this.state.board);
      this.state.tasks.clear();
      this.state.events = [];
      this.state.reset(snap);
    } finally {
      this.loading = false;
      const pending = this.buffered;
      this.buffered = [];
      this.onEvents(pending);
    }
  }

  /** Once a second: a claimed task whose lease shows lapsed is read again, once (a heartbeat sends no event). */
  checkLapsed(now: number): void {
    for (const t of this.state.tasks.values()) {
      if (t.state === 'claimed' && countdown(t.lease_until, now) === 'lapsed' && !this.lapsedChecked.has(t.id)) {
        this.lapsedChecked.add(t.id);
        setTimeout(() => void this.refetch(t.id), LAPSED_RECHECK_MS);
      }
    }
  }
}
