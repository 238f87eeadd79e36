/**
 * Tool definitions per model request (SPEC §17): what a client that loads every tool's schema into
 * every request (Codex, Gemini CLI, Cursor, Copilot CLI, OpenCode, Cline) pays for coord's tools.
 * coord: the set its profile gets by default (core, or lean for Gemini CLI), plus the bytes the client adds
 * to every tool itself (Gemini CLI's `wait_for_previous`) — the worst of those clients; each in extra.
 * floor (reference): every tool, as `--tools all` (or the last round) lists them.
 * target: ≤ 6,000 bytes. Counted, not timed: every round gives the same figure. Real clients add their
 * own bytes (Gemini CLI a `wait_for_previous` argument to every tool): test/agents/model-text.agents.ts.
 */
import { toolDefinitionBytes } from '../coord/tool-definitions.js';
import { defineScenario } from '../lib/types.js';

export default defineScenario({
  name: 'tool definitions per request, core set (SPEC §17)',
  metric: 'definition bytes',
  unit: 'B',
  better: 'lower',
  target: { kind: 'abs_max', value: 6000 },
  note: "coord: each no-deferral client's set as it names and wraps it, its own per-tool bytes included (worst; per client in extra); floor: all tools",
  contenders: {
    coord: () => toolDefinitionBytes('profile'),
    floor: () => toolDefinitionBytes('all'),
  },
});
