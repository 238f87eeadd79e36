/**
 * coord's Pi extension (SPEC §17). Pi has no MCP by design, so the extension is both halves of what
 * other clients get from setup: it starts `coord mcp --client pi` as its child and offers that
 * server's tools to Pi's model as its own (`coord_<tool>`, the core set by default: coord mcp decides),
 * before the first prompt of a session it adds `coord prime`'s context (who the agent is, what it holds,
 * the top of its inbox) as a message, and before Pi's `edit` or `write` runs, coord's pre-edit hook decides — a path another agent holds
 * makes `tool_call` return `{block: true, reason}`, which the model reads. Around `bash`, coord notes git's
 * view of the work tree before and looks again after (SPEC §10 shell edits): a held file the command
 * changed is added to the command's result (`tool_result`), free ones are auto-locked. When the agent
 * is about to end (a turn that called no tool), coord's stop check may send what arrived for it alone as a
 * follow-up, which starts one more turn. The MCP server and the hook
 * are both children of the Pi process, so they name the same agent. `coord setup pi --write` writes
 * the loader into `~/.pi/agent/extensions/`.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { PI_TOOLS } from '../clients/tool-names.js';
import { type HookCommand, pluginHooks } from './hook-call.js';

/** Pi's tools that write files, and its shell tool: the client profile's list. */
export const { edit: EDIT_TOOLS, shell: SHELL_TOOLS } = PI_TOOLS;

interface McpTool {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
}
interface McpResult {
  content?: { type: string; text?: string }[];
  isError?: boolean;
}
type Content = { type: 'text'; text: string };

/** The part of Pi's extension API coord uses. */
export interface PiApi {
  registerTool(tool: {
    name: string;
    label: string;
    description: string;
    parameters: Record<string, unknown>;
    execute(id: string, params: Record<string, unknown>): Promise<{ content: Content[]; details: unknown }>;
  }): void;
  on(
    event: 'tool_call',
    handler: (
      event: { toolName: string; toolCallId?: string; input: unknown },
      ctx: { cwd?: string },
    ) => Promise<{ block: true; reason: string } | undefined>,
  ): void;
  on(
    event: 'tool_result',
    handler: (
      event: { toolName: string; toolCallId?: string; input: unknown; content: Content[] },
      ctx: { cwd?: string },
    ) => Promise<{ content: Content[] } | undefined>,
  ): void;
  on(event: 'turn_end', handler: (event: { toolResults: unknown[] }, ctx: { cwd?: string }) => Promise<void>): void;
  on(event: 'session_shutdown', handler: () => void | Promise<void>): void;
  on(
    event: 'before_agent_start',
    handler: (
      event: unknown,
      ctx: { cwd?: string },
    ) => Promise<{ message: { customType: string; content: string; display: boolean } } | undefined>,
  ): void;
  sendMessage(
    message: { customType: string; content: string; display: boolean },
    options?: { triggerTurn?: boolean; deliverAs?: 'steer' | 'followUp' | 'nextTurn' },
  ): void;
}

export interface PiConfig {
  /** How to start `coord mcp --client pi`: absolute node, then bin/coord.js and its arguments. */
  mcp: string[];
  hook: HookCommand;
  /** How to run `coord prime --client pi` (session-start context). */
  prime?: string[];
}

/** A minimal MCP client over stdio (newline-delimited JSON-RPC): initialize, tools/list, tools/call. */
class McpChild {
  private readonly child: ChildProcessWithoutNullStreams;
  private next = 1;
  private buffer = '';
  private readonly waiting = new Map<number, (msg: { result?: unknown; error?: { message?: string } }) => void>();

  constructor(argv: string[]) {
    const [cmd, ...args] = argv;
    this.child = spawn(cmd ?? 'node', args, { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.on('data', (d: Buffer) => this.read(d.toString('utf8')));
    this.child.stderr.resume();
    this.child.on('close', () => {
      for (const done of this.waiting.values()) done({ error: { message: 'coord mcp exited' } });
      this.waiting.clear();
    });
    this.child.stdin.on('error', () => {});
  }

  private read(chunk: string): void {
    this.buffer += chunk;
    for (let nl = this.buffer.indexOf('\n'); nl >= 0; nl = this.buffer.indexOf('\n')) {
      const line = this.buffer.slice(0, nl).trim();
      this.buffer = this.buffer.slice(nl + 1);
      if (!line) continue;
      try {
        const msg = JSON.parse(line) as { id?: number; result?: unknown; error?: { message?: string } };
        if (typeof msg.id === 'number' && this.waiting.has(msg.id)) {
          this.waiting.get(msg.id)?.(msg);
          this.waiting.delete(msg.id);
        }
      } catch {
        /* not JSON-RPC: ignore */
      }
    }
  }

  request<T>(method: string, params: unknown): Promise<T> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, (msg) =>
        msg.error ? reject(new Error(msg.error.message ?? 'error')) : resolve(msg.result as T),
      );
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  notify(method: string): void {
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
  }

  close(): void {
    this.child.stdin.end();
    this.child.kill();
  }
}

export function coordExtension(config: PiConfig): (pi: PiApi) => Promise<void> {
  return async (pi) => {
    const hooks = pluginHooks(config.hook);
    const mcp = new McpChild(config.mcp);
    pi.on('session_shutdown', () => mcp.close());
    let tools: McpTool[] = [];
    try {
      await mcp.request('initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'pi', version: '1' },
      });
      mcp.notify('notifications/initialized');
      tools = (await mcp.request<{ tools: McpTool[] }>('tools/list', {})).tools;
    } catch {
      // coord mcp did not start: Pi runs without coord's tools; the edit guard below still asks the hook.
    }
    for (const tool of tools) {
      pi.registerTool({
        name: `coord_${tool.name}`,
        label: `coord ${tool.name}`,
        description: tool.description ?? tool.name,
        parameters: tool.inputSchema ?? { type: 'object', properties: {} },
        async execute(_id, params) {
          const r = await mcp.request<McpResult>('tools/call', { name: tool.name, arguments: params });
          const text = (r.content ?? []).map((c) => c.text ?? '').join('');
          // Pi marks a tool result as failed only when execute throws; the model reads the message.
          if (r.isError) throw new Error(text);
          return { content: [{ type: 'text', text }], details: {} };
        },
      });
    }
    let primed = false;
    pi.on('before_agent_start', async (_event, ctx) => {
      if (primed || !config.prime) return undefined;
      primed = true;
      const text = await hooks.prime(config.prime, ctx.cwd ?? process.cwd());
      return text ? { message: { customType: 'coord', content: text, display: false } } : undefined;
    });
    const callOf = (event: { toolName: string; toolCallId?: string; input: unknown }, ctx: { cwd?: string }) => ({
      tool_name: event.toolName,
      tool_input: event.input,
      cwd: ctx.cwd ?? process.cwd(),
      ...(event.toolCallId ? { tool_use_id: event.toolCallId } : {}),
    });
    pi.on('tool_call', async (event, ctx) => {
      if (SHELL_TOOLS.includes(event.toolName)) {
        await hooks.beforeShell(callOf(event, ctx));
        return undefined;
      }
      if (!EDIT_TOOLS.includes(event.toolName)) return undefined;
      const reason = await hooks.preEdit(callOf(event, ctx));
      return reason ? { block: true, reason } : undefined;
    });
    // SPEC §10 shell edits: a held file the command changed is told to the model after the command's output.
    pi.on('tool_result', async (event, ctx) => {
      if (!SHELL_TOOLS.includes(event.toolName)) return undefined;
      const reason = await hooks.afterShell(callOf(event, ctx));
      return reason ? { content: [...event.content, { type: 'text', text: `\n\n${reason}` }] } : undefined;
    });
    // The stop check, at the end of a turn that called no tool (the agent is about to stop): what arrived
    // for this agent alone since it last looked is delivered as a follow-up, which Pi hands the model
    // before the agent ends (at agent_end it is too late: `pi -p` has exited). Once: the turn it starts
    // ends with `again`.
    let kept = false;
    pi.on('turn_end', async (event, ctx) => {
      if (event.toolResults.length > 0) return;
      const again = kept;
      kept = false;
      const reason = await hooks.stop(ctx.cwd ?? process.cwd(), again);
      if (!reason) return;
      kept = true;
      pi.sendMessage(
        { customType: 'coord', content: reason, display: true },
        { deliverAs: 'followUp', triggerTurn: true },
      );
    });
  };
}
