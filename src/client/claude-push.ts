/**
 * Push into a live Claude Code session (SPEC §12). Claude Code hands its stdio
 * MCP servers — `coord mcp` — a messaging socket (CLAUDE_CODE_MESSAGING_SOCKET,
 * CLAUDE_CODE_MESSAGING_TOKEN). One JSON line `{"type":"auth","token":…}` and
 * then `{"type":"user","message":{"role":"user","content":…}}` on that unix
 * socket reaches the model in its next request, mid-turn, or starts a turn in
 * an idle session. The protocol is undocumented, so it is detected at run time
 * and every failure falls back silently: the line then waits for the next
 * inbox, `coord prime` or the stop hook.
 *
 * The relay follows the daemon's event stream for its board; for a message to
 * its agent it peeks the pending messages, writes one frame each, and only then
 * records them as delivered via push. A handoff to its agent, or a private task
 * posted for it, is pushed as one line too (tasks have no receipts).
 */
import { createConnection } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { PATHS, taskPath } from '../api/paths.js';
import { addressedTo } from '../core/event-entries.js';
import { pushLine } from '../core/messages/message-text.js';
import { worthATurn } from '../core/messages/stop-news.js';
import type { CoordEvent, Message, Task } from '../core/model.js';
import { markTasksShown, shownTasks } from '../state-dir/shown-tasks.js';
import type { DaemonEndpoint } from './daemon-link.js';
import { httpRequest } from './http.js';
import { query as q } from './query.js';
import { readSse } from './sse-reader.js';

export const SOCKET_ENV = 'CLAUDE_CODE_MESSAGING_SOCKET';
export const TOKEN_ENV = 'CLAUDE_CODE_MESSAGING_TOKEN';

export interface ClaudePushOptions {
  socketPath: string;
  token: string;
  board: string;
  /** The session's agent name; undefined until the client has initialised (the relay names it then). */
  agent: () => string | undefined;
  /** The running daemon, if any (never starts one: the relay's first call does). */
  find: () => DaemonEndpoint | null;
  log: (message: string) => void;
  /** The state directory: a task line pushed is recorded there, so the stop hook does not show it again. */
  stateDir?: string;
}

/** The push path when the client offers one, else null (nothing to detect: no socket in the environment). */
export function claudePushFromEnv(
  env: NodeJS.ProcessEnv,
  opts: Omit<ClaudePushOptions, 'socketPath' | 'token'>,
): ClaudePush | null {
  const socketPath = env[SOCKET_ENV];
  const token = env[TOKEN_ENV];
  if (!socketPath || !token) return null;
  return new ClaudePush({ ...opts, socketPath, token });
}

const RETRY_MS = 500;
const WRITE_TIMEOUT_MS = 2000;

/** One user frame for the model. */
export const userFrame = (content: string) => ({ type: 'user', message: { role: 'user', content } });

/**
 * Writes the auth line and the frames on one connection. Resolves once every byte is handed to the
 * socket; rejects on any failure (no socket, refused, timeout): the caller then records nothing.
 */
export function writeFrames(socketPath: string, token: string, contents: string[]): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const socket = createConnection(socketPath);
    const timer = setTimeout(() => socket.destroy(new Error('messaging socket timed out')), WRITE_TIMEOUT_MS);
    socket.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.once('connect', () => {
      const lines = [{ type: 'auth', token }, ...contents.map(userFrame)].map((f) => `${JSON.stringify(f)}\n`);
      socket.end(lines.join(''), () => {
        clearTimeout(timer);
        resolve();
      });
    });
    // The other side may answer; nothing of it is needed, but it must not pile up.
    socket.on('data', () => {});
  });
}

export class ClaudePush {
  private closed = false;
  private readonly abort = new AbortController();
  private last: number | undefined;
  /** Deliveries run one at a time, so two events never push the same message twice. */
  private chain: Promise<void> = Promise.resolve();
  private warned = false;
  /** Pushes that were written, for the latency figure (message sent → frame written). */
  readonly pushed: { id: string; at: number }[] = [];

  constructor(private readonly opts: ClaudePushOptions) {}

  /** Follows the daemon's events until close(); never throws. */
  start(): void {
    void this.follow().catch((err) => this.opts.log(`push stopped: ${(err as Error).message}`));
  }

  close(): void {
    this.closed = true;
    this.abort.abort();
  }

  private async follow(): Promise<void> {
    while (!this.closed) {
      try {
        const endpoint = this.opts.agent() ? this.opts.find() : null;
        if (endpoint) await this.stream(endpoint);
      } catch {
        // No daemon yet, or it went away or restarted: look again, and resume from the last event seen.
      }
      if (!this.closed) await sleep(RETRY_MS, undefined, { signal: this.abort.signal }).catch(() => {});
    }
  }

  private async stream(endpoint: DaemonEndpoint): Promise<void> {
    const res = await httpRequest(`${endpoint.url}${PATHS.events}${q({ board: this.opts.board })}`, {
      headers: {
        authorization: `Bearer ${endpoint.token}`,
        accept: 'text/event-stream',
        ...(this.last === undefined ? {} : { 'last-event-id': String(this.last) }),
      },
      signal: this.abort.signal,
    });
    if (!res.ok) {
      void res.text().catch(() => {});
      return;
    }
    if (this.last === undefined) this.last = 0;
    // Subscribed: catch up on what arrived before (or while the daemon was away); later ones come as events.
    const me = this.opts.agent();
    if (me) this.queue(() => this.pushMessages(endpoint, me));
    for await (const m of readSse(res.body)) {
      const e = JSON.parse(m.data) as CoordEvent;
      this.last = e.seq;
      this.onEvent(endpoint, e);
    }
  }

  private onEvent(endpoint: DaemonEndpoint, e: CoordEvent): void {
    const me = this.opts.agent();
    if (!me || e.board !== this.opts.board) return;
    // Whom the event names (the catalogue, core/event-entries.ts): a message, a handoff, a task posted for me.
    const says = addressedTo(e, me);
    if (says === null) return;
    if (e.type === 'message.sent') this.queue(() => this.pushMessages(endpoint, me));
    else if (e.task_id) {
      const id = e.task_id;
      this.queue(() => this.pushTask(endpoint, me, id, says));
    }
  }

  private queue(job: () => Promise<void>): void {
    this.chain = this.chain.then(job).catch((err) => this.fallBack(err));
  }

  private fallBack(err: unknown): void {
    // Silent for the model; one line on stderr for whoever reads the client's MCP log.
    if (!this.warned) this.opts.log(`push unavailable (${(err as Error).message}); messages wait for the inbox`);
    this.warned = true;
  }

  private async pushMessages(endpoint: DaemonEndpoint, me: string): Promise<void> {
    const pending = await this.call<{ messages: Message[] }>(endpoint, 'POST', PATHS.messagesPending, {
      agent: me,
      board: this.opts.board,
      via: 'push',
      peek: true,
    });
    // coord's own notices that ask nothing would start a model turn for nothing: they wait for the inbox.
    const worth = pending.messages.filter(worthATurn);
    if (worth.length === 0) return;
    await writeFrames(
      this.opts.socketPath,
      this.opts.token,
      worth.map((m) => pushLine(m)),
    );
    const at = Date.now();
    for (const m of worth) this.pushed.push({ id: m.id, at });
    // Written: now it counts as delivered (an inbox that showed it meanwhile keeps its own first delivery).
    await this.call(endpoint, 'POST', PATHS.messagesPending, {
      agent: me,
      board: this.opts.board,
      via: 'push',
      ids: worth.map((m) => m.id),
    });
  }

  private async pushTask(endpoint: DaemonEndpoint, me: string, taskId: string, how: string): Promise<void> {
    const { task } = await this.call<{ task: Task }>(endpoint, 'GET', `${taskPath(taskId)}${q({ agent: me })}`);
    if (task.state !== 'queued') return;
    const { stateDir, board } = this.opts;
    // Shown already (by the stop hook, or an earlier push): a task line reaches the model once.
    if (stateDir && shownTasks(stateDir, me, board).has(task.id)) return;
    const note = task.notes?.at(-1);
    const noted = note ? ` — note from ${note.agent}: ${note.text}` : '';
    const line = `[coord] #${task.id} ${how}: ${task.title}${noted} — claim_task {"task_id":"${task.id}"} to take it`;
    await writeFrames(this.opts.socketPath, this.opts.token, [line]);
    if (stateDir) markTasksShown(stateDir, me, board, [task.id]);
  }

  private async call<T>(endpoint: DaemonEndpoint, method: string, path: string, body?: unknown): Promise<T> {
    const res = await httpRequest(endpoint.url + path, {
      method,
      headers: {
        authorization: `Bearer ${endpoint.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: this.abort.signal,
    });
    if (!res.ok) {
      void res.text().catch(() => {});
      throw new Error(`the daemon answered HTTP ${res.status} to ${method} ${path.split('?')[0]}`);
    }
    return res.json<T>();
  }
}
