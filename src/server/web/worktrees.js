// The work-trees panel (SPEC §14, §19): what `coord changes` shows — each work tree's branch, ahead/behind
// the board's integration target, who works there, its pending paths — and the paths pending in two or more
// (overlaps: tomorrow's merge conflicts). GET /v1/changes per board; a board with no repository known yet
// (or a daemon that cannot run git) shows nothing.
import { ApiError, query } from './api.js';
import { el } from './board.js';

const REFRESH_AFTER_EVENT_MS = 1500;
const SHOWN_PATHS = 6;
const base = (path) => path.split('/').pop();

export class Worktrees {
  constructor(root, api, boards) {
    this.root = root;
    this.list = root.querySelector('.wt-list');
    this.api = api;
    /** The boards to look at when every board is shown. */
    this.boards = boards;
    this.board = '';
    this.timer = null;
    /**
     * Boards with no repository known (404): not asked again — the browser logs every 404 — until a claim or
     * lock there (what teaches coord a board's repository) or a reconnect.
     */
    this.noRepo = new Set();
  }

  forget() {
    this.noRepo.clear();
  }

  async refresh(board = this.board) {
    this.board = board;
    const names = (board ? [board] : this.boards().slice(0, 8)).filter((b) => !this.noRepo.has(b));
    const answers = await Promise.all(
      names.map((b) =>
        this.api.get(`/v1/changes${query({ board: b })}`).then(
          (out) => ({ board: b, ...out }),
          (e) => {
            // not_found: no repository known for the board; git_failed: a daemon without git. Nothing to show.
            if (e instanceof ApiError && e.status === 404) this.noRepo.add(b);
            if (e instanceof ApiError && [404, 409, 500, 502, 503].includes(e.status)) return null;
            throw e;
          },
        ),
      ),
    );
    if (board !== this.board) return;
    this.render(answers.filter(Boolean));
  }

  onEvents(events) {
    for (const e of events) if (e.type === 'task.claimed' || e.type === 'lock.acquired') this.noRepo.delete(e.board);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.refresh().catch(() => {}), REFRESH_AFTER_EVENT_MS);
  }

  render(answers) {
    const items = [];
    for (const a of answers) {
      for (const t of a.worktrees) {
        const li = el('li', `wt${t.pending_count ? ' dirty' : ''}`);
        li.dataset.path = t.path;
        const head = el('div', 'wt-head');
        head.append(
          el('b', '', base(t.path)),
          el('span', 'wt-branch', ` [${t.branch ?? `detached ${String(t.head).slice(0, 7)}`}]`),
          el('span', 'wt-ab', ` ↑${t.ahead} ↓${t.behind} ${a.target}`),
        );
        if (t.agents.length) head.append(el('span', 'muted', ` · ${t.agents.join(', ')}`));
        if (t.tasks.length) head.append(el('span', 'muted', ` · ${t.tasks.map((id) => `#${id}`).join(' ')}`));
        if (!this.board) head.append(el('span', 'muted', ` · ${a.board}`));
        li.append(head);
        if (t.pending_count) {
          const more = t.pending_count - Math.min(SHOWN_PATHS, t.pending.length);
          li.append(
            el(
              'div',
              'wt-pending',
              `${t.pending_count} pending: ${t.pending.slice(0, SHOWN_PATHS).join(' ')}${more > 0 ? ` … +${more}` : ''}`,
            ),
          );
        }
        items.push(li);
      }
      for (const o of a.overlaps) {
        const li = el('li', 'wt-overlap');
        li.append(el('b', '', 'overlap '), el('code', '', o.path), ` in ${o.worktrees.map(base).join(', ')}`);
        items.push(li);
      }
    }
    this.root.hidden = items.length === 0;
    this.list.replaceChildren(...items);
  }
}
