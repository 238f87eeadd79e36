/**
 * The hooks' link to the daemon: daemon.json for the URL, the token file for
 * auth, plain fetch. Never starts a daemon (SPEC §10) and loads nothing but
 * Node built-ins — the route table (api/routes.ts) pulls in every operation's
 * zod schema, which a hook run on every edit cannot afford, so the few paths
 * used here are spelled out. node:http rather than fetch: fetch's first call
 * costs ~50 ms of loading on every hook run.
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
  post<T>(path: string, body: unknown): Promise<Answer<T>>;
  text(path: string): Promise<string>;
  /** Drop the kept-alive socket, so the hook's process can exit at once. */
  close(): void;
}

/** Thrown when no daemon answers: a hook then allows the edit (or, strict, refuses). */
export class DaemonDown extends Error {}

/** A short deadline: an edit must not wait on a daemon that hangs. */
const TIMEOUT_MS = 3000;

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
  const send = (method: string, path: string, body?: unknown): Promise<Answer<string>> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = request(
        info.url + path,
        {
          method,
          agent,
          timeout: TIMEOUT_MS,
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
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', () => reject(down()));
        },
      );
      const down = () => new DaemonDown(`the coord daemon at ${info.url} does not answer`);
      req.on('timeout', () => req.destroy());
      req.on('error', () => reject(down()));
      req.end(payload);
    });
  const json = <T>(res: Answer<string>): Answer<T> => ({
    status: res.status,
    body: (res.body ? JSON.parse(res.body) : null) as T,
  });
  return {
    url: info.url,
    get: async (path) => json(await send('GET', path)),
    post: async (path, body) => json(await send('POST', path, body)),
    text: async (path) => (await send('GET', path)).body,
    close: () => agent.destroy(),
  };
}

export const query = (params: Record<string, string | undefined>): string => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, v);
  return q.toString();
};
