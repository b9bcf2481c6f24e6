// make bench, the page (figures, not a test): the whole site's size, long tasks while every
// widget plays at top speed, and the monkey at full count. (Lighthouse runs apart:
// lighthouse.mjs.) Each figure is printed beside its budget.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { serve, launch, open, waitForApp, DIST } from './lib/harness.mjs';
import { monkey } from './monkey.mjs';

/** The files of the build, raw and gzip -9, and the number of wasm modules. */
function site(dir) {
  let raw = 0, gz = 0, modules = 0;
  for (const f of fs.readdirSync(dir)) {
    const p = path.join(dir, f);
    if (!fs.statSync(p).isFile()) continue;
    const b = fs.readFileSync(p);
    raw += b.length;
    gz += zlib.gzipSync(b, { level: 9 }).length;
    if (f.endsWith('.wasm')) modules += 1;
  }
  return { raw, gz, modules };
}

async function longTasksWhilePlaying(browser, site) {
  const { page, context } = await open(browser, site);
  await page.addInitScript(() => {
    window.__long = [];
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push(e.duration); }).observe({ type: 'longtask', buffered: false });
  });
  await page.reload();
  await waitForApp(page);
  await page.evaluate(() => { window.__long = []; });
  const rt = page.getByTestId('roundtrip');
  for (const ending of ['Honest retry', 'Ticket edited to prod']) {
    await rt.getByText(ending).click();
    await rt.locator('select').selectOption('4');
    await page.getByTestId('play').click();
    await page.waitForFunction(() => document.querySelector('[data-testid=step-count]')?.textContent === '6 / 6', null, { timeout: 30000 });
  }
  await page.getByTestId('edit-prod').click();
  // The clock's markers are sliders for the keyboard: each to both ends and back.
  await page.getByTestId('predict').uncheck();
  for (let i = 0; i < 12; i++) { await page.getByTestId(`time-${i}`).focus(); for (const k of ['End', 'Home', 'PageUp', 'PageUp']) await page.keyboard.press(k); }
  await page.getByTestId('single-use').check();
  await page.getByTestId('store-replica').check();
  for (const m of ['honest', 'edit', 'alice', 'wait', 'prod', 'twice', 'noanswer', 'onechar', 'forge', 'launder', 'renew', 'memdies']) await page.getByTestId(`move-${m}`).check();
  await page.getByTestId('raw-knobs-fold').locator('summary').click();
  for (const id of ['raw-change', 'raw-nosig', 'raw-stateless']) await page.getByTestId(id).check();
  for (const m of ['tools/call', 'prompts/get', 'resources/read', 'tools/list', 'prompts/list', 'resources/list', 'server/discover']) await page.getByTestId('rules-method').selectOption(m);
  await page.waitForTimeout(500);
  const long = await page.evaluate(() => window.__long);
  await context.close();
  return long;
}

/** The page's length once every widget has mounted, in its default state. */
async function pageLength(browser, site, width) {
  const { page, context } = await open(browser, site, { viewport: { width, height: 900 } });
  await waitForApp(page);
  const h = await page.evaluate(() => document.documentElement.scrollHeight);
  await context.close();
  return h;
}

const app = await serve();
const browser = await launch();
try {
  const all = site(DIST);
  const long = await longTasksWhilePlaying(browser, app);
  const wide = await pageLength(browser, app, 1280);
  const narrow = await pageLength(browser, app, 375);
  const { page, context, problems } = await open(browser, app);
  await waitForApp(page);
  const actions = Number(process.env.MONKEY_ACTIONS ?? 2000);
  const m = await monkey(page, {
    actions, seed: 2026,
    onAction: (i, _kind, detail) => { if (detail === undefined && i % 250 === 0) process.stderr.write(`  monkey: ${i} of ${actions} actions\n`); },
  });
  await context.close();
  const kb = (n) => (n / 1024).toFixed(1) + ' KB';
  console.log('\nthe page (figures, not a test)');
  console.log(`  whole site, gzip:  ${kb(all.gz)} (raw ${kb(all.raw)}) in ${all.modules} wasm module(s)   target <= 350 KB (#25; the 250 KB budget is retired): ${all.gz <= 350 * 1024 ? 'met' : 'MISSED'}`);
  // #24's budget: 13 000 px at 375 px (#18's was 16 000, two-thirds of the 24 000 px it measured).
  console.log(`  page length, every widget mounted: ${wide} px at 1280 px, ${narrow} px at 375 px   budget <= 13 000 px at 375 px: ${narrow <= 13000 ? 'met' : 'MISSED'}`);
  console.log(`  long tasks (> 50 ms) while every widget plays at top speed: ${long.length}${long.length ? ' (' + long.map((d) => d.toFixed(0) + ' ms').join(', ') + ')' : ''}   budget 0: ${long.length === 0 ? 'met' : 'MISSED'}`);
  if (m.crashedAt !== null) console.log(`  monkey: the tab CRASHED at action ${m.crashedAt}`);
  else console.log(`  monkey, ${Object.values(m.counts).reduce((x, y) => x + y, 0)} actions: page/console errors ${problems.length}; heap ${(m.heapAfter100 / 1e6).toFixed(2)} MB after 100, ${(m.heapEnd / 1e6).toFixed(2)} MB at the end (growth ${((m.heapEnd - m.heapAfter100) / 1e6).toFixed(2)} MB, budget < 5 MB)`);
  if (problems.length) console.log('  ' + problems.slice(0, 5).join('\n  '));
} finally {
  await browser.close();
  await app.close();
}
