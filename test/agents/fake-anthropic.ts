/**
 * A scripted stand-in for the Anthropic Messages API, as Claude Code calls it
 * (`ANTHROPIC_BASE_URL=http://127.0.0.1:PORT`, `POST /v1/messages`, streamed over SSE): a tool step is
 * message_start, content_block_start (tool_use), input_json_delta, content_block_stop, message_delta
 * (stop_reason tool_use), message_stop; the next request carries the tool_result.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type FakeModel, json, type Step, sse, startFakeModel, type ToolResult, type Wire } from './fake-model.js';

interface Block {
  type: string;
  id?: string;
  name?: string;
  tool_use_id?: string;
  content?: string | { type: string; text?: string }[];
  is_error?: boolean;
  text?: string;
}
interface Body {
  model?: string;
  stream?: boolean;
  tools?: { name: string }[];
  messages?: { role: string; content: string | Block[] }[];
}

const MODEL = 'claude-sonnet-4-5';

function message(content: unknown[], stop: string, n: number) {
  return {
    id: `msg_fake_${n}`,
    type: 'message',
    role: 'assistant',
    model: MODEL,
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5 },
  };
}

function write(step: Step, body: Body, res: ServerResponse, n: number): void {
  const tool = 'tool' in step;
  const block = tool
    ? { type: 'tool_use', id: `toolu_fake_${n}`, name: step.tool, input: step.args }
    : { type: 'text', text: step.say };
  const stop = tool ? 'tool_use' : 'end_turn';
  if (!body.stream) {
    json(res, 200, message([block], stop, n));
    return;
  }
  const start = tool ? { ...block, input: {} } : { ...block, text: '' };
  const delta = tool
    ? { type: 'input_json_delta', partial_json: JSON.stringify(step.args) }
    : { type: 'text_delta', text: step.say };
  sse(res, [
    {
      event: 'message_start',
      data: { type: 'message_start', message: { ...message([], stop, n), stop_reason: null } },
    },
    { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: start } },
    { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta } },
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
    {
      event: 'message_delta',
      data: { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ]);
}

export const anthropicWire: Wire = {
  isAgentTurn(body, req: IncomingMessage) {
    const b = body as Body | null;
    return (req.url ?? '').startsWith('/v1/messages?') || req.url === '/v1/messages'
      ? (b?.tools ?? []).some((t) => t.name === 'Edit' || t.name.startsWith('mcp__'))
      : false;
  },
  toolNames: (body) => ((body as Body).tools ?? []).map((t) => t.name),
  toolResults(body) {
    const b = body as Body;
    const names = new Map<string, string>();
    const out: ToolResult[] = [];
    for (const m of b.messages ?? []) {
      if (typeof m.content === 'string') continue;
      for (const c of m.content) {
        if (c.type === 'tool_use' && c.id && c.name) names.set(c.id, c.name);
        if (c.type === 'tool_result') {
          const text =
            typeof c.content === 'string'
              ? c.content
              : (c.content ?? []).map((p) => (p.type === 'text' ? (p.text ?? '') : `[${p.type}]`)).join('');
          out.push({ tool: names.get(c.tool_use_id ?? '') ?? '?', text, isError: c.is_error === true });
        }
      }
    }
    return out;
  },
  answer: (step, body, _req, res, n) => write(step, body as Body, res, n),
  other(body, req, res, n) {
    const url = req.url ?? '';
    if (url.startsWith('/v1/messages/count_tokens')) {
      json(res, 200, { input_tokens: 10 });
      return true;
    }
    if (url.startsWith('/v1/messages')) {
      write({ say: 'ok' }, (body ?? {}) as Body, res, n);
      return true;
    }
    return false;
  },
};

export const startFakeAnthropic = (steps: Step[] = []): Promise<FakeModel> => startFakeModel(anthropicWire, steps);
