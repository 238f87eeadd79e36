/**
 * SPEC §12 with the real clients, set up by `coord setup <client> --write` alone: a message sent over
 * HTTP by another agent reaches the model.
 *
 * - Claude Code: while its model is in a turn (the fake model holds the request open), the message is
 *   pushed through the messaging socket Claude Code gives `coord mcp`; the very next request Claude Code
 *   makes to its model carries the text, and the sender's receipt says `delivered_via: "push"`. The
 *   latency (message sent → that request) is reported over a few rounds, never asserted.
 * - Codex and Gemini CLI (no push path): a message sent before an inbox call is in that inbox; one sent
 *   while the model finishes holds the stop once, and neither is ever shown again by the stop hook.
 */
import assert from 'node:assert/strict';
import { loadavg } from 'node:os';
import { describe, it } from 'node:test';
import { boardForDir } from '../../src/state-dir/board-name.js';
import { suiteDaemon } from '../support/suite-daemon.js';
import { median } from '../support/timing.js';
import { type Agent, bytes, coordText, readyAgent, startAgent, startFake, toolName } from './clients.js';
import type { FakeModel, Recorded, Step } from './fake-model.js';
import { type ClientName, coord, describeRun, makeRepo, type Run } from './support.js';

const ROUNDS = 3;
const SENDER = 'reviewer';

interface Receipt {
  agent: string;
  delivered_at: string | null;
  delivered_via: string | null;
}
interface Sent {
  id: string;
  created_at: string;
  receipts: Receipt[];
}

describe('real clients: a message from another agent reaches the model', () => {
  const daemon = suiteDaemon();

  /** The session's agent, as the board knows it once its first coord call is made. */
  async function sessionAgent(client: ClientName, repo: string, agent: Agent): Promise<string> {
    const r = await coord(['who', '--json'], { cwd: repo, env: agent.env });
    const who = JSON.parse(r.stdout) as { agents: { name: string }[] };
    const me = who.agents.map((a) => a.name).find((n) => n.startsWith(`${client}#`));
    assert.ok(me, `the session's agent is on the board: ${r.stdout}`);
    return me;
  }
  async function send(board: string, to: string, text: string): Promise<Sent> {
    const res = await daemon.fetch('/v1/messages', { method: 'POST', json: { board, agent: SENDER, to, text } });
    assert.equal(res.status, 201, await res.clone().text());
    return ((await res.json()) as { message: Sent }).message;
  }
  async function receipt(board: string, id: string): Promise<Receipt | undefined> {
    const res = await daemon.fetch(`/v1/messages?agent=${SENDER}&box=sent&board=${encodeURIComponent(board)}`);
    const { messages } = (await res.json()) as { messages: Sent[] };
    return messages.find((m) => m.id === id)?.receipts[0];
  }
  const boardOf = (repo: string): string => boardForDir(repo) ?? 'default';

  /** The agent-loop requests after `held`, and the first of them. */
  const nextTurn = (fake: FakeModel, held: Recorded): Recorded | undefined =>
    fake.turns().find((r) => r.at > (held.answeredAt ?? held.at) && r !== held);

  it('claude: a message sent while its model is in a turn is pushed, and the very next model request carries it', async (t) => {
    const repo = makeRepo('coord-agent-push-claude-');
    const agent = await readyAgent(t, 'claude', repo, daemon.stateDir, false);
    if (!agent) return;
    const board = boardOf(repo);
    const rounds: {
      sent: Sent;
      sentAt: number;
      held?: Recorded | undefined;
      receipt?: Receipt;
      receiptWaitMs?: number;
    }[] = [];
    let me = '';
    /** Holds the model's request open: the message is sent, then the answer waits for the receipt. */
    const hold =
      (i: number): NonNullable<Step['before']> =>
      async () => {
        me ||= await sessionAgent('claude', repo, agent);
        const text = `pineapple-${i}: please rebase onto main before you push`;
        const sentAt = Date.now();
        const sent = await send(board, me, text);
        const round: (typeof rounds)[number] = { sent, sentAt };
        rounds.push(round);
        // The answer waits (bounded) until the push is recorded, so the frame is in before the turn goes on.
        const deadline = Date.now() + 15_000;
        while (Date.now() < deadline) {
          const r = await receipt(board, sent.id);
          if (r?.delivered_via) {
            round.receipt = r;
            break;
          }
          await new Promise((res) => setTimeout(res, 10));
        }
        round.receiptWaitMs = Date.now() - sentAt;
        round.held = fake.requests[fake.requests.length - 1];
      };
    const who = toolName('claude', 'who');
    const steps: Step[] = [{ tool: who, args: {} }];
    for (let i = 0; i < ROUNDS; i++) steps.push({ tool: who, args: {}, before: hold(i) });
    steps.push({ tool: who, args: {} }, { say: 'done' }, { say: 'done, really' });
    const fake = await startFake('claude', steps);
    let run: Run;
    try {
      run = await startAgent(agent, fake, repo, 'Look around with coord who, a few times, then stop.').done;
    } finally {
      await fake.close();
    }
    assert.equal(run.code, 0, describeRun(run));
    assert.equal(rounds.length, ROUNDS, `every round was reached: ${fake.stepsDone()} steps\n${describeRun(run)}`);

    const latencies: number[] = [];
    const pushMs: number[] = [];
    const afterAnswer: number[] = [];
    for (const [i, r] of rounds.entries()) {
      const text = `pineapple-${i}`;
      assert.equal(r.receipt?.delivered_via, 'push', `round ${i}: the receipt ${JSON.stringify(r.receipt)}`);
      assert.ok(r.held, `round ${i}: the held request`);
      const next = nextTurn(fake, r.held);
      assert.ok(next, `round ${i}: a model request after the held one`);
      const body = JSON.stringify(next.body);
      assert.ok(body.includes(text), `round ${i}: the very next request carries the message: ${body.slice(-3000)}`);
      assert.ok(!JSON.stringify(r.held.body).includes(text), `round ${i}: the held request did not have it yet`);
      latencies.push(next.at - r.sentAt);
      pushMs.push(Date.parse(r.receipt?.delivered_at ?? '') - Date.parse(r.sent.created_at));
      afterAnswer.push(next.at - (r.held.answeredAt ?? next.at));
      if (i === 0) {
        // The bytes the model received: the content block that carries the frame, as Claude Code sent it.
        type Block = { type: string; text?: string };
        const messages = (next.body as { messages: { role: string; content: string | Block[] }[] }).messages;
        const carrier = messages.filter((m) => JSON.stringify(m).includes(text)).at(-1);
        const content = carrier?.content ?? '';
        const block = typeof content === 'string' ? undefined : content.find((c) => JSON.stringify(c).includes(text));
        const shown = typeof content === 'string' ? content : (block?.text ?? JSON.stringify(block));
        t.diagnostic(
          `claude: the model received it in a ${carrier?.role} message${block ? ` (${block.type} block)` : ''}, ${messages.indexOf(carrier as never) + 1} of ${messages.length}, ${bytes(shown)} bytes: ${JSON.stringify(shown)}`,
        );
      }
    }
    t.diagnostic(
      `claude: push latency, message sent → next model request carrying it: median ${median(latencies)} ms of ${ROUNDS} (${latencies.join(', ')} ms); sent → frame written (receipt): ${pushMs.join(', ')} ms; held answer (a who call) → next request: ${afterAnswer.join(', ')} ms; load average ${loadavg()[0]?.toFixed(1)}`,
    );
    // Pushed is shown: the stop hook does not hold the stop again for any of them.
    assert.equal(fake.stepsDone(), steps.length - 1, 'the first stop went through: nothing new to hold it for');
  });

  for (const client of ['codex', 'gemini'] as const) {
    it(`${client}: a message reaches the model from its next inbox, another at its stop hook — each exactly once`, async (t) => {
      const repo = makeRepo(`coord-agent-msg-${client}-`);
      const agent = await readyAgent(t, client, repo, daemon.stateDir, false);
      if (!agent) return;
      const board = boardOf(repo);
      let me = '';
      let first: Sent | undefined;
      let second: Sent | undefined;
      const fake = await startFake(client, [
        { tool: toolName(client, 'who'), args: {} },
        {
          tool: toolName(client, 'inbox'),
          args: {},
          before: async () => {
            me = await sessionAgent(client, repo, agent);
            first = await send(board, me, 'mango: the API moved to v2, see docs/api.md');
          },
        },
        {
          say: 'done',
          before: async () => {
            second = await send(board, me, 'papaya: please also update the changelog');
          },
        },
        { say: 'done, really' },
        { say: 'done, a third time' },
      ]);
      let run: Run;
      try {
        run = await startAgent(agent, fake, repo, 'Check your coord inbox, then stop.').done;
      } finally {
        await fake.close();
      }
      assert.equal(run.code, 0, describeRun(run));
      assert.ok(first && second, `both messages were sent: ${fake.stepsDone()} steps\n${describeRun(run)}`);
      const inbox = fake.results().filter((r) => r.tool === toolName(client, 'inbox'));
      const inboxText = coordText(client, inbox[inbox.length - 1] ?? { tool: '', text: '', isError: true });
      t.diagnostic(`${client}: the inbox the model read (${bytes(inboxText)} bytes): ${JSON.stringify(inboxText)}`);
      assert.match(inboxText, new RegExp(`^msg ${first.id} from ${SENDER} \\d+s: mango: the API moved`, 'm'));
      assert.equal((await receipt(board, first.id))?.delivered_via, 'inbox');
      assert.equal((await receipt(board, second.id))?.delivered_via, 'stop');

      // The stop hook's words, in the requests that followed the first stop.
      const turns = fake.turns().map((r) => JSON.stringify(r.body));
      const held = turns.findIndex((b) => b.includes('papaya') && b.includes('since you last looked'));
      assert.ok(held > 0, `the stop hook told the model of the second message: ${turns.at(-1)?.slice(-3000)}`);
      const reason = /coord: a message for you since you last looked:[^"]*/.exec(turns[held] ?? '')?.[0] ?? '';
      t.diagnostic(`${client}: the stop hook told the model (${bytes(reason)} bytes): ${JSON.stringify(reason)}`);
      assert.ok(!reason.includes('mango'), 'the message its inbox showed is not repeated at the stop');
      const last = turns.at(-1) ?? '';
      assert.equal(
        last.split('since you last looked').length - 1,
        1,
        'the stop was held once: the history holds one stop-hook reason',
      );
      assert.equal(fake.stepsDone(), 4, 'held once (a second model turn), then the next stop went through');
    });
  }
});
