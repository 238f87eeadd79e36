/** Draws `coord top`'s screen from its state: each pane's lines come from panes.ts, the layout from widgets.ts. */
import type { Top } from './context.js';
import { footerLine, headerLine, type ListLine, listPane, sidePane, taskList, timelineLines } from './panes.js';
import { planLines } from './plan-pane.js';
import type { View } from './screen-state.js';
import { layout } from './widgets.js';
import { attentionLines, treesLines } from './work-panes.js';

const confirmLine = (id: string, color: boolean) =>
  color
    ? `{red-fg}{bold}Cancel #${id}? y = yes, any other key = no{/bold}{/red-fg}`
    : `{bold}Cancel #${id}? y = yes, any other key = no{/bold}`;

const NAMES: Record<View, string> = { tasks: 'tasks', plan: 'plan', trees: 'work trees', attention: 'needs you' };

/** The main pane's lines for the view shown. */
function viewLines(top: Top, cols: number, now: number): ListLine[] {
  const { state, ui } = top;
  const { color } = top.opts;
  switch (ui.view) {
    case 'tasks':
      return taskList(state, cols, now, color);
    case 'plan': {
      const missing = new Set<string>();
      const lines = planLines(state, cols, color, missing);
      // A task the tree names that top does not hold (an older finished step): read it, once.
      top.feed.loadMissing(missing);
      return lines;
    }
    case 'trees':
      return treesLines(top.trees.view, cols, color, state.board === '');
    case 'attention':
      return attentionLines(state.attention, cols, now, color);
  }
}

export function drawFrame(top: Top): void {
  const { w, state, ui } = top;
  const { color } = top.opts;
  const now = Date.now();
  const W = w.screen.width;
  const { sideW, tlH, mainH } = layout(w);
  w.header.setContent(headerLine(state, W, { live: ui.live }));
  const rows = Math.max(1, mainH - 2);
  const lines = viewLines(top, W - sideW - 2, now);
  const sel = ui.place(lines, rows);
  const list = listPane(lines, sel, ui.offset, rows, NAMES[ui.view]);
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
