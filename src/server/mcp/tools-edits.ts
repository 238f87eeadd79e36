/**
 * SPEC §10 "The client's cheapest hook": `decide_edit`, the tool a client's own hook calls on this session's
 * MCP server (Claude Code's `mcp_tool` hook type), so no process starts per edit and the agent is exactly this
 * session's. It takes the paths the edit tool is about to write — as the hook interpolates them from its input,
 * `${tool_input.file_path}` — and makes the edit's requests and answer as every door does
 * (state-dir/board-name.ts `editRequestsOf`, core/edits/edit-request.ts); this door only answers in the hook's JSON: `{}` to let the
 * edit go ahead, or `hookSpecificOutput.permissionDecision: "deny"` with the reason, which Claude Code (and Qwen
 * Code) show the model.
 */
import { z } from 'zod';
import { claudeDeny, claudeNote } from '../../clients/answers.js';
import { DECIDE_EDIT_TOOL } from '../../core/edits/edit-decision.js';
import { decideEdits } from '../../core/edits/edit-request.js';
import { editRequestsOf } from '../../state-dir/board-name.js';
import { invokeDecide } from '../edit-decide.js';
import type { Tool } from './tools.js';

const Path = z.string().max(4096).optional();

/** A path the hook gave: a string its interpolation filled in (an absent field interpolates to ""). */
const given = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '' && !v.includes('${');

export const editTools: Tool[] = [
  {
    name: DECIDE_EDIT_TOOL,
    description:
      "Called by coord's edit hook before a file is written; you never need to call it. Answers {} (go ahead: you now hold the file) or a deny naming who holds it.",
    input: z.object({
      file_path: Path.describe('The file the edit tool is about to write (absolute, or relative to the repository).'),
      notebook_path: Path.describe('The notebook NotebookEdit is about to write.'),
      paths: z
        .array(z.string().max(4096))
        .max(4096)
        .optional()
        .describe('More paths (a move: source and destination); decided in requests of 256.'),
      timeout_s: z
        .number()
        .optional()
        .describe("The hook's own timeout: coord mcp answers coord_busy 2 s before it if the daemon has not."),
    }),
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false, idempotentHint: true },
    async run(args, { ctx, session }) {
      const paths = [args.file_path, args.notebook_path, ...(Array.isArray(args.paths) ? args.paths : [])];
      const requests = editRequestsOf(paths.filter(given), session.root ?? process.cwd(), session.root);
      // A refusal of the daemon's own refuses the edit: a tool error would reach Claude Code as a failed hook,
      // which `onFailure: continue` lets through.
      const answer = await decideEdits(requests, invokeDecide(ctx, session.agent));
      const said = answer.denied ? claudeDeny(answer.denied) : answer.note ? claudeNote(answer.note) : {};
      return { text: JSON.stringify(said), data: { decisions: answer.decisions } };
    },
  },
];
