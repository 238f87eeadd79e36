import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BoardState, nonAgentRole, parseFilter, type TopTask } from '../../src/cli/top/board-state.js';
import { fit, width } from '../../src/cli/top/cells.js';
import { headerLine, sidePane, taskList, timelineLines } from '../../src/cli/top/panes.js';
import { LABELS } from '../../src/core/events.js';
import { type CoordEvent, EVENT_TYPES } from '../../src/core/model.js';

const T0 = Date.parse('2026-01-01T12:00:00Z');
const iso = (ms: number) => new Date(T0 + ms).toISOString();

function task(id: string, extra: Partial<TopTask> = {}): TopTask {
  return {
    id,
    board: 'b',
    kind: 'task',
    title: `title of ${id}`,
    body: '',
    priority: 0,
    labels: [],
    for: null,
    created_by: 'alice',
    state: 'queued',
    claimed_by: null,
    lease_until: null,
    attempts: 0,
    result_status: null,
    result: null,
    created_at: iso(0),
    updated_at: iso(0),
    expires_at: iso(86_400_000),
    idempotency_key: null,
    change: null,
    ...extra,
  };
}

let seq = 0;
const event = (type: string, task_id: string | null, extra: Partial<CoordEvent> = {}): CoordEvent =>
  ({
    seq: ++seq,
    type,
    board: 'b',
    task_id,
    lock_id: null,
    agent: 'bob',
    at: iso(seq * 1000),
    data: {},
    ...extra,
  }) as CoordEvent;

const plain = (line: string) =>
  line
    .replace(/\{\/?(?!open\}|close\})[a-z-]+\}/g, '')
    .replace(/\{open\}/g, '{')
    .replace(/\{close\}/g, '}');

describe('the board state behind coord top', () => {
  test('events move tasks between sections; an event older than what is held changes nothing', () => {
    const s = new BoardState();
    s.board = 'b';
    s.reset({ tasks: [], agents: [], locks: [], events: [] });
    s.apply([event('task.created', 't1', { data: { title: 'one', kind: 'bug', priority: 2 } })]);
    assert.deepEqual(
      s.sections().queued.map((t) => [t.id, t.kind, t.priority]),
      [['t1', 'bug', 2]],
    );
    s.apply([event('task.claimed', 't1', { agent: 'cursor', data: { fence: 1, lease_until: iso(300_000) } })]);
    assert.equal(s.sections().claimed[0]?.claimed_by, 'cursor');
    const refetch = s.apply([event('task.completed', 't1')]);
    assert.equal(s.sections().done[0]?.state, 'completed');
    assert.deepEqual(refetch, ['t1'], 'a finished task is read again (its dependents changed)');
    // Another board's events are not shown, but the board is remembered for the picker.
    s.apply([event('task.created', 't9', { board: 'other' })]);
    assert.equal(s.tasks.has('t9'), false);
    assert.ok(s.boards.has('other'));
  });

  test('a queued task with open blockers is listed as blocked, with what it waits for', () => {
    const s = new BoardState();
    s.reset({
      tasks: [
        task('a1'),
        task('d1', {
          ready: false,
          blocked_by: ['a1', 'a2'],
          blocked: [
            { id: 'a1', state: 'queued' },
            { id: 'a2', state: 'failed' },
          ],
        }),
        task('p1', { children: { total: 5, completed: 2 } }),
      ],
      agents: [],
      locks: [],
      events: [],
    });
    const sections = s.sections();
    assert.deepEqual(
      sections.blocked.map((t) => t.id),
      ['d1'],
    );
    const lines = taskList(s, 100, T0, false).map((l) => plain(l.text()));
    assert.ok(lines.includes('BLOCKED 1'));
    assert.match(lines.find((l) => l.startsWith('#d1')) ?? '', /waits #a1\(queued\) #a2\(failed\)/);
    assert.match(lines.find((l) => l.startsWith('#p1')) ?? '', /\[2\/5\]/);
  });

  test('events only the daemon can interpret (task.ready, task.noted) ask for the task to be read again', () => {
    const s = new BoardState();
    s.reset({
      tasks: [task('d1', { ready: false, blocked: [{ id: 'a1', state: 'queued' }] })],
      agents: [],
      locks: [],
      events: [],
    });
    assert.deepEqual(s.apply([event('task.ready', 'd1'), event('task.noted', 'd1')]), ['d1']);
  });

  test('the filter takes kind:, agent: and words', () => {
    const s = new BoardState();
    s.reset({
      tasks: [
        task('x1', { kind: 'bug', title: 'Login fails' }),
        task('x2', { kind: 'bug', title: 'Cache', state: 'claimed', claimed_by: 'cursor' }),
        task('x3', { kind: 'docs', title: 'Login docs' }),
      ],
      agents: [],
      locks: [],
      events: [],
    });
    assert.deepEqual(parseFilter('kind:bug  agent:cursor cache  x'), { kind: 'bug', agent: 'cursor', text: 'cache x' });
    const ids = () =>
      Object.values(s.sections())
        .flatMap((ts) => ts.map((t) => t.id))
        .sort();
    s.filter = parseFilter('kind:bug');
    assert.deepEqual(ids(), ['x1', 'x2']);
    s.filter = parseFilter('agent:cursor');
    assert.deepEqual(ids(), ['x2']);
    s.filter = parseFilter('login');
    assert.deepEqual(ids(), ['x1', 'x3']);
  });

  test('every pane line fits its width, wide characters and hostile text included; no colour tags without colour', () => {
    const s = new BoardState();
    const long = '修复登录测试 '.repeat(20);
    s.reset({
      tasks: [
        task('w1', { title: long }),
        task('w2', {
          title: 'esc \u001b[2J{bold}',
          state: 'claimed',
          claimed_by: 'claude-code#a1f3-very-long-name',
          lease_until: iso(65_000),
        }),
      ],
      agents: [{ name: 'claude-code#a1f3', active: true, last_seen: iso(0), claims: ['w2'], locks: [], unread: 3 }],
      locks: [
        {
          lock_id: 'l1',
          board: 'b',
          agent: 'codex',
          resources: ['src/a/very/long/path/to/a/file.ts'],
          lease_until: iso(90_000),
        },
      ],
      events: [event('task.created', 'w1', { data: { title: long } })],
    });
    for (const cols of [50, 78, 118]) {
      const lines = [
        ...taskList(s, cols, T0, true).map((l) => l.text()),
        ...sidePane(s, 26, T0, true),
        ...timelineLines(s, cols, 5, true),
        headerLine(s, cols, { live: true }),
      ];
      for (const line of lines) {
        const p = plain(line);
        assert.ok(width(p) <= cols, `${width(p)} > ${cols}: ${p}`);
        assert.ok(!p.includes('\u001b'), 'control characters are shown in caret notation');
      }
    }
    const claimed = plain(
      taskList(s, 78, T0, true)
        .find((l) => l.taskId === 'w2')
        ?.text() ?? '',
    );
    assert.match(claimed, /1:05/);
    assert.match(claimed, /\^\[\[2J\{bold\}/);
    assert.match(sidePane(s, 26, T0, false).join('\n'), /✉3/);
    for (const line of [...taskList(s, 78, T0, false).map((l) => l.text()), ...sidePane(s, 26, T0, false)]) {
      assert.doesNotMatch(line, /-fg\}/, 'no colour without colour');
    }
    assert.equal(width(fit(long, 10, true)), 10, 'padded to exactly the width even when a wide character does not fit');
  });
});

describe('the header says what waits on a person', () => {
  test('SPEC §19: the attention count and where to read it, only when something waits', () => {
    const s = new BoardState();
    s.reset({ tasks: [], agents: [], locks: [], events: [] });
    assert.doesNotMatch(headerLine(s, 200, { live: true }), /need you/);
    s.reset({
      tasks: [],
      agents: [],
      locks: [],
      events: [],
      attention: [
        {
          id: 'review:k1',
          kind: 'review',
          what: '#k1 x is ready to merge into main',
          why: 'review',
          since: iso(0),
          command: 'coord approve k1',
        },
      ],
    });
    assert.match(headerLine(s, 200, { live: true }), /1 need you \(press 4\)/);
  });
});

describe('the timeline names each event type as the catalogue does', () => {
  test('every event type has a label of its own, not its dotted type', () => {
    const seen = new Set<string>();
    for (const type of EVENT_TYPES) {
      const label = LABELS[type];
      assert.ok(label && !label.includes('.'), `${type}: ${label}`);
      assert.ok(!seen.has(label), `${type}: ${label} is another type's label`);
      seen.add(label);
    }
  });

  test('the type column prints the label whole (integration, disconnected, held), never the raw type or a cut word', () => {
    const s = new BoardState();
    s.reset({
      tasks: [],
      agents: [],
      locks: [],
      events: [
        event('task.integration', 'k1', {
          data: { state: 'conflict', reason: 'a.ts', target: 'main', followup: 'k2' },
        }),
        event('lock.held', null, { data: { resources: ['src/a.ts'], reason: 'released', worktree: 'wt-a' } }),
        event('connector.revoked', null, {
          data: { grant_id: 'g1', client_id: 'c1', client_name: 'Claude', why: 'revoked' },
        }),
        event('task.integrated', 'k3', { data: { target: 'main', commit: 'abcdef123456', how: 'fast_forward' } }),
      ],
    });
    const lines = timelineLines(s, 118, 10, false).map(plain);
    const text = lines.join('\n');
    for (const label of ['integration', 'held', 'disconnected', 'merged']) assert.match(text, new RegExp(` ${label} `));
    assert.doesNotMatch(text, /…/, 'no word is cut');
    assert.doesNotMatch(text, /lock\.held|task\.integrat|connector\./, 'no raw type');
    for (const line of lines) assert.ok(width(line) <= 118);
  });
});

describe('the agents pane lists the integrator and people apart', () => {
  test('the integrator coord and a person at the CLI are not counted or listed as agents, but marked as what they are', () => {
    const s = new BoardState();
    const agent = (name: string) => ({ name, active: true, last_seen: iso(0), claims: [], locks: [] });
    s.reset({
      tasks: [],
      agents: [agent('claude-code#a1f3'), agent('coord'), agent('alice@cli'), agent('codex#9')],
      locks: [],
      events: [],
    });
    const lines = sidePane(s, 40, T0, false).map(plain);
    const at = (re: RegExp) => lines.findIndex((l) => re.test(l));
    assert.match(lines[0] ?? '', /^AGENTS 2\b/);
    const people = at(/^PEOPLE · SERVICES 2/);
    assert.ok(people > at(/claude-code#a1f3/) && people > at(/codex#9/), 'agents come first');
    assert.ok(at(/● coord \(integrator\)/) > people);
    assert.ok(at(/● alice@cli \(person\)/) > people);
    assert.ok(at(/^LOCKS/) > at(/alice@cli/));
    assert.equal(nonAgentRole('claude-code#a1f3'), undefined);
  });
});

describe('the header counts the viewer’s own mail', () => {
  test('"N unread" is the viewer’s mailbox, not the sum of other agents’', () => {
    const s = new BoardState();
    s.me = 'alice@cli';
    const agent = (name: string, unread: number) => ({
      name,
      active: true,
      last_seen: iso(0),
      claims: [],
      locks: [],
      unread,
    });
    s.reset({ tasks: [], agents: [agent('claude-code#a1', 5), agent('codex#2', 2)], locks: [], events: [] });
    assert.doesNotMatch(headerLine(s, 200, { live: true }), /unread/, 'other agents’ mail is not mine');
    s.reset({
      tasks: [],
      agents: [agent('claude-code#a1', 5), agent('alice@cli', 1), agent('codex#2', 2)],
      locks: [],
      events: [],
    });
    const header = headerLine(s, 200, { live: true });
    assert.match(header, /· {2}1 unread/);
    assert.doesNotMatch(header, /8 unread/);
  });
});
