/**
 * `coord top` on a terminal: the board drawn with neo-blessed, redrawn from the event stream. Loaded only by
 * `coord top` (a dynamic import), so no other command pays for the UI library.
 *
 * The terminal is always given back: on q, Ctrl-C, SIGTERM, SIGHUP and on a crash the screen is destroyed
 * (normal buffer, cursor shown, raw mode off) before the process exits.
 */
import blessed, { type List, type Textbox } from 'neo-blessed';
import type { DaemonClient } from '../../client/daemon-client.js';
import type { CoordEvent } from '../../core/model.js';
import { operations } from '../../core/operations.js';
import { follow, loadAgentsAndLocks, loadHistory, loadSnapshot, loadTask } from './board-feed.js';
import { BoardState, filterText, isTerminal, parseFilter } from './board-state.js';
import { countdown } from './cells.js';
import { type DetailTask, detailText } from './detail.js';
import { footerLine, headerLine, type ListLine, sidePane, taskList, timelineLines } from './panes.js';

export interface TopOptions {
  client: DaemonClient;
  stateDir: string;
  /** The board to show first; '' = every board. */
  board: string;
  /** Who posts and cancels from here. */
  agent: string;
  color: boolean;
}

type Mode = 'main' | 'detail' | 'input' | 'confirm' | 'boards';

const MESSAGE_MS = 5000;
const REFRESH_AFTER_EVENT_MS = 300;

export async function runTop(opts: TopOptions): Promise<void> {
  const { client, color } = opts;
  const state = new BoardState();
  state.board = opts.board;
  const postBoard = () => state.board || opts.board || 'default';

  const screen = blessed.screen({ smartCSR: true, fullUnicode: true, warnings: false, title: 'coord top' });
  // In a UTF-8 locale, draw lines as Unicode rather than the terminal's ACS set: ACS cells come out as
  // letters (lqqk) in tmux's capture-pane, in logs of the session and in some SSH clients.
  if (screen.program.tput.unicode) screen.program.tput.brokenACS = true;
  let restored = false;
  const quit = (code: number, message?: string): never => {
    if (!restored) {
      restored = true;
      screen.destroy();
    }
    if (message) process.stderr.write(`${message}\n`);
    process.exit(code);
  };
  process.on('SIGTERM', () => quit(143));
  process.on('SIGINT', () => quit(130));
  process.on('SIGHUP', () => quit(129));
  process.on('uncaughtException', (e) => quit(70, `coord top: ${e.stack ?? e}`));
  process.on('unhandledRejection', (e) => quit(70, `coord top: ${(e as Error)?.stack ?? e}`));
  process.on('exit', () => {
    if (!restored) {
      restored = true;
      screen.destroy();
    }
  });

  const border = { type: 'line' as const };
  const frame = (label: string) => ({
    border,
    label,
    tags: true,
    wrap: false,
    style: color ? { border: { fg: 'gray' } } : {},
  });
  const header = blessed.box({ parent: screen, top: 0, left: 0, height: 1, width: '100%', tags: true, wrap: false });
  const list = blessed.box({ parent: screen, top: 1, left: 0, ...frame(' tasks ') });
  const side = blessed.box({ parent: screen, top: 1, ...frame(' agents · locks ') });
  const timeline = blessed.box({ parent: screen, left: 0, width: '100%', ...frame(' events ') });
  const footer = blessed.box({ parent: screen, bottom: 0, left: 0, height: 1, width: '100%', tags: true, wrap: false });
  const detail = blessed.box({
    parent: screen,
    top: 'center',
    left: 'center',
    width: '92%',
    height: '90%',
    border,
    label: ' task ',
    tags: true,
    hidden: true,
    scrollable: true,
    alwaysScroll: true,
    style: color ? { border: { fg: 'cyan' } } : {},
  });
  const input: Textbox = blessed.textbox({
    parent: screen,
    top: 'center',
    left: 'center',
    width: '80%',
    height: 3,
    border,
    hidden: true,
    style: color ? { border: { fg: 'yellow' } } : {},
  });
  const boards: List = blessed.list({
    parent: screen,
    top: 'center',
    left: 'center',
    width: 40,
    height: 12,
    border,
    label: ' board (enter pick · esc back) ',
    hidden: true,
    keys: true,
    vi: true,
    style: { selected: { inverse: true } },
  });

  let mode: Mode = 'main';
  let live = false;
  let message: string | undefined;
  let messageTimer: NodeJS.Timeout | undefined;
  let selectedId: string | undefined;
  let offset = 0;
  let lines: ListLine[] = [];
  let detailId: string | undefined;
  let confirming: string | undefined;
  let confirmBack: Mode = 'main';

  const say = (text: string) => {
    message = text;
    clearTimeout(messageTimer);
    messageTimer = setTimeout(() => {
      message = undefined;
      draw();
    }, MESSAGE_MS);
    draw();
  };
  const sayError = (e: unknown) => say(`${(e as { code?: string }).code ?? 'error'}: ${(e as Error).message ?? e}`);

  function layout(W: number, H: number): { sideW: number; tlH: number; mainH: number } {
    const sideW = W >= 140 ? 44 : W >= 110 ? 36 : 28;
    const tlH = H >= 40 ? 12 : H >= 30 ? 9 : 7;
    const mainH = Math.max(3, H - 2 - tlH);
    list.width = W - sideW;
    list.height = mainH;
    side.left = W - sideW;
    side.width = sideW;
    side.height = mainH;
    timeline.top = 1 + mainH;
    timeline.height = tlH;
    return { sideW, tlH, mainH };
  }

  function draw(): void {
    if (restored) return;
    const now = Date.now();
    const W = screen.width;
    const H = screen.height;
    const { sideW, tlH, mainH } = layout(W, H);
    header.setContent(headerLine(state, W, { live }));
    const inner = W - sideW - 2;
    lines = taskList(state, inner, now, color);
    const tasks = lines.filter((l) => l.taskId);
    if (!tasks.some((l) => l.taskId === selectedId)) selectedId = tasks[0]?.taskId;
    const sel = lines.findIndex((l) => l.taskId === selectedId);
    const rows = Math.max(1, mainH - 2);
    if (sel >= 0) {
      if (sel < offset) offset = Math.max(0, sel - 1);
      if (sel >= offset + rows) offset = sel - rows + 1;
    }
    offset = Math.max(0, Math.min(offset, lines.length - rows));
    list.setContent(
      lines
        .slice(offset, offset + rows)
        .map((l, i) => (offset + i === sel ? `{inverse}${l.text()}{/inverse}` : l.text()))
        .join('\n'),
    );
    list.setLabel(
      lines.length > rows
        ? ` tasks ${offset + 1}-${Math.min(lines.length, offset + rows)}/${lines.length} `
        : ' tasks ',
    );
    side.setContent(
      sidePane(state, sideW - 2, now, color)
        .slice(0, mainH - 2)
        .join('\n'),
    );
    timeline.setContent(timelineLines(state, W - 2, tlH - 2, color).join('\n'));
    footer.setContent(mode === 'confirm' && confirming ? confirmLine(confirming) : footerLine(W, message, color));
    screen.render();
  }
  const confirmLine = (id: string) =>
    color
      ? `{red-fg}{bold}Cancel #${id}? y = yes, any other key = no{/bold}{/red-fg}`
      : `{bold}Cancel #${id}? y = yes, any other key = no{/bold}`;

  // ---- data ------------------------------------------------------------------------------------------
  const refetching = new Set<string>();
  async function refetch(id: string): Promise<void> {
    if (refetching.has(id)) return;
    refetching.add(id);
    try {
      const t = await loadTask(client, id);
      if (t) state.upsert(t);
      draw();
    } finally {
      refetching.delete(id);
    }
  }

  let sideTimer: NodeJS.Timeout | undefined;
  const refreshSide = () => {
    clearTimeout(sideTimer);
    sideTimer = setTimeout(async () => {
      try {
        const { agents, locks } = await loadAgentsAndLocks(client, state.board);
        state.agents = agents;
        state.locks = locks;
        draw();
      } catch {
        // The daemon is restarting: the stream's reconnect brings a fresh read.
      }
    }, REFRESH_AFTER_EVENT_MS);
  };

  let loading = false;
  let buffered: CoordEvent[] = [];
  function onEvents(events: CoordEvent[]): void {
    if (loading) {
      buffered.push(...events);
      return;
    }
    for (const id of state.apply(events)) {
      // A dependent's `blocked` changes when its blocker ends; a parent's counts when a child does.
      for (const t of state.tasks.values()) {
        if (t.blocked_by?.includes(id) || (t.id !== id && state.tasks.get(id)?.parent === t.id)) void refetch(t.id);
      }
      void refetch(id);
    }
    if (events.some((e) => e.task_id && e.task_id === detailId)) scheduleDetail();
    refreshSide();
    draw();
  }

  async function reload(): Promise<void> {
    loading = true;
    try {
      const snap = await loadSnapshot(client, state.board);
      state.tasks.clear();
      state.events = [];
      state.reset(snap);
    } finally {
      loading = false;
      const pending = buffered;
      buffered = [];
      onEvents(pending);
    }
  }

  // ---- detail ----------------------------------------------------------------------------------------
  let detailTimer: NodeJS.Timeout | undefined;
  const scheduleDetail = () => {
    clearTimeout(detailTimer);
    detailTimer = setTimeout(() => void fillDetail(), 200);
  };
  async function fillDetail(): Promise<void> {
    const id = detailId;
    if (!id) return;
    try {
      const [task, history] = await Promise.all([loadTask(client, id), loadHistory(client, id)]);
      if (id !== detailId) return;
      if (!task) {
        say(`#${id} is gone`);
        return;
      }
      state.upsert(task);
      const dependents = [...state.tasks.values()]
        .filter((t) => t.blocked_by?.includes(id))
        .map((t) => ({ id: t.id, state: t.state, title: t.title }));
      detail.setContent(detailText(task as DetailTask, history, dependents, client.url, Date.now(), color));
      detail.setLabel(` #${id} `);
      screen.render();
    } catch (e) {
      sayError(e);
    }
  }
  function openDetail(): void {
    if (!selectedId) return;
    detailId = selectedId;
    mode = 'detail';
    detail.setContent('loading…');
    detail.setScroll(0);
    detail.show();
    detail.setFront();
    screen.render();
    void fillDetail();
  }
  function closeDetail(): void {
    detailId = undefined;
    detail.hide();
    mode = 'main';
    draw();
  }

  // ---- actions ---------------------------------------------------------------------------------------
  function ask(label: string, value: string, done: (text: string | null) => void): void {
    const back = mode;
    mode = 'input';
    input.setLabel(` ${label} `);
    input.setValue(value);
    input.show();
    input.setFront();
    input.focus();
    screen.render();
    input.readInput((_err, text) => {
      input.hide();
      mode = back;
      draw();
      done(text);
    });
  }

  function post(): void {
    ask(`new task on ${postBoard()}: title (enter post · esc back)`, '', async (title) => {
      if (!title?.trim()) return;
      try {
        const res = await client.call(operations.createTask, {
          agent: opts.agent,
          board: postBoard(),
          title: title.trim(),
        });
        state.upsert(res.task);
        selectedId = res.task.id;
        say(`posted #${res.task.id}`);
      } catch (e) {
        sayError(e);
      }
    });
  }

  function confirmCancel(id: string | undefined): void {
    const t = id ? state.tasks.get(id) : undefined;
    if (!t || isTerminal(t.state)) {
      say(t ? `#${t.id} is ${t.state} already` : 'no task selected');
      return;
    }
    confirming = t.id;
    confirmBack = mode;
    mode = 'confirm';
    message = undefined;
    draw();
  }
  async function doCancel(id: string): Promise<void> {
    try {
      const res = await client.call(operations.cancelTask, {
        task_id: id,
        agent: opts.agent,
        reason: 'cancelled from coord top',
      });
      state.upsert(res.task);
      say(`cancelled #${id}`);
    } catch (e) {
      sayError(e);
    }
  }

  function filter(): void {
    ask('filter: kind:K agent:A words (enter apply · empty clears)', filterText(state.filter), (text) => {
      if (text === null) return;
      state.filter = parseFilter(text);
      offset = 0;
      draw();
    });
  }

  function pickBoard(): void {
    const names = ['(all boards)', ...[...state.boards].sort()];
    mode = 'boards';
    boards.setItems(names);
    boards.select(Math.max(0, state.board ? names.indexOf(state.board) : 0));
    boards.show();
    boards.setFront();
    boards.focus();
    screen.render();
  }
  boards.on('select', (_item: unknown, index: number) => {
    const names = ['(all boards)', ...[...state.boards].sort()];
    boards.hide();
    mode = 'main';
    const next = index === 0 ? '' : (names[index] ?? '');
    if (next === state.board) return draw();
    state.board = next;
    offset = 0;
    draw();
    reload()
      .then(() => {
        refreshSide();
        draw();
      })
      .catch(sayError);
  });
  boards.on('cancel', () => {
    boards.hide();
    mode = 'main';
    draw();
  });

  function move(by: number): void {
    const ids = lines.filter((l) => l.taskId).map((l) => l.taskId as string);
    if (ids.length === 0) return;
    const at = Math.max(0, ids.indexOf(selectedId ?? ''));
    selectedId = ids[Math.max(0, Math.min(ids.length - 1, at + by))];
    draw();
  }

  screen.on('keypress', (_ch, key) => {
    if (key.full === 'C-c') return quit(0);
    const page = Math.max(1, (list.height as number) - 3);
    switch (mode) {
      case 'input':
      case 'boards':
        return;
      case 'confirm': {
        const id = confirming;
        confirming = undefined;
        mode = confirmBack;
        if (key.full === 'y' && id) void doCancel(id);
        else say('not cancelled');
        return;
      }
      case 'detail':
        if (['escape', 'q', 'enter', 'left', 'h'].includes(key.full)) return closeDetail();
        if (key.full === 'up' || key.full === 'k') detail.scroll(-1);
        else if (key.full === 'down' || key.full === 'j') detail.scroll(1);
        else if (key.full === 'pageup') detail.scroll(-page);
        else if (key.full === 'pagedown' || key.full === 'space') detail.scroll(page);
        else if (key.full === 'c' || key.full === 'x') return confirmCancel(detailId);
        screen.render();
        return;
      case 'main':
        switch (key.full) {
          case 'q':
            return quit(0);
          case 'up':
          case 'k':
            return move(-1);
          case 'down':
          case 'j':
            return move(1);
          case 'pageup':
            return move(-page);
          case 'pagedown':
          case 'space':
            return move(page);
          case 'home':
          case 'g':
            return move(-1e9);
          case 'end':
          case 'S-g':
            return move(1e9);
          case 'enter':
          case 'right':
          case 'l':
            return openDetail();
          case 'n':
          case 'p':
            return post();
          case 'c':
          case 'x':
          case 'delete':
            return confirmCancel(selectedId);
          case '/':
          case 'f':
            return filter();
          case 'b':
            return pickBoard();
          case 'escape':
            if (filterText(state.filter)) {
              state.filter = {};
              draw();
            }
            return;
        }
    }
  });
  screen.on('resize', () => draw());

  // ---- start -----------------------------------------------------------------------------------------
  draw();
  let snapshot: Awaited<ReturnType<typeof loadSnapshot>>;
  try {
    snapshot = await loadSnapshot(client, state.board);
  } catch (e) {
    return quit(3, `coord: ${(e as { code?: string }).code ?? 'error'}: ${(e as Error).message}`);
  }
  state.reset(snapshot);
  state.boards.add(postBoard());
  draw();

  const lapsedChecked = new Set<string>();
  setInterval(() => {
    const now = Date.now();
    for (const t of state.tasks.values()) {
      // A lapsed lease may have been renewed by a heartbeat (no event): read it again, once.
      if (t.state === 'claimed' && countdown(t.lease_until, now) === 'lapsed' && !lapsedChecked.has(t.id)) {
        lapsedChecked.add(t.id);
        setTimeout(() => void refetch(t.id), 1500);
      }
    }
    draw();
  }, 1000).unref();

  await follow(opts.stateDir, snapshot.since, onEvents, (isLive) => {
    if (isLive && !live) refreshSide();
    live = isLive;
    draw();
  }).catch((e: unknown) => quit(3, `coord: ${(e as { code?: string }).code ?? 'error'}: ${(e as Error).message}`));
}
