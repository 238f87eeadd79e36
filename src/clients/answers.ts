/** The hook answers most clients share, in their own words (SPEC §10); a profile picks or writes its own. */
import type { ClientEvent, HookContract, Spoken } from './profile.js';

export const json = (v: unknown): string => `${JSON.stringify(v)}\n`;

const said = (stdout: string, code = 0, stderr = ''): Spoken => ({ code, stdout, stderr });

type Answers = Pick<HookContract, 'deny' | 'context' | 'keepGoing' | 'afterShell'>;

/**
 * Claude Code's answer refusing a tool call (also Codex's, Copilot CLI's and Qwen Code's): a command hook
 * writes it on stdout, and `decide_edit` answers it as the text Claude Code's `mcp_tool` hook reads — the
 * one shape every door of the edit path refuses in. Allowing is `{}`.
 */
export const claudeDeny = (reason: string, hookEventName: string | undefined = 'PreToolUse') => ({
  hookSpecificOutput: { hookEventName, permissionDecision: 'deny', permissionDecisionReason: reason },
});

/** Claude Code's answer allowing a tool call with one line for the model (`additionalContext`). */
export const claudeNote = (text: string, hookEventName: string | undefined = 'PreToolUse') => ({
  hookSpecificOutput: { hookEventName, additionalContext: text },
});
type EventNames = Partial<Record<ClientEvent, string>>;

/**
 * Claude Code's contract (Codex and Copilot CLI run it too): deny with the JSON
 * `permissionDecision: "deny"` (the model reads the reason without the hook's command line — Codex
 * rejects a bare `allow`, so allowing is answering nothing); session-start context is plain
 * stdout; stop keeps going with `decision: "block"`, and after a shell command `decision: "block"`
 * shows the reason to the model (PostToolUse: the command has already run).
 */
export const claudeAnswers = (events: EventNames): Answers => ({
  deny: (reason, event) => said(json(claudeDeny(reason, events[event]))),
  context: (text) => said(`${text}\n`),
  keepGoing: (reason) => said(json({ decision: 'block', reason })),
  afterShell: (reason) => said(json({ decision: 'block', reason })),
});

/** JSON `additionalContext` for a client that shows plain hook output to the user only. */
export const additionalContext = (events: EventNames) => (text: string, event: ClientEvent) =>
  said(json(claudeNote(text, events[event])));

/** Exit 2 with the reason on stderr: the model reads it (Gemini CLI, Qwen Code). */
export const exit2Deny = (reason: string): Spoken => said('', 2, `${reason}\n`);

/**
 * The hook contract of a client coord plugs into through its own plugin or extension (OpenCode, Kilo, Cline,
 * Pi): no hook files; the plugin runs `coord hook pre-edit --client <kind>` and reads exit 2 and stderr.
 * No shell hooks are installed for them yet (docs/clients.md): were one run, it would answer as a deny.
 */
export const pluginHooks: HookContract = {
  events: {},
  input: { toolName: ['tool_name'], toolInput: ['tool_input'] },
  deny: exit2Deny,
  afterShell: exit2Deny,
  context: (text) => said(`${text}\n`),
  keepGoing: (reason) => said(json({ decision: 'block', reason })),
};
