/**
 * The hooks' link to the daemon: daemon.json for the URL, the token file for
 * auth, plain node:http. Never starts a daemon (SPEC §10) and loads nothing
 * but Node built-ins — the route table (api/routes.ts) pulls in every
 * operation's zod schema, which a hook run on every edit cannot afford, so
 * the few paths used here are spelled out. node:http rather than fetch:
 * fetch's first call costs ~50 ms of loading on every hook run.
 *
 * Down is not slow (SPEC §10): no daemon.json, a refused connection, or a
 * daemon lock nobody holds means no daemon runs — the hook may fail open at
 * once (DaemonDown). A daemon that holds its lock but has not answered is
 * busy (stopped, swapping, a long fsync): a call with a deadline waits for it
 * until then, and only then gives up with DaemonBusy — never "allowed".
 */
import { Agent, request } from 'node:http';
import { liveDaemonUrl } from '../state-dir/daemon-lock.js';
import { readToken } from '../state-dir/token.js';

export interface Answer<T = unknown> {
  status: number;
  body: T;
}

export interface HookDaemon {
  url: string;
  get<T>(path: string): Promise<Answer<T>>;
  /** With `deadline` (epoch ms): wait for a live daemon until then (DaemonBusy after), not the short timeout. */
  post<T>(path: string, body: unknown, deadline?: number): Promise<Answer<T>>;
  text(path: string): Promise<string>;
  /** Drop the kept-alive socket, so the hook's process can exit at once. */
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

/** Errors that say nothing listens there: the daemon is gone. */
const REFUSED = new Set(['ECONNREFUSED', 'ENOENT', 'EADDRNOTAVAIL']);

export function hookDaemon(stateDir: string, session?: string): HookDaemon {
  // The token goes only to a daemon holding the state directory's lock: daemon.json outlives a kill -9.
  const url = liveDaemonUrl(stateDir);
  const info = url ? { url } : null;
  let token: string;
  try {
    token = readToken(stateDir);
  } catch {
    throw new DaemonDown(`no coord daemon runs for ${stateDir}`);
  }
  if (!info) throw new DaemonDown(`no coord daemon runs for ${stateDir}`);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const gone = () => new DaemonDown(`the coord daemon at ${info.url} does not answer`);

  type Sent = { answer: Answer<string> } | { failed: 'refused' | 'error' | 'timeout' };
  const once = (method: string, path: string, payload: string | undefined, waitMs: number): Promise<Sent> =>
    new Promise((resolve) => {
      const req = request(
        info.url + path,
        {
          method,
          agent,
          headers: {
            authorization: `Bearer ${token}`,
            ...(session ? { 'coord-session': session } : {}),
            ...(payload === undefined
              ? {}
              : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            clearTimeout(timer);
            resolve({ answer: { status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') } });
          });
          res.on('error', () => resolve({ failed: 'error' }));
        },
      );
      const timer = setTimeout(() => {
        resolve({ failed: 'timeout' });
        req.destroy();
      }, waitMs);
      req.on('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        resolve({ failed: REFUSED.has(e.code ?? '') ? 'refused' : 'error' });
      });
      req.end(payload);
    });

  const send = async (method: string, path: string, body?: unknown, deadline?: number): Promise<Answer<string>> => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    if (deadline === undefined) {
      const sent = await once(method, path, payload, TIMEOUT_MS);
      if ('answer' in sent) return sent.answer;
      throw gone();
    }
    const started = Date.now();
    for (;;) {
      const sent = await once(method, path, payload, Math.max(1, deadline - Date.now()));
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
    url: info.url,
    get: async (path) => json(await send('GET', path)),
    post: async (path, body, deadline) => json(await send('POST', path, body, deadline)),
    text: async (path) => (await send('GET', path)).body,
    close: () => agent.destroy(),
  };
}

export const query = (params: Record<string, string | undefined>): string => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, v);
  return q.toString();
};
