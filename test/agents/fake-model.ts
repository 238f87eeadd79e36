/**
 * What the three fake model servers share: a scripted "model" and a recorder. A script is a list of
 * steps ("call tool X with args Y", "say Z"); each request of the client's agent loop gets the next
 * step. The client's side requests (titles, classifiers, counting tokens) get a short text and do not
 * move the script. Every request body is kept, so a test reads exactly what the model was sent —
 * above all the tool results, which are the bytes a model reads of coord.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * One step of a script: a tool call, or the final words (which end a headless run). `before` runs
 * when the step is reached, before it is answered (e.g. post a task between two inbox calls).
 */
export type Step = ({ tool: string; args: Record<string, unknown> } | { say: string }) & {
  before?: () => Promise<void>;
  /** Answer this turn with an HTTP error instead (a 429 with `Retry-After`: a usage limit). */
  fail?: { status: number; retryAfterS?: number };
};

/** A tool result as the model received it, read back from the next request. */
export interface ToolResult {
  /** The tool's name as the client named it to the model (e.g. `mcp__coord__inbox`). */
  tool: string;
  /** The text the model reads, byte for byte as sent. */
  text: string;
  isError: boolean;
  /** The pieces the client split it into, where it did (Codex puts its own "Wall time" header first). */
  parts?: string[] | undefined;
}

/** The vendor-specific part: how a request names its tools, and how to answer a step. */
export interface Wire {
  /** Is this a request of the agent loop (it offers tools), as opposed to a side request? */
  isAgentTurn(body: unknown, req: IncomingMessage): boolean;
  /** The tool names offered to the model in this request (namespaced as the model calls them). */
  toolNames(body: unknown): string[];
  /** Tool results in this request's history, oldest first. */
  toolResults(body: unknown): ToolResult[];
  /** Write the answer for a step (streamed or not, as the request asked). */
  answer(step: Step, body: unknown, req: IncomingMessage, res: ServerResponse, n: number): void;
  /** Answer a side request or anything else (model lists, token counts); false: 404. */
  other(body: unknown, req: IncomingMessage, res: ServerResponse, n: number): boolean;
}

export interface Recorded {
  method: string;
  url: string;
  body: unknown;
  agentTurn: boolean;
  /** When the request had arrived in full, and when its answer was sent (ms since the epoch). */
  at: number;
  answeredAt?: number;
  /** The step this request was answered with, if it was an agent turn. */
  step?: Step;
}

export interface FakeModel {
  url: string;
  port: number;
  requests: Recorded[];
  /** Agent-loop requests only. */
  turns(): Recorded[];
  /** Tool results the model has been sent, from the latest agent-loop request (which holds the whole history). */
  results(): ToolResult[];
  /** Replace the script (and start it from its first step). */
  script(steps: Step[]): void;
  /**
   * One script per conversation, for several agents at once: `keyOf` names a request's conversation (e.g. the
   * task id in its prompt); a conversation with a script of its own follows it, the others the common one.
   */
  scriptBy(keyOf: (raw: string) => string | null, scripts: Record<string, Step[]>): void;
  /**
   * How long the client took over each tool step named `tool`: from the answer that asked for the call
   * to the next agent-loop request (which carries the result) — the tool's cost as the client sees it.
   */
  toolMs(tool: string): number[];
  /** How many steps were answered. */
  stepsDone(): number;
  close(): Promise<void>;
}

/**
 * Start a fake model on 127.0.0.1. A step naming a tool the client does not offer yet (its MCP server
 * is still starting) is called anyway, without moving the script on, up to PATIENCE times (then the
 * model gives up in words) — clients that send their first request
 * before MCP servers are up then call a tool they do not know, get an error result and ask again.
 */
const PATIENCE = 8;

export async function startFakeModel(wire: Wire, steps: Step[] = []): Promise<FakeModel> {
  let script = steps;
  let next = 0;
  let n = 0;
  let missed = 0;
  let keyOf: ((raw: string) => string | null) | null = null;
  const keyed = new Map<string, { steps: Step[]; next: number; missed: number }>();
  const requests: Recorded[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      n += 1;
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = raw;
      try {
        body = raw === '' ? null : JSON.parse(raw);
      } catch {
        /* keep the raw text */
      }
      const agentTurn = req.method === 'POST' && wire.isAgentTurn(body, req);
      const rec: Recorded = { method: req.method ?? '', url: req.url ?? '', body, agentTurn, at: Date.now() };
      requests.push(rec);
      res.on('finish', () => {
        rec.answeredAt = Date.now();
      });
      try {
        if (agentTurn) {
          const key = keyOf?.(raw) ?? null;
          const own = key === null ? undefined : keyed.get(key);
          const step = (own ? own.steps[own.next] : script[next]) ?? { say: 'done' };
          if ('tool' in step && !wire.toolNames(body).includes(step.tool)) {
            // Not offered yet: call it anyway (the client answers "no such tool") without moving on —
            // a few times, then give up in words so a client whose MCP server never came ends its run.
            const tries = own ? ++own.missed : ++missed;
            rec.step = step;
            wire.answer(tries > PATIENCE ? { say: `never offered ${step.tool}` } : step, body, req, res, n);
            return;
          }
          if (own) {
            own.missed = 0;
            own.next += 1;
          } else {
            missed = 0;
            next += 1;
          }
          await step.before?.();
          rec.step = step;
          if (step.fail) {
            res.writeHead(step.fail.status, {
              'content-type': 'application/json',
              ...(step.fail.retryAfterS === undefined ? {} : { 'retry-after': String(step.fail.retryAfterS) }),
            });
            res.end(
              JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'usage limit reached' } }),
            );
            return;
          }
          wire.answer(step, body, req, res, n);
          return;
        }
        if (!wire.other(body, req, res, n)) {
          res.writeHead(404, { 'content-type': 'application/json' });
          res.end('{"error":{"message":"not found"}}');
        }
      } catch (e) {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String(e));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    turns: () => requests.filter((r) => r.agentTurn),
    results() {
      const turns = requests.filter((r) => r.agentTurn);
      const last = turns[turns.length - 1];
      return last ? wire.toolResults(last.body) : [];
    },
    script(s) {
      script = s;
      next = 0;
    },
    scriptBy(k, scripts) {
      keyOf = k;
      keyed.clear();
      for (const [key, steps] of Object.entries(scripts)) keyed.set(key, { steps, next: 0, missed: 0 });
    },
    stepsDone: () => next,
    toolMs(tool) {
      const turns = requests.filter((r) => r.agentTurn);
      const out: number[] = [];
      turns.forEach((r, i) => {
        const nextTurn = turns[i + 1];
        if (r.step && 'tool' in r.step && r.step.tool === tool && r.answeredAt && nextTurn) {
          out.push(nextTurn.at - r.answeredAt);
        }
      });
      return out;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Server-sent events, one `event:`/`data:` pair per item. */
export function sse(res: ServerResponse, events: { event?: string; data: unknown }[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'close' });
  for (const e of events) {
    if (e.event) res.write(`event: ${e.event}\n`);
    res.write(`data: ${JSON.stringify(e.data)}\n\n`);
  }
  res.end();
}

export function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
