// make bench (figures, not a test): the app against a Leptos hello world built with the same
// toolchain and profile. Prints first-load bytes (gzip), time to interactive, long tasks
// while every widget plays at top speed, and the monkey at full count.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { serve, launch, open, waitForApp, DIST } from './lib/harness.mjs';
import { monkey } from './monkey.mjs';

const HELLO = process.env.HELLO_DIST ?? path.resolve(DIST, '../target/bench/hello-dist');
const RUNS = 15;

/** Compressed bytes of the files in `dir` (only those named in `only`, when given). */
function bytes(dir, only) {
  let raw = 0, gz = 0;
  for (const f of fs.readdirSync(dir)) {
    if (only && !only.has(f)) continue;
    const p = path.join(dir, f);
    if (!fs.statSync(p).isFile() || !/\.(html|js|wasm|css|woff2?|svg)$/.test(f)) continue;
    const b = fs.readFileSync(p);
    raw += b.length;
    gz += zlib.gzipSync(b, { level: 9 }).length;
  }
  return { raw, gz };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Median time to interactive, and the files fetched before it (the first load). Measured in
 * the page, the same way for both: the moment the first screen's content exists (a
 * MutationObserver watching for `ready`), or, if a long task (> 50 ms) was running then, the
 * moment it ended, since the page cannot answer a click before. Polling from outside would
 * add its own latency to both and blur the ratio.
 */
async function tti(browser, site, ready, runs = RUNS) {
  const times = [];
  const fetched = new Set();
  for (let i = 0; i < runs; i++) {
    const context = await browser.newContext({ serviceWorkers: 'block' });
    const page = await context.newPage();
    await page.addInitScript((src) => {
      const isReady = new Function(`return (${src})()`);
      window.__long = [];
      new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push([e.startTime, e.startTime + e.duration]); }).observe({ type: 'longtask', buffered: true });
      const seen = () => { if (window.__content === undefined && isReady()) window.__content = performance.now(); };
      new MutationObserver(seen).observe(document, { subtree: true, childList: true, characterData: true });
    }, ready.toString());
    await page.goto(site.url);
    await page.waitForFunction(() => window.__content !== undefined, null, { timeout: 30000 });
    // Let a long task that was running at that moment finish and be reported.
    await page.waitForTimeout(300);
    const { at, files } = await page.evaluate(() => {
      const c = window.__content;
      const busy = window.__long.filter(([s, e]) => s <= c && e > c).map(([, e]) => e);
      const at = Math.max(c, ...busy);
      // The first load: the page itself and every file it asked for before it was interactive.
      const files = performance.getEntriesByType('resource').filter((e) => e.startTime <= at).map((e) => new URL(e.name).pathname.split('/').pop());
      return { at, files };
    });
    times.push(at);
    for (const f of ['index.html', ...files]) fetched.add(f);
    await context.close();
  }
  return { ms: median(times), fetched };
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
  for (let t = 0; t <= 600; t += 60) await page.getByTestId('ticket-at').fill(String(t));
  for (let i = 0; i < 6; i++) for (const t of [0, 150, 400, 8]) await page.getByTestId(`time-${i}`).fill(String(t));
  await page.getByTestId('single-use').check();
  await page.getByTestId('per-replica').check();
  for (const m of ['honest', 'edit', 'alice', 'wait', 'prod', 'twice', 'noanswer', 'onechar', 'forge']) await page.getByTestId(`move-${m}`).check();
  for (const id of ['raw-change', 'raw-nosig', 'raw-stateless']) await page.getByTestId(id).check();
  for (const m of ['tools/call', 'prompts/get', 'resources/read', 'tools/list', 'prompts/list', 'resources/list', 'server/discover']) await page.getByTestId('rules-method').selectOption(m);
  await page.waitForTimeout(500);
  const long = await page.evaluate(() => window.__long);
  await context.close();
  return long;
}

const app = await serve();
const hello = await serve(HELLO);
const browser = await launch();
try {
  // One load of each in turn, so a machine that slows down or speeds up during the run weighs
  // on both alike; the medians over all loads.
  const appRun = { times: [], fetched: new Set() }, helloRun = { times: [], fetched: new Set() };
  for (let i = 0; i < RUNS; i++) {
    for (const [run, site, ready] of [
      [appRun, app, () => !!document.querySelector('[data-testid=caption] h3')?.textContent],
      [helloRun, hello, () => !!document.querySelector('#hello')],
    ]) {
      const r = await tti(browser, site, ready, 1);
      run.times.push(r.ms);
      for (const f of r.fetched) run.fetched.add(f);
    }
  }
  const appTti = median(appRun.times), helloTti = median(helloRun.times);
  // The first load is what the browser fetched before the page was interactive; the widgets
  // below the first screen are a second module, fetched afterwards (reported apart).
  const a = bytes(DIST, appRun.fetched), h = bytes(HELLO, helloRun.fetched), all = bytes(DIST);
  const long = await longTasksWhilePlaying(browser, app);
  const { page, context, problems } = await open(browser, app);
  await waitForApp(page);
  const m = await monkey(page, { actions: Number(process.env.MONKEY_ACTIONS ?? 2000), seed: 2026 });
  await context.close();
  const kb = (n) => (n / 1024).toFixed(1) + ' KB';
  console.log('\nperformance budget (figures, not a test)');
  console.log(`  first load, gzip:      app ${kb(a.gz)} (raw ${kb(a.raw)})   hello world ${kb(h.gz)} (raw ${kb(h.raw)})   budget <= 150 KB: ${a.gz <= 150 * 1024 ? 'met' : 'MISSED'}`);
  console.log(`                         files: ${[...appRun.fetched].sort().join(', ')}`);
  console.log(`  whole site, gzip:      ${kb(all.gz)} (the widgets below the first screen load after it is interactive)`);
  console.log(`  time to interactive:   app ${appTti.toFixed(0)} ms   hello world ${helloTti.toFixed(0)} ms   ratio ${(appTti / helloTti).toFixed(2)}x   budget <= 1.5x: ${appTti <= 1.5 * helloTti ? 'met' : 'MISSED'}`);
  console.log(`  long tasks (> 50 ms) while every widget plays at top speed: ${long.length}${long.length ? ' (' + long.map((d) => d.toFixed(0) + ' ms').join(', ') + ')' : ''}   budget 0: ${long.length === 0 ? 'met' : 'MISSED'}`);
  console.log(`  monkey, ${Object.values(m.counts).reduce((x, y) => x + y, 0)} actions: page/console errors ${problems.length}; heap ${(m.heapAfter100 / 1e6).toFixed(2)} MB after 100, ${(m.heapEnd / 1e6).toFixed(2)} MB at the end (growth ${((m.heapEnd - m.heapAfter100) / 1e6).toFixed(2)} MB, budget < 5 MB)`);
  if (problems.length) console.log('  ' + problems.slice(0, 5).join('\n  '));
} finally {
  await browser.close();
  await app.close();
  await hello.close();
}
