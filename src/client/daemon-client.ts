/** How the CLI finds and talks to the daemon of a state directory: daemon.json for the URL, the token file for auth. */

import { readDaemonInfo } from '../state-dir/index.js';
import { readToken } from '../state-dir/token.js';

export class CliError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export interface DaemonClient {
  url: string;
  request<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  requestText(path: string): Promise<string>;
}

export function connect(stateDir: string): DaemonClient {
  const info = readDaemonInfo(stateDir);
  let token: string;
  try {
    token = readToken(stateDir);
  } catch {
    throw unreachable(stateDir);
  }
  if (!info) throw unreachable(stateDir);
  const send = async (method: string, path: string, body?: unknown) => {
    try {
      return await fetch(info.url + path, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch {
      throw unreachable(stateDir, info.url);
    }
  };
  const fail = async (res: Response): Promise<never> => {
    const payload = (await res.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
    const e = payload.error ?? {};
    throw new CliError(e.code ?? 'internal', e.message ?? `HTTP ${res.status}`, e as Record<string, unknown>);
  };
  return {
    url: info.url,
    async request<T>(method: string, path: string, body?: unknown) {
      const res = await send(method, path, body);
      if (!res.ok) return fail(res);
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
    },
    async requestText(path: string) {
      const res = await send('GET', path);
      if (!res.ok) return fail(res);
      return res.text();
    },
  };
}

const unreachable = (stateDir: string, url?: string) =>
  new CliError(
    'unreachable',
    `no coord daemon answers for ${stateDir}${url ? ` at ${url}` : ''} — start one with: coord serve --state ${stateDir}`,
  );
