/**
 * One MCP server per session, built from the tool table: the same server
 * backs `coord mcp` (through the daemon's /mcp) and any Streamable HTTP
 * client. It holds no state of its own beyond the session.
 */
import { type CallToolResult, McpServer, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { Logger } from 'pino';
import type { ResultWrapper } from '../../clients/profile.js';
import { withoutLocalPaths } from '../../core/connectors/confine.js';
import { invoke } from '../../core/invoke.js';
import { inboxText } from '../../core/messages/inbox-text.js';
import type { Ctx } from '../../core/operation.js';
import { operations } from '../../core/operations.js';
import { DATA_META, toCoordError, toolError, toolErrorAsText } from './errors.js';
import { CHANNEL_METHOD, INBOX_URI, InboxWatch } from './inbox-push.js';
import { listedSchema, type ToolArgs } from './listed-schema.js';
import { errorWithoutOthersLockIds, withoutOthersLockIds } from './others-locks.js';
import type { McpSession } from './session.js';
import { type Tool, tools } from './tools.js';
import { codexWorkspace, rootPath } from './workspace.js';

export const INSTRUCTIONS = [
  'coord is the task board the agents working in this repository share.',
  'Read `inbox` for work; `claim_task` before you start a task (exactly one agent wins; if you lose, pick another);',
  '`heartbeat` while you work; `submit_result` when done, or `release_task` to give it back.',
  '`lock_files` before editing files another agent might touch; `who` shows who else is here.',
  'Messages from other agents come first in `inbox`: `ack_message` once handled; `send_message` to tell one (or "*") something; a note (`add_note`, or `note` on release_task) tells the next agent on a task what was done.',
].join(' ');

export interface McpServerDeps {
  ctx: Ctx;
  session: McpSession;
  version: string;
  log?: Logger | undefined;
  /** Called once when this server's transport closes. */
  onClose?: () => void;
  /** SPEC §17: `core` lists the core set, short (for clients that load every schema into every request). Default all. */
  tools?: ToolSurface;
  /**
   * How the client shows a tool result to its model (its profile's `result`): where the model would
   * read `_meta` as JSON always (`whole-json`) it is left out; where it would read a failing result's
   * whole object in a long error line (`failing-object`), a failure is sent unflagged, as text.
   */
  wrapper?: ResultWrapper;
}

/**
 * SPEC §17: `all` every tool; `core` the core set, listed short; `lean` the core set's tools an agent
 * needs most, for a client that adds bytes of its own to every tool it offers.
 */
export type ToolSurface = 'lean' | 'core' | 'all';

export function buildMcpServer(deps: McpServerDeps): McpServer {
  const { ctx, session, log } = deps;
  const server: McpServer = new McpServer(
    { name: 'coord', version: deps.version },
    {
      capabilities: { tools: {}, resources: { subscribe: true }, experimental: { 'claude/channel': {} } },
      instructions: INSTRUCTIONS,
    },
  );
  session.nameClient(() => server.server.getClientVersion()?.name);
  for (const tool of tools) {
    const short = deps.tools === 'core' || deps.tools === 'lean';
    const core = short ? tool.core : undefined;
    if (short && !core) continue;
    if (deps.tools === 'lean' && !core?.lean) continue;
    server.registerTool(
      tool.name,
      {
        description: core?.description ?? tool.description,
        inputSchema: listedSchema(tool.input, core),
        annotations: tool.annotations,
      },
      (args, extra) => {
        const workspace = codexWorkspace(extra.mcpReq._meta);
        if (workspace) session.learnWorkspace(workspace, 'call');
        // Every call of a session is its agent's own (SPEC §14: it ends only its own locks).
        return callTool(tool, args, {
          ...ctx,
          session_id: session.id,
          acting_agent: session.agent,
          signal: extra.mcpReq.signal,
        });
      },
    );
  }

  async function callTool(tool: Tool, args: ToolArgs, callCtx: Ctx): Promise<CallToolResult> {
    try {
      session.noteLease(args.lease_s);
      const out = await tool.run(args, { ctx: callCtx, session });
      const content: CallToolResult['content'] = [{ type: 'text', text: out.text }];
      if (deps.wrapper === 'whole-json') return { content };
      return { content, _meta: { [DATA_META]: { ...withoutOthersLockIds(out.data, session.agent) } } };
    } catch (err) {
      const e = errorWithoutOthersLockIds(toCoordError(err), session.agent);
      if (e.code === 'internal') log?.error({ err, tool: tool.name }, 'MCP tool failed');
      if (deps.wrapper === 'failing-object') return toolErrorAsText(e);
      return toolError(e, deps.wrapper !== 'whole-json');
    }
  }

  server.registerResource(
    'inbox',
    INBOX_URI,
    { title: 'Your coord inbox', description: 'Your claims, then the tasks you may claim.', mimeType: 'text/plain' },
    async (uri) => {
      const view = await invoke(operations.inbox, ctx, { agent: session.agent, board: session.board });
      return {
        contents: [{ uri: uri.href, mimeType: 'text/plain', text: inboxText(view, ctx.clock.now(), undefined) }],
      };
    },
  );
  watchInbox(server, deps);
  return server;
}

function watchInbox(server: McpServer, { ctx, session, log, onClose }: McpServerDeps): void {
  const low = server.server;
  const warn = (err: unknown) => log?.warn({ err }, 'inbox push failed');
  const watch = new InboxWatch(
    ctx.store,
    session,
    {
      changed: () => void low.sendResourceUpdated({ uri: INBOX_URI }).catch(warn),
      news: (line, meta) => {
        // SPEC §16: a connector hears no path of the owner's machine, pushed or answered.
        const content = ctx.confined_to === undefined ? line : withoutLocalPaths(line);
        void low.notification({ method: CHANNEL_METHOD, params: { content, meta } }).catch(warn);
      },
    },
    warn,
  );
  const subscription = (subscribed: boolean) => async (req: { params: { uri: string } }) => {
    if (req.params.uri !== INBOX_URI) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `no resource ${req.params.uri}; subscribe to ${INBOX_URI}`,
      );
    }
    watch.subscribed = subscribed;
    watch.update();
    return {};
  };
  low.setRequestHandler('resources/subscribe', subscription(true));
  low.setRequestHandler('resources/unsubscribe', subscription(false));
  low.oninitialized = () => {
    if (low.getClientCapabilities()?.roots) {
      low.listRoots().then(
        ({ roots }) => {
          const dir = rootPath(roots);
          if (dir) session.learnWorkspace(dir, 'roots');
        },
        (err) => log?.debug({ err }, 'roots/list failed'),
      );
    }
    watch.channel = wantsChannel(low.getClientCapabilities()?.experimental, low.getClientVersion()?.name);
    watch.update();
  };
  low.onclose = () => {
    watch.close();
    onClose?.();
  };
}

/**
 * Claude Code drops resource notifications but shows `claude/channel` events
 * to the model. It is recognised by declaring that experimental capability
 * itself, or by its client name.
 */
export const wantsChannel = (experimental: Record<string, unknown> | undefined, clientName: string | undefined) =>
  experimental?.['claude/channel'] !== undefined || clientName === 'claude-code';
