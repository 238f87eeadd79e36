/**
 * coord's OpenCode (and Kilo) plugin (SPEC §17): before OpenCode runs one of its file-writing tools,
 * coord's pre-edit hook decides; a path another agent holds makes `tool.execute.before` throw, which
 * OpenCode turns into the tool's failed result — the model reads `lock_conflict: …` — and the file is
 * not touched. `coord setup opencode|kilo --write` writes a one-line loader into the client's plugins
 * folder that calls `coordPlugin` with the hook's command line.
 */
import { type HookCommand, preEditReason } from './hook-call.js';

/** OpenCode's and Kilo's tools that write files, and the argument that names the file. */
export const EDIT_TOOLS = ['edit', 'write', 'multiedit', 'patch', 'apply_patch'];

/** What OpenCode hands a plugin (the part coord reads). */
export interface PluginInput {
  directory: string;
}
export interface ToolBefore {
  tool: string;
  sessionID?: string;
  callID?: string;
}
export interface ToolArgs {
  args: Record<string, unknown>;
}
export interface Hooks {
  'tool.execute.before': (input: ToolBefore, output: ToolArgs) => Promise<void>;
}

export function coordPlugin(hook: HookCommand): (ctx: PluginInput) => Promise<Hooks> {
  return async (ctx) => ({
    'tool.execute.before': async (input, output) => {
      if (!EDIT_TOOLS.includes(input.tool)) return;
      const reason = await preEditReason(hook, { tool_name: input.tool, tool_input: output.args, cwd: ctx.directory });
      if (reason) throw new Error(reason);
    },
  });
}
