/**
 * SPEC §17 with the real clients, set up by `coord setup <client> --write` alone: what their models
 * receive of coord, measured in the requests each client sent its (fake) model —
 * - a lost claim is coord's short text, at most 300 bytes as the model reads it, naming the holder,
 *   with no JSON of coord's (Gemini CLI shows its model a flagged failure's whole result object in a
 *   long error line: coord sends it failures unflagged), the client's own wrapper reported apart;
 * - the tool definitions: at most 6,000 bytes where the client loads every schema into every request,
 *   the arguments the client adds to each tool included.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PROFILES } from '../../src/clients/index.js';
import { suiteDaemon } from '../support/suite-daemon.js';
import { bytes, CLIENT_NAMES, coordText, setUpAgent, startAgent, startFake, toolName } from './clients.js';
import type { ToolResult } from './fake-model.js';
import { type ClientName, coord, describeRun, makeRepo } from './support.js';

const LOST_CLAIM_BUDGET = 300;
const CORE_BUDGET = 6000;

const COORD_TOOL = /^(mcp__coord__|mcp_coord_|coord_)|^mcp__coord$/;

/** Arguments a client adds to every tool it offers (Gemini CLI: `wait_for_previous`): its wrapper, not coord's. */
const INJECTED = ['wait_for_previous'];

/**
 * The bytes of coord's tool definitions in a model request, as the client sent them: every object
 * whose `name` is one of coord's tools (or Codex's `mcp__coord` namespace), counted once at its top;
 * `injected` is what of them the client added itself (arguments of its own in every tool).
 */
export function coordToolBytes(body: unknown): { bytes: number; tools: number; injected: number } {
  let total = 0;
  let tools = 0;
  let injected = 0;
  const own = (v: unknown): void => {
    if (Array.isArray(v)) for (const x of v) own(x);
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return;
    const o = v as Record<string, unknown>;
    const props = o.properties as Record<string, unknown> | undefined;
    for (const k of INJECTED) {
      if (props && typeof props === 'object' && k in props)
        injected += bytes(`,${JSON.stringify(k)}:${JSON.stringify(props[k])}`);
    }
    for (const x of Object.values(o)) own(x);
  };
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) {
      for (const x of v) walk(x);
      return;
    }
    if (typeof v !== 'object' || v === null) return;
    const o = v as Record<string, unknown>;
    if (typeof o.name === 'string' && COORD_TOOL.test(o.name)) {
      total += bytes(JSON.stringify(o));
      tools += Array.isArray(o.tools) ? o.tools.length : 1;
      own(o);
      return;
    }
    for (const x of Object.values(o)) walk(x);
  };
  walk((body as { tools?: unknown } | null)?.tools);
  return { bytes: total, tools, injected };
}

/**
 * coord's part of a failing tool result, and the client's wrapper around it. Gemini CLI hands its
 * model `MCP tool '…' reported tool error for function call: {…} with response: [{functionResponse:
 * {…, response: {error: <coord's result object>}}}]`: coord's part is that result object.
 */
function splitError(client: ClientName, r: ToolResult): { coord: string; wrapper: number } {
  if (client === 'gemini') {
    const at = r.text.indexOf(' with response: ');
    if (at >= 0) {
      const parts = JSON.parse(r.text.slice(at + ' with response: '.length)) as {
        functionResponse?: { response?: { error?: unknown } };
      }[];
      // As sent, `{error: result}` in some versions, the result itself in others.
      const response = parts[0]?.functionResponse?.response as { error?: unknown } | undefined;
      const result = JSON.stringify(response?.error ?? response ?? null);
      return { coord: result, wrapper: bytes(r.text) - bytes(result) };
    }
  }
  const own = coordText(client, r);
  return { coord: own, wrapper: bytes(r.text) - bytes(own) };
}

describe('what each real client’s model receives of coord', () => {
  const daemon = suiteDaemon();

  for (const client of CLIENT_NAMES) {
    it(`${client}: a lost claim reaches its model as coord's text in ≤ ${LOST_CLAIM_BUDGET} bytes naming the holder, with no JSON of coord's; its tool definitions fit its profile's surface`, async (t) => {
      const repo = makeRepo(`coord-agent-text-${client}-`);
      const agent = await setUpAgent(client, repo, daemon.stateDir);
      assert.equal(agent.setup.code, 0, describeRun(agent.setup));
      const posted = await coord(['post', 'Taken already', '--json'], { cwd: repo, env: agent.env });
      assert.equal(posted.code, 0, describeRun(posted));
      const id = (JSON.parse(posted.stdout) as { task: { id: string } }).task.id;
      const held = await coord(['claim', id, '--agent', 'alice', '--json'], { cwd: repo, env: agent.env });
      assert.equal(held.code, 0, describeRun(held));

      const fake = await startFake(client, [
        { tool: toolName(client, 'claim_task'), args: { task_id: id } },
        { say: 'done' },
      ]);
      try {
        const run = await startAgent(agent, fake, repo, `Claim task #${id}.`).done;
        assert.equal(run.code, 0, describeRun(run));
      } finally {
        await fake.close();
      }
      const lost = fake
        .results()
        .filter((r) => r.tool === toolName(client, 'claim_task'))
        .at(-1);
      assert.ok(lost, `the model got the claim's result: ${JSON.stringify(fake.results())}`);
      const { coord: own, wrapper } = splitError(client, lost);
      t.diagnostic(
        `${client}: lost claim → model received ${bytes(lost.text)} bytes (coord ${bytes(own)}, wrapper ${wrapper}): ${JSON.stringify(lost.text)}`,
      );
      assert.match(lost.text, /claimed: #\w+ is held by alice/);
      assert.doesNotMatch(lost.text, /coord\/data|_meta/, 'coord’s data for programs reached the model');
      assert.ok(bytes(own) <= LOST_CLAIM_BUDGET, `coord's part is ${bytes(own)} bytes: ${own}`);
      // SPEC §17: at most 300 bytes as the model reads it, the client's wrapper included.
      assert.ok(bytes(lost.text) <= LOST_CLAIM_BUDGET, `the model read ${bytes(lost.text)} bytes: ${lost.text}`);

      const surface = PROFILES[client].toolSurface;
      const first = fake.turns().find((r) => coordToolBytes(r.body).tools > 0);
      const searched = JSON.stringify(fake.turns()[0]?.body ?? {}).includes('"tool_search"');
      if (!first && searched) {
        // Codex with a model it knows defers MCP tools behind its tool_search: none is listed up front.
        t.diagnostic(`${client}: coord's tools deferred behind tool_search: 0 bytes up front (profile: ${surface})`);
        return;
      }
      assert.ok(first, 'a request offered coord’s tools');
      const defs = coordToolBytes(first.body);
      const coordBytes = defs.bytes - defs.injected;
      t.diagnostic(
        `${client}: ${defs.tools} coord tools offered, ${defs.bytes} bytes of definitions as the model receives them (coord ${coordBytes}, the client's own arguments ${defs.injected}; profile: ${surface})`,
      );
      // SPEC §17: at most 6,000 bytes as the model receives them — the client's own arguments included.
      if (surface !== 'all') assert.ok(defs.bytes <= CORE_BUDGET, `${defs.bytes} bytes of coord tool definitions`);
    });
  }
});
