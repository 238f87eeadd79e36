// The dashboard (SPEC §9). Live from the event stream; every 15 s from a full
// snapshot while the stream is down. Plain modules, no build step, no CDN.
import { ApiError, BOARD_KEY, makeApi, takeToken } from './api.js';
import { Attention } from './attention.js';
import { Board } from './board.js';
import { Detail } from './detail.js';
import { Panels } from './panels.js';
import { Plan } from './plan.js';
import { Worktrees } from './worktrees.js';

const POLL_MS = 15_000;
const AGENT = 'dashboard';

const $ = (id) => document.getElementById(id);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function setStatus(text, kind) {
  const status = $('status');
  status.textContent = text;
  status.className = `status ${kind}`;
  document.body.dataset.stream = kind;
}

let noticeTimer;
function notify(err) {
  const notice = $('notice');
  notice.textContent = err instanceof ApiError ? `${err.code}: ${err.message}` : String(err?.message ?? err);
  notice.hidden = false;
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => {
    notice.hidden = true;
  }, 8000);
}

function showLogin() {
  $('login').hidden = false;
  setStatus('no token', 'bad');
}

function start(token) {
  const api = makeApi(token);
  const picker = $('board');
  const boards = new Set();
  const addBoard = (name) => {
    if (!name || boards.has(name)) return;
    boards.add(name);
    const option = document.createElement('option');
    option.value = option.textContent = name;
    const after = [...picker.options].slice(1).find((o) => o.value > name);
    picker.insertBefore(option, after ?? null);
  };
  let filter = sessionStorage.getItem(BOARD_KEY) ?? '';
  addBoard(filter);
  picker.value = filter;

  const board = new Board($('columns'), api, {
    onCancel: cancel,
    onApprove: (id) => approve(id).catch(notify),
    onError: notify,
    onBoard: addBoard,
    onOpen: (id, card) => detail.open(id, card),
    onChange: () => plan.schedule(() => board.tasks),
  });
  const panels = new Panels(
    { agents: $('agents'), locks: $('locks'), connectors: $('connectors'), timeline: $('timeline'), runs: $('runs') },
    api,
  );
  const detail = new Detail($('detail'), api, {
    onCancel: cancel,
    onApprove: approve,
    onError: notify,
    tasks: () => board.tasks,
  });
  const plan = new Plan($('plan'), {
    checkingOf: (id) => board.checkingOf(id),
    onOpen: (id, link) => detail.open(id, link),
    onApprove: (id) => approve(id).catch(notify),
  });
  const worktrees = new Worktrees($('worktrees'), api, () => [...boards].sort());
  const attention = new Attention($('attention'), api, {
    agent: AGENT,
    onError: notify,
    onOpen: (id, link) => detail.open(id, link),
    // What a button did shows at once; the events it causes settle the rest.
    onDone: (item, out) => {
      if (out?.task) board.upsert(out.task);
      else if (out?.integration) board.setIntegration(item.task_id, out.integration);
      else if (item.task_id) board.refetch(item.task_id);
    },
  });

  let lastSeq = 0;
  let loading = null;
  let buffered = [];
  let pollTimer = null;

  // Events that arrive while a snapshot loads wait, then apply on top of it in order.
  async function reload() {
    if (loading) return loading;
    loading = (async () => {
      try {
        panels.forget();
        worktrees.forget();
        await Promise.all([
          board.load(filter),
          panels.refresh(filter),
          panels.loadHistory(filter),
          attention.refresh(filter),
          worktrees.refresh(filter),
        ]);
        // SPEC §15: what the integrator is checking together, from the recent history the timeline read.
        board.setChecking(panels.recent);
        document.body.dataset.ready = 'true';
      } catch (e) {
        if (e instanceof ApiError && e.status === 401) showLogin();
        else notify(e);
      } finally {
        loading = null;
        const pending = buffered;
        buffered = [];
        apply(pending);
      }
    })();
    return loading;
  }

  function apply(events) {
    if (events.length === 0) return;
    board.applyEvents(events);
    panels.onEvents(events);
    detail.onEvents(events);
    attention.onEvents(events);
    worktrees.onEvents(events);
  }

  function onEvents(events) {
    for (const e of events) {
      if (e.seq > lastSeq) lastSeq = e.seq;
      addBoard(e.board);
    }
    if (loading) buffered.push(...events);
    else apply(events);
  }

  function live(isLive) {
    if (isLive) {
      clearInterval(pollTimer);
      pollTimer = null;
      setStatus('live', 'live');
    } else if (!pollTimer) {
      setStatus('reconnecting · polling every 15 s', 'polling');
      pollTimer = setInterval(reload, POLL_MS);
      if (!document.body.dataset.ready) reload();
    }
  }

  async function streamForever() {
    let backoff = 1000;
    for (;;) {
      try {
        await api.stream({
          since: lastSeq,
          onOpen: () => {
            backoff = 1000;
            live(true);
            // Subscribed before reading: whatever changes from here on arrives as an event.
            reload();
          },
          onEvents,
        });
      } catch (e) {
        if (e instanceof ApiError && e.status === 401) return showLogin();
      }
      live(false);
      await sleep(backoff);
      backoff = Math.min(backoff * 2, POLL_MS);
    }
  }

  /** SPEC §15/§19: approves a merge as `dashboard` (the task.approved event names who); the card shows it at once. */
  async function approve(id) {
    const { integration } = await api.post(`/v1/tasks/${encodeURIComponent(id)}/approve`, { agent: AGENT });
    board.setIntegration(id, integration);
    attention.onEvents([]);
  }

  async function cancel(id) {
    try {
      const { task } = await api.post(`/v1/tasks/${encodeURIComponent(id)}/cancel`, {
        agent: AGENT,
        reason: 'cancelled from the dashboard',
      });
      board.upsert(task);
      if (detail.id === id) detail.load(id);
    } catch (e) {
      notify(e);
    }
  }

  $('post').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const form = ev.currentTarget;
    const f = new FormData(form);
    const body = {
      agent: AGENT,
      board: filter || 'default',
      title: String(f.get('title')).trim(),
      kind: String(f.get('kind')).trim() || 'task',
      priority: Number(f.get('priority') || 0),
    };
    const forAgent = String(f.get('for')).trim();
    if (forAgent) body.for = forAgent;
    try {
      const { task } = await api.post('/v1/tasks', body);
      board.upsert(task);
      form.elements.title.value = '';
    } catch (e) {
      notify(e);
    }
  });

  picker.addEventListener('change', () => {
    filter = picker.value;
    sessionStorage.setItem(BOARD_KEY, filter);
    panels.showBoard(filter);
    reload();
  });

  setInterval(() => {
    const now = Date.now();
    board.tick(now);
    if (detail.isOpen) detail.tick(now);
  }, 1000);
  setInterval(() => {
    panels.refresh(filter).catch(() => {});
    attention.refresh(filter).catch(() => {});
    worktrees.refresh(filter).catch(() => {});
  }, POLL_MS);
  streamForever();
}

function main() {
  const token = takeToken();
  if (!token) return showLogin();
  start(token);
}

// A second `coord open` link pasted into this tab brings a new token.
window.addEventListener('hashchange', () => {
  if (/token=/.test(location.hash)) location.reload();
});
main();
