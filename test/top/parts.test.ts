/**
 * The parts of `coord top` that know nothing of the terminal, each alone: what a key does in each mode, the
 * screen's selection and scroll, the pane sizes, the list pane's window.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { TopTask } from '../../src/cli/top/board-state.js';
import { BoardState } from '../../src/cli/top/board-state.js';
import { cell, width } from '../../src/cli/top/cells.js';
import { detailText } from '../../src/cli/top/detail.js';
import { keyAction } from '../../src/cli/top/keys.js';
import { footerLine, type ListLine, listPane, taskRow } from '../../src/cli/top/panes.js';
import { planLines } from '../../src/cli/top/plan-pane.js';
import { ScreenState } from '../../src/cli/top/screen-state.js';
import { paneSizes } from '../../src/cli/top/widgets.js';
import { attentionLines } from '../../src/cli/top/work-panes.js';
import type { CoordEvent } from '../../src/core/model.js';

const header = (text: string): ListLine => ({ text: () => text });
const row = (id: string): ListLine => ({ text: () => `#${id}`, taskId: id });
/** A header, three tasks, a header, two tasks. */
const LINES = [header('CLAIMED 3'), row('a'), row('b'), row('c'), header('QUEUED 2'), row('d'), row('e')];

describe('coord top keys', () => {
  test('on the board, arrows and vi keys move, enter opens, n posts, c asks to cancel, q quits', () => {
    assert.deepEqual(keyAction('main', 'down', 10), { do: 'move', by: 1 });
    assert.deepEqual(keyAction('main', 'k', 10), { do: 'move', by: -1 });
    assert.deepEqual(keyAction('main', 'pagedown', 10), { do: 'move', by: 10 });
    assert.deepEqual(keyAction('main', 'S-g', 10), { do: 'move', by: 1e9 });
    assert.deepEqual(keyAction('main', 'enter', 10), { do: 'open' });
    assert.deepEqual(keyAction('main', 'n', 10), { do: 'post' });
    assert.deepEqual(keyAction('main', 'delete', 10), { do: 'cancel' });
    assert.deepEqual(keyAction('main', '/', 10), { do: 'filter' });
    assert.deepEqual(keyAction('main', 'escape', 10), { do: 'clear-filter' });
    assert.deepEqual(keyAction('main', 'b', 10), { do: 'boards' });
    assert.deepEqual(keyAction('main', 'q', 10), { do: 'quit' });
    assert.equal(keyAction('main', 'z', 10), null);
    assert.equal(keyAction('main', 'constructor', 10), null, 'no key reaches the object prototype');
  });

  test('in the detail view the same keys scroll and close it instead', () => {
    assert.deepEqual(keyAction('detail', 'down', 10), { do: 'scroll', by: 1 });
    assert.deepEqual(keyAction('detail', 'space', 10), { do: 'scroll', by: 10 });
    assert.deepEqual(keyAction('detail', 'q', 10), { do: 'close' });
    assert.deepEqual(keyAction('detail', 'escape', 10), { do: 'close' });
    assert.deepEqual(keyAction('detail', 'c', 10), { do: 'cancel' });
    assert.equal(keyAction('detail', 'n', 10), null);
  });

  test('a confirmation takes any key as its answer, and only y is a yes; prompts read their own keys', () => {
    assert.deepEqual(keyAction('confirm', 'y', 10), { do: 'answer', yes: true });
    assert.deepEqual(keyAction('confirm', 'q', 10), { do: 'answer', yes: false });
    assert.equal(keyAction('input', 'q', 10), null);
    assert.equal(keyAction('boards', 'q', 10), null);
  });

  test('1 to 4 show the tasks, the plan, the work trees and the attention list, as the help line says', () => {
    assert.deepEqual(keyAction('main', '1', 10), { do: 'view', view: 'tasks' });
    assert.deepEqual(keyAction('main', '2', 10), { do: 'view', view: 'plan' });
    assert.deepEqual(keyAction('main', '3', 10), { do: 'view', view: 'trees' });
    assert.deepEqual(keyAction('main', '4', 10), { do: 'view', view: 'attention' });
    for (const cols of [80, 120]) assert.match(footerLine(cols, undefined, false), /1 tasks +2 plan +3 trees +4 att/);
    assert.ok(width(footerLine(80, undefined, false)) <= 80);
  });

  test('Ctrl-C quits in every mode', () => {
    for (const mode of ['main', 'detail', 'input', 'confirm', 'boards'] as const)
      assert.deepEqual(keyAction(mode, 'C-c', 10), { do: 'quit' });
  });
});

describe('coord top screen state', () => {
  test('the first task is selected, headers are skipped, and moving stops at either end', () => {
    const ui = new ScreenState();
    assert.equal(ui.place(LINES, 10), 1);
    assert.equal(ui.selectedId, 'a');
    ui.move(3);
    assert.equal(ui.selectedId, 'd');
    ui.move(1e9);
    assert.equal(ui.selectedId, 'e');
    ui.move(-1e9);
    assert.equal(ui.selectedId, 'a');
    assert.equal(new ScreenState().move(1), false, 'nothing listed: nothing to move');
  });

  test('the list scrolls to keep the selection in view, and a task that left the list gives way to the first', () => {
    const ui = new ScreenState();
    ui.place(LINES, 3);
    ui.move(4);
    assert.equal(ui.place(LINES, 3), 6);
    assert.equal(ui.offset, 4, 'the last line is the selected one');
    ui.move(-1e9);
    assert.equal(ui.place(LINES, 3), 1);
    assert.equal(ui.offset, 0, 'its header shows above it');
    ui.selectedId = 'gone';
    ui.place(LINES, 3);
    assert.equal(ui.selectedId, 'a');
  });

  test('a cancel question returns to the mode it was asked from, with the task only on a yes', () => {
    const ui = new ScreenState();
    ui.mode = 'detail';
    ui.message = 'old news';
    ui.askCancel('a');
    assert.equal(ui.mode, 'confirm');
    assert.equal(ui.message, undefined);
    assert.equal(ui.answerCancel(true), 'a');
    assert.equal(ui.mode, 'detail');
    ui.askCancel('b');
    assert.equal(ui.answerCancel(false), undefined);
    assert.equal(ui.confirming, undefined);
  });
});

describe('coord top panes', () => {
  test('pane sizes grow with the terminal and the list keeps at least three rows', () => {
    assert.deepEqual(paneSizes(80, 24), { sideW: 28, tlH: 7, mainH: 15 });
    assert.deepEqual(paneSizes(120, 40), { sideW: 36, tlH: 12, mainH: 26 });
    assert.deepEqual(paneSizes(200, 60), { sideW: 44, tlH: 12, mainH: 46 });
    assert.equal(paneSizes(80, 5).mainH, 3);
  });

  test('the list pane shows its window with the selected line inverse, and says which lines it shows', () => {
    const pane = listPane(LINES, 2, 1, 3);
    assert.equal(pane.content, '#a\n{inverse}#b{/inverse}\n#c');
    assert.equal(pane.label, ' tasks 2-4/7 ');
    assert.equal(listPane(LINES, 1, 0, 10).label, ' tasks ');
  });
});

describe('coord top shows where a completed task stands with the target (integration, SPEC §15)', () => {
  const done = (integration?: TopTask['integration']): TopTask => ({
    id: 't1',
    board: 'b',
    kind: 'task',
    title: 'the work',
    body: '',
    priority: 0,
    labels: [],
    for: null,
    created_by: 'alice',
    state: 'completed',
    claimed_by: 'bob',
    lease_until: null,
    attempts: 1,
    result_status: 'completed',
    result: null,
    created_at: '2026-01-01T12:00:00Z',
    updated_at: '2026-01-01T12:05:00Z',
    expires_at: '2026-01-02T12:00:00Z',
    idempotency_key: null,
    change: null,
    ...(integration ? { integration } : {}),
  });

  test('the list row names the integration state beside the task state', () => {
    const now = Date.parse('2026-01-01T12:06:00Z');
    assert.match(
      taskRow(done({ state: 'check_failed', target: 'main' }), 'done', 80, now, false),
      /completed.*check failed .*the work/,
    );
    assert.match(taskRow(done({ state: 'awaiting_review' }), 'done', 80, now, false), /awaiting review/);
    const plain = taskRow(done(), 'done', 80, now, false);
    assert.doesNotMatch(plain, /merged|pending/);
    assert.match(taskRow(done({ state: 'none' }), 'done', 80, now, false), /completed +\d\d:\d\d:\d\d +the work/);
  });

  test('the detail gives the state, its reason and the follow-up task', () => {
    const text = detailText(
      done({ state: 'conflict', reason: 'src/a.ts', target: 'main', followup: 'f9' }),
      [],
      [],
      'http://127.0.0.1:7777',
      Date.now(),
      false,
    );
    assert.match(text, /integration\{\/bold\} conflict · conflicts with main in src\/a\.ts: see task #f9/);
    const merged = detailText(done({ state: 'merged', commit: 'abcdef1234', target: 'main' }), [], [], '', 0, false);
    assert.match(merged, /integration\{\/bold\} merged · merged into main as abcdef1/);
    assert.doesNotMatch(detailText(done(), [], [], '', 0, false), /integration/);
  });
});

describe('coord top plan and attention panes (SPEC §19)', () => {
  const task = (id: string, more: Partial<TopTask>): TopTask => ({
    id,
    board: 'b',
    kind: 'task',
    title: `step ${id}`,
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
    created_at: `2026-01-01T12:00:0${id.length}Z`,
    updated_at: '2026-01-01T12:05:00Z',
    expires_at: '2026-01-02T12:00:00Z',
    idempotency_key: null,
    change: null,
    ...more,
  });

  test('the plan draws each open goal over what it waits for, with states and integration states', () => {
    const s = new BoardState();
    s.upsert(task('goal', { blocked_by: ['a', 'b'], ready: false }));
    s.upsert(task('a', { state: 'completed', integration: { state: 'conflict', target: 'main' } }));
    s.upsert(task('b', { state: 'claimed', claimed_by: 'bob', blocked_by: ['a'] }));
    s.upsert(task('lone', {}));
    const missing = new Set<string>();
    const lines = planLines(s, 80, false, missing);
    assert.deepEqual(
      lines.map((l) => l.text().trimEnd()),
      [
        'PLAN 1 open goal',
        '#goal [blocked] step goal',
        '├─ #a [completed · conflict] step a',
        '└─ #b [claimed by bob] step b',
        '   └─ #a [completed · conflict] step a',
        '  and 1 open task nothing waits for, with no dependencies',
      ],
    );
    assert.deepEqual(
      lines.map((l) => l.taskId).filter(Boolean),
      ['goal', 'a', 'b'],
      'a task met twice is selectable once',
    );
    assert.deepEqual([...missing], []);
    s.upsert(task('goal2', { blocked_by: ['old'] }));
    planLines(s, 80, false, missing);
    assert.deepEqual([...missing], ['old'], 'a step top does not hold is named to be read');
  });

  test('the plan and the detail show the window the integrator is checking, each task until it is decided', () => {
    const s = new BoardState();
    for (const id of ['a', 'b', 'c']) s.upsert(task(id, { state: 'completed', integration: { state: 'pending' } }));
    const at = '2026-01-01T12:06:00Z';
    const ev = (seq: number, type: CoordEvent['type'], task_id: string | null, data: Record<string, unknown>) =>
      ({ seq, type, board: 'b', task_id, lock_id: null, agent: 'coord', at, data }) as CoordEvent;
    const checkingLines = () =>
      planLines(s, 80, false)
        .map((l) => l.text().trim())
        .filter((l) => l.startsWith('checking'));
    s.apply([ev(1, 'integration.window', null, { target: 'main', tasks: ['a', 'b', 'c'], size: 3 })]);
    assert.deepEqual(checkingLines(), ['checking together: #a #b #c on main (window 3)']);
    const detail = detailText(s.tasks.get('b') as TopTask, [], [], '', 0, false, s.checkingOf('b'));
    assert.match(detail, /checking +\{\/bold\} #a #b #c on main \(window 3\)/);
    s.apply([
      ev(2, 'task.integrated', 'a', { commit: null, target: 'main', how: 'merge' }),
      ev(3, 'task.integration', 'b', { state: 'check_failed', reason: 'exit 1', target: 'main' }),
    ]);
    assert.deepEqual(checkingLines(), ['checking #c on main (window 3)']);
    assert.equal(s.checkingOf('b'), undefined);
    s.apply([ev(4, 'integration.window', null, { target: 'main', tasks: ['c'], size: 1, lane: 2 })]);
    assert.deepEqual(
      checkingLines(),
      ['checking #c on main (window 1, lane 2)'],
      'a task checked again leaves its old window',
    );
    s.apply([ev(5, 'task.integrated', 'c', { commit: null, target: 'main', how: 'merge' })]);
    assert.deepEqual(checkingLines(), [], 'cleared once every task is decided');
  });

  test('the attention pane gives what, why and since when, and the command; the task on the first line only', () => {
    const lines = attentionLines(
      [
        {
          id: 'review:t1',
          kind: 'review',
          what: '#t1 the work awaits review',
          why: 'held for a person',
          since: '2026-01-01T12:00:00Z',
          command: 'coord approve t1',
          task_id: 't1',
        },
      ],
      60,
      Date.parse('2026-01-01T12:03:00Z'),
      false,
    );
    assert.deepEqual(
      lines.map((l) => l.text()),
      [
        cell('NEEDS YOU 1', 60, undefined, false, false),
        '1. #t1 the work awaits review',
        '   held for a person (since 3m ago)',
        '   → coord approve t1',
      ],
    );
    assert.deepEqual(
      lines.map((l) => l.taskId),
      [undefined, 't1', undefined, undefined],
    );
  });
});
