/**
 * The hooks' link to the daemon: daemon.json for the URL, the token file for
 * auth, plain fetch. Never starts a daemon (SPEC §10) and loads nothing but
 * Node built-ins — the route table (api/routes.ts) pulls in every operation's
 * zod schema, which a hook run on every edit cannot afford, so the few paths
 * used here are spelled out.
 */
import { readDaemonInfo } from '../state-dir/daemon-info.js';
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
}

/** Thrown when no daemon answers: a hook then allows the edit (or, strict, refuses). */
export class DaemonDown extends Error {}

/** A short deadline: an edit must not wait on a daemon that hangs. */
const TIMEOUT_MS = 3000;

export function hookDaemon(stateDir: string, session?: string): HookDaemon {
  const info = readDaemonInfo(stateDir);
  let token: string;
  try {
    token = readToken(stateDir);
  } catch {
    throw new DaemonDown(`no coord daemon runs for ${stateDir}`);
  }
  if (!info) throw new DaemonDown(`no coord daemon runs for ${stateDir}`);
  const send = async (method: string, path: string, body?: unknown): Promise<Response> => {
    try {
      return await fetch(info.url + path, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(session ? { 'coord-session': session } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch {
      throw new DaemonDown(`the coord daemon at ${info.url} does not answer`);
    }
  };
  const json = async <T>(res: Response): Promise<Answer<T>> => {
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
  };
  return {
    url: info.url,
    get: async (path) => json(await send('GET', path)),
    post: async (path, body) => json(await send('POST', path, body)),
    async text(path) {
      const res = await send('GET', path);
      return res.text();
    },
  };
}

export const query = (params: Record<string, string | undefined>): string => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, v);
  return q.toString();
};
