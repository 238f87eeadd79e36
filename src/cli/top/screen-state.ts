/**
 * What `coord top`'s screen is doing, apart from the board's data (board-state.ts): the mode (which keys mean
 * what), the selected task and the list's scroll, the open detail, the pending confirmation, the footer's
 * message. Knows nothing of the terminal, so it is tested alone.
 */
import type { ListLine } from './panes.js';

/** main: the board; detail: one task; input: a prompt; confirm: "cancel #id?"; boards: the board picker. */
export type Mode = 'main' | 'detail' | 'input' | 'confirm' | 'boards';

/** What the main pane shows (SPEC §19): the tasks by state, the plan, the work trees, what needs a person. */
export const VIEWS = ['tasks', 'plan', 'trees', 'attention'] as const;
export type View = (typeof VIEWS)[number];

export class ScreenState {
  mode: Mode = 'main';
  view: View = 'tasks';
  /** The event stream is open. */
  live = false;
  message: string | undefined;
  selectedId: string | undefined;
  /** The first list line on screen. */
  offset = 0;
  /** The task list as last drawn. */
  lines: ListLine[] = [];
  /** The task the detail view shows. */
  detailId: string | undefined;
  /** The task a yes would cancel, and the mode to go back to. */
  confirming: string | undefined;
  confirmBack: Mode = 'main';

  /**
   * Takes the list as drawn now and `rows` lines of room: keeps a listed task selected and the selection in
   * view. Returns the index of the selected line (-1: no task listed).
   */
  place(lines: ListLine[], rows: number): number {
    this.lines = lines;
    const tasks = lines.filter((l) => l.taskId);
    if (!tasks.some((l) => l.taskId === this.selectedId)) this.selectedId = tasks[0]?.taskId;
    const sel = lines.findIndex((l) => l.taskId === this.selectedId);
    if (sel >= 0) {
      if (sel < this.offset) this.offset = Math.max(0, sel - 1);
      if (sel >= this.offset + rows) this.offset = sel - rows + 1;
    }
    this.offset = Math.max(0, Math.min(this.offset, lines.length - rows));
    return sel;
  }

  /** Moves the selection `by` tasks (headers are skipped), stopping at either end; false: nothing to select. */
  move(by: number): boolean {
    const ids = this.lines.filter((l) => l.taskId).map((l) => l.taskId as string);
    if (ids.length === 0) return false;
    const at = Math.max(0, ids.indexOf(this.selectedId ?? ''));
    this.selectedId = ids[Math.max(0, Math.min(ids.length - 1, at + by))];
    return true;
  }

  /** Shows another view in the main pane, from its top. */
  show(view: View): boolean {
    if (view === this.view) return false;
    this.view = view;
    this.offset = 0;
    this.selectedId = undefined;
    return true;
  }

  /** Asks "cancel #id?" in the footer; the next key answers. */
  askCancel(id: string): void {
    this.confirming = id;
    this.confirmBack = this.mode;
    this.mode = 'confirm';
    this.message = undefined;
  }

  /** The answer came: back to where the question was asked; the task to cancel if the answer was yes. */
  answerCancel(yes: boolean): string | undefined {
    const id = this.confirming;
    this.confirming = undefined;
    this.mode = this.confirmBack;
    return yes ? id : undefined;
  }
}
