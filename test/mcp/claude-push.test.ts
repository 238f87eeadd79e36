/**
 * Push into a live Claude Code session (SPEC §12) with a real unix-socket server standing in for Claude
 * Code's messaging socket, and a real `coord mcp` process given CLAUDE_CODE_MESSAGING_SOCKET/_TOKEN.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tempDir } from '../support/ctx.js';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { waitFor } from './harness.js';
import { type StdioAgent, startMcp } from './stdio-support.js';

const BOARD = 'stdio-test';

/** Every fake socket opened, closed after the file's tests however they end (an open server keeps the file alive). */
const sockets: Server[] = [];

/** Records every JSON line written to it, with the time it arrived. */
async function fakeClaudeSocket(path: string): Promise<{ server: Server; frames: { at: number; frame: any }[] }> {
  const frames: { at: number; frame: any }[] = [];
  const server = createServer((conn) => {
    let buffered = '';
    conn.on('data', (chunk) => {
      buffered += chunk;
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        frames.push({ at: Date.now(), frame: JSON.parse(buffered.slice(0, nl)) });
        buffered = buffered.slice(nl + 1);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  sockets.push(server);
  return { server, frames };
}

const userTexts = (frames: { frame: any }[]) =>
  frames.filter((f) => f.frame.type === 'user').map((f) => String(f.frame.message.content));

describe('push into a live session through Claude Code’s messaging socket', () => {
  let d: SpawnedDaemon;
  const agents: StdioAgent[] = [];
  before(async () => {
    d = await spawnDaemon();
  });
  after(async () => {
    for (const a of agents) await a.close().catch(() => {});
    for (const s of sockets) s.close(() => {});
    await d.stop();
  });

  const send = async (to: string, text: string, more: Record<string, unknown> = {}) => {
    const res = await d.fetch('/v1/messages', {
      method: 'POST',
      json: { agent: 'alice', board: BOARD, to, text, ...more },
    });
    assert.equal(res.status, 201);
    return ((await res.json()) as { message: { id: string } }).message;
  };
  const receiptOf = async (id: string, agent: string) => {
    const res = await d.fetch(`/v1/messages?agent=alice&box=sent&board=${BOARD}`);
    const { messages } = (await res.json()) as { messages: any[] };
    return messages.find((m) => m.id === id)?.receipts.find((r: any) => r.agent === agent);
  };

  test('a message sent over HTTP arrives as one user frame after the auth line, and the sender’s receipt says push', async () => {
    const dir = tempDir('coord-claude-sock-');
    const path = join(dir, 'messaging.sock');
    const { server, frames } = await fakeClaudeSocket(path);
    const me = await startMcp(d.stateDir, {
      name: 'claude-code',
      env: { COORD_AGENT: 'claude#push', CLAUDE_CODE_MESSAGING_SOCKET: path, CLAUDE_CODE_MESSAGING_TOKEN: 'tok-123' },
    });
    agents.push(me);
    await me.call('who');
    const m = await send('claude#push', 'the login test fails on main — can you look?', { ack_required: true });
    await waitFor(() => userTexts(frames).some((t) => t.includes(m.id)), 'the pushed frame');
    assert.deepEqual(frames[0]?.frame, { type: 'auth', token: 'tok-123' }, 'auth comes first');
    const text = userTexts(frames).find((t) => t.includes(m.id)) ?? '';
    assert.match(text, /^\[coord\] message m\w+ from alice \(acknowledge with ack_message .*\): the login test fails/);
    await waitFor(async () => (await receiptOf(m.id, 'claude#push'))?.delivered_via === 'push', 'receipt: push');
    // Pushed is delivered, not acknowledged: it stays in the inbox until ack_message.
    assert.match((await me.call('inbox')).text, new RegExp(`msg ${m.id} from alice`));
    assert.equal((await receiptOf(m.id, 'claude#push'))?.delivered_via, 'push', 'the inbox keeps the first delivery');

    // A handoff is pushed as one line too, with its note.
    const posted = await d.fetch('/v1/tasks', {
      method: 'POST',
      json: { title: 'port the parser', agent: 'bob', board: BOARD },
    });
    const task = ((await posted.json()) as { task: { id: string } }).task;
    const claim = await (
      await d.fetch(`/v1/tasks/${task.id}/claim`, { method: 'POST', json: { agent: 'bob' } })
    ).json();
    await d.fetch(`/v1/tasks/${task.id}/release`, {
      method: 'POST',
      json: { claim_id: (claim as { claim_id: string }).claim_id, to: 'claude#push', note: 'lexer done' },
    });
    await waitFor(() => userTexts(frames).some((t) => t.includes(`#${task.id} was handed to you by bob`)), 'handoff');
    assert.match(userTexts(frames).find((t) => t.includes(task.id)) ?? '', /note from bob: lexer done/);

    // Latency: message sent (HTTP POST issued) → frame written to the socket, ten in a row.
    const latencies: number[] = [];
    for (let i = 0; i < 10; i++) {
      const t0 = Date.now();
      const x = await send('claude#push', `ping ${i}`);
      await waitFor(() => userTexts(frames).some((t) => t.includes(x.id)), `ping ${i}`);
      latencies.push((frames.find((f) => String(f.frame.message?.content ?? '').includes(x.id))?.at ?? t0) - t0);
    }
    latencies.sort((a, b) => a - b);
    process.stdout.write(
      `# push latency (sent → frame written), median of 10: ${latencies[5]} ms; all: ${latencies.join(',')}\n`,
    );
    await me.close();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("coord's own notice that asks nothing (the integrator's merge notice) is not pushed — it would start a model turn for nothing — while the next message is", async () => {
    const dir = tempDir('coord-claude-notice-');
    const path = join(dir, 'messaging.sock');
    const { server, frames } = await fakeClaudeSocket(path);
    const me = await startMcp(d.stateDir, {
      name: 'claude-code',
      env: { COORD_AGENT: 'claude#notice', CLAUDE_CODE_MESSAGING_SOCKET: path, CLAUDE_CODE_MESSAGING_TOKEN: 't' },
    });
    agents.push(me);
    try {
      await me.call('who');
      const notice = await send('claude#notice', '#k3x9 merged into main as 3f2a1c', { agent: 'coord' });
      const m = await send('claude#notice', 'can you review #k3x9?');
      await waitFor(() => userTexts(frames).some((t) => t.includes(m.id)), 'the message after the notice');
      assert.equal(userTexts(frames).filter((t) => t.includes(notice.id)).length, 0, 'the notice is not pushed');
      // It waits in the inbox, never recorded as pushed.
      assert.match((await me.call('inbox')).text, new RegExp(`msg ${notice.id} from coord`));
    } finally {
      await me.close();
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('after the daemon restarts, push resumes: a message sent to the new daemon still arrives as a frame', async () => {
    const dir = tempDir('coord-claude-restart-');
    const path = join(dir, 'messaging.sock');
    const { server, frames } = await fakeClaudeSocket(path);
    const me = await startMcp(d.stateDir, {
      env: { COORD_AGENT: 'claude#restart', CLAUDE_CODE_MESSAGING_SOCKET: path, CLAUDE_CODE_MESSAGING_TOKEN: 't' },
    });
    agents.push(me);
    await me.call('who');
    const first = await send('claude#restart', 'before');
    await waitFor(() => userTexts(frames).some((t) => t.includes(first.id)), 'the first frame');
    // Its delivery is recorded after the frame is written: a daemon stopped in between pushes it again after the
    // restart (at least once). Once recorded, it is never pushed again — what this test holds.
    await waitFor(async () => (await receiptOf(first.id, 'claude#restart'))?.delivered_via === 'push', 'first receipt');
    await d.stop();
    d = await spawnDaemon({ stateDir: d.stateDir });
    const second = await send('claude#restart', 'after the restart');
    await waitFor(() => userTexts(frames).some((t) => t.includes(second.id)), 'a frame after the restart');
    await waitFor(async () => (await receiptOf(second.id, 'claude#restart'))?.delivered_via === 'push', 'receipt');
    assert.equal(userTexts(frames).filter((t) => t.includes(first.id)).length, 1, 'nothing pushed twice');
    await me.close();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('with the socket advertised but not there, the message waits and is delivered by the next inbox', async () => {
    const dir = tempDir('coord-claude-nosock-');
    const me = await startMcp(d.stateDir, {
      name: 'claude-code',
      env: {
        COORD_AGENT: 'claude#nosock',
        CLAUDE_CODE_MESSAGING_SOCKET: join(dir, 'gone.sock'),
        CLAUDE_CODE_MESSAGING_TOKEN: 'tok',
      },
    });
    agents.push(me);
    await me.call('who');
    const m = await send('claude#nosock', 'are you there?');
    await waitFor(() => me.stderr().includes('push unavailable'), 'the one fallback line on stderr');
    assert.equal((await receiptOf(m.id, 'claude#nosock'))?.delivered_at, null, 'a failed push records nothing');
    const inbox = await me.call('inbox');
    assert.match(inbox.text, new RegExp(`msg ${m.id} from alice \\d+s: are you there\\?`));
    assert.equal((await receiptOf(m.id, 'claude#nosock'))?.delivered_via, 'inbox');
    await me.close();
  });

  test('without the socket in the environment nothing is pushed and the inbox delivers', async () => {
    const me = await startMcp(d.stateDir, { env: { COORD_AGENT: 'codex#plain' } });
    agents.push(me);
    await me.call('who');
    const m = await send('codex#plain', 'hello');
    assert.equal((await receiptOf(m.id, 'codex#plain'))?.delivered_at, null);
    await me.call('inbox');
    assert.equal((await receiptOf(m.id, 'codex#plain'))?.delivered_via, 'inbox');
    await me.close();
  });
});
