// The board: one column per state, rendered incrementally. Each column keeps every
// task id in order but puts only the first `limit` cards in the DOM, so a board of
// thousands stays as light as a board of fifty; an event moves one card.
import { query } from './api.js';
import { checkingAfter, checkingText, viewChange } from './event-catalogue.js';

export const STATES = ['queued', 'claimed', 'completed', 'failed', 'cancelled', 'expired'];
const ACTIVE = new Set(['queued', 'claimed']);
/** Columns that fold to a thin header with their count while empty: the width goes to what has content. */
const FOLDING = new Set(['failed', 'cancelled', 'expired']);
/** Cards shown per column, and added by each "show more". */
const PAGE = 50;
/** Queued and claimed tasks are loaded whole (up to this many) so their order is exact. */
const ACTIVE_MAX = 5000;

const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
const byClaimOrder = (a, b) => a.priority - b.priority || cmp(a.created_at, b.created_at) || cmp(a.id, b.id);
const byRecent = (a, b) => cmp(b.updated_at, a.updated_at) || cmp(b.id, a.id);

export function countdown(leaseUntil, now) {
  const ms = Date.parse(leaseUntil) - now;
  if (!(ms > 0)) return 'lapsed';
  const s = Math.ceil(ms / 1000);
  const pad = (n) => String(n).padStart(2, '0');
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}

export function ago(iso, now) {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86_400)}d ago`;
}

export const clock = (iso) => (iso ? new Date(iso).toLocaleTimeString([], { hour12: false }) : '');

export function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

/**
 * SPEC §15/§19: where a completed task's commits stand with the target, on its card — pending, merged as
 * sha, conflict or check failed with a link to the follow-up, awaiting review with Approve, blocked with the
 * reason. A task with no commits (integration none) says nothing.
 */
export function integrationLine(i, link) {
  if (!i || i.state === 'none') return null;
  const line = el('div', `integration integration-${i.state}${i.approved ? ' approved' : ''}`);
  line.dataset.state = i.state;
  const into = i.target ? ` into ${i.target}` : '';
  switch (i.state) {
    case 'merged':
      line.append(`merged${into}${i.commit ? ` as ${i.commit.slice(0, 7)}` : ''}`);
      break;
    case 'pending':
      line.append(i.approved ? 'approved: merges at the next turn' : `merge pending${into}`);
      break;
    case 'awaiting_review':
      if (i.approved) line.append(`approved: merges${into} at the integrator's next turn`);
      else {
        line.append(`awaiting review${into} `);
        const approve = el('button', 'approve', 'Approve');
        approve.type = 'button';
        approve.title = 'Approve this merge (recorded as a task.approved event)';
        line.append(approve);
      }
      break;
    case 'conflict':
    case 'check_failed':
      line.append(
        i.state === 'conflict'
          ? `conflict${i.target ? ` with ${i.target}` : ''}`
          : `check failed on ${i.target ?? 'the target'}`,
      );
      if (i.followup) line.append(' → follow-up ', link(i.followup));
      if (i.reason) line.title = i.reason;
      break;
    case 'blocked':
      line.append(`blocked: ${i.reason ?? 'see the task'}`);
      line.title = i.reason ?? '';
      break;
    default:
      line.append(i.state.replace('_', ' '));
  }
  return line;
}

export function taskLink(id) {
  const a = el('a', 'task-link', `#${id}`);
  a.href = '#';
  a.dataset.open = id;
  return a;
}

/** SPEC §15: the window a pending task is being checked in now (integration.window), on its card and in the plan. */
export function checkingLine(w) {
  if (!w) return null;
  const line = el('div', 'integration checking', checkingText(w));
  line.title = 'the integrator is checking these tasks together (--window / --lanes); each result follows';
  return line;
}

function fillCard(card, t, now, checking) {
  card.className = `card state-${t.state}${t.claimed_by ? ' held' : ''}`;
  card.dataset.id = t.id;
  // Focusable, and Enter opens it: the board is usable from the keyboard.
  card.tabIndex = 0;
  card.setAttribute('aria-label', `#${t.id} ${t.title} (${t.state}) — press Enter for details`);
  const top = el('div', 'top');
  top.append(el('span', 'id', `#${t.id}`), el('span', 'kind', t.kind), el('span', 'prio', `p${t.priority}`));
  // Every card names its board: with every board shown, cards of several boards sit side by side.
  top.append(el('span', 'board', t.board));
  if (t.for) top.append(el('span', 'private', `for ${t.for}`));
  if (ACTIVE.has(t.state)) {
    const cancel = el('button', 'cancel', '✕');
    cancel.type = 'button';
    cancel.title = 'Cancel this task (click twice)';
    cancel.setAttribute('aria-label', `cancel #${t.id}`);
    top.append(cancel);
  }
  const title = el('div', 'title', t.title);
  // Dependencies (when the daemon has them): a queued task that is not ready says what it waits for.
  const waits = Array.isArray(t.blocked) && t.blocked.length ? t.blocked : null;
  const blocked =
    t.state === 'queued' && (waits || t.ready === false)
      ? el('div', 'waits', `waits for ${waits ? waits.map((b) => `#${b.id} (${b.state})`).join(', ') : 'its blockers'}`)
      : null;
  title.title = `${t.title}\n(board ${t.board})`;
  const meta = el('div', 'meta');
  meta.append(el('span', 'author', t.created_by));
  if (t.claimed_by) meta.append(el('span', 'arrow', '→'), el('span', 'holder', t.claimed_by));
  if (t.state === 'claimed' && t.lease_until) {
    const lease = el('span', 'lease', countdown(t.lease_until, now));
    lease.dataset.until = t.lease_until;
    lease.title = `lease until ${clock(t.lease_until)}`;
    meta.append(lease);
  } else if (t.state !== 'queued') {
    meta.append(el('time', 'when', clock(t.updated_at)));
  }
  if (t.children) meta.append(el('span', 'children', `${t.children.completed}/${t.children.total} done`));
  if (t.notes_count) meta.append(el('span', 'notes', `${t.notes_count} note${t.notes_count === 1 ? '' : 's'}`));
  const integration = t.state === 'completed' ? integrationLine(t.integration, taskLink) : null;
  const checkingEl = t.state === 'completed' ? checkingLine(checking) : null;
  card.replaceChildren(...[top, title, blocked, meta, integration, checkingEl].filter(Boolean));
}

class Column {
  constructor(board, state) {
    this.board = board;
    this.state = state;
    this.order = state === 'queued' ? byClaimOrder : byRecent;
    this.ids = [];
    this.limit = PAGE;
    /** The server has more of this state than we loaded. */
    this.cursor = null;
    this.root = el('section', `col col-${state}${ACTIVE.has(state) ? '' : ' terminal'}`);
    this.root.dataset.state = state;
    const head = el('h2');
    this.countEl = el('span', 'count', '0');
    head.append(el('span', 'name', state), this.countEl);
    this.cards = el('div', 'cards');
    this.more = el('button', 'more', 'show more');
    this.more.type = 'button';
    this.more.hidden = true;
    this.more.addEventListener('click', () => board.showMore(this));
    this.root.append(head, this.cards, this.more);
  }

  indexFor(task) {
    let lo = 0;
    let hi = this.ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.order(this.board.tasks.get(this.ids[mid]), task) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  add(task) {
    const i = this.indexFor(task);
    this.ids.splice(i, 0, task.id);
    if (i < this.limit) {
      this.cards.insertBefore(this.board.cardFor(task), this.cards.children[i] ?? null);
      if (this.cards.children.length > this.limit) this.cards.lastElementChild.remove();
    }
    this.footer();
  }

  remove(id) {
    const i = this.ids.indexOf(id);
    if (i < 0) return;
    this.ids.splice(i, 1);
    if (i < this.limit) {
      this.board.cards.get(id)?.remove();
      const next = this.ids[this.limit - 1];
      if (next !== undefined) this.cards.append(this.board.cardFor(this.board.tasks.get(next)));
    }
    this.footer();
  }

  reset(tasks, cursor) {
    this.ids = tasks.sort(this.order).map((t) => t.id);
    this.cursor = cursor;
    this.render();
  }

  render() {
    const frag = document.createDocumentFragment();
    for (const id of this.ids.slice(0, this.limit)) frag.append(this.board.cardFor(this.board.tasks.get(id)));
    this.cards.replaceChildren(frag);
    this.footer();
  }

  footer() {
    this.countEl.textContent = `${this.ids.length.toLocaleString()}${this.cursor ? '+' : ''}`;
    const collapsed = FOLDING.has(this.state) && this.ids.length === 0 && !this.cursor;
    this.root.classList.toggle('collapsed', collapsed);
    this.root.title = collapsed ? `${this.state}: none` : '';
    const hidden = Math.max(0, this.ids.length - this.limit);
    this.more.hidden = hidden === 0 && !this.cursor;
    this.more.textContent = hidden > 0 ? `show ${Math.min(hidden, PAGE)} more (${hidden} hidden)` : 'load older';
  }
}

export class Board {
  constructor(root, api, { onCancel, onApprove, onError, onBoard, onOpen, onChange }) {
    this.api = api;
    this.onChange = onChange ?? (() => {});
    this.onError = onError;
    this.onBoard = onBoard;
    this.tasks = new Map();
    this.cards = new Map();
    this.filter = '';
    this.refetching = new Set();
    /** SPEC §15: the windows the integrator is checking now (the catalogue's checkingAfter, as coord top). */
    this.checking = [];
    this.columns = new Map(STATES.map((s) => [s, new Column(this, s)]));
    root.replaceChildren(...[...this.columns.values()].map((c) => c.root));
    // One listener for every cancel button: the first click arms it, the second cancels.
    root.addEventListener('click', (ev) => {
      // A follow-up link on a card opens that task; Approve approves this one.
      const link = ev.target.closest?.('[data-open]');
      if (link) {
        ev.preventDefault();
        if (onOpen) onOpen(link.dataset.open, link.closest('.card'));
        return;
      }
      const approve = ev.target.closest?.('button.approve');
      if (approve) {
        const id = approve.closest('.card')?.dataset.id;
        if (id && onApprove) {
          approve.disabled = true;
          onApprove(id).finally(() => {
            approve.disabled = false;
          });
        }
        return;
      }
      const button = ev.target.closest?.('button.cancel');
      if (!button) {
        // Anywhere else on a card: open it.
        const card = ev.target.closest?.('.card');
        if (card?.dataset.id && onOpen) onOpen(card.dataset.id, card);
        return;
      }
      const id = button.closest('.card')?.dataset.id;
      if (!id) return;
      if (button.dataset.armed) return onCancel(id);
      button.dataset.armed = 'true';
      button.textContent = 'confirm?';
      setTimeout(() => {
        delete button.dataset.armed;
        button.textContent = '✕';
      }, 4000);
    });
    root.addEventListener('keydown', (ev) => {
      if (ev.key !== 'Enter' && ev.key !== ' ') return;
      const card = ev.target.closest?.('.card');
      if (!card || ev.target !== card || !onOpen) return;
      ev.preventDefault();
      onOpen(card.dataset.id, card);
    });
  }

  cardFor(task) {
    let card = this.cards.get(task.id);
    if (!card) {
      card = el('article');
      fillCard(card, task, Date.now(), this.checkingOf(task.id));
      this.cards.set(task.id, card);
    }
    return card;
  }

  /** A full snapshot of the selected board (all boards when `filter` is empty). */
  async load(filter) {
    const pages = await Promise.all(STATES.map((s) => this.fetchState(s, filter)));
    this.filter = filter;
    this.tasks = new Map();
    this.cards = new Map();
    for (const page of pages) {
      for (const t of page.tasks) {
        const seen = this.tasks.get(t.id);
        // A task that moved between two of these requests shows up twice: keep the newer.
        if (!seen || seen.updated_at <= t.updated_at) this.tasks.set(t.id, t);
        this.onBoard(t.board);
      }
    }
    const all = [...this.tasks.values()];
    STATES.forEach((s, i) => {
      this.columns.get(s).reset(
        all.filter((t) => t.state === s),
        pages[i].cursor,
      );
    });
    this.onChange();
  }

  async fetchState(state, filter, cursor) {
    const active = ACTIVE.has(state);
    const tasks = [];
    let next = cursor;
    do {
      const page = await this.api.get(
        `/v1/tasks${query({ state, board: filter, limit: active ? 500 : PAGE, cursor: next })}`,
      );
      tasks.push(...page.tasks);
      next = page.next_cursor;
    } while (next && active && tasks.length < ACTIVE_MAX);
    return { tasks, cursor: next };
  }

  async showMore(column) {
    column.limit += PAGE;
    if (column.ids.length < column.limit && column.cursor) {
      try {
        const page = await this.fetchState(column.state, this.filter, column.cursor);
        const older = page.tasks.filter((t) => !this.tasks.has(t.id) && t.state === column.state);
        for (const t of older) this.tasks.set(t.id, t);
        column.reset([...column.ids.map((id) => this.tasks.get(id)), ...older], page.cursor);
        return;
      } catch (e) {
        this.onError(e);
      }
    }
    column.render();
  }

  /** Puts a task where its state says, moving its card if it changed column. */
  put(next) {
    const prev = this.tasks.get(next.id);
    if (prev) this.columns.get(prev.state).remove(prev.id);
    this.tasks.set(next.id, next);
    const card = this.cards.get(next.id);
    if (card) fillCard(card, next, Date.now(), this.checkingOf(next.id));
    this.columns.get(next.state).add(next);
    this.onChange();
  }

  /** An answer that changed a task's integration (an approval): its card shows it at once. */
  setIntegration(id, integration) {
    const t = this.tasks.get(id);
    if (!t) return;
    t.integration = integration;
    const card = this.cards.get(id);
    if (card) fillCard(card, t, Date.now(), this.checkingOf(id));
    this.onChange();
  }

  /** A task fetched from the server: newer than what we show, or ignored. */
  upsert(task) {
    if (this.filter && task.board !== this.filter) return;
    const prev = this.tasks.get(task.id);
    if (prev && prev.updated_at > task.updated_at) return;
    this.put(task);
  }

  applyEvents(events) {
    const before = this.checking;
    for (const e of events) {
      if (!this.filter || e.board === this.filter) this.checking = checkingAfter(this.checking, e);
      this.applyEvent(e);
    }
    this.redrawChecking(before);
  }

  checkingOf(id) {
    return this.checking.find((w) => w.tasks.includes(id));
  }

  /** The windows from a list of events (the page's recent history, after a snapshot): folded afresh. */
  setChecking(events) {
    const before = this.checking;
    const mine = events.filter((e) => !this.filter || e.board === this.filter).sort((a, b) => a.seq - b.seq);
    this.checking = mine.reduce(checkingAfter, []);
    this.redrawChecking(before);
  }

  /** The cards of the tasks in a window before or after: their checking line changed. */
  redrawChecking(before) {
    if (before.length === 0 && this.checking.length === 0) return;
    const ids = new Set([...before, ...this.checking].flatMap((w) => w.tasks));
    for (const id of ids) {
      const t = this.tasks.get(id);
      const card = this.cards.get(id);
      if (t && card) fillCard(card, t, Date.now(), this.checkingOf(id));
    }
    this.onChange();
  }

  applyEvent(e) {
    if (!e.task_id || (this.filter && e.board !== this.filter)) return;
    // The catalogue's reducer (src/core/event-entries.ts, served as event-catalogue.js): coord top runs the same.
    const change = viewChange(this.tasks.get(e.task_id), e, (t) => t);
    if (change.kind === 'reread') this.refetch(e.task_id);
    if (change.kind !== 'set') return;
    this.put(change.task);
    // Dependencies and parent are not in a task.created event: read the task once to show them.
    if (change.reread) this.refetch(e.task_id);
    // A completion with commits entered the integration queue in the same transaction: read its state.
    if (e.type === 'task.completed') this.refetch(e.task_id);
    // Tasks it blocked now wait on a finished (or failed) blocker: their `blocked` changed.
    if (change.ends)
      for (const other of this.tasks.values()) if (other.blocked_by?.includes(e.task_id)) this.refetch(other.id);
  }

  async refetch(id) {
    if (this.refetching.has(id)) return;
    this.refetching.add(id);
    try {
      const { task } = await this.api.get(`/v1/tasks/${encodeURIComponent(id)}`);
      this.upsert(task);
    } catch {
      // Gone or unreachable: the next snapshot settles it.
    } finally {
      this.refetching.delete(id);
    }
  }

  /** Once a second: the visible lease countdowns. A lapsed one is re-read (a heartbeat may have extended it). */
  tick(now) {
    for (const lease of this.columns.get('claimed').cards.querySelectorAll('.lease')) {
      const text = countdown(lease.dataset.until, now);
      if (lease.textContent !== text) lease.textContent = text;
      lease.classList.toggle('soon', Date.parse(lease.dataset.until) - now < 30_000);
      if (text === 'lapsed' && !lease.dataset.rechecked) {
        lease.dataset.rechecked = 'true';
        const id = lease.closest('.card')?.dataset.id;
        if (id) setTimeout(() => this.refetch(id), 1500);
      }
    }
  }
}
