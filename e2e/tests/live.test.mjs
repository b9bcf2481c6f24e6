// Try it on a real server: the page (one origin) calls real mrtr-server processes (other
// ports) with the lab's client engine over fetch. The honest round trip against a server that
// allows the page's origin; a sentence about CORS against one that does not.
// The servers are target/debug/mrtr-server (CARGO_TARGET_DIR honoured), built here if missing
// or stale: a no-op after `cargo test --workspace`, which `make test` runs before the e2e suite.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import net from 'node:net';
import { serve, launch, open, waitForApp, BASE } from '../lib/harness.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const targetDir = process.env.CARGO_TARGET_DIR ?? path.join(root, 'target');
const KEY = 'ab'.repeat(32);

let site, browser;
const servers = [];

async function freePort() {
  const s = net.createServer();
  await new Promise((ok) => s.listen(0, '127.0.0.1', ok));
  const { port } = s.address();
  await new Promise((ok) => s.close(ok));
  return port;
}

/** Starts mrtr-server on a free loopback port; resolves once it listens. */
async function mrtrServer(extra) {
  const port = await freePort();
  const child = spawn(path.join(targetDir, 'debug', 'mrtr-server'),
    ['--http', `127.0.0.1:${port}`, '--key-hex', KEY, ...extra], { stdio: ['ignore', 'ignore', 'pipe'] });
  servers.push(child);
  await new Promise((ok, fail) => {
    let err = '';
    child.stderr.on('data', (d) => { err += d; if (err.includes('listening on')) ok(); });
    child.on('exit', (code) => fail(new Error(`mrtr-server exited ${code}: ${err}`)));
    setTimeout(() => fail(new Error(`mrtr-server did not start: ${err}`)), 10000);
  });
  return `http://127.0.0.1:${port}/mcp`;
}

before(async () => {
  execFileSync('cargo', ['build', '-q', '-p', 'mrtr-native', '--bin', 'mrtr-server'], { cwd: root, stdio: 'inherit' });
  site = await serve();
  browser = await launch();
});
after(async () => {
  for (const s of servers) s.kill();
  await browser?.close();
  await site?.close();
});

/** The browser's own reports of a fetch it blocked or that failed (Chromium writes them to the
 *  console itself; the page logs nothing): for the named server only. */
function browserNetworkReports(problems, url) {
  return problems.filter((p) => !(p === `request outside ${BASE}: ${url}`
    || p.startsWith(`request failed: ${url} (net::`)
    || p === `HTTP 405: ${url}`
    || p.startsWith(`console error: Access to fetch at '${url}' from origin '${site.origin}' has been blocked by CORS policy`)
    || /^console error: Failed to load resource: (net::ERR_\w+|the server responded with a status of 405 \(Method Not Allowed\))$/.test(p)));
}

/** The harness's problems, less the requests to the one server the reader named (the only
 *  place outside the page's folder this section may send anything). */
function otherThan(problems, url) {
  return problems.filter((p) => p !== `request outside ${BASE}: ${url}`);
}

async function fill(page, url, token) {
  await page.getByTestId('live-url').fill(url);
  await page.getByTestId('live-token').fill(token);
}

test('live: the honest round trip against mrtr-server --cors-origin', async () => {
  const url = await mrtrServer(['--cors-origin', site.origin, '--name', 'replica-a']);
  const { page, context, problems } = await open(browser, site, { path: '#w=live' });
  await waitForApp(page);
  assert.equal(await page.getByTestId('live-origin').textContent(), site.origin);
  await fill(page, url, 'alice-token');
  await page.getByTestId('live-connect').click();
  // The server asks; the reader answers as the host's user.
  const q = page.getByTestId('live-question');
  await q.waitFor();
  assert.match(await q.textContent(), /Deploy release .* to staging\?/);
  assert.match(await page.getByTestId('live-ticket').textContent(), /in the lab's signed ticket \(v1\.\), and readable.*A real client must not read it/s);
  assert.match(await page.getByTestId('live-ticket-payload').textContent(), /"sub": "alice"/);
  await page.getByTestId('live-q-confirm-confirm').check();
  await page.getByTestId('live-answer').click();
  const result = page.getByTestId('live-result');
  await result.waitFor();
  assert.match(await result.textContent(), /^The call completed: /);
  const rounds = await page.getByTestId('live-round').allTextContents();
  assert.equal(rounds.length, 2);
  assert.match(rounds[0], /^The call → HTTP 200 from replica replica-a, input_required, in \d+ ms/);
  assert.match(rounds[1], /^Retry 1 with your answers and the ticket, byte for byte → HTTP 200 from replica replica-a, complete/);
  // Every byte in the wire log, folded until asked for; the retry carries the ticket as received.
  const wire = page.getByTestId('live-wire');
  assert.equal(await wire.evaluate((d) => d.open), false);
  const bytes = await wire.locator('pre').allTextContents();
  assert.equal(bytes.length, 4);
  const ticket = JSON.parse(bytes[1]).result.requestState;
  const retry = JSON.parse(bytes[2]);
  assert.equal(retry.params.requestState, ticket);
  assert.deepEqual(retry.params.inputResponses, { confirm: { action: 'accept', content: { confirm: true } } });
  // The token and the URL are not in the page's link.
  assert.ok(!page.url().includes('alice-token') && !page.url().includes(encodeURIComponent(url)) && !page.url().includes('127.0.0.1%3A'), page.url());
  assert.match(await page.getByTestId('live-status').textContent(), /Done in 2 round/);
  assert.deepEqual(otherThan(problems, url), []);
  await context.close();
});

test('live: a server without CORS gets the sentence about CORS, and nothing typed is lost', async () => {
  const url = await mrtrServer([]);
  const { page, context, problems } = await open(browser, site, { path: '#w=live' });
  await waitForApp(page);
  await fill(page, url, 'bob-token');
  await page.getByTestId('live-connect').click();
  const error = page.getByTestId('live-error');
  await error.waitFor();
  const text = await error.textContent();
  assert.match(text, new RegExp(`does not allow this page's origin \\(${site.origin}\\) with CORS`));
  assert.ok(text.includes(`--cors-origin ${site.origin}`), text);
  assert.ok(text.includes('CORSMiddleware') && text.includes('app.use(cors('), text);
  assert.ok(text.includes(`mrtr-audit ${url}`), text);
  assert.equal(await page.getByTestId('live-url').inputValue(), url);
  assert.equal(await page.getByTestId('live-token').inputValue(), 'bob-token');
  assert.ok(!page.url().includes('bob-token'));
  assert.deepEqual(browserNetworkReports(problems, url), []);
  await context.close();
});

test('live: nothing listening gets the sentence about a server that is not running', async () => {
  const url = `http://127.0.0.1:${await freePort()}/mcp`;
  const { page, context, problems } = await open(browser, site, { path: '#w=live' });
  await waitForApp(page);
  await fill(page, url, '');
  await page.getByTestId('live-connect').click();
  const error = page.getByTestId('live-error');
  await error.waitFor();
  assert.match(await error.textContent(), /^Nothing answered at .*is the server running/);
  assert.deepEqual(browserNetworkReports(problems, url), []);
  await context.close();
});

test('live: the misuse moves against mrtr-server, each on a fresh ticket, each the real answer', async () => {
  const url = await mrtrServer(['--cors-origin', site.origin]);
  const single = await mrtrServer(['--cors-origin', site.origin, '--single-use']);
  const { page, context, problems } = await open(browser, site, { path: '#w=live' });
  await waitForApp(page);
  const verdict = async (id) => {
    const li = page.locator(`[data-testid=live-moves] [data-move=${id}]`);
    await li.getByRole('button').click();
    const v = li.getByTestId('live-move-verdict');
    await v.filter({ hasNotText: 'Sending' }).waitFor();
    return v.textContent();
  };
  await fill(page, url, 'bob-token');
  await page.getByTestId('live-other-token').fill('alice-token');
  for (const id of ['one-character', 'edited-payload', 'other-caller', 'no-token', 'other-arguments']) {
    assert.match(await verdict(id), /✓ Refused with -32602/, id);
  }
  // A server with no memory of redemptions does the work twice; one with it refuses the repeat.
  assert.match(await verdict('twice'), /Harm done: the server did the work/);
  await page.getByTestId('live-url').fill(single);
  assert.match(await verdict('twice'), /✓ Refused with -32602/);
  // The "break it" steps: the commands name this page's origin; with the signature check off,
  // the edited ticket is done.
  await page.getByTestId('live-break').locator('summary').click();
  assert.match(await page.getByTestId('live-start').textContent(), new RegExp(`--cors-origin ${site.origin}$`));
  assert.match(await page.getByTestId('live-broken').textContent(), /--unsafe-skip-check signature$/);
  const broken = await mrtrServer(['--cors-origin', site.origin, '--unsafe-skip-check', 'signature']);
  await page.getByTestId('live-url').fill(broken);
  assert.match(await verdict('edited-payload'), /Harm done: the server did the work/);
  await page.getByTestId('live-url').fill(single);
  // A URL that cannot be sent: the moves say so, and nothing is sent.
  const before = problems.length;
  await page.getByTestId('live-url').fill('ftp://nowhere');
  await page.locator('[data-testid=live-moves] [data-move=twice]').getByRole('button').click();
  assert.match(await page.getByTestId('live-moves-error').textContent(), /must start with http:\/\/ or https:\/\//);
  assert.equal(problems.length, before);
  await page.getByTestId('live-url').fill(single);
  // Without a second caller's token the theft move is not made, and says why.
  await page.getByTestId('live-other-token').fill('');
  assert.match(await verdict('other-caller'), /Not made: give a second caller's token/);
  // The server's refusals come back as HTTP 400, which Chromium reports itself.
  const others = problems.filter((p) => ![url, single, broken].some((u) => p === `request outside ${BASE}: ${u}` || p === `HTTP 400: ${u}`)
    && !/^console error: Failed to load resource: the server responded with a status of 400/.test(p));
  assert.deepEqual(others, []);
  await context.close();
});
