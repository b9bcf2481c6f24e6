// make bench: what a first visit downloads and how its start-up splits into tasks.
// 1. Transfer: each visit in a fresh browser context (nothing cached) against the release
//    build served gzipped under a sub-path; every byte the server sent from navigation until
//    the page is ready and has been idle for 3 s (the service worker's install included):
//    the lesson, each lesson embed, and what opening the implementers' tools adds.
// 2. Long tasks: the lesson under 4x CPU throttling (CDP Emulation.setCPUThrottlingRate),
//    every task over 50 ms from navigation until ready, named by the app's User Timing marks
//    that fall inside it (mrtr:start, mrtr:trace, mrtr:mount:<slot>, mrtr:tools:…).
// Figures, not a test. Usage: node first-visit.mjs [RUNS] (long-task runs, default 3).
import { launch } from './lib/harness.mjs';
import { serveGzipped } from './lib/gzip-server.mjs';

const runs = Number(process.argv[2] ?? 3);
const site = await serveGzipped();
const browser = await launch();
const TARGETS = { lesson: 300 * 1024, 'embed=roundtrip': 250 * 1024 };
const kb = (b) => `${(b / 1024).toFixed(1)} KB`;

async function visit(path, { throttle = 0, then } = {}) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.addInitScript(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, ms: e.duration }); })
      .observe({ type: 'longtask', buffered: true });
  });
  if (throttle) {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: throttle });
  }
  const from = site.sent.length;
  await page.goto(site.url + path);
  await page.waitForFunction(() => document.documentElement.dataset.widgets === 'ready', null, { timeout: 120000 });
  const readyAt = await page.evaluate(() => performance.now());
  await page.waitForTimeout(3000);
  const files = site.sent.slice(from);
  let extra = [];
  if (then) {
    const mark = site.sent.length;
    await then(page);
    extra = site.sent.slice(mark);
  }
  const tasks = await page.evaluate((readyAt) => {
    const marks = performance.getEntriesByType('mark').filter((m) => m.name.startsWith('mrtr:'));
    return window.__longTasks.filter((t) => t.start <= readyAt).map((t) => ({
      start: Math.round(t.start),
      ms: Math.round(t.ms),
      marks: marks.filter((m) => m.startTime >= t.start && m.startTime <= t.start + t.ms).map((m) => `${m.name.slice(5)} at +${Math.round(m.startTime - t.start)}`),
    }));
  }, readyAt);
  await context.close();
  if (errors.length) throw new Error(`${path}: ${errors.join('; ')}`);
  return { files, extra, tasks, readyMs: Math.round(readyAt) };
}

const sum = (fs) => fs.reduce((n, f) => n + f.bytes, 0);
const rows = [];
const lesson = await visit('', {
  then: async (page) => {
    await page.locator('[data-testid=live-fold] > summary').click();
    await page.waitForFunction(() => document.documentElement.dataset.tools === 'ready', null, { timeout: 60000 });
  },
});
rows.push(['lesson (first visit, nothing opened)', sum(lesson.files), TARGETS.lesson]);
rows.push(['  + opening "Try it on a real server"', sum(lesson.extra)]);
for (const w of ['roundtrip', 'ticket', 'bench', 'rules', 'raw', 'code', 'quiz', 'audit', 'live']) {
  const v = await visit(`?embed=${w}#w=${w}`);
  rows.push([`embed=${w}`, sum(v.files), TARGETS[`embed=${w}`]]);
}
console.log('first visit, gzip bytes the server sent until ready + 3 s idle:');
for (const [what, b, t] of rows) console.log(`  ${what.padEnd(40)} ${kb(b).padStart(10)}${t ? `   (target <= ${kb(t)}: ${b <= t ? 'met' : 'MISSED'})` : ''}`);
console.log('  lesson files:', lesson.files.map((f) => `${f.path} ${kb(f.bytes)}`).join(', '));
console.log('  tools files:', lesson.extra.map((f) => `${f.path} ${kb(f.bytes)}`).join(', '));

let worst = [];
for (let i = 0; i < runs; i++) {
  const v = await visit('', { throttle: 4 });
  const longest = Math.max(0, ...v.tasks.map((t) => t.ms));
  console.log(`long tasks, 4x CPU, run ${i + 1}: ready at ${v.readyMs} ms; ${v.tasks.length} over 50 ms, longest ${longest} ms`);
  for (const t of v.tasks) console.log(`    at ${String(t.start).padStart(5)} ms  ${String(t.ms).padStart(4)} ms  ${t.marks.join(', ') || '(no mark: compile, parse or the browser)'}`);
  worst.push(longest);
}
worst.sort((a, b) => a - b);
const med = worst[Math.floor(worst.length / 2)];
console.log(`longest task under 4x CPU, median of ${runs}: ${med} ms (min ${worst[0]}, max ${worst[worst.length - 1]}; target <= 200 ms: ${med <= 200 ? 'met' : 'MISSED'})`);
await browser.close();
await site.close();
