/**
 * SPEC §18 "Supervised": what Claude Code's headless event stream (`-p --output-format stream-json`) tells the
 * supervisor — here the calls its permission mode refused, which headless has no one to ask about.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { claude } from '../../src/clients/claude.js';

const h = claude.headless;
if (!h) throw new Error('claude has a headless profile');

describe("Claude Code's headless stream", () => {
  it("a result's permission_denials become refused calls, named by command or path", () => {
    const result = JSON.stringify({
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: 'I could not run the tests.',
      usage: { input_tokens: 10, output_tokens: 5 },
      permission_denials: [
        { tool_name: 'Bash', tool_use_id: 't1', tool_input: { command: 'npm test', description: 'tests' } },
        { tool_name: 'Write', tool_use_id: 't2', tool_input: { file_path: '/repo/.env', content: 'x' } },
        { tool_name: 'WebFetch', tool_use_id: 't3', tool_input: {} },
      ],
    });
    const refused = h.read(result).filter((s) => s.kind === 'refused');
    assert.deepEqual(refused, [
      { kind: 'refused', tool: 'Bash(npm test)' },
      { kind: 'refused', tool: 'Write(/repo/.env)' },
      { kind: 'refused', tool: 'WebFetch' },
    ]);
  });

  it('a result with no denials refuses nothing, and a line that is not JSON says nothing', () => {
    const result = JSON.stringify({ type: 'result', is_error: false, result: 'done', permission_denials: [] });
    assert.deepEqual(
      h.read(result).map((s) => s.kind),
      ['result'],
    );
    assert.deepEqual(h.read('Loading…'), []);
  });
});
