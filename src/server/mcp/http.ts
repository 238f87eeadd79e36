/**
 * MCP over Streamable HTTP at `/mcp` on the daemon's own app, so it passes
 * the same guard (token, Host, Origin) as the rest of the API. Each HTTP
 * session gets its own MCP server. A coord session (SPEC rule 13) can outlive
 * one HTTP session: `coord mcp` sends its session-lock uuid as
 * `Coord-Session`, and reconnects under it after a daemon restart.
 */
import { randomUUID } from 'node:crypto';
import { isAbsolute } from 'node:path';
import type { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { z } from 'zod';
import { isClientKind, profileByMcpName, profileOf } from '../../clients/index.js';
import type { Grant } from '../../core/connector-ports.js';
import { DEFAULT_BOARD, DEFAULT_LEASE_S } from '../../core/model.js';
import type { Ctx } from '../../core/operation.js';
import { AgentName, BoardName } from '../../core/schemas.js';
import type { ConnectorAuth } from '../oauth/bearer.js';
import { parseWith } from './parse-with.js';
import { McpSession } from './session.js';

/** A 16 MiB artifact as base64 inside a JSON-RPC message. */
export const MCP_BODY_LIMIT = 24 * 1024 * 1024;

/** Where a client says who it is: `Coord-*` headers, or `agent`/`board` query parameters. */
export const HttpIdentity = z.object({
  agent: AgentName.optional(),
  board: BoardName.optional(),
  /** URI-encoded: a header cannot carry every character a path may have. */
  root: z
    .string()
    .transform((s, ctx) => {
      try {
        return decodeURIComponent(s);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be URI-encoded' });
        return z.NEVER;
      }
    })
    .refine(isAbsolute, 'must be an absolute path')
    .optional(),
  session: z.uuid().optional(),
  /** `guessed`: board and root came from a working directory; the client's own word may replace them. */
  workspace: z.literal('guessed').optional(),
  /** SPEC §17: which tools to list; by default what the profile of the client's `initialize` name says, else all. */
  tools: z.enum(['lean', 'core', 'all']).optional(),
  /**
   * The client's kind (`coord mcp --client`): its profile says how its model reads results and which
   * tools it gets. A kind this daemon does not know (a newer coord mcp) is as if none were given.
   */
  client: z.string().optional(),
  /**
   * SPEC §18: `<task_id>:<claim_id>` ($COORD_CLAIM of an agent `coord run` started): the session starts holding
   * that claim, so `submit_result` needs no claim_id. The claim is the supervisor's, fenced as any other.
   */
  claim: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,12}:[^\s:]{1,100}$/, 'must be TASK_ID:CLAIM_ID')
    .optional(),
});

/** A request with no session that is no initialize: answered here (true), or it opens a session (false). */
async function answeredWithoutSession(req: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  // The 2026-07-28 opening probe, answered as a 2025-era server does so the client falls back to initialize.
  const body = req.body as { method?: unknown; id?: unknown } | undefined;
  if (req.method === 'POST' && body?.method === 'server/discover' && isId(body.id)) {
    const message = 'Method not found: server/discover — send initialize (2025-11-25, 2025-06-18, 2025-03-26)';
    reply.code(200).send({ jsonrpc: '2.0', id: body.id, error: { code: -32601, message } });
    return true;
  }
  const { isInitializeRequest } = await sdk();
  if (req.method === 'POST' && isInitializeRequest(req.body)) return false;
  reply.code(400).send(rpcError(-32000, 'Bad Request: no Mcp-Session-Id; send initialize first'));
  return true;
}

type Identity = z.output<typeof HttpIdentity>;

/**
 * Who opens a session, from its headers or query; a connector is the grant's agent on the grant's board, whatever
 * those say (SPEC §16).
 */
function identityOf(req: FastifyRequest, grant: Grant | null): Identity {
  if (grant) return { agent: grant.agent, board: grant.board };
  const h = req.headers;
  const q = req.query as Record<string, unknown>;
  return parseWith(HttpIdentity, {
    agent: h['coord-agent'] ?? q.agent,
    board: h['coord-board'] ?? q.board,
    root: h['coord-root'],
    session: h['coord-session'],
    workspace: h['coord-workspace'],
    tools: h['coord-tools'] ?? q.tools,
    client: h['coord-client'] ?? q.client,
    claim: h['coord-claim'],
  });
}

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
      // SPEC §16 "A grant is one board": every call of a connector is confined to it (core/confine.ts).
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

/** The client's name in its `initialize` request. */
const clientNameOf = (body: unknown): string | undefined => {
  const name = (body as { params?: { clientInfo?: { name?: unknown } } } | undefined)?.params?.clientInfo?.name;
  return typeof name === 'string' ? name : undefined;
};

const isId = (id: unknown): id is string | number => typeof id === 'string' || typeof id === 'number';
/**
 * The MCP SDK and the tools are loaded with the first /mcp request, not at start: a daemon nobody talks MCP
 * to (or not yet) does not hold them in memory (≈ 10 MB of its idle RSS; issue 15).
 */
let loaded:
  | Promise<{
      isInitializeRequest: typeof import('@modelcontextprotocol/server').isInitializeRequest;
      NodeStreamableHTTPServerTransport: typeof import('@modelcontextprotocol/node').NodeStreamableHTTPServerTransport;
      buildMcpServer: typeof import('./server.js').buildMcpServer;
    }>
  | undefined;
const sdk = () =>
  (loaded ??= Promise.all([
    import('@modelcontextprotocol/server'),
    import('@modelcontextprotocol/node'),
    import('./server.js'),
  ]).then(([server, node, tools]) => ({
    isInitializeRequest: server.isInitializeRequest,
    NodeStreamableHTTPServerTransport: node.NodeStreamableHTTPServerTransport,
    buildMcpServer: tools.buildMcpServer,
  })));

const rpcError = (code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id: null });
