/**
 * A scripted stand-in for the Gemini API, as Gemini CLI calls it with an API key
 * (`GOOGLE_GEMINI_BASE_URL`, `POST /v1beta/models/<model>:streamGenerateContent?alt=sse`): a tool step
 * is one candidate whose content holds a `functionCall` part; the next request carries a
 * `functionResponse` part. MCP tools are offered as `mcp_coord_<tool>` function declarations. The CLI's
 * side requests (`generateContent` for its next-speaker and routing checks, `countTokens`) get answers
 * that end the turn.
 */
import type { IncomingMessage } from 'node:http';
import { type FakeModel, json, type Step, sse, startFakeModel, type ToolResult, type Wire } from './fake-model.js';

interface Part {
  text?: string;
  functionCall?: { name: string; args?: unknown; id?: string };
  functionResponse?: { name: string; response?: unknown; id?: string };
}
interface Body {
  contents?: { role?: string; parts?: Part[] }[];
  tools?: { functionDeclarations?: { name: string }[] }[];
}

const usage = { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 };

function reply(step: Step, n: number) {
  const part: Part = 'tool' in step ? { functionCall: { name: step.tool, args: step.args } } : { text: step.say };
  return {
    candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: usage,
    modelVersion: 'gemini-2.5-flash',
    responseId: `fake_${n}`,
  };
}

/** What a functionResponse tells the model, as text: the MCP output where it is one string, else the JSON. */
function responseText(r: unknown): { text: string; isError: boolean } {
  if (r && typeof r === 'object') {
    const o = r as Record<string, unknown>;
    if (typeof o.output === 'string') return { text: o.output, isError: false };
    if (typeof o.error === 'string') return { text: o.error, isError: true };
  }
  return { text: JSON.stringify(r), isError: false };
}

export const geminiWire: Wire = {
  isAgentTurn(body, req: IncomingMessage) {
    const url = req.url ?? '';
    const b = body as Body | null;
    return (
      url.includes(':streamGenerateContent') && (b?.tools ?? []).some((t) => (t.functionDeclarations ?? []).length)
    );
  },
  toolNames: (body) => ((body as Body).tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name)),
  toolResults(body) {
    const out: ToolResult[] = [];
    for (const c of (body as Body).contents ?? []) {
      for (const p of c.parts ?? []) {
        if (!p.functionResponse) continue;
        const { text, isError } = responseText(p.functionResponse.response);
        out.push({
          tool: p.functionResponse.name,
          text,
          isError,
          parts: [JSON.stringify(p.functionResponse.response)],
        });
      }
    }
    return out;
  },
  answer(step, _body, req, res, n) {
    if ((req.url ?? '').includes('alt=sse')) sse(res, [{ data: reply(step, n) }]);
    else json(res, 200, [reply(step, n)]);
  },
  other(_body, req, res, n) {
    const url = req.url ?? '';
    if (url.includes(':countTokens')) {
      json(res, 200, { totalTokens: 10 });
      return true;
    }
    // Side checks ask for JSON: say the user speaks next (the turn ends) and pick the default model.
    const words = JSON.stringify({ reasoning: 'done', next_speaker: 'user', model_choice: 'flash' });
    if (url.includes(':streamGenerateContent')) {
      sse(res, [{ data: reply({ say: words }, n) }]);
      return true;
    }
    if (url.includes(':generateContent')) {
      json(res, 200, reply({ say: words }, n));
      return true;
    }
    return false;
  },
};

export const startFakeGemini = (steps: Step[] = []): Promise<FakeModel> => startFakeModel(geminiWire, steps);
