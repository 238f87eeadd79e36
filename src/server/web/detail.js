// The task detail view (SPEC §9): body, result, artifacts, notes, dependencies and the task's own event
// history, in a modal <dialog> (Esc closes it, focus stays inside, and returns to the card). It stays
// live: the page hands it every event, and those about its task are added to the history at once while
// the task itself is read again.
import { ApiError, query } from './api.js';
import { clock, countdown, el } from './board.js';
import { eventText } from './event-catalogue.js';
import { typeCell } from './panels.js';

const HISTORY = 200;
const REREAD_MS = 250;

const ACTIVE = new Set(['queued', 'claimed']);

/** SPEC §14: what a completed task changed — work tree, branch, commits since the claim, paths. */
function changeSection(c) {
  if (!c) return null;
  const where = `${c.worktree}${c.branch ? ` · ${c.branch}` : ' · detached'} · head ${String(c.head).slice(0, 7)}`;
  if (!c.commits.length) return section('Change', el('p', 'd-change', `completed, no commits (${where})`));
  const summary = el(
    'p',
    'd-change',
    `${c.commits.length} commit${c.commits.length === 1 ? '' : 's'} · ${c.paths.length} path${c.paths.length === 1 ? '' : 's'} +${c.insertions} −${c.deletions}${c.clean ? '' : ' · work tree not clean'} · ${where}`,
  );
  const commits = el('ul', 'd-commits');
  for (const k of c.commits.slice(0, 20)) commits.append(el('li', '', `${String(k.sha).slice(0, 7)} ${k.subject}`));
  const paths = el('pre', 'd-paths', c.paths.join('\n'));
  return section('Change', summary, commits, paths);
}

function section(title, ...children) {
  const s = el('section', 'd-section');
  s.append(el('h3', '', title), ...children);
  return s;
}

function field(dl, name, value) {
  if (value === undefined || value === null || value === '') return;
  dl.append(el('dt', '', name), el('dd', '', String(value)));
}

export class Detail {
  constructor(dialog, api, { onCancel, onApprove, onError, tasks }) {
    this.dialog = dialog;
    this.api = api;
    this.onCancel = onCancel;
    this.onApprove = onApprove;
    this.onError = onError;
    /** The board's tasks by id, to list the dependents of the open task. */
    this.tasks = tasks;
    this.id = null;
    this.task = null;
    this.history = [];
    this.artifacts = null;
    this.opener = null;
    this.timer = null;
    this.titleEl = dialog.querySelector('#detail-title');
    this.bodyEl = dialog.querySelector('.detail-body');
    dialog.querySelector('button.close').addEventListener('click', () => this.close());
    dialog.addEventListener('close', () => this.closed());
    // A click on the backdrop (outside the panel) closes, like Esc.
    dialog.addEventListener('click', (ev) => {
      if (ev.target === dialog) this.close();
    });
    dialog.addEventListener('click', (ev) => {
      const link = ev.target.closest?.('[data-open]');
      if (link) {
        ev.preventDefault();
        this.open(link.dataset.open, this.opener);
      }
      const artifact = ev.target.closest?.('a[data-artifact]');
      if (artifact) {
        ev.preventDefault();
        this.download(artifact.dataset.artifact, artifact.dataset.name);
      }
    });
  }

  get isOpen() {
    return this.dialog.open;
  }

  async open(id, opener) {
    this.id = id;
    this.opener = opener ?? document.activeElement;
    this.task = this.tasks().get(id) ?? null;
    this.history = [];
    this.artifacts = null;
    this.dialog.dataset.id = id;
    delete this.dialog.dataset.loaded;
    this.render();
    if (!this.dialog.open) this.dialog.showModal();
    this.dialog.querySelector('button.close').focus();
    await this.load(id);
  }

  close() {
    if (this.dialog.open) this.dialog.close();
  }

  closed() {
    this.id = null;
    clearTimeout(this.timer);
    const opener = this.opener;
    this.opener = null;
    if (opener?.isConnected) opener.focus();
  }

  async load(id) {
    try {
      const [shown, history, artifacts] = await Promise.all([
        this.api.get(`/v1/tasks/${encodeURIComponent(id)}`),
        this.api.get(`/v1/events${query({ format: 'json', task: id, tail: 'true', limit: HISTORY })}`),
        this.api.get(`/v1/tasks/${encodeURIComponent(id)}/artifacts`).catch((e) => {
          // A daemon without the listing answers 404: then the task JSON's own list (if any) is all we know.
          if (e instanceof ApiError && e.status === 404) return null;
          throw e;
        }),
      ]);
      if (id !== this.id) return;
      this.task = shown.task;
      this.artifacts = artifacts?.artifacts ?? shown.task.artifacts ?? null;
      this.mergeHistory(history.events);
      this.dialog.dataset.loaded = 'true';
      this.render();
    } catch (e) {
      if (id === this.id) this.onError(e);
    }
  }

  mergeHistory(events) {
    const seen = new Set(this.history.map((e) => e.seq));
    for (const e of events) if (!seen.has(e.seq)) this.history.push(e);
    this.history.sort((a, b) => a.seq - b.seq);
  }

  /** Every event the page hears; those about the open task (or its blockers) update the view. */
  onEvents(events) {
    if (!this.id) return;
    const mine = events.filter((e) => e.task_id === this.id);
    const blockers = new Set(this.task?.blocked_by ?? []);
    const related = events.some((e) => blockers.has(e.task_id));
    if (mine.length) {
      this.mergeHistory(mine);
      this.renderHistory();
    }
    if (mine.length || related) {
      clearTimeout(this.timer);
      const id = this.id;
      this.timer = setTimeout(() => this.load(id), REREAD_MS);
    }
  }

  async download(artifactId, name) {
    try {
      const res = await fetch(`/v1/tasks/${encodeURIComponent(this.id)}/artifacts/${encodeURIComponent(artifactId)}`, {
        headers: { authorization: `Bearer ${sessionStorage.getItem('coord-token')}` },
        cache: 'no-store',
      });
      if (!res.ok) throw new ApiError(res.status, `http_${res.status}`, `HTTP ${res.status}`);
      const url = URL.createObjectURL(await res.blob());
      const a = el('a');
      a.href = url;
      a.download = name || artifactId;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (e) {
      this.onError(e);
    }
  }

  /** SPEC §15: where a completed task's commits stand with the target; a merge held for review has Approve. */
  integration(t) {
    const i = t.integration;
    if (!i || i.state === 'none') return null;
    const words = [i.state.replace('_', ' ')];
    if (i.target) words.push(`→ ${i.target}`);
    if (i.commit) words.push(`as ${i.commit.slice(0, 7)}`);
    if (i.reason) words.push(`: ${i.reason}`);
    const body = el('div', 'd-integration');
    body.append(el('p', `badge integration-${i.state}`, words.join(' ')));
    if (i.followup) {
      const p = el('p', '', 'follow-up: ');
      p.append(this.taskLink(i.followup));
      body.append(p);
    }
    if (i.state === 'awaiting_review' || (i.state === 'pending' && i.approved)) {
      const approve = el('button', 'd-approve', 'Approve merge');
      approve.type = 'button';
      // Approved (by anyone: the task.approved event names who): nothing left to press.
      if (i.approved) {
        approve.disabled = true;
        approve.textContent = 'Approved: merged at the next turn';
      }
      approve.addEventListener('click', async () => {
        approve.disabled = true;
        try {
          await this.onApprove(t.id);
          approve.textContent = 'Approved: merged at the next turn';
        } catch (e) {
          approve.disabled = false;
          this.onError(e);
        }
      });
      body.append(approve);
    }
    return section('Integration', body);
  }

  /** Once a second while open: the lease countdown. */
  tick(now) {
    const lease = this.dialog.querySelector('.d-lease');
    if (lease && this.task?.lease_until) lease.textContent = countdown(this.task.lease_until, now);
  }

  render() {
    const t = this.task;
    this.titleEl.replaceChildren(
      el('span', 'id', `#${this.id}`),
      el('span', '', ` ${t?.title ?? ''}`),
      ...(t ? [el('span', `badge state-${t.state}`, t.state)] : []),
    );
    if (!t) {
      this.bodyEl.replaceChildren(el('p', 'muted', 'loading…'));
      return;
    }
    const parts = [];
    const meta = el('dl', 'd-meta');
    if (t.claimed_by) {
      meta.append(el('dt', '', t.state === 'claimed' ? 'holder' : 'worked by'));
      const dd = el('dd', 'd-holder', t.claimed_by);
      if (t.state === 'claimed' && t.lease_until)
        dd.append(' · lease ', el('span', 'd-lease', countdown(t.lease_until, Date.now())));
      meta.append(dd);
    }
    field(meta, 'kind', t.kind);
    field(meta, 'priority', t.priority);
    field(meta, 'labels', (t.labels ?? []).join(', '));
    field(meta, 'for', t.for);
    field(meta, 'posted by', t.created_by);
    field(meta, 'board', t.board);
    field(meta, 'created', t.created_at && `${clock(t.created_at)} (${t.created_at})`);
    field(meta, 'updated', t.updated_at && clock(t.updated_at));
    field(meta, 'expires', t.expires_at);
    field(meta, 'attempts', t.attempts);
    if (t.parent) {
      meta.append(el('dt', '', 'parent'));
      const dd = el('dd');
      dd.append(this.taskLink(t.parent));
      meta.append(dd);
    }
    if (t.children) field(meta, 'children', `${t.children.completed}/${t.children.total} completed`);
    parts.push(meta);

    if (ACTIVE.has(t.state)) {
      const cancel = el('button', 'd-cancel', 'Cancel task');
      cancel.type = 'button';
      cancel.addEventListener('click', () => {
        if (!cancel.dataset.armed) {
          cancel.dataset.armed = 'true';
          cancel.textContent = 'Click again to cancel';
          return;
        }
        this.onCancel(t.id);
      });
      parts.push(cancel);
    }

    const integration = this.integration(t);
    if (integration) parts.push(integration);

    parts.push(section('Body', t.body ? el('pre', 'd-body', t.body) : el('p', 'muted', '(empty)')));
    if (t.result !== null && t.result !== undefined) {
      const text = typeof t.result === 'string' ? t.result : JSON.stringify(t.result, null, 2);
      const head = t.result_status ? `Result · ${t.result_status}` : 'Result';
      parts.push(section(head, el('pre', 'd-result', text)));
    }

    const change = changeSection(t.change);
    if (change) parts.push(change);

    const deps = this.dependencies(t);
    if (deps) parts.push(deps);

    if (Array.isArray(this.artifacts) && this.artifacts.length) {
      const ul = el('ul', 'd-artifacts');
      for (const a of this.artifacts) {
        const li = el('li');
        const link = el('a', '', a.name || a.id);
        link.href = '#';
        link.dataset.artifact = a.id;
        link.dataset.name = a.name || a.id;
        li.append(link, el('span', 'muted', ` ${a.content_type ?? ''} · ${a.size ?? '?'} bytes`));
        ul.append(li);
      }
      parts.push(section('Artifacts', ul));
    }

    if (Array.isArray(t.notes) && t.notes.length) {
      const ul = el('ul', 'd-notes');
      for (const n of t.notes) {
        const li = el('li');
        li.append(el('time', '', clock(n.at)), el('b', '', ` ${n.agent} `), el('span', '', n.text));
        ul.append(li);
      }
      const count = typeof t.notes_count === 'number' ? t.notes_count : t.notes.length;
      parts.push(section(`Notes (${count})`, ul));
    }

    this.historyEl = el('ol', 'd-history');
    parts.push(section('History', this.historyEl));
    this.bodyEl.replaceChildren(...parts);
    this.renderHistory();
  }

  dependencies(t) {
    const blockers = Array.isArray(t.blocked_by) ? t.blocked_by : [];
    const open = new Map((t.blocked ?? []).map((b) => [b.id, b.state]));
    const dependents = [...this.tasks().values()].filter((o) => o.blocked_by?.includes(t.id));
    if (!blockers.length && !dependents.length) return null;
    const ul = el('ul', 'd-deps');
    for (const id of blockers) {
      const li = el('li', open.has(id) ? 'open' : 'done');
      li.append('waits for ', this.taskLink(id), el('span', 'muted', ` ${open.get(id) ?? 'completed'}`));
      ul.append(li);
    }
    for (const o of dependents) {
      const li = el('li');
      li.append('blocks ', this.taskLink(o.id), el('span', 'muted', ` ${o.state} · ${o.title}`));
      ul.append(li);
    }
    const head = t.blocked?.length ? 'Dependencies · blocked' : 'Dependencies';
    return section(head, ul);
  }

  taskLink(id) {
    const a = el('a', 'task-link', `#${id}`);
    a.href = '#';
    a.dataset.open = id;
    return a;
  }

  renderHistory() {
    if (!this.historyEl) return;
    if (this.history.length === 0) {
      this.historyEl.replaceChildren(el('li', 'muted', this.dialog.dataset.loaded ? 'no events' : 'loading…'));
      return;
    }
    const items = this.history.map((e) => {
      const li = el('li', `ev ${e.type.replace('.', '-')}`);
      li.dataset.seq = e.seq;
      li.append(el('time', '', clock(e.at)), typeCell(e), el('span', 'who', e.agent ?? ''));
      const what = eventText(e);
      if (what) li.append(el('span', 'what', what));
      return li;
    });
    this.historyEl.replaceChildren(...items);
  }
}
