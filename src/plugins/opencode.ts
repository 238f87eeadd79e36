/**
 * coord's OpenCode (and Kilo) plugin (SPEC §17): before OpenCode runs one of its file-writing tools,
 * coord's pre-edit hook decides; a path another agent holds makes `tool.execute.before` throw, which
 * OpenCode turns into the tool's failed result — the model reads `lock_conflict: …` — and the file is
 * not touched. Around its shell tool (`bash`), coord notes git's view of the work tree before and looks
 * again after (SPEC §10 shell edits): a held file the command changed is told to the model at the end
 * of the command's output, free ones are auto-locked. When the model's text is complete, coord's stop
 * check runs: a message or a task for this agent alone that arrived since it last looked is queued to
 * the session as a prompt, once. Each session's system prompt also carries `coord prime`'s context (who
 * the agent is, what it holds, the top of its inbox), asked once per session. `coord setup
 * opencode|kilo --write` writes a one-line loader into the client's plugins folder that calls
 * `coordPlugin` with the hook's command line. The hooks run inside OpenCode (hook-call.ts). SPEC §19: its
 * bus events say when a session waits for its person — `permission.asked` (a tool the config says to ask
 * about), `question.asked` (its question tool) — and when the person answered (`permission.replied`,
 * `question.replied`, `question.rejected`): coord's notify and resume hooks tell `coord attention`.
 */

import { OPENCODE_TOOLS } from '../clients/tool-names.js';
import { type HookCommand, pluginHooks } from './hook-call.js';

/** OpenCode's and Kilo's tools that write files, and its shell tool: the client profile's list. */
export const { edit: EDIT_TOOLS, shell: SHELL_TOOLS } = OPENCODE_TOOLS;

/** What OpenCode hands a plugin (the part coord reads). */
export interface PluginInput {
  directory: string;
  /** OpenCode's SDK client: the stop check prompts the session through it. */
  client?: {
    session?: {
      promptAsync?: (o: {
        path: { id: string };
        body: { parts: { type: 'text'; text: string }[] };
      }) => Promise<unknown>;
    };
  };
}
export interface ToolBefore {
  tool: string;
  sessionID?: string;
  callID?: string;
}
export interface ToolArgs {
  args: Record<string, unknown>;
}
export interface ToolAfter {
  tool: string;
  sessionID?: string;
  callID?: string;
  args?: Record<string, unknown>;
}
/** One of OpenCode's bus events, as its plugin `event` hook receives it (the part coord reads). */
export interface BusEvent {
  type: string;
  properties?: Record<string, unknown>;
}
export interface Hooks {
  event: (input: { event: BusEvent }) => Promise<void>;
  'tool.execute.before': (input: ToolBefore, output: ToolArgs) => Promise<void>;
  'tool.execute.after': (input: ToolAfter, output: { output: string }) => Promise<void>;
  'experimental.chat.system.transform': (input: { sessionID?: string }, output: { system: string[] }) => Promise<void>;
  'experimental.text.complete': (
    input: { sessionID: string; messageID: string; partID: string },
    output: { text: string },
  ) => Promise<void>;
}

export function coordPlugin(hook: HookCommand & { prime?: string[] }): (ctx: PluginInput) => Promise<Hooks> {
  const hooks = pluginHooks(hook);
  const primed = new Map<string, Promise<string>>();
  /** Sessions going on because of the stop check: their next idle does not hold them again. */
  const kept = new Set<string>();
  return async (ctx) => ({
    // SPEC §19: waiting for the person, and answered.
    event: async ({ event }) => {
      const said = waitingFor(event);
      if (said !== undefined) await hooks.tellWaiting(ctx.directory, said);
    },
    'experimental.chat.system.transform': async (input, output) => {
      if (!hook.prime || !input.sessionID) return;
      let text = primed.get(input.sessionID);
      if (!text) {
        text = hooks.prime(hook.prime, ctx.directory);
        primed.set(input.sessionID, text);
      }
      const context = await text;
      if (context) output.system.push(context);
    },
    'tool.execute.before': async (input, output) => {
      const call = { tool_name: input.tool, tool_input: output.args, cwd: ctx.directory };
      if (SHELL_TOOLS.includes(input.tool)) {
        await hooks.beforeShell({ ...call, ...(input.callID ? { tool_use_id: input.callID } : {}) });
        return;
      }
      if (!EDIT_TOOLS.includes(input.tool)) return;
      const reason = await hooks.preEdit(call);
      if (reason) throw new Error(reason);
    },
    'tool.execute.after': async (input, output) => {
      if (!SHELL_TOOLS.includes(input.tool)) return;
      const reason = await hooks.afterShell({
        tool_name: input.tool,
        tool_input: input.args ?? {},
        cwd: ctx.directory,
        ...(input.callID ? { tool_use_id: input.callID } : {}),
      });
      if (reason) output.output = `${output.output}\n\n${reason}`;
    },
    // The stop check, when the model's text is complete: a prompt queued then is taken by the session's
    // loop before it ends (on session.idle it is too late: `opencode run` has ended). Once: the turn it
    // starts ends with `again`.
    'experimental.text.complete': async (input) => {
      const id = input.sessionID;
      const again = kept.delete(id);
      const reason = await hooks.stop(ctx.directory, again);
      const session = ctx.client?.session;
      if (!reason || !session?.promptAsync) return;
      kept.add(id);
      // A method of OpenCode's SDK client: called on it (it reads `this`).
      await session.promptAsync({ path: { id }, body: { parts: [{ type: 'text', text: reason }] } });
    },
  });
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/**
 * What a bus event says of waiting (SPEC §19): the words for `coord attention` when a session starts waiting
 * for its person, null when the person answered, undefined for any other event. `permission.asked` carries
 * the permission (`bash`, `edit`, …) and its patterns (the command, the path); `question.asked` its questions.
 */
export function waitingFor(event: BusEvent): string | null | undefined {
  const p = event.properties ?? {};
  switch (event.type) {
    case 'permission.asked': {
      const what = strings(p.patterns).join(', ');
      return `needs your permission to use ${typeof p.permission === 'string' ? p.permission : 'a tool'}${what ? `: ${what}` : ''}`;
    }
    case 'question.asked': {
      const first = (Array.isArray(p.questions) ? p.questions[0] : undefined) as Record<string, unknown> | undefined;
      const q =
        typeof first?.question === 'string' ? first.question : typeof first?.header === 'string' ? first.header : '';
      return q ? `asks you: ${q}` : 'asks you a question';
    }
    case 'permission.replied':
    case 'question.replied':
    case 'question.rejected':
      return null;
    default:
      return undefined;
  }
}
