/**
 * coord's Cline plugin (SPEC §17): Cline's hook files can only abort a whole run, but a plugin's
 * `hooks.beforeTool` may skip one tool call with a reason, which the model reads (`{"error": reason}`).
 * Before Cline's `editor` runs, coord's pre-edit hook decides. Cline loads plugins in a sandbox process
 * whose parent also starts the MCP servers, so the hook names the client from the sandbox's parent.
 * `coord setup cline --write` writes the loader into `~/.cline/plugins/`.
 */
import { type HookCommand, preEditReason } from './hook-call.js';

/** Cline's tools that write files. */
export const EDIT_TOOLS = ['editor', 'write_to_file', 'replace_in_file', 'apply_patch'];

export interface BeforeToolContext {
  toolCall: { toolName: string; input?: unknown };
  input?: unknown;
}
export interface ClinePlugin {
  name: string;
  manifest: { capabilities: string[] };
  hooks: { beforeTool(ctx: BeforeToolContext): Promise<{ skip: true; reason: string } | undefined> };
}

export function coordPlugin(hook: HookCommand): ClinePlugin {
  return {
    name: 'coord',
    manifest: { capabilities: ['hooks'] },
    hooks: {
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
