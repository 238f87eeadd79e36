/**
 * SPEC §10 "The client's cheapest hook": `decide_edit`, the tool a client's
 * own hook calls on this session's MCP server (Claude Code's `mcp_tool` hook
 * type), so no process starts per edit and the agent is exactly this
 * session's. It takes the paths the edit tool is about to write — as the
 * hook interpolates them from its input, `${tool_input.file_path}` — and
 * answers in the hook's JSON: `{}` to let the edit go ahead, or
 * `hookSpecificOutput.permissionDecision: "deny"` with the `lock_conflict: …`
 * reason, which Claude Code (and Qwen Code) show the model.
 */
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { claudeDeny, claudeNote } from '../../clients/answers.js';
import { DECIDE_EDIT_TOOL } from '../../core/edit-decision.js';
import { type EditRequest, editRequests, refusalReason } from '../../core/edit-request.js';
import { CoordError } from '../../core/errors.js';
import { invoke } from '../../core/invoke.js';
import { operations as op } from '../../core/operations.js';
import { findWorkTree, locatePath } from '../../state-dir/board-name.js';
import type { McpSession } from './session.js';
import type { Tool } from './tools.js';

const Path = z.string().max(4096).optional();

/** A path the hook gave: a string its interpolation filled in (an absent field interpolates to ""). */
const given = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '' && !v.includes('${');

/**
 * The requests of the edit (core/edit-request.ts, as the command hook makes them): paths located on disk as
 * the command hook does — outside every repository, none — grouped by board and the work tree each lies in.
 */
function requestsOf(session: McpSession, paths: string[]): EditRequest[] {
  const base = session.root ?? process.cwd();
  // Each path as spelt (`..` after a symlinked folder climbs from its target, as the OS reads it) and lexically
  // resolved (as clients that normalise paths read it): both keys are decided, as the command hook does.
  const located = paths
    .flatMap((p) => [isAbsolute(p) ? p : `${base}/${p}`, resolve(base, p)])
    .flatMap((abs) => {
      const at = locatePath(abs);
      return at ? [{ board: at.board, tree: at.tree.root, key: at.key }] : [];
    });
  return editRequests(located, session.root ? (findWorkTree(session.root)?.root ?? null) : null);
}

const refusal = (e: CoordError): string => refusalReason(0, { error: { code: e.code, message: e.message } });

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
      const paths = [args.file_path, args.notebook_path, ...(Array.isArray(args.paths) ? args.paths : [])].filter(
        given,
      );
      const denied: string[] = [];
      const notes: string[] = [];
      const decisions: unknown[] = [];
      for (const r of requestsOf(session, paths)) {
        // A refusal of the daemon's own (an agent name it does not take) refuses the edit: the tool's error
        // would otherwise reach Claude Code as a failed hook, which `onFailure: continue` lets through.
        const d = await invoke(op.decideEdit, ctx, { agent: session.agent, ...r }).catch((e: unknown) => {
          if (e instanceof CoordError) return { decision: 'deny' as const, reason: refusal(e), warning: null };
          throw e;
        });
        decisions.push(d);
        if (d.decision === 'deny' && d.reason) denied.push(d.reason);
        else if (d.warning && !notes.includes(d.warning)) notes.push(d.warning);
      }
      // SPEC §14: an allowed edit of a path with unheld changes elsewhere carries one line the model reads.
      const answer =
        denied.length > 0 ? claudeDeny(denied.join('\n')) : notes.length > 0 ? claudeNote(notes.join('\n')) : {};
      return { text: JSON.stringify(answer), data: { decisions } };
    },
  },
];
