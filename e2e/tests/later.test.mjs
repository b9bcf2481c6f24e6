// The page is two wasm modules: the first screen (the round trip), and the widgets below it,
// fetched when needed. The first screen must work alone; links, embeds and a failed fetch
// must all end somewhere sensible.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, waitForApp, waitForFirstScreen, waitForLater } from '../lib/harness.mjs';

let site, browser;
before(async () => { site = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

const MORE = /mrtr-lab-more/;

test('the round trip works before the second module has been fetched', async () => {
  // The service worker would fetch the module itself, out of the route's sight.
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  // Hold the second module back until the first screen has been used.
  let release;
  const held = new Promise((ok) => { release = ok; });
  const asked = [];
  await page.route(MORE, async (route) => { asked.push(route.request().url()); await held; await route.continue(); });
  await page.goto(site.url);
  await waitForFirstScreen(page);
  await page.getByTestId('forward').click();
  assert.equal(await page.getByTestId('step-count').textContent(), '2 / 6');
  // Below the first screen: stand-ins, each saying what it is waiting for.
  assert.equal(await page.locator('[data-later] .stand-in').count(), 8);
  assert.match(await page.locator('#ticket').textContent(), /Loading this widget/);
  assert.equal(await page.getByTestId('inspector').count(), 0);
  // Coming near a stand-in asks for the module (it was not needed for the first screen).
  await page.locator('#ticket').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.documentElement.dataset.widgets === 'loading', null, { timeout: 5000 });
  for (let i = 0; i < 100 && asked.length === 0; i++) await page.waitForTimeout(50);
  assert.ok(asked.length > 0, 'the second module was asked for');
  release();
  await waitForLater(page);
  await page.getByTestId('inspector').waitFor();
  assert.equal(await page.locator('.stand-in').count(), 0);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a link to a widget below loads it and lands on it', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=misuse&move=prod' });
  await waitForApp(page);
  const misuse = page.getByTestId('misuse');
  assert.ok(await misuse.getByTestId('move-prod').isChecked());
  const top = await page.locator('#misuse').evaluate((e) => e.getBoundingClientRect().top);
  assert.ok(Math.abs(top) < 5, `the misuse widget is at the top of the view (${top})`);
  assert.deepEqual(problems, []);
  await context.close();
});

test('both modules keep their state in one link', async () => {
  const { page, context, problems } = await open(browser, site);
  await waitForApp(page);
  // A knob in the second module, then a step in the first: the link keeps both.
  await page.getByTestId('single-use').check();
  await page.getByTestId('forward').click();
  await page.waitForFunction(() => location.hash.includes('single=1') && location.hash.includes('step=1'), null, { timeout: 5000 });
  // A link typed by hand reaches the widgets of both modules.
  await page.evaluate(() => { location.hash = 'w=timeline&step=3&ttl=60'; });
  await page.waitForFunction(() => document.querySelector('[data-testid=step-count]')?.textContent === '4 / 6', null, { timeout: 5000 });
  assert.equal(await page.getByTestId('ttl').inputValue(), '60');
  assert.equal(await page.getByTestId('single-use').isChecked(), false);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a link the first module has to correct, announced by the other module, is corrected without an error', async () => {
  const { page, context, problems } = await open(browser, site);
  await waitForApp(page);
  // As the second module announces a link it wrote: the round trip clamps step 99 to its last
  // step and writes the link again, from inside its own handler of that announcement.
  await page.evaluate(() => {
    history.replaceState(null, '', '#w=roundtrip&end=tampered&step=99');
    dispatchEvent(new Event('mrtr-lab:link'));
  });
  await page.waitForFunction(() => location.hash === '#w=roundtrip&end=tampered&step=5', null, { timeout: 5000 });
  assert.equal(await page.getByTestId('step-count').textContent(), '6 / 6');
  assert.match(await page.getByTestId('roundtrip').getByTestId('verdict').textContent(), /signature/);
  await page.waitForTimeout(100);
  assert.deepEqual(problems, []);
  await context.close();
});

test('if the second module cannot be fetched, its stand-ins say so and the round trip still works', async () => {
  const ctx = await browser.newContext({ serviceWorkers: 'block' });
  const p = await ctx.newPage();
  const errors = [];
  p.on('pageerror', (e) => errors.push(e.message));
  await p.route(MORE, (route) => route.abort('failed'));
  await p.goto(site.url + '#w=quiz');
  await waitForFirstScreen(p);
  await p.waitForFunction(() => document.documentElement.dataset.widgets === 'failed', null, { timeout: 10000 });
  assert.match(await p.locator('#quiz').textContent(), /could not be loaded.*Reload the page/);
  await p.getByTestId('forward').click();
  assert.equal(await p.getByTestId('step-count').textContent(), '2 / 6');
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('an embed of a widget below the first screen fetches only the second module', async () => {
  site.requests.length = 0;
  const { page, context, problems } = await open(browser, site, { path: '?embed=quiz' });
  await page.getByTestId('quiz').waitFor({ timeout: 15000 });
  await waitForLater(page);
  await page.waitForTimeout(500);
  const fetched = site.requests.map((p) => p.split('/').pop());
  assert.ok(fetched.includes('mrtr-lab-more_bg.wasm'), fetched.join(' '));
  assert.ok(!fetched.some((f) => /^mrtr-lab-[0-9a-f]+(_bg\.wasm|\.js)$/.test(f)), `the first module was fetched: ${fetched.join(' ')}`);
  assert.equal(await page.locator('.masthead').count(), 0);
  assert.equal(await page.locator('section.widget').count(), 1);
  assert.equal(await page.locator('#boot').count(), 0, 'the starting note is gone');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a link typed while the second module is on its way lands on its widget when it arrives', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  let release;
  const held = new Promise((ok) => { release = ok; });
  await page.route(MORE, async (route) => { await held; await route.continue(); });
  await page.goto(site.url);
  await waitForFirstScreen(page);
  await page.evaluate(() => { location.hash = 'w=rules'; });
  await page.waitForFunction(() => document.documentElement.dataset.widgets === 'loading', null, { timeout: 5000 });
  release();
  await waitForLater(page);
  await page.getByTestId('rules').waitFor();
  const top = await page.locator('#rules').evaluate((e) => e.getBoundingClientRect().top);
  assert.ok(Math.abs(top) < 5, `the rules explorer is at the top of the view (${top})`);
  assert.deepEqual(errors, []);
  await context.close();
});

test('until a module has drawn the page, it says the lab is starting, in the chosen theme', async () => {
  const context = await browser.newContext({ serviceWorkers: 'block', colorScheme: 'light' });
  await context.addInitScript(() => { try { localStorage.setItem('mrtr-lab.theme', 'dark'); } catch {} });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  let release;
  const held = new Promise((ok) => { release = ok; });
  await page.route(/mrtr-lab-[0-9a-f]+_bg\.wasm$/, async (route) => { await held; await route.continue(); });
  await page.goto(site.url);
  await page.locator('#boot').waitFor();
  assert.match(await page.locator('#boot').textContent(), /Starting the lab/);
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
  release();
  await waitForFirstScreen(page);
  assert.equal(await page.locator('#boot').count(), 0);
  assert.deepEqual(errors, []);
  await context.close();
});
