/**
 * SPEC §10 "Down is not slow", for the native hook: a client's hook waits on decide_edit only until its own
 * timeout (`timeout_s`, 30 by default), after which Claude Code would let the edit through unchecked. A
 * daemon that has not answered 2 s before that (stopped, swamped) gets the edit refused with coord_busy,
 * by `coord mcp`, where the call is seen leaving; its late answer is dropped.
 */
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';
import { claudeDeny } from '../clients/answers.js';
import { busyReason, DECIDE_EDIT_TOOL } from '../core/edits/edit-decision.js';
import { isJSONRPCRequest } from './jsonrpc.js';

export class HookGuard {
  /** decide_edit calls a hook waits on. */
  private readonly calls = new Set<RequestId>();
  /** Those answered coord_busy here. */
  private readonly answeredBusy = new Set<RequestId>();

  /** `answer`: says it to the agent, once the daemon took too long (the call is no longer pending then). */
  constructor(private readonly answer: (id: RequestId, m: JSONRPCMessage) => void) {}

  /** A message leaving for the daemon: a decide_edit call starts its clock. */
  watch(m: JSONRPCMessage): void {
    if (!isJSONRPCRequest(m) || m.method !== 'tools/call') return;
    const params = m.params as { name?: unknown; arguments?: { timeout_s?: unknown } } | undefined;
    if (params?.name !== DECIDE_EDIT_TOOL) return;
    const timeout = Number(params.arguments?.timeout_s ?? 30);
    const waitS = Math.max(1, (Number.isFinite(timeout) ? timeout : 30) - 2);
    this.calls.add(m.id);
    setTimeout(() => {
      if (!this.calls.delete(m.id)) return;
      this.answeredBusy.add(m.id);
      const text = JSON.stringify(claudeDeny(busyReason(waitS)));
      this.answer(m.id, { jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text }] } });
    }, waitS * 1000).unref();
  }

  /** The daemon answered `id`: true when the agent has had its answer already (coord_busy), so this one is dropped. */
  late(id: RequestId): boolean {
    this.calls.delete(id);
    return this.answeredBusy.delete(id);
  }

  /** The call `id` failed: true when the agent has had its answer already. */
  settled(id: RequestId): boolean {
    this.calls.delete(id);
    return this.answeredBusy.has(id);
  }
}
