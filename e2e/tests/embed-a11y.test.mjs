// Embeds, themes and accessibility: every widget alone in an iframe, axe-core on the full page
// and on every embed in light and dark, phones, zoom, print.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, waitForApp, waitForLater } from '../lib/harness.mjs';
import { axeViolations } from '../lib/axe.mjs';

const WIDGETS = ['roundtrip', 'ticket', 'bench', 'task', 'raw', 'code', 'rules', 'quiz', 'audit', 'live'];
let site, browser;
before(async () => { site = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

async function settle(page) {
  await page.evaluate(() => document.getAnimations().forEach((a) => a.finish()));
}

for (const colorScheme of ['light', 'dark']) {
  test(`axe: no WCAG A/AA violation on the full page (${colorScheme})`, async () => {
    const { page, context, problems } = await open(browser, site, { colorScheme, path: '#w=roundtrip&step=5' });
    await waitForApp(page);
    await page.getByTestId('move-alice').check();
    await page.getByTestId('edit-prod').click();
    await settle(page);
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(problems, []);
    await context.close();
  });
}

test('each embed renders alone, honours the theme, and passes axe in light and dark', async () => {
  for (const w of WIDGETS) {
    for (const theme of ['light', 'dark']) {
      const { page, context, problems } = await open(browser, site, { path: `?embed=${w}&theme=${theme}#w=${w}&move=alice` });
      await page.locator(`#${w}`).waitFor();
      await waitForLater(page);
      assert.equal(await page.locator('.masthead').isVisible(), false, `${w}: no page chrome`);
      assert.equal(await page.locator('section.widget:visible').count(), 1, `${w}: one widget`);
      assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), theme);
      const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      const dark = bg === 'rgb(15, 20, 25)';
      assert.equal(dark, theme === 'dark', `${w} ${theme}: background ${bg}`);
      await settle(page);
      assert.deepEqual(await axeViolations(page), [], `${w} ${theme}`);
      assert.deepEqual(problems, []);
      await context.close();
    }
  }
});

test('embeds and links of the two widgets the bench replaced open the bench', async () => {
  for (const old of ['timeline', 'misuse']) {
    const { page, context, problems } = await open(browser, site, { path: `?embed=${old}#w=${old}&move=alice&predict=0` });
    await page.locator('#bench').waitFor();
    await page.getByTestId('attempts').waitFor();
    assert.equal(await page.locator('section.widget:visible').count(), 1, old);
    assert.equal(await page.evaluate(() => document.documentElement.dataset.embed), 'bench', old);
    assert.match(await page.getByTestId('misuse-answer').textContent(), /Principal is this caller/, old);
    assert.deepEqual(problems, []);
    await context.close();
  }
});

test('an embed carries the words its widget uses; compact folds the wire and hides the extras', async () => {
  const { page, context, problems } = await open(browser, site, { path: '?embed=roundtrip#w=roundtrip' });
  await page.getByTestId('forward').waitFor();
  const glossary = page.getByTestId('embed-glossary');
  assert.equal(await glossary.isVisible(), true);
  await glossary.locator('summary').click();
  const terms = await glossary.locator('dt').allTextContents();
  assert.deepEqual(terms, ['Host', 'Client', 'Server', 'Tool', 'Replica', 'Load balancer', 'Ticket', 'Principal', 'Signature']);
  assert.match(await glossary.locator('dd').nth(1).textContent(), /lives inside the host/);
  assert.equal(await page.locator('[data-testid=embed-glossary] [id]').count(), 0, 'no id of the page is copied');
  assert.equal(await page.getByTestId('wire-fold').count(), 0, 'not compact: the wire log is open');
  await context.close();
  // Compact: the wire log folded to a line, hints hidden.
  const c = await open(browser, site, { path: '?embed=roundtrip&compact=1#w=roundtrip&step=3' });
  await c.page.getByTestId('forward').waitFor();
  const fold = c.page.getByTestId('wire-fold');
  assert.equal(await fold.evaluate((d) => d.open), false);
  assert.match(await fold.locator('summary').textContent(), /^On the wire: \d+ messages so far$/);
  assert.equal(await c.page.locator('#roundtrip .hint').first().isVisible(), false);
  // The page's own preview is as tall as the widget it shows.
  assert.deepEqual([...problems, ...c.problems], []);
  await c.context.close();
});

test('the docs page\'s preview shows the whole widget, sized to the height it posts', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=roundtrip' });
  await waitForApp(page);
  await page.getByTestId('embed-fold').locator('summary').click();
  const item = page.locator('.embeds li', { has: page.locator('.snippet[data-widget=bench]') });
  await item.getByRole('button', { name: 'Show preview' }).click();
  const frame = item.locator('iframe.preview');
  await page.waitForFunction(() => {
    const f = [...document.querySelectorAll('iframe.preview')].find((x) => x.src.includes('embed=bench'));
    return f && f.getBoundingClientRect().height > 900;
  }, null, { timeout: 15000 });
  const inner = await frame.contentFrame().locator('html').evaluate((h) => h.scrollHeight);
  const outer = await frame.evaluate((f) => f.getBoundingClientRect().height);
  assert.ok(Math.abs(inner - outer) <= 2, `preview ${outer} px, widget ${inner} px`);
  assert.deepEqual(problems, []);
  await context.close();
});

test('an embed keeps ?embed= in its address while its link changes', async () => {
  const { page, context, problems } = await open(browser, site, { path: '?embed=roundtrip&theme=dark#w=roundtrip' });
  await page.getByTestId('forward').click();
  await page.waitForFunction(() => location.hash.includes('step=1'));
  // The page has <base href=./>: a bare "#..." would resolve against it and drop the query.
  assert.equal(new URL(page.url()).search, '?embed=roundtrip&theme=dark');
  assert.deepEqual(problems, []);
  await context.close();
});

test('an embed posts its height to the page around it', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.setContent(`<script>window.heights=[];window.canvas=[];addEventListener('message',(e)=>{if(e.data&&e.data.type==='mrtr-lab:height')window.heights.push(e.data);if(typeof e.data==='string')window.canvas.push(JSON.parse(e.data))})</script>
    <iframe id="f" src="${site.url}?embed=timeline" style="width:800px;border:0"></iframe>`);
  // The reserved space's height may come first; the widget's own follows when it has arrived.
  await page.waitForFunction(() => window.heights.some((h) => h.height > 300), null, { timeout: 15000 });
  const heights = await page.evaluate(() => window.heights);
  // An embed of the old timeline is the bench.
  assert.ok(heights.every((h) => h.widget === 'bench'), JSON.stringify(heights));
  // Beside it, Canvas's own resize message, as the JSON text Canvas reads, the same height.
  const canvas = await page.evaluate(() => window.canvas);
  assert.ok(canvas.length > 0 && canvas.every((c) => c.subject === 'lti.frameResize'), JSON.stringify(canvas));
  assert.equal(canvas.at(-1).height, heights.at(-1).height);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the docs page lists a snippet for every widget, with a live preview', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=roundtrip' });
  await waitForApp(page);
  for (const w of WIDGETS) {
    const s = await page.locator(`.snippet[data-widget=${w}]`).textContent();
    assert.ok(s.includes(`${site.url}?embed=${w}`), s);
  }
  // Folded until a docs writer opens it: the lesson does not scroll past eight snippets.
  assert.equal(await page.getByTestId('embed-fold').getAttribute('open'), null);
  await page.locator('#embed summary').click();
  await page.getByTestId('embed-docs').getByRole('button', { name: 'Show preview' }).first().click();
  const frame = page.frameLocator('iframe.preview').first();
  await frame.locator('#roundtrip').waitFor({ timeout: 15000 });
  // Each preview is a whole copy of the app: toggling hides and shows the one copy, never
  // piling up new ones (a monkey toggling previews once crashed the tab).
  const docs = page.getByTestId('embed-docs');
  for (let i = 0; i < 6; i++) await docs.getByRole('button', { name: /preview/ }).first().click();
  assert.equal(page.frames().length, 2, 'the page and one preview');
  await docs.getByRole('button', { name: 'Hide preview' }).first().click();
  assert.equal(await page.locator('iframe.preview').first().isHidden(), true);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the theme toggle is remembered, and the OS theme is the default', async () => {
  const { page, context, problems } = await open(browser, site, { colorScheme: 'dark' });
  await waitForApp(page);
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme ?? null), null);
  await page.getByTestId('theme-toggle').click(); // light
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'light');
  await page.reload();
  await waitForApp(page);
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'light');
  await page.getByTestId('theme-toggle').click(); // dark
  await page.getByTestId('theme-toggle').click(); // auto again
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme ?? null), null);
  assert.deepEqual(problems, []);
  await context.close();
});

for (const width of [375, 640]) {
  test(`nothing scrolls sideways at ${width} px (640 px is 200 % zoom of 1280)`, async () => {
    const { page, context, problems } = await open(browser, site, { viewport: { width, height: 800 }, path: '#w=roundtrip&step=5&move=twice' });
    await waitForApp(page);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.equal(overflow, 0);
    assert.deepEqual(problems, []);
    await context.close();
  });
}

test('print: every folded section opens, and controls are hidden', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=bench&move=alice' });
  await waitForApp(page);
  await page.evaluate(() => window.dispatchEvent(new Event('beforeprint')));
  assert.equal(await page.locator('details:not([open])').count(), 0);
  await page.emulateMedia({ media: 'print' });
  assert.equal(await page.locator('.controls').first().isVisible(), false);
  assert.equal(await page.getByTestId('theme-toggle').isVisible(), false);
  assert.deepEqual(problems, []);
  await context.close();
});

test('works offline once loaded', async () => {
  const { page, context, problems } = await open(browser, site);
  await waitForApp(page);
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    // Wait until the install step has cached the wasm module.
    for (let i = 0; i < 100; i++) {
      const keys = await caches.open('mrtr-lab-v1').then((c) => c.keys());
      if (keys.some((r) => r.url.endsWith('.wasm'))) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the wasm module was never cached');
  });
  await context.setOffline(true);
  await page.reload();
  await waitForApp(page);
  await page.getByTestId('forward').click();
  assert.equal(await page.getByTestId('step-count').textContent(), '2 / 6');
  assert.deepEqual(problems, []);
  await context.close();
});
