/**
 * The modes of `coord top` that ask something: a prompt (post a task, set the filter), the "cancel #id?"
 * question in the footer, and the board picker.
 */
import { operations } from '../../core/operations.js';
import { filterText, isTerminal, parseFilter } from './board-state.js';
import type { Top } from './context.js';

/** A one-line prompt over the board; `done` gets the text, or null for esc. */
function ask(top: Top, label: string, value: string, done: (text: string | null) => void): void {
  const { ui, w } = top;
  const back = ui.mode;
  ui.mode = 'input';
  w.input.setLabel(` ${label} `);
  w.input.setValue(value);
  w.input.show();
  w.input.setFront();
  w.input.focus();
  w.screen.render();
  w.input.readInput((_err, text) => {
    w.input.hide();
    ui.mode = back;
    top.draw();
    done(text);
  });
}

export function post(top: Top): void {
  ask(top, `new task on ${top.postBoard()}: title (enter post · esc back)`, '', async (title) => {
    if (!title?.trim()) return;
    try {
      const res = await top.opts.client.call(operations.createTask, {
        agent: top.opts.agent,
        board: top.postBoard(),
        title: title.trim(),
      });
      top.state.upsert(res.task);
      top.ui.selectedId = res.task.id;
      top.say(`posted #${res.task.id}`);
    } catch (e) {
      top.sayError(e);
    }
  });
}

export function filter(top: Top): void {
  ask(top, 'filter: kind:K agent:A words (enter apply · empty clears)', filterText(top.state.filter), (text) => {
    if (text === null) return;
    top.state.filter = parseFilter(text);
    top.ui.offset = 0;
    top.draw();
  });
}

export function clearFilter(top: Top): void {
  if (!filterText(top.state.filter)) return;
  top.state.filter = {};
  top.draw();
}

/** Asks "cancel #id?" (the answer is the next key), unless there is nothing to cancel. */
export function confirmCancel(top: Top, id: string | undefined): void {
  const t = id ? top.state.tasks.get(id) : undefined;
  if (!t || isTerminal(t.state)) top.say(t ? `#${t.id} is ${t.state} already` : 'no task selected');
  else {
    top.ui.askCancel(t.id);
    top.draw();
  }
}

export async function answerCancel(top: Top, yes: boolean): Promise<void> {
  const id = top.ui.answerCancel(yes);
  if (!id) {
    top.say('not cancelled');
    return;
  }
  try {
    const res = await top.opts.client.call(operations.cancelTask, {
      task_id: id,
      agent: top.opts.agent,
      reason: 'cancelled from coord top',
    });
    top.state.upsert(res.task);
    top.say(`cancelled #${id}`);
  } catch (e) {
    top.sayError(e);
  }
}

const boardNames = (top: Top) => ['(all boards)', ...[...top.state.boards].sort()];

export function pickBoard(top: Top): void {
  const { ui, w, state } = top;
  const names = boardNames(top);
  ui.mode = 'boards';
  w.boards.setItems(names);
  w.boards.select(Math.max(0, state.board ? names.indexOf(state.board) : 0));
  w.boards.show();
  w.boards.setFront();
  w.boards.focus();
  w.screen.render();
}

/** The picker's answers: a board (index 0 is every board) loads it; esc goes back. */
export function wireBoardPicker(top: Top): void {
  const { ui, w, state } = top;
  w.boards.on('select', (_item: unknown, index: number) => {
    const next = index === 0 ? '' : (boardNames(top)[index] ?? '');
    w.boards.hide();
    ui.mode = 'main';
    if (next === state.board) return top.draw();
    state.board = next;
    ui.offset = 0;
    top.draw();
    top.feed
      .reload()
      .then(() => {
        top.feed.refreshSide();
        if (ui.view === 'trees') void top.trees.refresh(top.treeBoards());
        top.draw();
      })
      .catch((e: unknown) => top.sayError(e));
  });
  w.boards.on('cancel', () => {
    w.boards.hide();
    ui.mode = 'main';
    top.draw();
  });
}
