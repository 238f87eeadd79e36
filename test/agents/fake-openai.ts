/**
 * A scripted stand-in for the OpenAI Responses API, as Codex calls it (`[model_providers.fake]` with
 * `wire_api = "responses"`, `POST {base_url}/responses`, streamed over SSE). MCP tools are offered as a
 * `namespace` tool (`mcp__coord`) holding function tools; a step naming `mcp__coord__inbox` is sent as
 * a `function_call` item with `namespace: "mcp__coord"`, `name: "inbox"` (or whatever the client
 * named them). `apply_patch` is a freeform (`custom`) tool for the models Codex knows: its step args are
 * `{ input: "<patch text>" }`. Results come back as `function_call_output` / `custom_tool_call_output`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SPEC_TOOLS } from '../mcp/spec-tools.js';
import { type FakeModel, json, type Step, sse, startFakeModel, type ToolResult, type Wire } from './fake-model.js';

interface Tool {
  type: string;
  name?: string;
  tools?: Tool[];
}
interface Item {
  type: string;
  name?: string;
  namespace?: string;
  call_id?: string;
  output?: string | { type: string; text?: string }[] | { content?: string };
  role?: string;
}
interface Body {
  model?: string;
  stream?: boolean;
  tools?: Tool[];
  input?: Item[];
}

/** Flat name (what a script says) → how the client wants the call made. */
function offered(body: Body): Map<string, { name: string; namespace?: string; custom: boolean }> {
  const out = new Map<string, { name: string; namespace?: string; custom: boolean }>();
  for (const t of body.tools ?? []) {
    if (t.type === 'namespace' && t.name) {
      for (const s of t.tools ?? []) {
        if (!s.name) continue;
        const flat = s.name.startsWith(`${t.name}__`) ? s.name : `${t.name}__${s.name}`;
        out.set(flat, { name: s.name, namespace: t.name, custom: s.type === 'custom' });
      }
    } else if (t.name) {
      out.set(t.name, { name: t.name, custom: t.type === 'custom' });
    }
  }
  return out;
}

const outputText = (o: Item['output']): string => {
  if (typeof o === 'string') return o;
  if (Array.isArray(o)) return o.map((p) => p.text ?? `[${p.type}]`).join('');
  if (o && typeof o === 'object' && typeof o.content === 'string') return o.content;
  return JSON.stringify(o);
};

function write(step: Step, body: Body, res: ServerResponse, n: number): void {
  const id = `resp_fake_${n}`;
  let item: Record<string, unknown>;
  if ('tool' in step) {
    const how = offered(body).get(step.tool);
    const call_id = `call_fake_${n}`;
    if (how?.custom) {
      item = {
        type: 'custom_tool_call',
        id: `ctc_${n}`,
        call_id,
        name: how.name,
        input: String(step.args.input ?? ''),
      };
    } else {
      const [ns, name] = how
        ? [how.namespace, how.name]
        : step.tool.includes('__') && step.tool.startsWith('mcp__')
          ? [step.tool.split('__').slice(0, 2).join('__'), step.tool.split('__').slice(2).join('__')]
          : [undefined, step.tool];
      item = {
        type: 'function_call',
        id: `fc_${n}`,
        call_id,
        name,
        ...(ns ? { namespace: ns } : {}),
        arguments: JSON.stringify(step.args),
        status: 'completed',
      };
    }
  } else {
    item = {
      type: 'message',
      id: `msg_${n}`,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: step.say, annotations: [] }],
    };
  }
  const response = { id, object: 'response', status: 'completed', model: body.model, output: [item] };
  const usage = {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 15,
  };
  if (body.stream === false) {
    json(res, 200, { ...response, usage });
    return;
  }
  sse(res, [
    { event: 'response.created', data: { type: 'response.created', response: { ...response, output: [] } } },
    { event: 'response.output_item.added', data: { type: 'response.output_item.added', output_index: 0, item } },
    { event: 'response.output_item.done', data: { type: 'response.output_item.done', output_index: 0, item } },
    { event: 'response.completed', data: { type: 'response.completed', response: { ...response, usage } } },
  ]);
}

export const openaiWire: Wire = {
  isAgentTurn: (body, req: IncomingMessage) =>
    (req.url ?? '').includes('/responses') && ((body as Body | null)?.tools ?? []).length > 0,
  /**
   * With a `tool_search` tool, Codex defers MCP tools (they are not listed up front) yet runs a call
   * of one: a coord tool then counts as offered.
   */
  toolNames(body) {
    const names = [...offered(body as Body).keys()];
    const deferred = ((body as Body).tools ?? []).some((t) => t.type === 'tool_search');
    return deferred ? [...names, ...SPEC_TOOLS.map((t) => `mcp__coord__${t}`)] : names;
  },
  toolResults(body) {
    const names = new Map<string, string>();
    const out: ToolResult[] = [];
    for (const it of (body as Body).input ?? []) {
      if ((it.type === 'function_call' || it.type === 'custom_tool_call') && it.call_id) {
        names.set(it.call_id, it.namespace ? `${it.namespace}__${it.name}` : (it.name ?? '?'));
      }
      if ((it.type === 'function_call_output' || it.type === 'custom_tool_call_output') && it.call_id) {
        const parts = Array.isArray(it.output) ? it.output.map((p) => p.text ?? `[${p.type}]`) : undefined;
        out.push({ tool: names.get(it.call_id) ?? '?', text: outputText(it.output), isError: false, parts });
      }
    }
    return out;
  },
  answer: (step, body, _req, res, n) => write(step, body as Body, res, n),
  other(body, req, res, n) {
    const url = req.url ?? '';
    if (url.includes('/models')) {
      json(res, 200, { object: 'list', data: [], models: [] });
      return true;
    }
    if (url.includes('/responses')) {
      write({ say: 'ok' }, (body ?? {}) as Body, res, n);
      return true;
    }
    return false;
  },
};

export const startFakeOpenAI = (steps: Step[] = []): Promise<FakeModel> => startFakeModel(openaiWire, steps);
