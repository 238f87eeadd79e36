/**
 * The hooks' link to the daemon: daemon.json for the URL, the token file for
 * auth, one HTTP/1.1 request per call over node:net (http-lite.ts). Never
 * starts a daemon (SPEC §10) and loads nothing but Node built-ins — the route
 * table (api/routes.ts) pulls in every operation's zod schema, which a hook
 * run on every edit cannot afford, so the few paths used here are spelled
 * out. Neither fetch (~50 ms of loading on its first call) nor node:http
 * (~7 ms): node:net is loaded anyway for the hook's stdin.
 *
 * The token goes only to a daemon that holds the state directory's daemon
 * lock (state-dir/daemon-live.ts: /proc/locks where it can prove it, else a
 * try-lock): daemon.json outlives a kill -9.
 *
 * Down is not slow (SPEC §10): no daemon.json, a refused connection, or a
 * daemon lock nobody holds means no daemon runs — the hook may fail open at
 * once (DaemonDown). A daemon that holds its lock but has not answered is
 * busy (stopped, swapping, a long fsync): a call with a deadline waits for it
 * until then, and only then gives up with DaemonBusy — never "allowed".
 */
import { PATHS } from '../api/paths.js';
import { decisionOf, type EditDecision, type EditRequest } from '../core/edits/edit-request.js';
import { liveDaemon } from '../state-dir/daemon-live.js';
import { exchange } from './http-lite.js';

export interface Answer<T = unknown> {
  status: number;
  body: T;
}

export interface HookDaemon {
  get<T>(path: string): Promise<Answer<T>>;
  /**
   * With `deadline` (epoch ms): wait for a live daemon until then (DaemonBusy after), not the short timeout.
   * `headers`: more request headers (plain ASCII values).
   */
  post<T>(path: string, body: unknown, deadline?: number, headers?: Record<string, string>): Promise<Answer<T>>;
  text(path: string): Promise<string>;
  /** Nothing left open: each call's connection is closed when it is answered. */
  close(): void;
}

/** No daemon answers, and none runs: a hook then allows the edit (or, strict, refuses). */
export class DaemonDown extends Error {}

/** The daemon runs (it holds its lock) but did not answer before the deadline. */
export class DaemonBusy extends Error {
  constructor(readonly waitedS: number) {
    super(`coord did not answer in ${waitedS}s`);
  }
}

/** Without a deadline (session start, stop): a short wait, then treated as down. */
const TIMEOUT_MS = 3000;

/**
 * Whether a daemon holds the state directory's daemon lock: the proof that tells "down" from "slow".
 * Loaded only on this failure path (fs-ext is a native addon a healthy edit never needs).
 */
async function daemonAlive(stateDir: string): Promise<boolean> {
  try {
    const { findRunningDaemon } = await import('../state-dir/daemon-lock.js');
    return findRunningDaemon(stateDir) !== null;
  } catch {
    // The lock cannot be read (a coordination lock held by a stopped process): assume alive, i.e. wait.
    return true;
  }
}

export function hookDaemon(stateDir: string, session?: string): HookDaemon {
  let linked: Promise<{ url: string; token: string }> | undefined;
  // On the first call: the token goes only to a daemon holding the state directory's lock.
  const link = () => {
    linked ??= (async () => {
      const live = await liveDaemon(stateDir);
      if (!live) throw new DaemonDown(`no coord daemon runs for ${stateDir}`);
      return live;
    })();
    return linked;
  };

  const send = async (
    method: string,
    path: string,
    body?: unknown,
    deadline?: number,
    more: Record<string, string> = {},
  ): Promise<Answer<string>> => {
    const { url, token } = await link();
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers = {
      ...more,
      authorization: `Bearer ${token}`,
      ...(session ? { 'coord-session': session } : {}),
      ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
    };
    const once = (waitMs: number) => exchange({ method, origin: url, path, headers, body: payload, waitMs });
    const gone = () => new DaemonDown(`the coord daemon at ${url} does not answer`);
    if (deadline === undefined) {
      const sent = await once(TIMEOUT_MS);
      if ('answer' in sent) return sent.answer;
      throw gone();
    }
    const started = Date.now();
    for (;;) {
      const sent = await once(Math.max(1, deadline - Date.now()));
      if ('answer' in sent) return sent.answer;
      if (sent.failed === 'refused' || !(await daemonAlive(stateDir))) throw gone();
      // Alive: a reset connection is tried again; a deadline reached is busy.
      if (sent.failed === 'timeout' || Date.now() >= deadline) {
        throw new DaemonBusy(Math.round((Date.now() - started) / 1000));
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const json = <T>(res: Answer<string>): Answer<T> => ({
    status: res.status,
    body: (res.body ? JSON.parse(res.body) : null) as T,
  });
  return {
    get: async (path) => json(await send('GET', path)),
    post: async (path, body, deadline, headers) => json(await send('POST', path, body, deadline, headers)),
    text: async (path) => (await send('GET', path)).body,
    close: () => {},
  };
}

export const query = (params: Record<string, string | undefined>): string => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, v);
  return q.toString();
};

/**
 * decide_edit over HTTP, one request at a time, for the command hooks' edits and shell changes: a live daemon
 * that answers anything but a decision refuses the request (SPEC §10: never read as "down").
 */
export const httpDecide =
  (daemon: HookDaemon, agent: string, deadline: number) =>
  async (r: EditRequest): Promise<EditDecision> => {
    const answer = await daemon.post(PATHS.decideEdit, { agent, ...r }, deadline);
    return decisionOf(answer.status, answer.body);
  };
