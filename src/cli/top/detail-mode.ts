/**
 * The detail mode of `coord top`: one task over the board (detail.ts writes its text), read again while it
 * is open when an event about it arrives.
 */
import type { CoordEvent } from '../../core/model.js';
import { loadHistory, loadTask } from './board-feed.js';
import type { Top } from './context.js';
import { type DetailTask, detailText } from './detail.js';

/** Events come in bursts (claim, lock, note): the detail is read once they settle. */
const DETAIL_AFTER_EVENT_MS = 200;

export class DetailMode {
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly top: Top) {}

  open(id: string | undefined): void {
    if (!id) return;
    const { ui, w } = this.top;
    ui.detailId = id;
    ui.mode = 'detail';
    w.detail.setContent('loading…');
    w.detail.setScroll(0);
    w.detail.show();
    w.detail.setFront();
    w.screen.render();
    void this.fill();
  }

  close(): void {
    this.top.ui.detailId = undefined;
    this.top.w.detail.hide();
    this.top.ui.mode = 'main';
    this.top.draw();
  }

  scroll(by: number): void {
    this.top.w.detail.scroll(by);
    this.top.w.screen.render();
  }

  /** Events arrived: if one is about the task shown, read it again shortly. */
  onEvents(events: CoordEvent[]): void {
    const id = this.top.ui.detailId;
    // A window's event names no task of its own: the board state (already updated) says if this one is in it.
    const window = (e: CoordEvent) => e.type === 'integration.window' && this.top.state.checkingOf(id ?? '');
    if (!id || !events.some((e) => e.task_id === id || window(e))) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.fill(), DETAIL_AFTER_EVENT_MS);
  }

  private async fill(): Promise<void> {
    const { ui, w, state, opts } = this.top;
    const id = ui.detailId;
    if (!id) return;
    try {
      const [task, history] = await Promise.all([loadTask(opts.client, id), loadHistory(opts.client, id)]);
      if (id !== ui.detailId) return;
      if (!task) return this.top.say(`#${id} is gone`);
      state.upsert(task);
      const dependents = [...state.tasks.values()]
        .filter((t) => t.blocked_by?.includes(id))
        .map((t) => ({ id: t.id, state: t.state, title: t.title }));
      const checking = state.checkingOf(id);
      w.detail.setContent(
        detailText(task as DetailTask, history, dependents, opts.client.url, Date.now(), opts.color, checking),
      );
      w.detail.setLabel(` #${id} `);
      w.screen.render();
    } catch (e) {
      this.top.sayError(e);
    }
  }
}
