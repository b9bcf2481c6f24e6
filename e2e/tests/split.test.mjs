// The page is two modules: the lesson, which every visit and every lesson embed loads, and the
// implementers' tools ("Audit your server", "Try it on a real server"), loaded only when one of
// their sections is opened, approached, linked or embedded. One address bar serves both.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, waitForApp, waitForLater, urlSoon } from '../lib/harness.mjs';

let site, browser;
before(async () => { site = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

const TOOLS = /mrtr-lab-tools(\.js|_bg\.wasm)$/;
const toolsFetched = (site, from) => site.requests.slice(from).filter((p) => TOOLS.test(p));

test('a first visit does not fetch the tools; opening their section does, once, and they work', async () => {
  const from = site.requests.length;
  const { page, context, problems } = await open(browser, site);
  await waitForApp(page);
  // Idle time has mounted every lesson widget by now (ready), and the service worker is in.
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.waitForTimeout(1000);
  assert.deepEqual(toolsFetched(site, from), [], 'the lesson alone');
  assert.equal(await page.evaluate(() => document.documentElement.dataset.tools), undefined);
  assert.equal(await page.getByTestId('audit').locator('[data-testid=audit-sample]').count(), 0);
  // Opening the fold brings the section near: the tools load, and its form works.
  await page.locator('[data-testid=live-fold] > summary').click();
  await page.waitForFunction(() => document.documentElement.dataset.tools === 'ready');
  await page.getByTestId('live-url').waitFor({ state: 'visible' });
  await page.getByTestId('audit-sample').waitFor({ state: 'attached' });
  assert.deepEqual(toolsFetched(site, from).map((p) => p.replace(/.*\//, '')).sort(), ['mrtr-lab-tools.js', 'mrtr-lab-tools_bg.wasm']);
  assert.deepEqual(problems, []);
  await context.close();
});

test('coming near the tools\' sections, without opening one, loads them', async () => {
  const from = site.requests.length;
  const { page, context, problems } = await open(browser, site);
  await waitForApp(page);
  assert.deepEqual(toolsFetched(site, from), []);
  // Scrolled to, folded still: within a screen of the section counts as near.
  await page.locator('#audit').evaluate((el) => el.scrollIntoView());
  await page.waitForFunction(() => document.documentElement.dataset.tools === 'ready');
  assert.equal(await page.getByTestId('live-fold').getAttribute('open'), null);
  assert.equal(toolsFetched(site, from).length, 2);
  assert.deepEqual(problems, []);
  await context.close();
});

test('an embed of a lesson widget carries no tools; an embed of a tool loads them', async () => {
  for (const w of ['roundtrip', 'bench', 'quiz']) {
    const from = site.requests.length;
    const { page, context, problems } = await open(browser, site, { path: `?embed=${w}#w=${w}` });
    await waitForLater(page);
    await page.waitForTimeout(500);
    assert.deepEqual(toolsFetched(site, from), [], w);
    assert.deepEqual(problems, []);
    await context.close();
  }
  const from = site.requests.length;
  const { page, context, problems } = await open(browser, site, { path: '?embed=audit#w=audit' });
  await waitForLater(page);
  assert.equal(await page.evaluate(() => document.documentElement.dataset.tools), 'ready');
  await page.getByTestId('audit-sample').waitFor({ state: 'visible' });
  assert.equal(toolsFetched(site, from).length, 2);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the two modules keep one link: each one\'s change stays in the address bar', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=audit' });
  await waitForApp(page);
  // The tools change the link (the sample report shown)...
  await page.getByTestId('audit-sample').click();
  assert.match(await urlSoon(page, /sample=1/), /w=audit.*sample=1/);
  // ...then the lesson does (the round trip's next step: step=1 counts from 0), and the tools' field stays.
  await page.getByTestId('forward').click();
  const url = await urlSoon(page, /step=1/);
  assert.match(url, /step=1/);
  assert.match(url, /sample=1/);
  // And the other way: the tools' next change (a pasted report replaces the sample) keeps
  // the lesson's.
  await page.locator('.audit .paste summary').click();
  await page.getByTestId('audit-paste').fill('{}');
  const after = await urlSoon(page, /w=audit(?!.*sample=1)/);
  assert.doesNotMatch(after, /sample=1/);
  assert.match(after, /step=1/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('when the tools cannot be fetched, their sections say so and the lesson works', async () => {
  // With the service worker blocked: a route does not see what a service worker fetches.
  const { page, context, problems } = await open(browser, site, { serviceWorkers: 'block' });
  await page.route(TOOLS, (r) => r.fulfill({ status: 503, body: 'unavailable' }));
  await waitForApp(page);
  await page.locator('[data-testid=audit-fold] > summary').click();
  const failed = page.getByTestId('audit').getByTestId('tools-failed');
  await failed.waitFor();
  assert.match(await failed.textContent(), /^The implementers' tools could not be loaded \(.+\)\. The rest of the page works without them; reload the page to try again\.$/);
  assert.equal(await page.evaluate(() => document.documentElement.dataset.tools), 'failed');
  await page.getByTestId('forward').click();
  assert.equal(await page.getByTestId('step-count').textContent(), '2 / 6');
  // The 503 and the browser's report of it are the only trouble.
  assert.deepEqual(problems.filter((p) => !/mrtr-lab-tools|status of 503/.test(p)), []);
  await context.close();
});
