// The side panels: agents seen, locks held, and the live event timeline.
import { ApiError, query } from './api.js';
import { ago, clock, countdown, el } from './board.js';
import { eventLabel, eventSubject, eventText } from './event-catalogue.js';

const MAX_TIMELINE = 200;
const REFRESH_AFTER_EVENT_MS = 1000;

const empty = (text) => el('li', 'empty', text);

/** An event's type cell: the catalogue's friendly label, the raw type as its title (a tooltip). */
export function typeCell(e) {
  const span = el('span', 'type', eventLabel(e));
  span.title = e.type;
  return span;
}

export class Panels {
  constructor({ agents, locks, connectors, timeline, runs }, api) {
    this.api = api;
    this.runsEl = runs;
    this.agentsEl = agents;
    this.connectorsEl = connectors;
    this.locksEl = locks;
    this.timelineEl = timeline;
    this.board = '';
    this.pending = null;
    this.recent = [];
  }

  /** After a reconnect the daemon may be another one: ask again for what the last one lacked. */
  forget() {
    this.noRuns = false;
  }

  async refresh(board) {
    this.board = board;
    await Promise.all([this.refreshAgents(), this.refreshLocks(), this.refreshConnectors(), this.refreshRuns()]);
  }

  /**
   * SPEC §18: the agent processes a supervisor (`coord run`) started — state and usage. Shown when the daemon
   * has GET /v1/runs; a daemon without it (404) hides the panel.
   */
  async refreshRuns() {
    // Asked once per page load (or reconnect, which may be a newer daemon): a 404 is logged by the browser.
    if (!this.runsEl || this.noRuns) return;
    const panel = this.runsEl.closest('section');
    let runs;
    try {
      ({ runs } = await this.api.get(`/v1/runs${query({ board: this.board })}`));
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) {
        panel.hidden = true;
        this.noRuns = true;
        return;
      }
      throw e;
    }
    panel.hidden = false;
    const now = Date.now();
    const items = runs.map((r) => {
      const li = el('li', `run run-${r.state}`);
      li.dataset.agent = r.agent;
      li.append(el('b', '', r.agent), el('span', `run-state`, ` ${r.state}`));
      li.append(el('span', 'muted', ` #${r.task_id} · ${r.branch} · since ${ago(r.since, now)}`));
      if (r.state === 'paused' && r.paused_until) li.append(el('span', 'muted', ` until ${clock(r.paused_until)}`));
      const u = r.usage;
      if (u) {
        const tokens = (u.input_tokens + u.output_tokens).toLocaleString();
        const cost = typeof u.cost_usd === 'number' ? ` · $${u.cost_usd.toFixed(2)}` : '';
        li.append(el('div', 'run-usage muted', `${tokens} tokens${cost} · ${Math.round(u.wall_s)} s`));
      }
      return li;
    });
    this.runsEl.replaceChildren(...(items.length ? items : [empty('no agents running')]));
  }

  /** Remote connectors (SPEC §16): which chat host acts as which agent on which board, and when it last called. */
  async refreshConnectors() {
    if (!this.connectorsEl) return;
    const { connectors } = await this.api.get('/v1/connectors');
    const now = Date.now();
    const items = connectors
      .filter((c) => !this.board || c.board === this.board)
      .map((c) => {
        const li = el('li', 'connector');
        li.dataset.id = c.id;
        li.append(el('b', '', c.agent), el('span', 'muted', ` ${c.client} on ${c.board}`));
        li.append(el('span', 'muted', ` · ${c.last_used_at ? `used ${ago(c.last_used_at, now)}` : 'never used'}`));
        return li;
      });
    this.connectorsEl.replaceChildren(...(items.length ? items : [empty('no connectors')]));
  }

  async refreshAgents() {
    const { agents } = await this.api.get(`/v1/agents${query({ board: this.board })}`);
    const now = Date.now();
    const items = agents.slice(0, 50).map((a) => {
      const li = el('li', a.active ? 'agent active' : 'agent');
      li.append(el('span', 'dot'), el('b', '', a.name), el('span', 'muted', ` ${ago(a.last_seen, now)}`));
      // SPEC §14: where it works.
      if (a.worktree)
        li.append(el('span', 'muted', ` in ${a.worktree.split('/').pop()}${a.branch ? ` [${a.branch}]` : ''}`));
      if (a.unread > 0) li.append(el('span', 'unread', ` ✉ ${a.unread} unread`));
      if (a.claims.length) li.append(el('span', 'holds', ` holds ${a.claims.map((id) => `#${id}`).join(' ')}`));
      if (a.locks.length) li.append(el('span', 'holds', ` · locks ${a.locks.join(' ')}`));
      return li;
    });
    this.agentsEl.replaceChildren(...(items.length ? items : [empty('no agents seen')]));
  }

  async refreshLocks() {
    let locks = [];
    try {
      ({ locks } = await this.api.get(`/v1/locks${query({ board: this.board })}`));
    } catch (e) {
      // A daemon without the locks API answers 404: that simply means no locks to show.
      if (!(e instanceof ApiError && e.status === 404)) throw e;
    }
    const now = Date.now();
    const items = (locks ?? []).slice(0, 100).map((l) => {
      const li = el('li', l.hold ? 'lock hold' : 'lock');
      li.append(el('code', '', (l.resources ?? []).join(', ')), el('span', 'muted', ' held by '), el('b', '', l.agent));
      if (l.hold) {
        // SPEC §14: a change hold has no lease — it lasts until its work is merged, never "lapsed".
        const where = l.worktree ? l.worktree.split('/').pop() : 'its work tree';
        const until = el('span', 'until', ` until merged (${where})`);
        until.title = `a change hold since ${l.hold.since}${l.task_id ? ` (task #${l.task_id})` : ''}`;
        li.append(until);
      } else if (l.lease_until) li.append(el('span', 'lease', ` ${countdown(l.lease_until, now)}`));
      return li;
    });
    this.locksEl.replaceChildren(...(items.length ? items : [empty('no locks')]));
  }

  /**
   * The recent history, so the timeline is not empty when the page opens. Merged with what the stream
   * already delivered (by seq), so an event seen both ways shows once.
   */
  async loadHistory(board) {
    const { events } = await this.api.get(
      `/v1/events${query({ format: 'json', board, tail: 'true', limit: MAX_TIMELINE })}`,
    );
    const seen = new Set(this.recent.map((e) => e.seq));
    const older = events.filter((e) => !seen.has(e.seq));
    if (older.length === 0) return;
    this.recent = [...older, ...this.recent].sort((a, b) => a.seq - b.seq);
    if (this.recent.length > 2 * MAX_TIMELINE) this.recent.splice(0, this.recent.length - 2 * MAX_TIMELINE);
    if (board === this.board) this.showBoard(board);
  }

  onEvents(events) {
    // Every board's events are kept (the last few hundred), so switching boards re-filters at once.
    this.recent.push(...events);
    if (this.recent.length > 2 * MAX_TIMELINE) this.recent.splice(0, this.recent.length - MAX_TIMELINE);
    const shown = events.filter((e) => !this.board || e.board === this.board);
    if (shown.length === 0) return;
    this.timelineEl.querySelector('.empty')?.remove();
    this.timelineEl.prepend(this.rows(shown));
    while (this.timelineEl.children.length > MAX_TIMELINE) this.timelineEl.lastElementChild.remove();
    // Who holds what changed: re-read agents and locks once the burst is over.
    clearTimeout(this.pending);
    this.pending = setTimeout(() => this.refresh(this.board).catch(() => {}), REFRESH_AFTER_EVENT_MS);
  }

  /** After the board changes: the timeline again, from the events kept. */
  showBoard(board) {
    this.board = board;
    const shown = this.recent.filter((e) => !board || e.board === board);
    this.timelineEl.replaceChildren(shown.length ? this.rows(shown) : empty('waiting for events…'));
  }

  rows(events) {
    const frag = document.createDocumentFragment();
    for (const e of events.slice(-MAX_TIMELINE).reverse()) {
      const li = el('li', `ev ${e.type.replace('.', '-')}`);
      li.dataset.seq = e.seq;
      const line = el('div', 'line');
      line.append(
        el('time', '', clock(e.at)),
        // The catalogue's label (merged, held, integration), as coord top and `coord events` say it; the type on hover.
        typeCell(e),
        el('span', 'subject', eventSubject(e)),
        el('span', 'who', e.agent ?? ''),
      );
      li.append(line);
      const what = eventText(e);
      if (what) li.append(el('div', 'what', what));
      frag.append(li);
    }
    return frag;
  }
}
