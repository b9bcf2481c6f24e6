// make bench, the audit in the page (figures, not a test): the same audit of the same
// mrtr-server (`--single-use`, no wait for expiry: every row, each bound by its requests) run
// by the page over fetch and by mrtr-audit from a terminal, interleaved, RUNS times each; the
// medians and their ratio beside #27's target (<= 1.5x); the browser's own floor, as many
// bare sequential fetches from the same page, so the page's own cost can be told from
// fetch's; and the long tasks the page ran while auditing beside the 50 ms budget.
// Usage: node audit-bench.mjs BIN_DIR   (BIN_DIR holds mrtr-server and mrtr-audit)
import { spawn, execFileSync } from 'node:child_process';
import path from 'node:path';
import { serve, launch, open, waitForApp } from './lib/harness.mjs';

const bin = process.argv[2];
const RUNS = Number(process.env.AUDIT_RUNS ?? 3);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const app = await serve();
const port = 20000 + Math.floor(Math.random() * 20000);
const url = `http://127.0.0.1:${port}/mcp`;
const server = spawn(path.join(bin, 'mrtr-server'), ['--http', `127.0.0.1:${port}`, '--key-hex', 'ab'.repeat(32),
  '--single-use', '--cors-origin', app.origin], { stdio: ['ignore', 'ignore', 'pipe'] });
await new Promise((ok, fail) => {
  let err = '';
  server.stderr.on('data', (d) => { err += d; if (err.includes('listening on')) ok(); });
  setTimeout(() => fail(new Error(`mrtr-server did not start: ${err}`)), 10000);
});
const browser = await launch();
try {
  const { page, context } = await open(browser, app, { path: '#w=live' });
  await page.addInitScript(() => {
    window.__long = [];
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push(e.duration); }).observe({ type: 'longtask' });
  });
  await page.reload();
  await waitForApp(page);
  await page.getByTestId('live-url').fill(url);
  await page.getByTestId('live-token').fill('alice-token');
  await page.getByTestId('live-other-token').fill('bob-token');
  const args = [url, '--token', 'alice-token', '--other-token', 'bob-token', '--tool', 'deploy', '--args', '{"env":"staging"}',
    '--expect-single-use', '--json'];
  const pageMs = [], cliMs = [], long = [];
  let requests = 0;
  for (let i = 0; i < RUNS; i++) {
    await page.evaluate(() => { window.__long = []; });
    await page.getByTestId('live-audit-start').click();
    const done = page.getByTestId('live-audit-done');
    await done.waitFor({ timeout: 300000 });
    pageMs.push(Number(await done.getAttribute('data-ms')));
    requests = (await done.textContent()).match(/(\d+) requests/)[1];
    long.push(...await page.evaluate(() => window.__long));
    const t0 = performance.now();
    try { execFileSync(path.join(bin, 'mrtr-audit'), args, { stdio: ['ignore', 'ignore', 'ignore'] }); } catch { /* exit 1: a failing row */ }
    cliMs.push(performance.now() - t0);
  }
  // The browser's own floor: as many sequential fetches (tools/list, the same headers) from
  // the same page, with no audit behind them.
  const floorMs = [];
  for (let i = 0; i < RUNS; i++) {
    floorMs.push(await page.evaluate(async ([url, n]) => {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } } });
      const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/list', Authorization: 'Bearer alice-token' };
      const t = performance.now();
      for (let i = 0; i < n; i++) await (await fetch(url, { method: 'POST', headers, body })).text();
      return performance.now() - t;
    }, [url, Number(requests)]));
  }
  await context.close();
  const p = median(pageMs), c = median(cliMs), f = median(floorMs);
  const ratio = p / c;
  console.log('\nthe audit in the page (figures, not a test)');
  console.log(`  in-page audit of mrtr-server, ${requests} requests: ${(p / 1000).toFixed(2)} s; mrtr-audit from a terminal: ${(c / 1000).toFixed(2)} s (medians of ${RUNS})   ratio ${ratio.toFixed(2)}x, target <= 1.5x: ${ratio <= 1.5 ? 'met' : 'MISSED'}`);
  console.log(`  the browser's floor, ${requests} sequential fetches and nothing else: ${(f / 1000).toFixed(2)} s (${(f / Number(requests)).toFixed(2)} ms each; the terminal's whole audit is ${(c / Number(requests)).toFixed(2)} ms a request)   in-page audit / floor: ${(p / f).toFixed(2)}x`);
  const longest = long.length ? Math.max(...long) : 0;
  console.log(`  long tasks (> 50 ms) while the page audits: ${long.length}${long.length ? ` (longest ${longest.toFixed(0)} ms)` : ''}   budget 0: ${long.length === 0 ? 'met' : 'MISSED'}`);
} finally {
  server.kill();
  await browser.close();
  await app.close();
}
