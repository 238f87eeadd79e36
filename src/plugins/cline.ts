/**
 * coord's Cline plugin (SPEC §17): Cline's hook files can only abort a whole run, but a plugin's
 * `hooks.beforeTool` may skip one tool call with a reason, which the model reads (`{"error": reason}`).
 * Before Cline's `editor` runs, coord's pre-edit hook decides. Cline loads plugins in a sandbox process
 * whose parent also starts the MCP servers, so the hook names the client from the sandbox's parent.
 * Each conversation starts with `coord prime`'s context (`hooks.beforeRun` → `appendContext`).
 * `coord setup cline --write` writes the loader into `~/.cline/plugins/`.
 */
import { commandText, type HookCommand, preEditReason } from './hook-call.js';

/** Cline's tools that write files. */
export const EDIT_TOOLS = ['editor', 'write_to_file', 'replace_in_file', 'apply_patch'];

export interface BeforeToolContext {
  toolCall: { toolName: string; input?: unknown };
  input?: unknown;
}
export interface ClinePlugin {
  name: string;
  manifest: { capabilities: string[] };
  hooks: {
    beforeRun(ctx: { snapshot?: { conversationId?: string } }): Promise<{ appendContext: string } | undefined>;
    beforeTool(ctx: BeforeToolContext): Promise<{ skip: true; reason: string } | undefined>;
  };
}

export function coordPlugin(hook: HookCommand & { prime?: string[] }): ClinePlugin {
  const primed = new Set<string>();
  return {
    name: 'coord',
    manifest: { capabilities: ['hooks'] },
    hooks: {
      // A run's start: coord prime's context, once per conversation.
      async beforeRun(ctx) {
        const id = ctx.snapshot?.conversationId ?? '';
        if (!hook.prime || primed.has(id)) return undefined;
        primed.add(id);
        const text = await commandText(hook.prime, process.cwd(), true);
        return text ? { appendContext: text } : undefined;
      },
      async beforeTool(ctx) {
        const tool = ctx.toolCall.toolName;
        if (!EDIT_TOOLS.includes(tool)) return undefined;
        const reason = await preEditReason(
          { ...hook, fromParentOfPlugin: true },
          { tool_name: tool, tool_input: ctx.input ?? ctx.toolCall.input, cwd: process.cwd() },
        );
        return reason ? { skip: true, reason } : undefined;
      },
    },
  };
}
