/**
 * decide_edit in the daemon's own process, one request at a time, for its doors of the edit path (the
 * `decide_edit` MCP tool, the `http` shell hooks): the daemon's own refusal of a request (an agent name it does
 * not take) refuses it, as a command hook reads a refusal over HTTP (core/edits/edit-request.ts).
 */
import { type EditDecision, type EditRequest, refusedDecision } from '../core/edits/edit-request.js';
import { CoordError } from '../core/errors.js';
import { invoke } from '../core/invoke.js';
import type { Ctx } from '../core/operation.js';
import { operations as op } from '../core/operations.js';

export const invokeDecide =
  (ctx: Ctx, agent: string) =>
  (r: EditRequest): Promise<EditDecision> =>
    invoke(op.decideEdit, ctx, { agent, ...r }).then(
      (d) => d as EditDecision,
      (e: unknown) => {
        if (e instanceof CoordError) return refusedDecision(e);
        throw e;
      },
    );
