// One module, the prose in HTML: the page reads before the wasm arrives, each widget mounts
// into its place when the reader comes near it (or a link points at it), one link holds
// every widget's state, a failed start says so, and nothing jumps as widgets arrive.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, waitForApp, waitForFirstScreen, waitForLater } from '../lib/harness.mjs';

let site, browser;
before(async () => { site = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

const WASM = /mrtr-lab-[0-9a-f]+_bg\.wasm$/;

test('the page reads before the wasm arrives, in the chosen theme, and the widgets fill their places', async () => {
  const context = await browser.newContext({ serviceWorkers: 'block', colorScheme: 'light' });
  await context.addInitScript(() => { try { localStorage.setItem('mrtr-lab.theme', 'dark'); } catch {} });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  let release;
  const held = new Promise((ok) => { release = ok; });
  await page.route(WASM, async (route) => { await held; await route.continue(); });
  await page.goto(site.url);
  // Prose, headings and intros are there with no wasm at all.
  assert.match(await page.locator('.lede').textContent(), /input_required/);
  assert.equal(await page.locator('main section h2').count(), 13);
  assert.match(await page.locator('#why').textContent(), /Principal.*bearer token/s);
  assert.match(await page.locator('#bench .intro').textContent(), /Play bob's client/);
  assert.match(await page.locator('#roundtrip .starting').textContent(), /Starting the lab/);
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
  release();
  await waitForFirstScreen(page);
  assert.equal(await page.locator('#roundtrip .starting').isVisible(), false, 'the placeholder steps aside');
  await waitForLater(page);
  await page.getByTestId('move-alice').waitFor();
  assert.deepEqual(errors, []);
  await context.close();
});

test('a reader new to MCP meets host, client, server, tool and JSON-RPC defined before the round trip', async () => {
  const { page, context, problems } = await open(browser, site);
  await waitForApp(page);
  // The page's text in reading order, up to the round trip's section.
  const text = await page.evaluate(() => {
    const stop = document.getElementById('roundtrip');
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    let out = '';
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (stop.contains(n)) break;
      out += n.textContent + ' ';
    }
    return out.replace(/\s+/g, ' ');
  });
  for (const [word, definition] of [
    ['Host', /Host The application the user works in/],
    ['Client', /Client The part of the host that speaks MCP/],
    ['Server', /Server A program that offers things to do/],
    ['Tool', /Tool One thing a server can do/],
    ['JSON-RPC', /JSON-RPC ?: each message is one small JSON object/],
    ['MRTR', /multi round-trip requests \(MRTR\), proposed as SEP-2322/],
  ]) {
    assert.match(text, definition, `${word} is defined before the round trip`);
  }
  // Each is defined before the page first uses it in the round trip's own words.
  assert.ok(text.indexOf('Model Context Protocol') < text.indexOf('Why a ticket'));
  // The client is drawn inside the host: the words say so.
  assert.match(text, /It lives inside the host/);
  // Foldable for readers who know MCP.
  await page.getByTestId('mcp-fold').locator('summary').click();
  assert.equal(await page.getByTestId('mcp-fold').evaluate((d) => d.open), false);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a widget mounts when the reader comes near it, before the page is idle', async () => {
  const { page, context, problems } = await open(browser, site);
  await waitForFirstScreen(page);
  assert.equal(await page.locator('[data-mount=bench] .bench-body').count(), 0, 'not yet: far below');
  await page.locator('#bench').scrollIntoViewIfNeeded();
  await page.locator('[data-mount=bench] .bench-body').waitFor({ timeout: 1000 });
  assert.deepEqual(problems, []);
  await context.close();
});

test('a link to a widget below mounts it and lands on it', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=misuse&move=prod' });
  await waitForApp(page);
  assert.ok(await page.getByTestId('move-prod').isChecked());
  // An old misuse link: it opens the bench, at the top of the view.
  const top = await page.locator('#bench').evaluate((e) => e.getBoundingClientRect().top);
  assert.ok(Math.abs(top) < 5, `the bench is at the top of the view (${top})`);
  // A link typed by hand lands on its widget too.
  await page.evaluate(() => { location.hash = 'w=rules'; });
  await page.waitForFunction(() => Math.abs(document.getElementById('rules').getBoundingClientRect().top) < 5, null, { timeout: 5000 });
  assert.deepEqual(problems, []);
  await context.close();
});

test('one link keeps every widget\'s state, and a hand-typed one reaches them all', async () => {
  const { page, context, problems } = await open(browser, site);
  await waitForApp(page);
  await page.getByTestId('single-use').check();
  await page.getByTestId('forward').click();
  await page.waitForFunction(() => location.hash.includes('single=1') && location.hash.includes('step=1'), null, { timeout: 5000 });
  await page.evaluate(() => { location.hash = 'w=timeline&step=3&ttl=60'; });
  await page.waitForFunction(() => document.querySelector('[data-testid=step-count]')?.textContent === '4 / 6', null, { timeout: 5000 });
  assert.equal(await page.getByTestId('ttl').getAttribute('aria-valuenow'), '60');
  assert.equal(await page.getByTestId('single-use').isChecked(), false);
  // A step out of range is clamped, and the link says so, with no error.
  await page.evaluate(() => { location.hash = 'w=roundtrip&end=tampered&step=99'; });
  await page.waitForFunction(() => location.hash === '#w=roundtrip&end=tampered&step=5', null, { timeout: 5000 });
  assert.equal(await page.getByTestId('step-count').textContent(), '6 / 6');
  assert.deepEqual(problems, []);
  await context.close();
});

test('if the wasm cannot be fetched, the page still reads and says the lab could not start', async () => {
  const context = await browser.newContext({ serviceWorkers: 'block' });
  const page = await context.newPage();
  await page.route(WASM, (route) => route.abort('failed'));
  await page.goto(site.url);
  await page.locator('[data-testid=start-failed]').waitFor({ timeout: 10000 });
  assert.match(await page.locator('[data-testid=start-failed]').textContent(), /could not start.*reload the page/);
  assert.match(await page.locator('.lede').textContent(), /requestState/);
  await context.close();
});

for (const viewport of [{ width: 1280, height: 900 }, { width: 375, height: 800 }]) {
  test(`nothing jumps while the widgets arrive (${viewport.width} px)`, async () => {
    const context = await browser.newContext({ viewport, serviceWorkers: 'block' });
    await context.addInitScript(() => {
      window.shift = 0;
      new PerformanceObserver((l) => { for (const e of l.getEntries()) if (!e.hadRecentInput) window.shift += e.value; })
        .observe({ type: 'layout-shift', buffered: true });
    });
    const page = await context.newPage();
    await page.goto(site.url);
    await waitForApp(page);
    await page.waitForTimeout(300);
    const shift = await page.evaluate(() => window.shift);
    assert.ok(shift <= 0.01, `cumulative layout shift ${shift}`);
    await context.close();
  });
}

test('jargon in the prose explains itself on focus, inside the page at 375 px', async () => {
  const { page, context, problems } = await open(browser, site, { viewport: { width: 375, height: 800 } });
  await waitForApp(page);
  // In the prose (elicitation, HMAC, shim) and where widgets first use a word (the rules
  // explorer's capabilities; AEAD in B's folded settings, skipped while folded).
  const glosses = page.locator('.gloss');
  let seen = 0;
  for (let i = 0; i < await glosses.count(); i++) {
    if (!await glosses.nth(i).isVisible()) continue;
    seen++;
    await glosses.nth(i).focus();
    const r = await glosses.nth(i).evaluate((e) => ({
      tip: getComputedStyle(e, '::after').content,
      described: document.getElementById(e.getAttribute('aria-describedby'))?.textContent ?? '',
      wide: document.documentElement.scrollWidth,
    }));
    assert.match(r.tip, /^".+"$/, `gloss ${i} shows a note`);
    assert.ok(r.described.length > 20, `gloss ${i} is described for screen readers`);
    assert.ok(r.wide <= 375, `gloss ${i}'s note stays inside the page (${r.wide} px wide)`);
  }
  assert.ok(seen >= 7, `${seen} glosses on show`);
  assert.deepEqual(problems, []);
  await context.close();
});
