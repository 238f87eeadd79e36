/**
 * How a client finds and talks to the daemon of a state directory: daemon.json for the URL, the token
 * file for auth, the route table (api/routes.ts) for every request — `call(op, input)` names the
 * operation and gets its answer back.
 */

import { HEALTH_URL } from '../api/routes.js';
import { liveDaemonNow } from '../state-dir/daemon-lock.js';
import { type Callable, type CallInput, type CallOutput, requestFor, routeOf } from './call.js';
import { type HttpAnswer, httpRequest } from './http.js';

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
  /** The operation's answer (null for an empty 204); a coord error answer throws CliError with its code. */
  call<Op extends Callable>(op: Op, input: CallInput<Op>): Promise<CallOutput<Op>>;
  /** The route's second form as text (the inbox a model reads): the query of its `alsoAs` is added. */
  callText<Op extends Callable>(op: Op, input: CallInput<Op>): Promise<string>;
  /** The route's stream (`alsoAs: text/event-stream`), still open: the caller reads the body (`signal` ends it). */
  stream<Op extends Callable>(
    op: Op,
    input: CallInput<Op>,
    headers?: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<HttpAnswer>;
  /** GET /v1/health, the one route with no operation (and no token needed). */
  health(): Promise<{ ok: boolean; version: string; store: string }>;
}

export function connect(stateDir: string): DaemonClient {
  // Only a daemon holding the state directory's lock gets the token: daemon.json may be a dead one's.
  const live = liveDaemonNow(stateDir);
  if (!live) throw unreachable(stateDir);
  const { token } = live;
  const info = { url: live.url };
  const send = async (
    req: { method: string; path: string; body?: unknown },
    headers: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<HttpAnswer> => {
    let res: HttpAnswer;
    try {
      // node:http, not fetch: fetch's first call loads undici (~40 ms of every CLI command), see http.ts.
      res = await httpRequest(info.url + req.path, {
        method: req.method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(req.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        body: req.body === undefined ? undefined : JSON.stringify(req.body),
        ...(signal ? { signal } : {}),
      });
    } catch {
      throw unreachable(stateDir, info.url);
    }
    if (!res.ok) {
      const payload = (await res.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
      const e = payload.error ?? {};
      // The CLI sends the token file's token: a refusal means that file is not the running daemon's (the
      // server's own words are for HTTP callers: "send Authorization: Bearer …").
      if (e.code === 'unauthorized')
        throw new CliError(
          'unauthorized',
          `the token file ${stateDir}/token does not match the running daemon's (at ${info.url}) — it was replaced while the daemon ran, or the daemon belongs to another state directory; restart the daemon (coord serve --state ${stateDir})`,
          e as Record<string, unknown>,
        );
      throw new CliError(e.code ?? 'internal', e.message ?? `HTTP ${res.status}`, e as Record<string, unknown>);
    }
    return res;
  };
  const json = async (res: HttpAnswer) => {
    const text = await res.text();
    return text ? JSON.parse(text) : null;
  };
  return {
    url: info.url,
    async call(op, input) {
      return json(await send(requestFor(op, input), { accept: 'application/json' }));
    },
    async callText(op, input) {
      const other = routeOf(op).alsoAs;
      if (other?.type !== 'text/plain') throw new Error(`${op.name} has no text form`);
      return (await send(requestFor(op, input, other.query), { accept: other.type })).text();
    },
    async stream(op, input, headers = {}, signal) {
      const other = routeOf(op).alsoAs;
      if (other?.type !== 'text/event-stream') throw new Error(`${op.name} has no stream`);
      return send(requestFor(op, input), { accept: other.type, ...headers }, signal);
    },
    async health() {
      return json(await send({ method: 'GET', path: HEALTH_URL }, { accept: 'application/json' }));
    },
  };
}

const unreachable = (stateDir: string, url?: string) =>
  new CliError(
    'unreachable',
    `no coord daemon answers for ${stateDir}${url ? ` at ${url}` : ''} — start one with: coord serve --state ${stateDir}`,
  );
