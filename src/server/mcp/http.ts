/**
 * MCP over Streamable HTTP at `/mcp` on the daemon's own app, so it passes
 * the same guard (token, Host, Origin) as the rest of the API. Each HTTP
 * session gets its own MCP server. A coord session (SPEC rule 13) can outlive
 * one HTTP session: `coord mcp` sends its session-lock uuid as
 * `Coord-Session`, and reconnects under it after a daemon restart.
 */
import { randomUUID } from 'node:crypto';
import type { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { isClientKind, profileByMcpName, profileOf } from '../../clients/index.js';
import type { Grant } from '../../core/connectors/connector-ports.js';
import { DEFAULT_BOARD, DEFAULT_LEASE_S } from '../../core/model.js';
import type { Ctx } from '../../core/operation.js';
import type { ConnectorAuth } from '../oauth/bearer.js';
import { clientNameOf, type Identity, identityOf } from './http-identity.js';
import { answeredWithoutSession, rpcError, sdk } from './http-wire.js';
import { McpSession } from './session.js';

/** A 16 MiB artifact as base64 inside a JSON-RPC message. */
export const MCP_BODY_LIMIT = 24 * 1024 * 1024;

interface HttpSession {
  transport: NodeStreamableHTTPServerTransport;
  httpId: string;
  coordId: string;
  session: McpSession;
  /** The connector grant (SPEC §16) a public session acts under; null for a local one. */
  grantId: string | null;
  /**
   * A plain HTTP client's session, which nothing but its requests proves alive. A `coord mcp` bridge's
   * (Coord-Session given) lives by its session lock instead (rule 13), and may reconnect after a drop.
   */
  reapable: boolean;
  /** Open GET event streams. */
  streams: number;
  /** Whether it ever opened one: a client that never listens is judged by idleness alone. */
  listened: boolean;
  timer?: NodeJS.Timeout;
}

export interface McpHttpOptions {
  ctx: Ctx;
  version: string;
  log?: Logger | undefined;
  /** How long a session's event stream may stay closed before the client counts as gone (default 30 s). */
  streamGraceMs?: number;
  /**
   * Whether a `Coord-Session` id has a held session lock file (state-dir/session-lock.ts). A session
   * that names one without a lock behind it has nothing to prove it alive but its requests, so it is
   * reaped like a plain HTTP client's. Without this check every such session is reaped so.
   */
  sessionAlive?: (coordId: string) => boolean;
}

const DEFAULT_STREAM_GRACE_MS = 30_000;

export class McpHttp {
  private readonly sessions = new Map<string, McpSession>();
  private readonly live = new Map<string, HttpSession>();

  constructor(private readonly opts: McpHttpOptions) {}

  /**
   * `connectors`: the OAuth check of a request through the public URL (SPEC §16). The app that serves the
   * public URL passes it (buildHttpApp, from the same `--public-url` its guard marks requests by), so no
   * caller can build a public /mcp that has none.
   */
  register(app: FastifyInstance, connectors: ConnectorAuth | undefined): void {
    app.route({
      method: ['GET', 'POST', 'DELETE'],
      url: '/mcp',
      bodyLimit: MCP_BODY_LIMIT,
      handler: (req, reply) => this.handle(req, reply, connectors),
    });
    // Open SSE streams would keep the server from closing; a daemon restart is not the end of a session.
    app.addHook('preClose', () => this.close());
  }

  /**
   * An agent is about to open a session (`coord run` reported one it has just started): the SDK is loaded now,
   * while its client starts, not on that agent's way to its first model request (~200 ms, once per daemon).
   */
  warm(): void {
    void sdk().catch(() => undefined);
  }

  /**
   * The process behind a coord session died (the daemon's session watcher saw its lock
   * drop and freed its claims and locks): drop what this side still keeps for it.
   */
  async forget(coordId: string): Promise<void> {
    this.sessions.delete(coordId);
    for (const s of this.live.values()) if (s.coordId === coordId) await s.transport.close().catch(() => {});
  }

  /** DELETE /mcp: the client is done with the session, so what it held is freed now (rule 13). */
  private async free(coordId: string): Promise<void> {
    this.sessions.delete(coordId);
    try {
      await this.opts.ctx.store.endSession(coordId);
    } catch (err) {
      this.opts.log?.warn({ err, session: coordId }, 'could not end MCP session');
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.live.values()].map((s) => s.transport.close().catch(() => {})));
  }

  private async handle(req: FastifyRequest, reply: FastifyReply, connectors: ConnectorAuth | undefined): Promise<void> {
    let grant: Grant | null = null;
    if (req.viaPublicUrl) {
      // Through the public URL only an OAuth access token counts (the guard let no coord token decide). The
      // guard marks a request public only with --public-url, when the app passed `connectors`.
      if (!connectors) return void reply.code(404).send(rpcError(-32001, 'not found'));
      grant = await connectors(req, reply);
      if (!grant) return;
    }
    const sid = req.headers['mcp-session-id'];
    let live = typeof sid === 'string' ? this.live.get(sid) : undefined;
    // A session belongs to the grant that opened it (or to the local side): no other token may use it.
    if (live && live.grantId !== (grant?.id ?? null)) live = undefined;
    if (sid !== undefined && !live) {
      // 404 tells a client its session is gone (daemon restarted): initialize again.
      return void reply.code(404).send(rpcError(-32001, 'Session not found: initialize again'));
    }
    if (!live) {
      if (await answeredWithoutSession(req, reply)) return;
      live = await this.open(req, grant);
    }
    this.activity(live, req, reply);
    reply.hijack();
    try {
      await live.transport.handleRequest(req.raw, reply.raw, req.body);
    } catch (err) {
      this.opts.log?.error({ err }, 'MCP request failed');
      if (!reply.raw.headersSent) reply.raw.writeHead(500).end();
    }
  }

  /**
   * Claude Code and Gemini CLI exit without DELETE /mcp. A plain HTTP session counts as gone once its
   * event stream has been closed for the grace period, or once it has been idle longer than its longest
   * lease (by then nothing it held would still be live); then it ends like a DELETE, freeing what it held.
   */
  private activity(live: HttpSession, req: FastifyRequest, reply: FastifyReply): void {
    if (!live.reapable) return;
    if (req.method === 'GET') {
      live.streams++;
      live.listened = true;
      reply.raw.once('close', () => {
        live.streams--;
        this.arm(live);
      });
    }
    this.arm(live);
  }

  private arm(live: HttpSession): void {
    clearTimeout(live.timer);
    if (!this.live.has(live.httpId)) return;
    const idleMs = Math.max(DEFAULT_LEASE_S * 1000, live.session.longestLeaseMs);
    const closed = live.listened && live.streams === 0;
    const ms = closed ? Math.min(idleMs, this.opts.streamGraceMs ?? DEFAULT_STREAM_GRACE_MS) : idleMs;
    live.timer = setTimeout(() => void this.reap(live), ms);
    live.timer.unref();
  }

  private async reap(live: HttpSession): Promise<void> {
    this.opts.log?.info(
      { session: live.coordId },
      'MCP HTTP client gone (no event stream, or idle): ending its session',
    );
    await live.transport.close().catch(() => {});
    await this.free(live.coordId);
  }

  /** The coord session of `coordId` (SPEC rule 13: it can outlive one HTTP session), holding the claim it names. */
  private sessionFor(coordId: string, who: Identity): McpSession {
    let session = this.sessions.get(coordId);
    if (!session) {
      session = new McpSession({
        agent: who.agent ?? null,
        board: who.board ?? DEFAULT_BOARD,
        root: who.root ?? null,
        id: coordId,
        workspace: who.workspace === 'guessed' ? 'cwd' : 'given',
      });
      this.sessions.set(coordId, session);
    }
    if (who.claim) {
      const at = who.claim.indexOf(':');
      session.remember(who.claim.slice(0, at), who.claim.slice(at + 1));
    }
    return session;
  }

  private async open(req: FastifyRequest, grant: Grant | null): Promise<HttpSession> {
    const who = identityOf(req, grant);
    // SPEC §17: the client's profile, by the kind it was set up as, else by its initialize name.
    const profile = isClientKind(who.client) ? profileOf(who.client) : profileByMcpName(clientNameOf(req.body));
    const httpId = randomUUID();
    const coordId = who.session ?? httpId;
    const session = this.sessionFor(coordId, who);
    const { NodeStreamableHTTPServerTransport, buildMcpServer } = await sdk();
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => httpId,
      // DELETE /mcp: the client is done with this session (the transport closes itself after).
      onsessionclosed: () => this.free(coordId),
    });
    const server = buildMcpServer({
      // SPEC §16 "A grant is one board": every call of a connector is confined to it (core/connectors/confine.ts).
      ctx: grant ? { ...this.opts.ctx, confined_to: grant.board } : this.opts.ctx,
      session,
      // A client no profile names (a program, a test) gets every tool and the data in every result.
      tools: who.tools ?? profile?.toolSurface ?? 'all',
      ...(profile ? { wrapper: profile.result } : {}),
      version: this.opts.version,
      log: this.opts.log,
      onClose: () => {
        clearTimeout(this.live.get(httpId)?.timer);
        this.live.delete(httpId);
      },
    });
    await server.connect(transport);
    const live: HttpSession = {
      transport,
      httpId,
      coordId,
      session,
      grantId: grant?.id ?? null,
      // A Coord-Session with no session lock held behind it would otherwise be kept forever (issue 25, hole 9).
      reapable: who.session === undefined || !(this.opts.sessionAlive?.(who.session) ?? false),
      streams: 0,
      listened: false,
    };
    this.live.set(httpId, live);
    return live;
  }
}
