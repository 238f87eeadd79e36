import { createServer, type IncomingMessage } from 'node:http';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import type { Logger } from 'pino';
import { PATHS } from '../../api/paths.js';
import { HEALTH_URL, routes, successStatus } from '../../api/routes.js';
import { CoordError } from '../../core/errors.js';
import { invoke } from '../../core/invoke.js';
import type { Ctx } from '../../core/operation.js';
import { operationNamed } from '../../core/operations.js';
import { hookKeyOf } from '../../state-dir/token.js';
import { McpHttp } from '../mcp/http.js';
import { connectorAuth } from '../oauth/bearer.js';
import { defaultLimits, type OAuthEdge, registerOAuth } from '../oauth/edge.js';
import type { PublicSite } from '../oauth/public-site.js';
import { ShellLooks } from '../shell-check.js';
import { registerDashboard } from '../web/dashboard-route.js';
import { registerArtifactRoutes } from './artifacts.js';
import { clientErrorHandler } from './client-error.js';
import { errorHandler, sendError } from './errors.js';
import { decoratePublic, makeGuard, publicBy, tokenMatcher } from './guard.js';
import { registerHookRoutes } from './hooks.js';
import { inboxLane, registerInboxRoute } from './inbox.js';
import { openApiDocument } from './openapi.js';
import { rawInput } from './raw-input.js';
import { registerEventsRoute } from './sse.js';

export const JSON_LIMIT = 1024 * 1024;

export interface HttpOptions {
  ctx: Ctx;
  token: string;
  version: string;
  port: () => number;
  extraHosts?: string[];
  logger?: Logger;
  /**
   * MCP over Streamable HTTP at /mcp; the daemon passes its own to end sessions whose `coord mcp` died. With
   * `site`, the app gives it the OAuth check of the public /mcp itself (McpHttp.register).
   */
  mcp?: McpHttp;
  /** Shown by /v1/health: 'full' (acknowledged writes survive power loss) or 'normal' (`--durability normal`). */
  durability?: 'full' | 'normal';
  /** `--public-url` (SPEC §16): the OAuth edge is served, and requests through the URL reach only it and /mcp. */
  site?: PublicSite | undefined;
  /** The state directory: where the stop hook's record of the tasks shown lives (state-dir/shown-tasks.ts). */
  stateDir?: string | undefined;
  /** Rate limits of the OAuth edge (tests pass small ones); per minute by default. */
  oauthLimits?: OAuthEdge['limits'];
}

/** The daemon's HTTP API (SPEC §4). Plugins for live events, locks, MCP and the dashboard register onto it. */
export function buildHttpApp(opts: HttpOptions): FastifyInstance {
  const site = opts.site;
  const guard = makeGuard({
    token: opts.token,
    port: opts.port,
    extraHosts: opts.extraHosts ?? [],
    site,
    hookKey: hookKeyOf(opts.token),
  });
  const isPublic = publicBy(site);
  const lane = inboxLane(opts.ctx, guard.admits, (err) => opts.logger?.error({ err }, 'unhandled error'));
  const app = Fastify({
    // The inbox poll takes its lane (inbox.ts) before fastify's pipeline; every other request goes to fastify.
    serverFactory: (handler, fastifyOpts) => {
      const o = fastifyOpts as { keepAliveTimeout?: number; requestTimeout?: number; connectionTimeout?: number };
      const server = createServer((req, res) => {
        if (!lane(req, res)) handler(req, res);
      });
      // What fastify sets on a server it creates itself (lib/server.js), so the lane changes no timeout.
      server.keepAliveTimeout = o.keepAliveTimeout ?? server.keepAliveTimeout;
      server.requestTimeout = o.requestTimeout ?? server.requestTimeout;
      server.setTimeout(o.connectionTimeout ?? 0);
      return server;
    },
    ...(opts.logger ? { loggerInstance: opts.logger } : {}),
    logController: new LogController({ disableRequestLogging: true }),
    // req.log is the daemon's logger itself: a child per request (its reqId binding, redaction set up again)
    // cost every request a few µs for the rare line logged with it, and requests are not logged (above).
    childLoggerFactory: (logger) => logger,
    bodyLimit: JSON_LIMIT,
    // Every request carries its own token check; never trust proxies here.
    trustProxy: false,
    return503OnClosing: false,
    // A URL the router cannot take (a broken %-escape, an over-long path segment) still answers in coord's shape.
    frameworkErrors: (err, req, reply) => errorHandler(err, req, reply),
    // So does a request Node's parser refuses before the router (bad bytes, an over-long URL).
    clientErrorHandler,
    // Inputs are parsed by each operation's zod schema (core/ops), and no route declares a JSON schema, so
    // fastify's own compilers (ajv, fast-json-stringify: ~2 MB of the idle daemon's heap) are never loaded.
    schemaController: { compilersFactory: { buildValidator: noRouteSchemas, buildSerializer: noRouteSchemas } },
    // The proxy forwards `--public-url`'s path prefix; coord strips it before routing (SPEC §16).
    ...(site?.prefix
      ? { rewriteUrl: (req: IncomingMessage) => stripPrefix(req.url ?? '/', site.prefix, isPublic(req.headers)) }
      : {}),
  }) as unknown as FastifyInstance;

  decoratePublic(app);
  app.addHook('onRequest', guard.hook);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((req, reply) =>
    sendError(reply, new CoordError('not_found', `no route ${req.method} ${req.url.split('?')[0]}`)),
  );

  // Bodies are JSON whatever Content-Type a client sends (curl -d says form-urlencoded).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new CoordError('invalid_json', 'request body is not valid JSON'), undefined);
    }
  });

  const durability = opts.durability ?? 'full';
  // SQLite's group commit counts (batches committed, writes in them): how well the daemon batches under load;
  // PostgreSQL's round trips. Live objects: read at each answer. Shown only to a caller with the token (health
  // itself is public, and how busy the board is is not).
  const groupCommit = (opts.ctx.store as { commitStats?: object }).commitStats;
  const roundTrips = (opts.ctx.store as { queryStats?: object }).queryStats;
  const authorized = tokenMatcher(opts.token);
  app.get(HEALTH_URL, async (req) => ({
    ok: true,
    version: opts.version,
    store: opts.ctx.store.kind,
    durability,
    ...(groupCommit && authorized(req.headers.authorization) ? { group_commit: groupCommit } : {}),
    ...(roundTrips && authorized(req.headers.authorization) ? { round_trips: roundTrips } : {}),
  }));
  app.get(PATHS.openapi, async () => openApiDocument(opts.version));

  // A long-poll must not hold the daemon open for up to 60 s when it shuts down.
  const closing = new AbortController();
  app.addHook('preClose', async () => closing.abort());
  const mcp = opts.mcp ?? new McpHttp({ ctx: opts.ctx, version: opts.version, log: opts.logger });
  for (const route of routes) {
    // A route with a second form (the inbox's text, the event stream) has its own handler: inbox.ts, sse.ts.
    if (route.alsoAs) continue;
    const op = operationNamed(route.op);
    app.route({
      method: route.method,
      url: route.url,
      // A supervisor reports an agent it has just started: that agent opens its MCP session in a moment.
      ...(route.op === 'report_run' ? { onResponse: async () => mcp.warm() } : {}),
      handler: async (req, reply) => {
        const ac = new AbortController();
        const stop = () => ac.abort();
        closing.signal.addEventListener('abort', stop, { once: true });
        reply.raw.once('close', () => {
          closing.signal.removeEventListener('abort', stop);
          // A long-poll stops waiting when its client goes away. 'close' also follows every answer
          // sent; aborting then would only build an AbortError nobody reads, on every request.
          if (!reply.raw.writableFinished) ac.abort();
        });
        const ctx = { ...opts.ctx, signal: ac.signal, session_id: sessionOf(req.headers['coord-session']) };
        const out = await invoke(op, ctx, rawInput(route, req));
        const status = successStatus(route, out);
        if (status === 204) return reply.code(204).send();
        return reply.code(status).send(out);
      },
    });
  }
  registerArtifactRoutes(app, opts.ctx);
  // The daemon's shell looks, which a supervisor's launch reaches through ctx.shell (report_run), or the routes' own.
  const looks = opts.ctx.shell instanceof ShellLooks ? opts.ctx.shell : undefined;
  registerHookRoutes(app, opts.ctx, { stateDir: opts.stateDir }, looks);
  registerInboxRoute(app, opts.ctx);
  registerEventsRoute(app, opts.ctx);
  registerDashboard(app);
  if (site) {
    registerOAuth(app, {
      ctx: opts.ctx,
      site,
      token: opts.token,
      log: opts.logger,
      limits: opts.oauthLimits ?? defaultLimits(),
    });
  }
  // SPEC §16: the public /mcp takes OAuth tokens, checked over the same site the guard marks requests by.
  mcp.register(app, site ? connectorAuth(opts.ctx, site) : undefined);
  return app;
}

function noRouteSchemas(): never {
  throw new Error('coord routes declare no fastify schema: operations parse their input with zod');
}

/**
 * `Coord-Session: <uuid>`: the call belongs to that session (rule 13), so the locks and claims it
 * takes end with it — how a client's hooks tie their auto-locks to the session of its `coord mcp`.
 */
const SESSION_HEADER = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const sessionOf = (h: string | string[] | undefined): string | null =>
  typeof h === 'string' && SESSION_HEADER.test(h) ? h : null;

/** `/prefix/mcp` → `/mcp` for a request through the public URL; anything else is routed as it came. */
export function stripPrefix(url: string, prefix: string, isPublic: boolean): string {
  if (!isPublic) return url;
  if (url === prefix) return '/';
  return url.startsWith(`${prefix}/`) || url.startsWith(`${prefix}?`) ? url.slice(prefix.length) || '/' : url;
}
