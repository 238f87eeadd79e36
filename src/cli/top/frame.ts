/** Draws `coord top`'s screen from its state: each pane's lines come from panes.ts, the layout from widgets.ts. */
import type { Top } from './context.js';
import { footerLine, headerLine, listPane, sidePane, taskList, timelineLines } from './panes.js';
import { layout } from './widgets.js';

const confirmLine = (id: string, color: boolean) =>
  color
    ? `{red-fg}{bold}Cancel #${id}? y = yes, any other key = no{/bold}{/red-fg}`
    : `{bold}Cancel #${id}? y = yes, any other key = no{/bold}`;

export function drawFrame(top: Top): void {
  const { w, state, ui } = top;
  const { color } = top.opts;
  const now = Date.now();
  const W = w.screen.width;
  const { sideW, tlH, mainH } = layout(w);
  w.header.setContent(headerLine(state, W, { live: ui.live }));
  const rows = Math.max(1, mainH - 2);
  const lines = taskList(state, W - sideW - 2, now, color);
  const sel = ui.place(lines, rows);
  const list = listPane(lines, sel, ui.offset, rows);
  w.list.setContent(list.content);
  w.list.setLabel(list.label);
  w.side.setContent(
    sidePane(state, sideW - 2, now, color)
      .slice(0, mainH - 2)
      .join('\n'),
  );
  w.timeline.setContent(timelineLines(state, W - 2, tlH - 2, color).join('\n'));
  w.footer.setContent(
    ui.mode === 'confirm' && ui.confirming ? confirmLine(ui.confirming, color) : footerLine(W, ui.message, color),
  );
  w.screen.render();
}
