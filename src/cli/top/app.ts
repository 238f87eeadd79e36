/**
 * `coord top` on a terminal: the board drawn with neo-blessed, redrawn from the event stream. Loaded only by
 * `coord top` (a dynamic import), so no other command pays for the UI library.
 *
 * The parts: board-state.ts (the board's data, kept by the catalogue's reducer), live-board.ts (keeping it
 * current from the daemon), screen-state.ts (mode, selection, scroll), keys.ts (what a key does in each mode),
 * panes.ts and frame.ts (what is drawn), detail-mode.ts and dialogs.ts (the modes), widgets.ts (neo-blessed).
 *
 * The terminal is always given back: on q, Ctrl-C, SIGTERM, SIGHUP and on a crash the screen is destroyed
 * (normal buffer, cursor shown, raw mode off) before the process exits.
 */
import type { Screen } from 'neo-blessed';
import { follow, loadSnapshot, type Snapshot } from './board-feed.js';
import { BoardState } from './board-state.js';
import { errorText, type Top, type TopOptions } from './context.js';
import { DetailMode } from './detail-mode.js';
import { answerCancel, clearFilter, confirmCancel, filter, pickBoard, post, wireBoardPicker } from './dialogs.js';
import { drawFrame } from './frame.js';
import { type Action, keyAction } from './keys.js';
import { LiveBoard } from './live-board.js';
import { ScreenState, type View } from './screen-state.js';
import { TreesFeed } from './trees-feed.js';
import { makeWidgets } from './widgets.js';

export type { TopOptions } from './context.js';

const MESSAGE_MS = 5000;

/** Gives the terminal back once, on every way out; returns how to quit. */
function guardTerminal(screen: Screen): { quit: (code: number, message?: string) => never; restored: () => boolean } {
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    screen.destroy();
  };
  const quit = (code: number, message?: string): never => {
    restore();
    if (message) process.stderr.write(`${message}\n`);
    process.exit(code);
  };
  process.on('SIGTERM', () => quit(143));
  process.on('SIGINT', () => quit(130));
  process.on('SIGHUP', () => quit(129));
  process.on('uncaughtException', (e) => quit(70, `coord top: ${e.stack ?? e}`));
  process.on('unhandledRejection', (e) => quit(70, `coord top: ${(e as Error)?.stack ?? e}`));
  process.on('exit', restore);
  return { quit, restored: () => restored };
}

/** Builds the parts and ties them together. */
function assemble(opts: TopOptions): { top: Top; detail: DetailMode; quit: (code: number, message?: string) => never } {
  const w = makeWidgets(opts.color);
  const { quit, restored } = guardTerminal(w.screen);
  const state = new BoardState();
  state.board = opts.board;
  state.me = opts.agent;
  const ui = new ScreenState();
  let messageTimer: NodeJS.Timeout | undefined;
  let detail: DetailMode | undefined;
  const top: Top = {
    opts,
    w,
    state,
    ui,
    feed: new LiveBoard(state, opts.client, {
      changed: () => top.draw(),
      events: (events) => {
        detail?.onEvents(events);
        if (ui.view === 'trees') top.trees.onEvents(events, top.treeBoards);
      },
    }),
    trees: new TreesFeed(opts.client, () => top.draw()),
    treeBoards: () => (state.board ? [state.board] : [...state.boards].sort()),
    draw: () => {
      if (!restored()) drawFrame(top);
    },
    say: (text) => {
      ui.message = text;
      clearTimeout(messageTimer);
      messageTimer = setTimeout(() => {
        ui.message = undefined;
        top.draw();
      }, MESSAGE_MS);
      top.draw();
    },
    sayError: (e) => top.say(errorText(e)),
    postBoard: () => state.board || opts.board || 'default',
  };
  detail = new DetailMode(top);
  return { top, detail, quit };
}

/** Shows a view in the main pane; the work trees are read as it opens (and after events while it is shown). */
function showView(top: Top, view: View): void {
  if (!top.ui.show(view)) return;
  if (view === 'trees') void top.trees.refresh(top.treeBoards()).catch((e: unknown) => top.sayError(e));
  top.draw();
}

/** Carries out what a key means (keys.ts). */
function perform(top: Top, detail: DetailMode, quit: (code: number) => never, a: Action): void {
  const { ui } = top;
  const does: { [K in Action['do']]: (a: Extract<Action, { do: K }>) => void } = {
    quit: () => quit(0),
    move: (m) => ui.move(m.by) && top.draw(),
    open: () => detail.open(ui.selectedId),
    close: () => detail.close(),
    scroll: (m) => detail.scroll(m.by),
    post: () => post(top),
    cancel: () => confirmCancel(top, ui.mode === 'detail' ? ui.detailId : ui.selectedId),
    answer: (m) => void answerCancel(top, m.yes),
    filter: () => filter(top),
    'clear-filter': () => clearFilter(top),
    boards: () => pickBoard(top),
    view: (m) => showView(top, m.view),
  };
  (does[a.do] as (a: Action) => void)(a);
}

export async function runTop(opts: TopOptions): Promise<void> {
  const { top, detail, quit } = assemble(opts);
  const { w, state, feed } = top;
  wireBoardPicker(top);
  w.screen.on('keypress', (_ch, key) => {
    const action = keyAction(top.ui.mode, key.full, Math.max(1, w.list.height - 3));
    if (action) perform(top, detail, quit, action);
  });
  w.screen.on('resize', () => top.draw());

  top.draw();
  let snapshot: Snapshot;
  try {
    snapshot = await loadSnapshot(opts.client, state.board);
  } catch (e) {
    return quit(3, `coord: ${errorText(e)}`);
  }
  state.reset(snapshot);
  state.boards.add(top.postBoard());
  top.draw();
  setInterval(() => {
    feed.checkLapsed(Date.now());
    top.draw();
  }, 1000).unref();

  await follow(
    opts.stateDir,
    snapshot.since,
    (events) => feed.onEvents(events),
    (isLive) => {
      if (isLive && !top.ui.live) feed.refreshSide();
      top.ui.live = isLive;
      top.draw();
    },
  ).catch((e: unknown) => quit(3, `coord: ${errorText(e)}`));
}
