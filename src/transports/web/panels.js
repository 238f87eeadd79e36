// The side panels: agents seen, locks held, and the live event timeline.
import { ApiError, query } from './api.js';
import { clock, countdown, el } from './board.js';

const MAX_TIMELINE = 200;
const REFRESH_AFTER_EVENT_MS = 1000;

function ago(iso, now) {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86_400)}d ago`;
}

function describe(e) {
  const d = e.data ?? {};
  switch (e.type) {
    case 'task.created':
      return `“${d.title ?? ''}”${d.for ? ` for ${d.for}` : ''}`;
    case 'task.claimed':
      return `fence ${d.fence}`;
    case 'task.requeued':
      return `${d.reason ?? ''}${d.to ? ` → ${d.to}` : ''}`;
    case 'task.cancelled':
      return d.reason ?? '';
    case 'lock.acquired':
    case 'lock.released':
      return Array.isArray(d.resources) ? d.resources.join(' ') : '';
    default:
      return '';
  }
}

const empty = (text) => el('li', 'empty', text);

export class Panels {
  constructor({ agents, locks, timeline }, api) {
    this.api = api;
    this.agentsEl = agents;
    this.locksEl = locks;
    this.timelineEl = timeline;
    this.board = '';
    this.pending = null;
  }

  async refresh(board) {
    this.board = board;
    await Promise.all([this.refreshAgents(), this.refreshLocks()]);
  }

  async refreshAgents() {
    const { agents } = await this.api.get(`/v1/agents${query({ board: this.board })}`);
    const now = Date.now();
    const items = agents.slice(0, 50).map((a) => {
      const li = el('li', a.active ? 'agent active' : 'agent');
      li.append(el('span', 'dot'), el('b', '', a.name), el('span', 'muted', ` ${ago(a.last_seen, now)}`));
      if (a.claims.length) li.append(el('span', 'holds', ` holds ${a.claims.map((id) => `#${id}`).join(' ')}`));
      if (a.locks.length) li.append(el('span', 'holds', ` · ${a.locks.length} lock${a.locks.length > 1 ? 's' : ''}`));
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
      const li = el('li', 'lock');
      li.append(el('code', '', (l.resources ?? []).join(', ')), el('span', 'muted', ' held by '), el('b', '', l.agent));
      if (l.lease_until) li.append(el('span', 'lease', ` ${countdown(l.lease_until, now)}`));
      return li;
    });
    this.locksEl.replaceChildren(...(items.length ? items : [empty('no locks')]));
  }

  onEvents(events) {
    const shown = events.filter((e) => !this.board || e.board === this.board);
    if (shown.length === 0) return;
    this.timelineEl.querySelector('.empty')?.remove();
    const frag = document.createDocumentFragment();
    for (const e of shown.slice(-MAX_TIMELINE).reverse()) {
      const li = el('li', `ev ${e.type.replace('.', '-')}`);
      li.dataset.seq = e.seq;
      li.append(
        el('time', '', clock(e.at)),
        el('span', 'type', e.type.split('.')[1]),
        el('span', 'subject', e.task_id ? `#${e.task_id}` : (e.lock_id ?? '')),
        el('span', 'who', e.agent ?? ''),
        el('span', 'what', describe(e)),
      );
      frag.append(li);
    }
    this.timelineEl.prepend(frag);
    while (this.timelineEl.children.length > MAX_TIMELINE) this.timelineEl.lastElementChild.remove();
    // Who holds what changed: re-read agents and locks once the burst is over.
    clearTimeout(this.pending);
    this.pending = setTimeout(() => this.refresh(this.board).catch(() => {}), REFRESH_AFTER_EVENT_MS);
  }

  clearTimeline() {
    this.timelineEl.replaceChildren(empty('waiting for events…'));
  }
}
