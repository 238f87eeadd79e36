/**
 * What `coord mcp` needs of the MCP SDK at run time, without loading it: the stdio transport and the
 * JSON-RPC shape checks. The relay only forwards (the daemon's MCP server validates every message), and
 * the SDK's own stdio module loads its whole server and zod (most of `coord mcp`'s start-up). Types come
 * from the SDK (erased at build time). The transport behaves as the SDK's StdioServerTransport does: one
 * JSON message per line, lines that are not JSON skipped, a 10 MiB line bound, close on stdin's end.
 */
import type {
  InitializeRequest,
  JSONRPCErrorResponse,
  JSONRPCMessage,
  JSONRPCNotification,
  JSONRPCRequest,
  JSONRPCResultResponse,
  Transport,
} from '@modelcontextprotocol/server';

const isObject = (m: unknown): m is Record<string, unknown> => typeof m === 'object' && m !== null && !Array.isArray(m);
const isId = (id: unknown): boolean => typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id));
const isRpc = (m: unknown): m is Record<string, unknown> => isObject(m) && m.jsonrpc === '2.0';

export const isJSONRPCRequest = (m: unknown): m is JSONRPCRequest =>
  isRpc(m) && typeof m.method === 'string' && isId(m.id) && (m.params === undefined || isObject(m.params));

export const isJSONRPCNotification = (m: unknown): m is JSONRPCNotification =>
  isRpc(m) && typeof m.method === 'string' && !('id' in m) && (m.params === undefined || isObject(m.params));

export const isJSONRPCResultResponse = (m: unknown): m is JSONRPCResultResponse =>
  isRpc(m) && isId(m.id) && isObject(m.result);

export const isJSONRPCErrorResponse = (m: unknown): m is JSONRPCErrorResponse =>
  isRpc(m) && isObject(m.error) && typeof m.error.code === 'number' && typeof m.error.message === 'string';

export const isInitializeRequest = (m: unknown): m is InitializeRequest & JSONRPCRequest =>
  isJSONRPCRequest(m) &&
  m.method === 'initialize' &&
  isObject(m.params) &&
  typeof m.params.protocolVersion === 'string' &&
  isObject(m.params.clientInfo) &&
  typeof m.params.clientInfo.name === 'string';

export const isInitializedNotification = (m: unknown): m is JSONRPCNotification =>
  isJSONRPCNotification(m) && m.method === 'notifications/initialized';

const isMessage = (m: unknown): m is JSONRPCMessage =>
  isJSONRPCRequest(m) || isJSONRPCNotification(m) || isJSONRPCResultResponse(m) || isJSONRPCErrorResponse(m);

const MAX_BUFFER = 10 * 1024 * 1024;

/** JSON-RPC over this process's stdin/stdout, one message per line. */
export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  private buffer: Buffer | undefined;
  private started = false;
  private closed = false;

  constructor(
    private readonly stdin: NodeJS.ReadableStream & { readableEnded?: boolean; destroyed?: boolean } = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
  ) {}

  private readonly ondata = (chunk: Buffer): void => {
    if ((this.buffer?.length ?? 0) + chunk.length > MAX_BUFFER) {
      this.buffer = undefined;
      this.onerror?.(new Error(`a message exceeded ${MAX_BUFFER} bytes`));
      void this.close();
      return;
    }
    this.buffer = this.buffer ? Buffer.concat([this.buffer, chunk]) : chunk;
    for (;;) {
      const end = this.buffer?.indexOf('\n') ?? -1;
      if (!this.buffer || end === -1) return;
      const line = this.buffer.toString('utf8', 0, end).replace(/\r$/, '');
      this.buffer = this.buffer.subarray(end + 1);
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        continue; // not JSON: skipped, as the SDK's transport does
      }
      if (isMessage(message)) this.onmessage?.(message);
      else this.onerror?.(new Error('not a JSON-RPC 2.0 message'));
    }
  };
  private readonly onstreamerror = (error: Error): void => this.onerror?.(error);
  private readonly onstdouterror = (error: Error): void => {
    if (this.closed) return;
    this.onerror?.(error);
    void this.close();
  };
  private readonly onend = (): void => void this.close();

  async start(): Promise<void> {
    if (this.started) throw new Error('StdioTransport already started');
    this.started = true;
    if (this.stdin.readableEnded || this.stdin.destroyed) setImmediate(this.onend);
    this.stdin.on('data', this.ondata);
    this.stdin.on('error', this.onstreamerror);
    this.stdin.on('end', this.onend);
    this.stdin.on('close', this.onend);
    this.stdout.on('error', this.onstdouterror);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.ondata);
    this.stdin.off('error', this.onstreamerror);
    this.stdin.off('end', this.onend);
    this.stdin.off('close', this.onend);
    // Late write failures after close are swallowed; the listener stays for that.
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.buffer = undefined;
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error('StdioTransport is closed'));
    return new Promise((resolve, reject) => {
      const onError = (error: Error) => {
        this.stdout.off('drain', onDrain);
        reject(error);
      };
      const onDrain = () => {
        this.stdout.off('error', onError);
        resolve();
      };
      this.stdout.once('error', onError);
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) {
        this.stdout.off('error', onError);
        resolve();
      } else this.stdout.once('drain', onDrain);
    });
  }
}
