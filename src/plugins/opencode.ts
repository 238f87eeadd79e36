/**
 * coord's OpenCode (and Kilo) plugin (SPEC §17): before OpenCode runs one of its file-writing tools,
 * coord's pre-edit hook decides; a path another agent holds makes `tool.execute.before` throw, which
 * OpenCode turns into the tool's failed result — the model reads `lock_conflict: …` — and the file is
 * not touched. Each session's system prompt also carries `coord prime`'s context (who the agent is, what
 * it holds, the top of its inbox), asked once per session. `coord setup opencode|kilo --write` writes a one-line loader into the client's plugins
 * folder that calls `coordPlugin` with the hook's command line.
 */
import { commandText, type HookCommand, preEditReason } from './hook-call.js';

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
  'experimental.chat.system.transform': (input: { sessionID?: string }, output: { system: string[] }) => Promise<void>;
}

export function coordPlugin(hook: HookCommand & { prime?: string[] }): (ctx: PluginInput) => Promise<Hooks> {
  const primed = new Map<string, Promise<string>>();
  return async (ctx) => ({
    'experimental.chat.system.transform': async (input, output) => {
      if (!hook.prime || !input.sessionID) return;
      let text = primed.get(input.sessionID);
      if (!text) {
        text = commandText(hook.prime, ctx.directory);
        primed.set(input.sessionID, text);
      }
      const context = await text;
      if (context) output.system.push(context);
    },
    'tool.execute.before': async (input, output) => {
      if (!EDIT_TOOLS.includes(input.tool)) return;
      const reason = await preEditReason(hook, { tool_name: input.tool, tool_input: output.args, cwd: ctx.directory });
      if (reason) throw new Error(reason);
    },
  });
}
