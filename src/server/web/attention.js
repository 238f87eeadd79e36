// What needs a person (SPEC §19), at the top of the page: GET /v1/attention, read again after each burst of
// events and every 15 s (an idle claim or an agent waiting for its client announce themselves with no event).
// Each item says what, why, since when, and has its button (approve, queue again, cancel) or its command.
import { ApiError, query } from './api.js';
import { ago, el } from './board.js';

const REFRESH_AFTER_EVENT_MS = 300;

/** The dashboard's button for an item, when it has one: [label, method, path, body]. */
function action(item) {
  const id = item.task_id ? encodeURIComponent(item.task_id) : null;
  if (!id) return null;
  if (item.kind === 'review') return ['Approve', `/v1/tasks/${id}/approve`, {}];
  if (item.command.startsWith('coord integrate --retry'))
    return ['Queue the merge again', `/v1/tasks/${id}/integration/retry`, {}];
  if (item.kind === 'agent_idle' || item.command.startsWith('coord cancel'))
    return ['Cancel task', `/v1/tasks/${id}/cancel`, { reason: 'cancelled from the dashboard (attention list)' }];
  return null;
}

export class Attention {
  constructor(root, api, { agent, onError, onOpen, onDone }) {
    this.root = root;
    this.list = root.querySelector('ol');
    this.countEl = root.querySelector('.count');
    this.api = api;
    this.agent = agent;
    this.onError = onError;
    this.onOpen = onOpen;
    this.onDone = onDone;
    this.board = '';
    this.items = [];
    this.timer = null;
    root.addEventListener('click', (ev) => {
      const link = ev.target.closest?.('[data-open]');
      if (link) {
        ev.preventDefault();
        this.onOpen(link.dataset.open, link);
        return;
      }
      const button = ev.target.closest?.('button[data-item]');
      if (button) this.act(button);
    });
  }

  async refresh(board = this.board) {
    this.board = board;
    let items;
    try {
      ({ items } = await this.api.get(`/v1/attention${query({ board })}`));
    } catch (e) {
      // A daemon without the list answers 404: then there is no list to show.
      if (!(e instanceof ApiError && e.status === 404)) throw e;
      this.root.hidden = true;
      return;
    }
    if (board !== this.board) return;
    this.items = items;
    this.render();
  }

  /** Any event may add or settle an item: read the list again once the burst is over. */
  onEvents() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.refresh().catch(() => {}), REFRESH_AFTER_EVENT_MS);
  }

  async act(button) {
    const item = this.items.find((i) => i.id === button.dataset.item);
    const todo = item && action(item);
    if (!todo) return;
    const [, path, body] = todo;
    button.disabled = true;
    try {
      const out = await this.api.post(path, { agent: this.agent, ...body });
      this.onDone?.(item, out);
      await this.refresh();
    } catch (e) {
      button.disabled = false;
      this.onError(e);
    }
  }

  render() {
    const now = Date.now();
    this.root.dataset.count = String(this.items.length);
    this.countEl.textContent = this.items.length ? String(this.items.length) : '';
    if (this.items.length === 0) {
      this.list.replaceChildren(el('li', 'empty', 'nothing waits on you'));
      return;
    }
    this.list.replaceChildren(
      ...this.items.map((i) => {
        const li = el('li', `att att-${i.kind}`);
        li.dataset.id = i.id;
        if (i.task_id) li.dataset.task = i.task_id;
        const what = el('div', 'att-what');
        what.append(el('span', 'att-kind', i.kind.replace('_', ' ')), ' ', this.linked(i.what, i.task_id));
        const why = el('div', 'att-why', i.why);
        const since = el('time', 'att-since', `since ${ago(i.since, now)}`);
        since.dateTime = i.since;
        since.title = i.since;
        const how = el('div', 'att-how');
        const todo = action(i);
        if (todo) {
          const button = el('button', 'att-do', todo[0]);
          button.type = 'button';
          button.dataset.item = i.id;
          how.append(button, el('span', 'muted', ' or '));
        }
        how.append(el('code', 'att-command', i.command));
        li.append(what, why, since, how);
        return li;
      }),
    );
  }

  /** The item's text with its task id a link that opens the task. */
  linked(text, taskId) {
    const span = el('span', 'att-text');
    const mark = taskId ? `#${taskId}` : null;
    const at = mark ? text.indexOf(mark) : -1;
    if (at < 0) {
      span.textContent = text;
      return span;
    }
    const a = el('a', 'task-link', mark);
    a.href = '#';
    a.dataset.open = taskId;
    span.append(text.slice(0, at), a, text.slice(at + mark.length));
    return span;
  }
}
