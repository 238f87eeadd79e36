/**
 * SPEC §15 in the dashboard: with `coord serve --integrate --review`, a completed task's merge waits
 * for review; the task detail's Approve button approves it and the daemon merges it into the target.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Browser, chromium } from 'playwright-core';
import { git } from '../git/repo.js';
import { branches, queueTasks, testRepo } from '../integrate/queue-fixture.js';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { waitFor } from '../support/wait-for.js';

/** Debian's chromium, headless (as in dashboard.browser.ts). */
const CHROMIUM = {
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
};

describe('approving a merge from the dashboard', () => {
  let d: SpawnedDaemon;
  let browser: Browser;
  before(async () => {
    d = await spawnDaemon({ args: ['--integrate', '--review'] });
    browser = await chromium.launch(CHROMIUM);
  });
  after(async () => {
    await browser?.close();
    await d?.stop();
  });

  test("the task detail's Approve button on a merge awaiting review merges the task into the target", async () => {
    const r = testRepo();
    git(r.main, 'checkout', '-q', '-b', 'elsewhere');
    const set = await d.fetch('/v1/target', { method: 'POST', json: { branch: 'main', worktree: r.main } });
    assert.equal(set.status, 200, await set.clone().text());
    const tip = r.rev('main');
    const [task] = await queueTasks(d, 'default', branches(r, 'review', 1));
    assert.ok(task);
    const integration = async () =>
      ((await (await d.fetch(`/v1/tasks/${task.id}`)).json()) as { task: { integration?: { state: string } } }).task
        .integration;
    await waitFor(async () => (await integration())?.state === 'awaiting_review', 'the merge held for review');
    assert.equal(r.rev('main'), tip, 'nothing merged before the approval');

    const errors: string[] = [];
    const page = await browser.newPage({ viewport: { width: 1200, height: 750 } });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${d.url}/#token=${d.token}`);
    await page.waitForSelector('body[data-ready="true"][data-stream="live"]');
    await page.click(`.col-completed .card[data-id="${task.id}"] .title`);
    await page.waitForSelector(`#detail[open][data-id="${task.id}"][data-loaded="true"]`);
    await page.waitForSelector('#detail .d-integration .integration-awaiting_review');
    await page.click('#detail button.d-approve');
    await page.waitForSelector('#detail button.d-approve:has-text("Approved")');

    await waitFor(async () => (await integration())?.state === 'merged', 'the approved merge', 30_000);
    assert.ok(r.history('main').includes(task.head), "the task's commit is in the target");
    assert.ok(r.history('main').includes(tip), "the target's earlier tip is kept");
    // The open detail follows the task's events: it now says where the task was merged.
    await page.waitForSelector('#detail .d-integration .integration-merged');
    assert.deepEqual(errors, []);
    await page.close();
  });
});
