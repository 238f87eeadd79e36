/**
 * `coord top`'s widgets (neo-blessed): the header, the task list, the side pane (agents · locks), the
 * timeline, the footer, and the overlays (task detail, prompt, board picker); and where each pane goes for a
 * terminal's size (paneSizes, a pure function tested alone).
 */
import blessed, { type Element as Box, type List, type Screen, type Textbox } from 'neo-blessed';

export interface Widgets {
  screen: Screen;
  header: Box;
  list: Box;
  side: Box;
  timeline: Box;
  footer: Box;
  detail: Box;
  input: Textbox;
  boards: List;
}

export interface PaneSizes {
  /** The side pane's width. */
  sideW: number;
  /** The timeline's height. */
  tlH: number;
  /** The height of the task list and the side pane. */
  mainH: number;
}

/** Wider terminals get a wider side pane, taller ones a longer timeline; the list takes the rest. */
export function paneSizes(W: number, H: number): PaneSizes {
  const sideW = W >= 140 ? 44 : W >= 110 ? 36 : 28;
  const tlH = H >= 40 ? 12 : H >= 30 ? 9 : 7;
  return { sideW, tlH, mainH: Math.max(3, H - 2 - tlH) };
}

/** Places the panes for the screen's size now; returns the sizes. */
export function layout(w: Widgets): PaneSizes {
  const W = w.screen.width;
  const sizes = paneSizes(W, w.screen.height);
  w.list.width = W - sizes.sideW;
  w.list.height = sizes.mainH;
  w.side.left = W - sizes.sideW;
  w.side.width = sizes.sideW;
  w.side.height = sizes.mainH;
  w.timeline.top = 1 + sizes.mainH;
  w.timeline.height = sizes.tlH;
  return sizes;
}

const border = { type: 'line' as const };

function overlays(screen: Screen, color: boolean): Pick<Widgets, 'detail' | 'input' | 'boards'> {
  const centred = { parent: screen, top: 'center', left: 'center', border, hidden: true } as const;
  const detail = blessed.box({
    ...centred,
    width: '92%',
    height: '90%',
    label: ' task ',
    tags: true,
    scrollable: true,
    alwaysScroll: true,
    style: color ? { border: { fg: 'cyan' } } : {},
  });
  const input = blessed.textbox({
    ...centred,
    width: '80%',
    height: 3,
    style: color ? { border: { fg: 'yellow' } } : {},
  });
  const boards = blessed.list({
    ...centred,
    width: 40,
    height: 12,
    label: ' board (enter pick · esc back) ',
    keys: true,
    vi: true,
    style: { selected: { inverse: true } },
  });
  return { detail, input, boards };
}

export function makeWidgets(color: boolean): Widgets {
  const screen = blessed.screen({ smartCSR: true, fullUnicode: true, warnings: false, title: 'coord top' });
  // In a UTF-8 locale, draw lines as Unicode rather than the terminal's ACS set: ACS cells come out as
  // letters (lqqk) in tmux's capture-pane, in logs of the session and in some SSH clients.
  if (screen.program.tput.unicode) screen.program.tput.brokenACS = true;
  const frame = (label: string) => ({
    border,
    label,
    tags: true,
    wrap: false,
    style: color ? { border: { fg: 'gray' } } : {},
  });
  const line = { parent: screen, left: 0, height: 1, width: '100%', tags: true, wrap: false } as const;
  return {
    screen,
    header: blessed.box({ ...line, top: 0 }),
    list: blessed.box({ parent: screen, top: 1, left: 0, ...frame(' tasks ') }),
    side: blessed.box({ parent: screen, top: 1, ...frame(' agents · locks ') }),
    timeline: blessed.box({ parent: screen, left: 0, width: '100%', ...frame(' events ') }),
    footer: blessed.box({ ...line, bottom: 0 }),
    ...overlays(screen, color),
  };
}
