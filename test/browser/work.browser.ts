/**
 * SPEC §19 "the dashboard shows the work", in headless Chromium: after a scripted plan on a real repository —
 * a merge, a conflict, a failed check, a merge held for review, a blocked merge, a change hold, and a goal that
 * waits on two of them — each of the page's views says it as text: the attention list, each completed card's
 * integration state, the hold "until merged", the folded empty columns, the plan tree and the work trees.
 * The card's Approve button records a task.approved event naming the dashboard and the card changes without
 * a reload.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import { type TestRepo, testRepo } from '../git/repo.js';
import { branches, integrate, type QueuedTask, queueTasks } from '../integrate/queue-fixture.js';
import { ROOT, type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { waitFor } from '../support/wait-for.js';

// Page-side callbacks run in the browser; these names exist there, not in this Node program's types.
declare const document: any;
declare const window: any;

const CHROMIUM = {
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
};
const SHOTS = join(ROOT, 'test-results');
const BOARD = 'plan';
/** A commit id no repository has. */
const GONE = 'c0ffee'.padEnd(40, '0');

interface Scenario {
  merged: QueuedTask;
  conflict: QueuedTask;
  check: QueuedTask;
  review: QueuedTask;
  blocked: QueuedTask;
  hold: { id: string; worktree: string };
  goal: string;
}

describe('the dashboard shows the work (SPEC §19)', () => {
  let d: SpawnedDaemon;
  let r: TestRepo;
  let browser: Browser;
  let page: Page;
  let s: Scenario;
  const errors: string[] = [];
  const notFound = new Set<string>();

  const api = async (method: string, path: string, json?: unknown) => {
    const res = await d.fetch(path, { method, json });
    const body = (await res.json()) as any;
    assert.ok(res.ok, `${method} ${path}: ${res.status} ${JSON.stringify(body)}`);
    return body;
  };
  const integration = async (id: string) => (await api('GET', `/v1/tasks/${id}`)).task.integration;
  const run = async (...args: string[]) => {
    const out = await integrate(d, BOARD, r.main, ['--once', ...args]).done;
    // SPEC §15: --once exits 2 when a task it looked at ended in conflict, check_failed or blocked (as scripted).
    assert.ok(out.code === 0 || out.code === 2, `exit ${out.code}: ${out.stderr}`);
  };
  const text = async (selector: string) => (await page.textContent(selector)) ?? '';
  const card = (state: string, id: string) => `.col-${state} .card[data-id="${id}"]`;

  /** The scripted plan: each step by the real integrator (`coord integrate --once`) against a real repository. */
  async function script(): Promise<Scenario> {
    // Two agents change src/a.ts in their own work trees: the first merges, the second conflicts.
    const work = ['c1', 'c2'].map((b) => {
      const dir = r.worktree(b);
      return { branch: b, head: r.commit(dir, { 'src/a.ts': `export const a = '${b}';\n` }, `${b}: a`) };
    });
    const [merged] = await queueTasks(d, BOARD, branches(r, 'ok', 1));
    const [, conflict] = await queueTasks(d, BOARD, work);
    await run();
    const [check] = await queueTasks(d, BOARD, branches(r, 'ck', 1));
    await run('--check', 'false');
    // A merge held for review, and one whose recorded head is gone from the repository (blocked, naming it).
    const [review] = await queueTasks(d, BOARD, branches(r, 'rv', 1));
    const [blocked] = await queueTasks(d, BOARD, [{ branch: 'gone', head: GONE }]);
    await run('--review');

    // A change hold: a claim with its file locked in a work tree, a commit there, the submit.
    const wt = r.worktree('hold');
    const { task: held } = await api('POST', '/v1/tasks', { agent: 'lead', board: BOARD, title: 'parse dates' });
    const grant = await api('POST', `/v1/tasks/${held.id}/claim`, {
      agent: 'claude#h1',
      worktree: wt,
      files: ['src/a.ts'],
    });
    r.commit(wt, { 'src/a.ts': 'export const a = "dates";\n' }, 'parse dates');
    await api('POST', `/v1/tasks/${held.id}/submit`, {
      claim_id: grant.claim_id,
      status: 'completed',
      worktree: wt,
    });

    // The goal: a release that waits on the reviewed merge and the held work.
    const { task: goal } = await api('POST', '/v1/tasks', {
      agent: 'lead',
      board: BOARD,
      title: 'ship the release',
      blocked_by: [review?.id, held.id],
    });
    const all = { merged, conflict, check, review, blocked } as Record<string, QueuedTask | undefined>;
    for (const [k, v] of Object.entries(all)) assert.ok(v, k);
    return {
      ...(all as unknown as Omit<Scenario, 'hold' | 'goal'>),
      hold: { id: held.id, worktree: wt },
      goal: goal.id,
    };
  }

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    d = await spawnDaemon();
    r = testRepo();
    s = await script();
    assert.equal((await integration(s.merged.id)).state, 'merged');
    assert.equal((await integration(s.conflict.id)).state, 'conflict');
    assert.equal((await integration(s.check.id)).state, 'check_failed');
    assert.equal((await integration(s.review.id)).state, 'awaiting_review');
    assert.equal((await integration(s.blocked.id)).state, 'blocked');
    assert.equal((await integration(s.hold.id)).state, 'pending');
    browser = await chromium.launch(CHROMIUM);
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' && !/status of 404/.test(m.text())) errors.push(`console: ${m.text()}`);
    });
    page.on('response', (res) => {
      if (res.status() === 404) notFound.add(new URL(res.url()).pathname);
    });
    await page.goto(`${d.url}/#token=${d.token}&board=${BOARD}`);
    await page.waitForSelector('body[data-ready="true"][data-stream="live"]');
  });
  after(async () => {
    await browser?.close();
    await d?.stop();
  });

  test('the attention list at the top names the review, the conflict, the failed check and the blocked merge, each with since and its button or command', async () => {
    await page.waitForSelector(`#attention li[data-id="review:${s.review.id}"]`);
    const review = await text(`#attention li[data-id="review:${s.review.id}"]`);
    assert.match(review, /is ready to merge into main/);
    assert.match(review, /since \d+[smhd] ago/);
    assert.match(review, new RegExp(`coord approve ${s.review.id}`));
    assert.ok(await page.isVisible(`#attention li[data-id="review:${s.review.id}"] button.att-do:has-text("Approve")`));
    const conflict = await text(`#attention li[data-id="conflict:${s.conflict.id}"]`);
    assert.match(conflict, /conflicts with main in src\/a\.ts/);
    assert.match(conflict, /coord claim \S+ --agent agent-c2/);
    assert.match(await text(`#attention li[data-id="check_failed:${s.check.id}"]`), /failed the check on main/);
    const blocked = `#attention li[data-id="integration_blocked:${s.blocked.id}"]`;
    assert.match(await text(blocked), /cannot be merged into main.*branch gone no longer exists/);
    assert.ok(await page.isVisible(`${blocked} button.att-do:has-text("Queue the merge again")`));
    // Most urgent first, in SPEC §19's order.
    const order = await page.$$eval('#attention li.att', (lis: any[]) => lis.map((li) => li.dataset.id.split(':')[0]));
    assert.deepEqual(order, ['review', 'conflict', 'check_failed', 'integration_blocked']);
    assert.equal(await text('#attention h2 .count'), String(order.length));
  });

  test('every completed card says where its commits stand: merged as sha, conflict and check failed with their follow-ups, awaiting review with Approve, blocked with the reason, pending', async () => {
    const line = (id: string) => text(`${card('completed', id)} .integration`);
    const mergedAs = (await integration(s.merged.id)).commit.slice(0, 7);
    assert.equal(await line(s.merged.id), `merged into main as ${mergedAs}`);
    const conflictFollowup = (await integration(s.conflict.id)).followup;
    assert.equal(await line(s.conflict.id), `conflict with main → follow-up #${conflictFollowup}`);
    const checkFollowup = (await integration(s.check.id)).followup;
    assert.equal(await line(s.check.id), `check failed on main → follow-up #${checkFollowup}`);
    assert.equal(await line(s.review.id), 'awaiting review into main Approve');
    assert.equal(
      await line(s.blocked.id),
      'blocked: branch gone no longer exists; its head c0ffee0 is kept in the change record',
    );
    assert.equal(await line(s.hold.id), 'merge pending');
    // The follow-up link opens the follow-up.
    await page.click(`${card('completed', s.conflict.id)} .integration a[data-open]`);
    await page.waitForSelector(`#detail[open][data-id="${conflictFollowup}"]`);
    await page.keyboard.press('Escape');
    await page.waitForSelector('#detail', { state: 'hidden' });
  });

  test('a change hold is shown until merged in its work tree, never as lapsed', async () => {
    await page.waitForSelector('#locks li.lock.hold');
    const hold = await text('#locks li.lock.hold');
    assert.match(hold, /src\/a\.ts held by claude#h1 until merged \(wt-hold\)/);
    assert.doesNotMatch(await text('#locks'), /lapsed/);
  });

  test('empty columns (failed, cancelled, expired) fold to a thin header with their count; the others take the width', async () => {
    for (const state of ['failed', 'cancelled', 'expired']) {
      assert.ok(await page.isVisible(`.col-${state}.collapsed h2:has-text("0")`), state);
      const box = await page.locator(`.col-${state}`).boundingBox();
      assert.ok(box && box.width < 40, `${state} is ${box?.width}px wide`);
    }
    const completed = await page.locator('.col-completed').boundingBox();
    assert.ok(completed && completed.width > 200, `completed is ${completed?.width}px wide`);
  });

  test('the plan view draws the open goal with what it waits for, each with its state and integration state', async () => {
    const goal = `#plan li.plan-node[data-id="${s.goal}"]`;
    await page.waitForSelector(goal);
    const head = await text(`${goal} > .plan-line`);
    assert.match(head, new RegExp(`#${s.goal} ship the release queued`));
    assert.match(await text(`${goal} li[data-id="${s.review.id}"]`), /rv-0 completed awaiting review into main/);
    assert.match(await text(`${goal} li[data-id="${s.hold.id}"]`), /parse dates completed merge pending/);
    // A merged task has landed: it is no goal of its own.
    assert.equal(await page.locator(`#plan .plan-trees > li[data-id="${s.merged.id}"]`).count(), 0);
  });

  test('the work-trees panel shows each work tree with branch, ahead/behind, pending paths and the overlaps', async () => {
    await page.waitForSelector('#worktrees:not([hidden]) li.wt');
    const held = await text(`#worktrees li.wt[data-path="${s.hold.worktree}"]`);
    assert.match(held, /wt-hold \[hold\] ↑1 ↓\d+ main/);
    assert.match(held, /1 pending: src\/a\.ts/);
    const overlap = await text('#worktrees li.wt-overlap');
    assert.match(overlap, /overlap src\/a\.ts in .*wt-c2/);
    assert.match(overlap, /wt-hold/);
  });

  test('running agents show with their state, task and usage once a supervisor reports one (GET /v1/runs)', async () => {
    assert.deepEqual([...notFound], []);
    const now = new Date().toISOString();
    await api('POST', '/v1/runs', {
      agent: 'claude#r1',
      board: BOARD,
      client: 'claude',
      pid: 4242,
      task_id: s.goal,
      worktree: `${r.main}.worktrees/${s.goal}`,
      branch: `coord/${s.goal}-ship-the-release`,
      state: 'working',
      since: now,
      started_at: now,
      usage: { input_tokens: 1200, output_tokens: 300, cost_usd: 0.25, wall_s: 42 },
      paused_until: null,
      attempt: 1,
      supervisor: 'coord run (test)',
      exit_code: null,
      submitted: false,
    });
    await page.waitForFunction(() => /claude#r1/.test(document.getElementById('runs')?.textContent ?? ''));
    const runs = await text('#runs');
    assert.match(runs, /claude#r1 working/);
    assert.match(runs, new RegExp(`#${s.goal}`));
    assert.match(runs, /1,500 tokens · \$0\.25 · 42 s/);
  });

  test('a screenshot of the scripted plan is saved', async () => {
    const path = resolve(process.env.COORD_WORK_SCREENSHOT ?? join(SHOTS, 'dashboard-work.png'));
    await page.screenshot({ path });
    console.log(`dashboard work screenshot: ${path}`);
  });

  test("the timeline and a task's history name events by the catalogue's labels, the raw type only on hover", async () => {
    // A merge is `merged` (task.integrated), a queue state change `integration` (task.integration).
    const merged = `#timeline li.task-integrated .type`;
    await page.waitForSelector(merged);
    assert.equal(await text(merged), 'merged');
    assert.equal(await page.getAttribute(merged, 'title'), 'task.integrated');
    assert.equal(await text('#timeline li.task-integration .type'), 'integration');
    const types = await page.$$eval('#timeline .type', (els) => els.map((e) => e.textContent ?? ''));
    assert.ok(types.length > 0);
    assert.deepEqual(
      types.filter((t) => t.includes('.')),
      [],
      'no raw event type in the timeline',
    );
    await page.click(`${card('completed', s.merged.id)} a[data-open], ${card('completed', s.merged.id)}`);
    await page.waitForSelector(`#detail[open][data-id="${s.merged.id}"] .d-history li.task-integrated`);
    const history = await page.$$eval(`#detail .d-history .type`, (els) => els.map((e) => e.textContent ?? ''));
    assert.ok(history.includes('created') && history.includes('merged'), history.join(' '));
    assert.deepEqual(
      history.filter((t) => t.includes('.')),
      [],
      'no raw event type in the history',
    );
    await page.keyboard.press('Escape');
    await page.waitForSelector('#detail', { state: 'hidden' });
  });

  test("the card's Approve button records who approved as an event, and the card changes without a reload", async () => {
    await page.evaluate(() => {
      window.sameDocument = true;
    });
    await page.click(`${card('completed', s.review.id)} button.approve`);
    await page.waitForSelector(`${card('completed', s.review.id)} .integration.approved`);
    assert.equal(
      await text(`${card('completed', s.review.id)} .integration`),
      "approved: merges into main at the integrator's next turn",
    );
    const approvals = await waitFor(async () => {
      const { events } = await api('GET', `/v1/events?format=json&task=${s.review.id}&tail=true&limit=50`);
      return (events as any[]).filter((e) => e.type === 'task.approved');
    }, 'the approval event');
    assert.equal(approvals.length, 1);
    assert.equal(approvals[0].agent, 'dashboard');
    assert.deepEqual(approvals[0].data, { state: 'awaiting_review', target: 'main' });
    assert.equal((await integration(s.review.id)).approved, true);
    // The timeline says it in words; the review leaves the attention list; the page never reloaded.
    await page.waitForSelector('#timeline li.task-approved:has-text("approved the merge into main")');
    await page.waitForSelector(`#attention li[data-id="review:${s.review.id}"]`, { state: 'detached' });
    assert.equal(await page.evaluate(() => window.sameDocument), true);
    assert.deepEqual(errors, []);
  });

  test('the card and the plan say which tasks the integrator is checking together, until each is decided', async () => {
    // SPEC §15: what an integrator with --window publishes when its checks start (event integration.window).
    const slot = { board: BOARD, holder: 'test integrator', slot_id: 'slot-window-test-0001' };
    assert.equal((await api('POST', '/v1/integration/slot', slot)).ok, true);
    const group = { board: BOARD, slot_id: slot.slot_id, target: 'main', tasks: [s.hold.id], size: 2 };
    assert.deepEqual(await api('POST', '/v1/integration/window', group), { recorded: true });
    const line = `${card('completed', s.hold.id)} .integration.checking`;
    await page.waitForSelector(line);
    assert.equal(await text(line), `checking #${s.hold.id} on main (window 2)`);
    // The plan re-renders on its own turn after the card: wait for it rather than read it at once.
    const planLine = `#plan li[data-id="${s.hold.id}"]`;
    await page.waitForFunction(
      (sel) => (document.querySelector(sel)?.textContent ?? '').includes('checking #'),
      planLine,
    );
    assert.match(await text(planLine), /merge pending checking #\w+ on main \(window 2\)/);
    assert.equal(await text('#timeline li.integration-window .type'), 'checking');
    // Decided (a result recorded for it): the line goes.
    const { queue } = await api('GET', `/v1/integration/queue?board=${BOARD}`);
    const head = (queue as any[]).find((q) => q.task_id === s.hold.id).head;
    await api('POST', `/v1/tasks/${s.hold.id}/integration/result`, {
      board: BOARD,
      slot_id: slot.slot_id,
      head,
      target: 'main',
      state: 'blocked',
      reason: 'decided by the test',
      note: null,
    });
    await page.waitForSelector(line, { state: 'detached' });
    await api('POST', '/v1/integration/slot/release', { board: BOARD, slot_id: slot.slot_id });
    assert.deepEqual(errors, []);
  });
});
