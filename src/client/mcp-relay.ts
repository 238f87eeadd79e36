/**
 * `coord mcp` is a pipe: JSON-RPC from the agent on stdio goes to the
 * daemon's /mcp, and everything the daemon says comes back on stdout. The
 * tools live once, in the daemon. The bridge adds only what a pipe needs to
 * survive a daemon restart: it remembers the client's `initialize` and
 * subscriptions, and replays them on a new session, so the agent never notices.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { JSONRPCMessage, JSONRPCRequest, RequestId, Transport } from '@modelcontextprotocol/server';
import { derivedAgentName } from '../core/shared/agent-name.js';
import { type DaemonEndpoint, DaemonGone, DaemonLink } from './daemon-link.js';
// The SDK's own guards are zod schemas: loading them is most of `coord mcp`'s start-up (jsonrpc.ts).
import {
  isInitializedNotification,
  isInitializeRequest,
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
} from './jsonrpc.js';
import { HookGuard } from './mcp-hook-guard.js';
import { discoverUnsupported, isDiscoverProbe, OwnRequests, protocolOf, rpc } from './mcp-own-requests.js';

/** How long a call keeps reconnecting to a daemon that went away before it fails. */
const RECONNECT_WINDOW_MS = 15_000;

export interface BridgeOptions {
  /** The agent's side: stdio in production. */
  agent: Transport;
  /** Finds (or starts) the daemon; called at start and after the daemon went away. */
  connect: () => Promise<DaemonEndpoint>;
  /** The running daemon, if any, without starting one. */
  find: () => DaemonEndpoint | null;
  /** Coord-Agent, Coord-Board, Coord-Session, Coord-Root. */
  headers: Record<string, string>;
  log: (message: string) => void;
}

const REVIVE_POLL_MS = 500;

export class Bridge {
  private link: DaemonLink | undefined;
  private init: JSONRPCRequest | undefined;
  private initialized = false;
  private readonly subscriptions = new Set<string>();
  /** The agent's requests still waiting for an answer. */
  private readonly pending = new Set<RequestId>();
  private readonly own = new OwnRequests();
  /** Messages go to the daemon one at a time, in the order the agent sent them. */
  private queue: Promise<void> = Promise.resolve();
  private closed = false;
  /** decide_edit calls a hook waits on (SPEC §10 down is not slow), answered coord_busy if the daemon is late. */
  private readonly hooks = new HookGuard((id, m) => {
    this.pending.delete(id);
    this.toAgent(m);
  });

  constructor(private readonly opts: BridgeOptions) {}

  /** Relay until the agent closes stdin; then end the daemon session. */
  run(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.opts.agent.onmessage = (m) => {
        this.hooks.watch(m);
        this.queue = this.queue.then(() => this.forward(m));
      };
      this.opts.agent.onclose = () => {
        this.queue = this.queue.then(() => this.close()).then(resolve);
      };
      this.opts.agent.onerror = (err) => this.opts.log(`stdio: ${err.message}`);
      void this.opts.agent.start();
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.link?.close();
  }

  private async forward(m: JSONRPCMessage): Promise<void> {
    if (this.closed) return;
    const request = isJSONRPCRequest(m) ? m : undefined;
    if (request && this.answeredProbe(request)) return;
    if (request) this.pending.add(request.id);
    if (isInitializeRequest(m)) this.nameAgent(m.params.clientInfo.name);
    await this.relay(m, request);
  }

  /** Posts one message to the daemon, reconnecting while it is gone; a request that cannot go is failed. */
  private async relay(m: JSONRPCMessage, request: JSONRPCRequest | undefined): Promise<void> {
    // A killed daemon can still look alive for a moment (its lock outlives its sockets), so a lost daemon is
    // retried for a while, not just once, before the call fails.
    const giveUpAt = Date.now() + RECONNECT_WINDOW_MS;
    for (let attempt = 1; ; attempt++) {
      try {
        const link = await this.connected(!isInitializeRequest(m));
        const { answered } = await link.post(m);
        this.remember(m, link);
        if (request) void answered.then(() => this.unanswered(request.id));
        return;
      } catch (err) {
        if (err instanceof DaemonGone) this.drop();
        if (this.retries(err, attempt, giveUpAt)) {
          this.opts.log(`${err.message} — reconnecting`);
          if (attempt > 1) await sleep(Math.min(250, 25 * attempt));
          continue;
        }
        this.gaveUp(m, request, err as Error);
        return;
      }
    }
  }

  /**
   * Claude Code probes for the 2026-07-28 protocol first and falls back to `initialize` on "method not
   * found", as a 2025-era server answers: an expected step of the handshake, so nothing is logged and no
   * daemon is started for it. True when `request` was that probe, answered.
   */
  private answeredProbe(request: JSONRPCRequest): boolean {
    if (!isDiscoverProbe(request) || this.init) return false;
    void this.opts.agent.send(discoverUnsupported(request.id)).catch(() => {});
    return true;
  }

  /** A lost daemon is tried again: at once the first time, then until `giveUpAt`, unless the relay closed. */
  private retries(err: unknown, attempt: number, giveUpAt: number): err is DaemonGone {
    return err instanceof DaemonGone && !this.closed && (attempt === 1 || Date.now() < giveUpAt);
  }

  private gaveUp(m: JSONRPCMessage, request: JSONRPCRequest | undefined, err: Error): void {
    this.opts.log(`could not relay ${'method' in m ? m.method : 'a response'}: ${err.message}`);
    if (request) this.fail(request.id, `coord mcp could not reach the coord daemon: ${err.message}`);
  }

  /**
   * Without --agent, the name is the client's plus a random suffix, chosen here rather than in the
   * daemon so it stays the same across daemon restarts: the claims it holds keep their holder.
   */
  private nameAgent(clientName: string): void {
    this.opts.headers['coord-agent'] ??= derivedAgentName(clientName);
  }

  /** What a new session must be told again after a reconnect. */
  private remember(m: JSONRPCMessage, link: DaemonLink): void {
    if (isInitializeRequest(m)) this.init = m as JSONRPCRequest;
    if (isInitializedNotification(m)) {
      this.initialized = true;
      this.listen(link);
    }
    if (isJSONRPCRequest(m) && m.method === 'resources/subscribe') this.subscriptions.add(String(m.params?.uri));
    if (isJSONRPCRequest(m) && m.method === 'resources/unsubscribe') this.subscriptions.delete(String(m.params?.uri));
  }

  /** The current link, or a new one (to `endpoint`, else to a daemon found or started), replaying the session. */
  private async connected(replay: boolean, endpoint?: DaemonEndpoint): Promise<DaemonLink> {
    if (this.link) return this.link;
    endpoint ??= await this.opts.connect();
    const link = new DaemonLink(
      endpoint,
      this.opts.headers,
      (m) => this.fromDaemon(m, link),
      (err) => this.opts.log(`daemon stream: ${(err as Error).message}`),
    );
    if (replay && this.init) {
      try {
        const answer = await this.own.ask(link, this.init);
        link.protocolVersion = protocolOf(answer);
        if (this.initialized) {
          await link.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
          this.listen(link);
        }
        for (const uri of this.subscriptions)
          await this.own.ask(link, { ...rpc('resources/subscribe'), params: { uri } });
      } catch (err) {
        link.abandon();
        throw err;
      }
      this.opts.log('reconnected to the coord daemon');
    }
    this.link = link;
    return link;
  }

  private drop(): void {
    this.link?.abandon();
    this.link = undefined;
  }

  private fromDaemon(m: JSONRPCMessage, link: DaemonLink): void {
    if (isJSONRPCResultResponse(m) || isJSONRPCErrorResponse(m)) {
      // Answered coord_busy already: the agent must not see a second answer.
      if (m.id !== undefined && this.hooks.late(m.id)) {
        this.pending.delete(m.id);
        return;
      }
      if (this.own.took(m.id, m)) return;
      if (m.id !== undefined) this.pending.delete(m.id);
      if (isJSONRPCResultResponse(m) && m.id === this.init?.id) link.protocolVersion = protocolOf(m);
    }
    this.toAgent(m);
  }

  private toAgent(m: JSONRPCMessage): void {
    void this.opts.agent.send(m).catch((err) => this.opts.log(`stdout: ${(err as Error).message}`));
  }

  /** The standalone stream carries every push; when it ends, the daemon has gone away. */
  private listen(link: DaemonLink): void {
    link.listen().then(
      () => this.lost(link, 'the daemon closed it'),
      (err) => this.lost(link, (err as Error).message),
    );
  }

  private lost(link: DaemonLink, why: string): void {
    if (this.closed || link !== this.link) return;
    this.opts.log(`notification stream ended (${why}); reconnecting once a daemon runs`);
    this.drop();
    void this.revive();
  }

  /**
   * Resume push as soon as a daemon runs again, so an idle agent keeps hearing about work. Starting
   * a daemon is left to the agent's next call: one stopped on purpose stays stopped until needed.
   */
  private async revive(): Promise<void> {
    while (!this.closed && !this.link) {
      // Waiting for another process to write daemon.json: there is no event to wait on. Looking only
      // after a pause also lets a dying daemon finish dying (its lock can outlive its sockets briefly).
      await sleep(REVIVE_POLL_MS);
      const found = this.opts.find();
      if (!found) continue;
      const attempt = this.queue.then(() => this.connected(true, found));
      this.queue = attempt.then(
        () => undefined,
        () => undefined,
      );
      await attempt.catch((err) => this.opts.log(`could not reconnect yet: ${(err as Error).message}`));
    }
  }

  /** The response stream ended without an answer (the daemon died mid-call): say so rather than hang. */
  private unanswered(id: RequestId): void {
    if (this.pending.has(id)) this.fail(id, 'the coord daemon went away before answering — call again');
  }

  private fail(id: RequestId, message: string): void {
    this.pending.delete(id);
    if (!this.hooks.settled(id)) this.toAgent({ jsonrpc: '2.0', id, error: { code: -32603, message } });
  }
}
