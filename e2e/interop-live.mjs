// make interop: the audit in the page against another SDK's server, compared row by row with
// mrtr-audit's from a terminal on the same server. The server is started here, once the page's
// origin is known, from a command with @PORT@ and @ORIGIN@ in it (its CORS set-up is the one
// the page's sentence gives for that SDK, so this also checks that sentence's fix).
// Usage: node interop-live.mjs MRTR_AUDIT "AUDIT FLAGS" CMD...    Exit 0: the same rows.
import { spawn, execFileSync } from 'node:child_process';
import net from 'node:net';
import { serve, launch, open, waitForApp } from './lib/harness.mjs';

const [audit, flags, ...cmd] = process.argv.slice(2);
const extra = flags.split(' ').filter(Boolean);

async function freePort() {
  const s = net.createServer();
  await new Promise((ok) => s.listen(0, '127.0.0.1', ok));
  const { port } = s.address();
  await new Promise((ok) => s.close(ok));
  return port;
}
async function listening(port) {
  for (let i = 0; i < 100; i++) {
    const up = await new Promise((ok) => { const c = net.connect(port, '127.0.0.1', () => { c.end(); ok(true); }); c.on('error', () => ok(false)); });
    if (up) return;
    await new Promise((ok) => setTimeout(ok, 100));
  }
  throw new Error(`the server did not listen on ${port}`);
}

const app = await serve();
const port = await freePort();
const url = `http://127.0.0.1:${port}/mcp`;
const args = cmd.map((a) => a.replaceAll('@PORT@', String(port)).replaceAll('@ORIGIN@', app.origin));
const server = spawn(args[0], args.slice(1), { stdio: ['ignore', 'inherit', 'inherit'] });
const browser = await launch();
let ok = false;
try {
  await listening(port);
  const { page, context } = await open(browser, app, { path: '#w=live' });
  await waitForApp(page);
  await page.getByTestId('live-url').fill(url);
  await page.getByTestId('live-token').fill('bob-token');
  await page.getByTestId('live-other-token').fill('alice-token');
  const single = extra.includes('--expect-single-use');
  if (!single) await page.getByTestId('live-audit-single-use').uncheck();
  await page.getByTestId('live-audit-start').click();
  const done = page.getByTestId('live-audit-done').or(page.locator('[data-testid=live-audit] [data-testid=live-audit-error]'));
  await done.waitFor({ timeout: 120000 });
  const error = page.locator('[data-testid=live-audit] [data-testid=live-audit-error]');
  if (await error.count()) throw new Error(`the page could not audit it: ${await error.textContent()}`);
  const href = await page.getByTestId('live-audit-download').getAttribute('href');
  const inPage = JSON.parse(decodeURIComponent(href.slice(href.indexOf(',') + 1)));
  await context.close();
  let out;
  try {
    out = execFileSync(audit, [url, '--token', 'bob-token', '--other-token', 'alice-token', '--tool', 'deploy', '--args', '{"env":"staging"}', ...extra, '--json'],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) { out = e.stdout; }
  const terminal = JSON.parse(out);
  const rows = (r) => r.rows.map((x) => `${x.id}=${x.status}`);
  const [a, b] = [rows(inPage), rows(terminal)];
  const differ = a.filter((x, i) => x !== b[i]).map((x, i) => `${x} in the page, ${b[a.indexOf(x)]} from the terminal`);
  console.log(`in the page: ${inPage.verdict.passed} passed, ${inPage.verdict.failed} failed, ${inPage.verdict.skipped} skipped; from the terminal: ${terminal.verdict.passed} passed, ${terminal.verdict.failed} failed, ${terminal.verdict.skipped} skipped`);
  if (a.length === b.length && differ.length === 0) {
    console.log(`the same ${a.length} rows`);
    ok = true;
  } else {
    console.log(`rows differ: ${differ.join('; ') || `${a.length} rows against ${b.length}`}`);
  }
} finally {
  server.kill();
  await browser.close();
  await app.close();
}
process.exit(ok ? 0 : 1);
