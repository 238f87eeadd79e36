/**
 * The daemon side of `coord mcp`: one MCP Streamable HTTP session on the
 * daemon's /mcp, spoken with plain HTTP (http.ts). Messages are relayed untouched; the
 * link only keeps the session id and protocol version headers, and reads the
 * answers (JSON or SSE) back into `onMessage`.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { type HttpAnswer, httpRequest } from './http.js';
import { readSse } from './sse-reader.js';

export interface DaemonEndpoint {
  /** The daemon's origin, e.g. http://127.0.0.1:7777 */
  url: string;
  token: string;
}

/** The daemon is not there, or no longer knows this session: connect again. */
export class DaemonGone extends Error {}

/** The daemon answered a POST with an HTTP error: the message will not be answered over MCP. */
export class DaemonRefused extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`the coord daemon answered HTTP ${status}: ${body.slice(0, 300)}`);
  }
}

export class DaemonLink {
  sessionId: string | undefined;
  protocolVersion: string | undefined;
  private readonly abort = new AbortController();

  constructor(
    private readonly endpoint: DaemonEndpoint,
    private readonly headers: Record<string, string>,
    private readonly onMessage: (message: JSONRPCMessage) => void,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** POST one message. Resolves once the daemon took it; `answered` settles when its response stream ends. */
  async post(message: JSONRPCMessage): Promise<{ answered: Promise<void> }> {
    const res = await this.send('POST', JSON.stringify(message));
    const sid = res.header('mcp-session-id');
    if (sid) this.sessionId = sid;
    if (res.status === 404 && this.sessionId) {
      void res.text().catch(() => {});
      throw new DaemonGone('the daemon no longer knows this MCP session');
    }
    if (!res.ok) throw new DaemonRefused(res.status, await res.text().catch(() => ''));
    const type = res.header('content-type') ?? '';
    if (type.includes('text/event-stream')) return { answered: this.read(res.body) };
    const text = await res.text();
    if (type.includes('application/json') && text) {
      const parsed = JSON.parse(text) as JSONRPCMessage | JSONRPCMessage[];
      for (const m of Array.isArray(parsed) ? parsed : [parsed]) this.onMessage(m);
    }
    return { answered: Promise.resolve() };
  }

  /** The standalone GET stream: server-initiated notifications (resources/updated, claude/channel). */
  async listen(): Promise<void> {
    const res = await this.send('GET');
    if (res.status === 404) {
      void res.text().catch(() => {});
      throw new DaemonGone('the daemon no longer knows this MCP session');
    }
    if (!res.ok) throw new DaemonRefused(res.status, await res.text().catch(() => ''));
    await this.read(res.body);
  }

  /** End the session on the daemon (it frees what the session held), then stop reading. */
  async close(timeoutMs = 2000): Promise<void> {
    if (this.sessionId) {
      const timer = setTimeout(() => this.abort.abort(), timeoutMs);
      await this.send('DELETE')
        .then((res) => res.text())
        .catch(() => {});
      clearTimeout(timer);
    }
    this.abort.abort();
  }

  /** Stop reading without a word to the daemon: it is gone, or this session is. */
  abandon(): void {
    this.abort.abort();
  }

  private async read(body: AsyncIterable<Uint8Array>): Promise<void> {
    try {
      for await (const { data } of readSse(body)) {
        try {
          this.onMessage(JSON.parse(data) as JSONRPCMessage);
        } catch (err) {
          this.onError(err);
        }
      }
    } catch (err) {
      if (!this.abort.signal.aborted) this.onError(err);
    }
  }

  private async send(method: 'GET' | 'POST' | 'DELETE', body?: string): Promise<HttpAnswer> {
    const headers: Record<string, string> = {
      ...this.headers,
      authorization: `Bearer ${this.endpoint.token}`,
      accept: method === 'GET' ? 'text/event-stream' : 'application/json, text/event-stream',
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.sessionId) headers['mcp-session-id'] = this.sessionId;
    if (this.protocolVersion) headers['mcp-protocol-version'] = this.protocolVersion;
    try {
      return await httpRequest(`${this.endpoint.url}/mcp`, { method, headers, body, signal: this.abort.signal });
    } catch (err) {
      throw new DaemonGone(`cannot reach the coord daemon at ${this.endpoint.url}: ${(err as Error).message}`);
    }
  }
}
