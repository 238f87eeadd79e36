/**
 * A verdict in each client's own words (SPEC §10). Blocking: Claude Code and
 * Codex take the JSON `permissionDecision: "deny"` (shown to the model
 * without the hook's command line); Gemini CLI exit 2 with the reason on
 * stderr; Cursor `permission: "deny"`. Allowing is answering nothing (Codex
 * rejects a bare `allow`). Context at session start: plain stdout for Claude
 * Code and Codex, JSON `additionalContext` for Gemini CLI (which shows plain
 * output to the user only). Stop: `decision: "block"` with the reason. After a shell command: Claude
 * Code and Codex `decision: "block"` with the reason (shown to the model), Gemini CLI `additionalContext`.
 */
import type { ClientKind } from '../client/agent-identity.js';
import type { Verdict } from './guard-mode.js';

export interface Spoken {
  code: number;
  stdout: string;
  stderr: string;
}

export type HookEvent = 'pre-edit' | 'session-start' | 'stop' | 'pre-commit' | 'pre-shell' | 'post-shell';

const EVENT_NAME: Record<ClientKind, Partial<Record<HookEvent, string>>> = {
  claude: { 'pre-edit': 'PreToolUse', 'session-start': 'SessionStart', stop: 'Stop', 'post-shell': 'PostToolUse' },
  codex: { 'pre-edit': 'PreToolUse', 'session-start': 'SessionStart', stop: 'Stop', 'post-shell': 'PostToolUse' },
  gemini: { 'pre-edit': 'BeforeTool', 'session-start': 'SessionStart', stop: 'AfterAgent', 'post-shell': 'AfterTool' },
  cursor: { 'pre-edit': 'preToolUse', 'session-start': 'sessionStart', stop: 'stop', 'post-shell': 'postToolUse' },
};

const json = (v: unknown) => `${JSON.stringify(v)}\n`;

export function speak(client: ClientKind, event: HookEvent, v: Verdict): Spoken {
  const warn = v.kind === 'allow' && v.warning ? `${v.warning}\n` : '';
  switch (v.kind) {
    case 'allow':
      return { code: 0, stdout: '', stderr: warn };
    case 'deny':
      if (client === 'gemini') return { code: 2, stdout: '', stderr: `${v.reason}\n` };
      if (client === 'cursor') {
        return {
          code: 2,
          stdout: json({ permission: 'deny', user_message: v.reason, agent_message: v.reason }),
          stderr: `${v.reason}\n`,
        };
      }
      return {
        code: 0,
        stdout: json({
          hookSpecificOutput: {
            hookEventName: EVENT_NAME[client][event],
            permissionDecision: 'deny',
            permissionDecisionReason: v.reason,
          },
        }),
        stderr: '',
      };
    case 'context':
      if (client === 'gemini' || client === 'cursor') {
        return {
          code: 0,
          stdout: json({ hookSpecificOutput: { hookEventName: EVENT_NAME[client][event], additionalContext: v.text } }),
          stderr: '',
        };
      }
      return { code: 0, stdout: `${v.text}\n`, stderr: '' };
    case 'continue':
      // After a shell command (SPEC §10): Gemini CLI appends additionalContext to the tool's result, which
      // keeps the command's output; a block there would replace it.
      if (event === 'post-shell' && client === 'gemini') {
        return {
          code: 0,
          stdout: json({ hookSpecificOutput: { hookEventName: 'AfterTool', additionalContext: v.reason } }),
          stderr: '',
        };
      }
      if (client === 'cursor') return { code: 0, stdout: json({ followup_message: v.reason }), stderr: '' };
      return { code: 0, stdout: json({ decision: 'block', reason: v.reason }), stderr: '' };
  }
}
