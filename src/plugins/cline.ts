/**
 * coord's Cline plugin (SPEC §17): Cline's hook files can only abort a whole run, but a plugin's
 * `hooks.beforeTool` may skip one tool call with a reason, which the model reads (`{"error": reason}`).
 * Before Cline's `editor` runs, coord's pre-edit hook decides. Around its shell tool (`run_commands`)
 * coord notes git's view of the work tree before and looks again after (SPEC §10 shell edits): a held
 * file the command changed is told to the model (`afterTool` → `appendContext`), free ones are
 * auto-locked. Cline loads plugins in a sandbox process whose parent also starts the MCP servers, so the
 * hook names the client from the sandbox's parent. Each conversation starts with `coord prime`'s context
 * (`hooks.beforeRun` → `appendContext`). Cline has no plugin event that keeps a finished run going
 * (`afterRun` returns nothing), so there is no stop check. `coord setup cline --write` writes the loader
 * into `~/.cline/plugins/`. SPEC §19: its question tool (`ask_question`) waits for the user's answer, so
 * before it runs coord's notify hook lists the agent as waiting in `coord attention`, and after it the resume
 * hook takes it off (Cline's tool approvals are a callback of its host, which no plugin sees).
 */
import { CLINE_TOOLS } from '../clients/tool-names.js';
import { type HookCommand, pluginHooks } from './hook-call.js';

/** Cline's tools that write files, and its shell tools: the client profile's list. */
export const { edit: EDIT_TOOLS, shell: SHELL_TOOLS } = CLINE_TOOLS;
/** Its tool that asks the user a question and waits for the answer (SPEC §19). */
export const ASK_TOOL = 'ask_question';

export interface BeforeToolContext {
  toolCall: { toolName: string; input?: unknown; toolCallId?: string };
  input?: unknown;
}
export interface ClinePlugin {
  name: string;
  manifest: { capabilities: string[] };
  hooks: {
    beforeRun(ctx: { snapshot?: { conversationId?: string } }): Promise<{ appendContext: string } | undefined>;
    beforeTool(ctx: BeforeToolContext): Promise<{ skip: true; reason: string } | undefined>;
    afterTool(ctx: BeforeToolContext): Promise<{ appendContext: string } | undefined>;
  };
}

export function coordPlugin(hook: HookCommand & { prime?: string[] }): ClinePlugin {
  const primed = new Set<string>();
  const hooks = pluginHooks({ ...hook, fromParentOfPlugin: true });
  const callOf = (ctx: BeforeToolContext) => ({
    tool_name: ctx.toolCall.toolName,
    tool_input: ctx.input ?? ctx.toolCall.input,
    cwd: process.cwd(),
    ...(ctx.toolCall.toolCallId ? { tool_use_id: ctx.toolCall.toolCallId } : {}),
  });
  return {
    name: 'coord',
    manifest: { capabilities: ['hooks'] },
    hooks: {
      // A run's start: coord prime's context, once per conversation.
      async beforeRun(ctx) {
        const id = ctx.snapshot?.conversationId ?? '';
        if (!hook.prime || primed.has(id)) return undefined;
        primed.add(id);
        const text = await hooks.prime(hook.prime, process.cwd());
        return text ? { appendContext: text } : undefined;
      },
      async beforeTool(ctx) {
        const tool = ctx.toolCall.toolName;
        if (tool === ASK_TOOL) {
          const input = (ctx.input ?? ctx.toolCall.input ?? {}) as { question?: unknown };
          const q = typeof input.question === 'string' ? input.question : '';
          await hooks.tellWaiting(process.cwd(), q ? `asks you: ${q}` : 'asks you a question');
          return undefined;
        }
        if (SHELL_TOOLS.includes(tool)) {
          await hooks.beforeShell(callOf(ctx));
          return undefined;
        }
        if (!EDIT_TOOLS.includes(tool)) return undefined;
        const reason = await hooks.preEdit(callOf(ctx));
        return reason ? { skip: true, reason } : undefined;
      },
      async afterTool(ctx) {
        if (ctx.toolCall.toolName === ASK_TOOL) {
          await hooks.tellWaiting(process.cwd(), null);
          return undefined;
        }
        if (!SHELL_TOOLS.includes(ctx.toolCall.toolName)) return undefined;
        const reason = await hooks.afterShell(callOf(ctx));
        return reason ? { appendContext: reason } : undefined;
      },
    },
  };
}
