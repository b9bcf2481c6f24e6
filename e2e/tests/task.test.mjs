// The deploy as a task, in the browser: steps taken by mouse and by keyboard, each a real
// request to one of two replicas, the state kept in the link.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, waitForApp, urlSoon } from '../lib/harness.mjs';

let site, browser;
before(async () => { site = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

const rows = (page) => page.getByTestId('task-exchange');
const lastWords = (page) => rows(page).last().getByTestId('task-words').textContent();

test('task: bob polls, answers mid-way, and the other replica finishes the deploy; the link replays it', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=task' });
  await waitForApp(page);
  assert.equal(await rows(page).count(), 1, "bob's call, answered with a task");
  assert.match(await lastWords(page), /starts the deploy as a task and answers at once: status working/);
  assert.match(await rows(page).first().locator('summary').last().textContent(), /result, task, working/);

  await page.getByTestId('task-w20').click();
  await page.getByTestId('task-p').click();
  assert.match(await lastWords(page), /Replica B: the task waits for bob\. It asks: "The build of release .* Roll it out to prod now\?"/);
  await page.getByTestId('task-y').click();
  assert.match(await lastWords(page), /The answer to "confirm" is taken/);
  await page.getByTestId('task-w5').click();
  await page.getByTestId('task-w5').click();
  await page.getByTestId('task-p').click();
  assert.match(await lastWords(page), /Replica B: the task is completed: deployed to prod/);
  assert.match(await page.getByTestId('task-deploys').textContent(), /rolled out once/);
  const url = await urlSoon(page, /tsteps=w20\.p\.y\.w5\.w5\.p/);

  // The same link, opened afresh, is the same run.
  const again = await open(browser, site, { path: '#' + url.split('#')[1] });
  await waitForApp(again.page);
  assert.equal(await rows(again.page).count(), 4);
  assert.match(await lastWords(again.page), /deployed to prod/);
  assert.deepEqual(again.problems, []);
  await again.context.close();
  assert.deepEqual(problems, []);
  await context.close();
});

test('task: a stolen task id gets alice "Task not found", an answer sent again is ignored, a cancel ends it', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=task&tsteps=w20.p.y' });
  await waitForApp(page);
  await page.getByTestId('task-tp').click();
  const row = rows(page).last();
  assert.match(await row.getAttribute('class'), /refused/);
  assert.match(await row.getByTestId('task-words').textContent(), /-32602 Task not found/);
  assert.match(await row.textContent(), /the task belongs to another caller/);
  await page.getByTestId('task-r').click();
  assert.match(await lastWords(page), /is ignored: no question is open under that key/);
  await page.getByTestId('task-c').click();
  assert.match(await lastWords(page), /from working to cancelled/);
  await page.getByTestId('task-w600').click();
  assert.match(await page.getByTestId('task-deploys').textContent(), /has not rolled out/);
  // Undo and start over.
  await page.getByTestId('task-undo').click();
  await page.getByTestId('task-reset').click();
  assert.equal(await rows(page).count(), 1);
  assert.deepEqual(problems, []);
  await context.close();
});

test('task: replicas that keep tasks each in their own process cannot serve each other', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=task&tsteps=p' });
  await waitForApp(page);
  assert.match(await lastWords(page), /Replica B: the task is working/);
  await page.getByTestId('task-store-each').check();
  assert.match(await lastWords(page), /Replica B refuses: -32602 Task not found/);
  assert.match(await rows(page).last().textContent(), /no such task, or it expired/);
  assert.match(await urlSoon(page, /store=replica/), /store=replica/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('task: by keyboard alone', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=task' });
  await waitForApp(page);
  await page.getByTestId('task-w20').focus();
  await page.keyboard.press('Enter');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  assert.match(await lastWords(page), /the task waits for bob/);
  assert.match(await page.getByTestId('task-state').textContent(), /t = 20 s\..*input required/);
  assert.deepEqual(problems, []);
  await context.close();
});
