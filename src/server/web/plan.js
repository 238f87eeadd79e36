// The plan view (SPEC §19): the dependency tree of each open goal — a task nothing else waits for that has
// not landed — each task with its state and integration state. Made from the tasks the board holds, again
// after each change; a goal with nothing under it is counted, not drawn.
import { checkingLine, el, integrationLine, taskLink } from './board.js';

const GONE = new Set(['cancelled', 'expired']);
const DEPTH = 8;
const GOALS = 30;

/** Landed: completed, with nothing left to merge (merged, or no commits). */
const landed = (t) => t.state === 'completed' && (!t.integration || ['none', 'merged'].includes(t.integration.state));

export class Plan {
  constructor(root, { onOpen, onApprove, checkingOf }) {
    this.root = root;
    this.checkingOf = checkingOf ?? (() => undefined);
    this.list = root.querySelector('.plan-trees');
    this.timer = null;
    root.addEventListener('click', (ev) => {
      const link = ev.target.closest?.('[data-open]');
      if (link) {
        ev.preventDefault();
        onOpen(link.dataset.open, link);
        return;
      }
      const approve = ev.target.closest?.('button.approve');
      const id = approve?.closest('[data-id]')?.dataset.id;
      if (id) {
        approve.disabled = true;
        onApprove(id).finally(() => {
          approve.disabled = false;
        });
      }
    });
  }

  /** Several changes in a row draw once. */
  schedule(tasks) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.render(tasks()), 50);
  }

  render(tasks) {
    const under = new Map();
    const add = (parent, id) => {
      if (!under.has(parent)) under.set(parent, []);
      if (!under.get(parent).includes(id)) under.get(parent).push(id);
    };
    const waitedOn = new Set();
    for (const t of tasks.values()) {
      if (GONE.has(t.state)) continue;
      for (const b of t.blocked_by ?? []) {
        add(t.id, b);
        waitedOn.add(b);
      }
      if (t.parent) {
        add(t.parent, t.id);
        waitedOn.add(t.id);
      }
    }
    const goals = [...tasks.values()].filter((t) => !GONE.has(t.state) && !landed(t) && !waitedOn.has(t.id));
    const trees = goals.filter((g) => under.has(g.id));
    const single = goals.length - trees.length;
    const items = trees.slice(0, GOALS).map((g) => this.node(g.id, tasks, under, new Set(), 0));
    if (items.length === 0) items.push(el('li', 'empty', 'no open goal with dependencies'));
    if (single > 0)
      items.push(
        el(
          'li',
          'muted plan-single',
          `and ${single} open task${single === 1 ? '' : 's'} nothing waits for, with no dependencies`,
        ),
      );
    this.root.dataset.goals = String(trees.length);
    // No tree to draw: the board's columns take the room.
    this.root.hidden = trees.length === 0;
    this.list.replaceChildren(...items);
  }

  node(id, tasks, under, seen, depth) {
    const li = el('li', 'plan-node');
    li.dataset.id = id;
    const t = tasks.get(id);
    const line = el('div', 'plan-line');
    if (!t) {
      line.append(taskLink(id), el('span', 'muted', ' (not on this page)'));
      li.append(line);
      return li;
    }
    line.append(
      taskLink(id),
      el('span', 'plan-title', ` ${t.title} `),
      el('span', `badge state-${t.state}`, t.state),
      ...(t.claimed_by && t.state === 'claimed' ? [el('span', 'muted', ` ${t.claimed_by}`)] : []),
    );
    const integration = t.state === 'completed' ? integrationLine(t.integration, taskLink) : null;
    if (integration) line.append(' ', integration);
    const checkingEl = t.state === 'completed' ? checkingLine(this.checkingOf(id)) : null;
    if (checkingEl) line.append(' ', checkingEl);
    li.append(line);
    const kids = under.get(id) ?? [];
    if (kids.length && !seen.has(id) && depth < DEPTH) {
      const ul = el('ul', 'plan-kids');
      const next = new Set(seen).add(id);
      for (const k of kids) ul.append(this.node(k, tasks, under, next, depth + 1));
      li.append(ul);
    }
    return li;
  }
}
