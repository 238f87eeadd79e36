/**
 * SPEC §18 "Endings": a task whose agent exits without submitting is failed with the client's last lines — read
 * by a person in `coord attention` and by the retry's model. A client that streams JSON events (Claude Code's
 * stream-json, Codex's --json, Gemini CLI's) leaves no raw event objects there: an event shows as its type and
 * its message or error; one with neither is left out; plain lines stay as they were.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AgentProcess } from '../../src/supervisor/agent-process.js';

test("a client's JSON event lines reach its task's note as their type and message, the rest of its lines as printed", async () => {
  const script = [
    'console.log(JSON.stringify({ type: "system", subtype: "init", tools: ["Bash", "Edit"] }))',
    'console.log(JSON.stringify({ type: "assistant", message: { content: [{ type: "text", text: "hi" }] } }))',
    'console.log(JSON.stringify({ type: "error", message: "429 Too Many Requests" }))',
    'console.log(JSON.stringify({ type: "turn.failed", error: { message: "stream disconnected" } }))',
    'console.log("{ not json")',
    'console.error("Error: the model refused")',
  ].join(';');
  const proc = new AgentProcess(process.execPath, ['-e', script], {
    cwd: process.cwd(),
    env: process.env,
    onLine: () => {},
  });
  await proc.ended;
  const lines = proc.lastLines();
  assert.deepEqual(
    lines.filter((l) => !l.startsWith('Error')),
    ['error: 429 Too Many Requests', 'turn.failed: stream disconnected', '{ not json'],
  );
  assert.ok(lines.includes('Error: the model refused'), JSON.stringify(lines));
});
