/**
 * `coord top`'s keys: what a key means in each mode, as data (a pure function, tested alone). The app
 * (app.ts) carries the action out; in `input` and `boards` the focused widget reads the keys itself.
 */
import { type Mode, VIEWS, type View } from './screen-state.js';

export type Action =
  | { do: 'quit' }
  /** Move the selection by this many tasks (±1e9: to the first or last). */
  | { do: 'move'; by: number }
  | { do: 'open' }
  | { do: 'close' }
  /** Scroll the detail view by this many lines. */
  | { do: 'scroll'; by: number }
  | { do: 'post' }
  /** Ask to cancel the selected task (or, in the detail view, the task shown). */
  | { do: 'cancel' }
  /** The answer to "cancel #id?": only y is a yes. */
  | { do: 'answer'; yes: boolean }
  | { do: 'filter' }
  | { do: 'clear-filter' }
  | { do: 'boards' }
  /** Show a view in the main pane: 1 tasks, 2 plan, 3 work trees, 4 attention (the help line says so). */
  | { do: 'view'; view: View };

const MAIN: Record<string, (page: number) => Action> = {
  q: () => ({ do: 'quit' }),
  up: () => ({ do: 'move', by: -1 }),
  k: () => ({ do: 'move', by: -1 }),
  down: () => ({ do: 'move', by: 1 }),
  j: () => ({ do: 'move', by: 1 }),
  pageup: (page) => ({ do: 'move', by: -page }),
  pagedown: (page) => ({ do: 'move', by: page }),
  space: (page) => ({ do: 'move', by: page }),
  home: () => ({ do: 'move', by: -1e9 }),
  g: () => ({ do: 'move', by: -1e9 }),
  end: () => ({ do: 'move', by: 1e9 }),
  'S-g': () => ({ do: 'move', by: 1e9 }),
  enter: () => ({ do: 'open' }),
  right: () => ({ do: 'open' }),
  l: () => ({ do: 'open' }),
  n: () => ({ do: 'post' }),
  p: () => ({ do: 'post' }),
  c: () => ({ do: 'cancel' }),
  x: () => ({ do: 'cancel' }),
  delete: () => ({ do: 'cancel' }),
  '/': () => ({ do: 'filter' }),
  f: () => ({ do: 'filter' }),
  b: () => ({ do: 'boards' }),
  escape: () => ({ do: 'clear-filter' }),
  ...Object.fromEntries(VIEWS.map((view, i) => [String(i + 1), (): Action => ({ do: 'view', view })])),
};

const DETAIL: Record<string, (page: number) => Action> = {
  escape: () => ({ do: 'close' }),
  q: () => ({ do: 'close' }),
  enter: () => ({ do: 'close' }),
  left: () => ({ do: 'close' }),
  h: () => ({ do: 'close' }),
  up: () => ({ do: 'scroll', by: -1 }),
  k: () => ({ do: 'scroll', by: -1 }),
  down: () => ({ do: 'scroll', by: 1 }),
  j: () => ({ do: 'scroll', by: 1 }),
  pageup: (page) => ({ do: 'scroll', by: -page }),
  pagedown: (page) => ({ do: 'scroll', by: page }),
  space: (page) => ({ do: 'scroll', by: page }),
  c: () => ({ do: 'cancel' }),
  x: () => ({ do: 'cancel' }),
};

/** What `key` (neo-blessed's `key.full`) does in `mode`; `page` is a page of the list. Null: nothing. */
export function keyAction(mode: Mode, key: string, page: number): Action | null {
  if (key === 'C-c') return { do: 'quit' };
  switch (mode) {
    case 'input':
    case 'boards':
      return null;
    case 'confirm':
      return { do: 'answer', yes: key === 'y' };
    case 'detail':
      return Object.hasOwn(DETAIL, key) ? (DETAIL[key]?.(page) ?? null) : null;
    case 'main':
      return Object.hasOwn(MAIN, key) ? (MAIN[key]?.(page) ?? null) : null;
  }
}
