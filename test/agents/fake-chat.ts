/**
 * A scripted stand-in for the OpenAI Chat Completions API (`POST …/chat/completions`), which most agent
 * CLIs speak to a custom provider: Copilot CLI (`COPILOT_PROVIDER_BASE_URL`), OpenCode and Kilo (an
 * `@ai-sdk/openai-compatible` provider), Qwen Code (`OPENAI_BASE_URL`), Cline (its OpenAI-compatible
 * provider) and Pi (an `openai-completions` model). Tools are offered as `{type: "function", function:
 * {name, description, parameters}}`; a tool step is answered with one `tool_calls` delta (streamed or
 * not, as asked), and its result comes back as a `role: "tool"` message with the same `tool_call_id`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SPEC_TOOLS } from '../mcp/spec-tools.js';
import { type FakeModel, json, type Step, startFakeModel, type ToolResult, type Wire } from './fake-model.js';

interface ToolDef {
  type?: string;
  function?: { name?: string; description?: string; parameters?: unknown };
  name?: string;
}
interface ToolCall {
  id?: string;
  function?: { name?: string; arguments?: string };
}
type Content = string | { type?: string; text?: string }[] | null | undefined;
interface Message {
  role?: string;
  content?: Content;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
}
export interface ChatBody {
  model?: string;
  stream?: boolean;
  tools?: ToolDef[];
  messages?: Message[];
}

export const contentText = (c: Content): string =>
  typeof c === 'string' ? c : Array.isArray(c) ? c.map((p) => p.text ?? `[${p.type}]`).join('') : '';

/** The tool definitions of a request, by name, as the model receives them (name, description, parameters). */
export function chatToolDefs(body: unknown): Map<string, ToolDef> {
  const out = new Map<string, ToolDef>();
  for (const t of (body as ChatBody | null)?.tools ?? []) {
    const name = t.function?.name ?? t.name;
    if (name) out.set(name, t);
  }
  return out;
}

const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

function answer(step: Step, body: ChatBody, res: ServerResponse, n: number): void {
  const id = `chatcmpl-fake-${n}`;
  const created = Math.floor(Date.now() / 1000);
  const model = body.model ?? 'fake-model';
  const call =
    'tool' in step
      ? { id: `call_fake_${n}`, type: 'function', function: { name: step.tool, arguments: JSON.stringify(step.args) } }
      : undefined;
  const finish = call ? 'tool_calls' : 'stop';
  if (body.stream !== true) {
    json(res, 200, {
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [
        {
          index: 0,
          message: call
            ? { role: 'assistant', content: null, tool_calls: [call] }
            : { role: 'assistant', content: 'say' in step ? step.say : '' },
          finish_reason: finish,
        },
      ],
      usage,
    });
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'close' });
  const chunk = (delta: unknown, finish_reason: string | null, extra: Record<string, unknown> = {}) =>
    res.write(
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason }], ...extra })}\n\n`,
    );
  chunk({ role: 'assistant', content: '' }, null);
  if (call) chunk({ tool_calls: [{ index: 0, ...call }] }, null);
  else chunk({ content: 'say' in step ? step.say : '' }, null);
  chunk({}, finish, { usage });
  res.write('data: [DONE]\n\n');
  res.end();
}

export const chatWire: Wire = {
  isAgentTurn: (body, req: IncomingMessage) =>
    (req.url ?? '').includes('/chat/completions') && ((body as ChatBody | null)?.tools ?? []).length > 0,
  /**
   * Qwen Code defers MCP tools behind `tool_search` (they are not listed up front) yet runs a call of
   * one by its full name: a coord tool then counts as offered.
   */
  toolNames(body) {
    const names = [...chatToolDefs(body).keys()];
    return names.includes('tool_search') ? [...names, ...SPEC_TOOLS.map((t) => `mcp__coord__${t}`)] : names;
  },
  toolResults(body) {
    const names = new Map<string, string>();
    const out: ToolResult[] = [];
    for (const m of (body as ChatBody).messages ?? []) {
      for (const c of m.tool_calls ?? []) if (c.id) names.set(c.id, c.function?.name ?? '?');
      if (m.role === 'tool') {
        const parts = Array.isArray(m.content) ? m.content.map((p) => p.text ?? `[${p.type}]`) : undefined;
        out.push({ tool: names.get(m.tool_call_id ?? '') ?? '?', text: contentText(m.content), isError: false, parts });
      }
    }
    return out;
  },
  answer: (step, body, _req, res, n) => answer(step, body as ChatBody, res, n),
  other(body, req, res, n) {
    const url = req.url ?? '';
    if (url.includes('/models')) {
      json(res, 200, { object: 'list', data: [{ id: 'fake-model', object: 'model', owned_by: 'fake' }] });
      return true;
    }
    if (url.includes('/chat/completions')) {
      // Side requests (titles, summaries): a short text.
      answer({ say: 'ok' }, (body ?? {}) as ChatBody, res, n);
      return true;
    }
    return false;
  },
};

export const startFakeChat = (steps: Step[] = []): Promise<FakeModel> => startFakeModel(chatWire, steps);
