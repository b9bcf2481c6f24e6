// Try it on a real server: the page (one origin) calls real mrtr-server processes (other
// ports) with the lab's client engine over fetch. The honest round trip against a server that
// allows the page's origin; a sentence about CORS against one that does not; the misuse moves;
// the audit in the page, compared row by row with mrtr-audit's from the terminal.
// The servers are target/debug/mrtr-server (CARGO_TARGET_DIR honoured), built here if missing
// or stale: a no-op after `cargo test --workspace`, which `make test` runs before the e2e suite.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import net from 'node:net';
import { serve, launch, open, waitForApp, waitForLater, BASE } from '../lib/harness.mjs';
import { axeViolations } from '../lib/axe.mjs';

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
  execFileSync('cargo', ['build', '-q', '-p', 'mrtr-native', '--bin', 'mrtr-server', '--bin', 'mrtr-audit'], { cwd: root, stdio: 'inherit' });
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

test('live: a token a header cannot carry is refused by the form, before any request, and kept', async () => {
  const url = `http://127.0.0.1:${await freePort()}/mcp`;
  const { page, context, problems } = await open(browser, site, { path: '#w=live' });
  await waitForApp(page);
  await fill(page, url, 'bob tokén');
  await page.getByTestId('live-connect').click();
  const error = page.getByTestId('live-error');
  await error.waitFor();
  assert.match(await error.textContent(), /^The token holds ' ', which an Authorization header cannot carry/);
  assert.equal(await page.getByTestId('live-token').inputValue(), 'bob tokén');
  assert.deepEqual(problems, []);
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
    assert.match(await verdict(id), /✗ Refused with -32602/, id);
  }
  // A server with no memory of redemptions does the work twice; one with it refuses the repeat.
  assert.match(await verdict('twice'), /⚠ Harm done: the server did the work/);
  await page.getByTestId('live-url').fill(single);
  assert.match(await verdict('twice'), /✗ Refused with -32602/);
  // The "break it" steps: the commands name this page's origin; with the signature check off,
  // the edited ticket is done.
  await page.getByTestId('live-break').locator('summary').click();
  assert.match(await page.getByTestId('live-start').textContent(), new RegExp(`--cors-origin ${site.origin}$`));
  assert.match(await page.getByTestId('live-broken').textContent(), /--unsafe-skip-check signature$/);
  const broken = await mrtrServer(['--cors-origin', site.origin, '--unsafe-skip-check', 'signature']);
  await page.getByTestId('live-url').fill(broken);
  assert.match(await verdict('edited-payload'), /⚠ Harm done: the server did the work/);
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

/** The audit of `url` from the terminal (target/debug/mrtr-audit --json), as id → status. */
function terminalAudit(url, args) {
  let out;
  try {
    out = execFileSync(path.join(targetDir, 'debug', 'mrtr-audit'), [url, ...args, '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    out = e.stdout; // exit code 1: a failing report, still printed
  }
  const report = JSON.parse(out);
  return Object.fromEntries(report.rows.map((r) => [r.id, r.status]));
}

/** Runs the audit in the page and waits for its end; returns the card's rows as id → status
 *  and the downloaded report. */
async function pageAudit(page, whileRunning = async () => {}) {
  await page.getByTestId('live-audit-start').click();
  await whileRunning();
  const done = page.getByTestId('live-audit-done');
  await done.waitFor({ timeout: 120000 });
  const rows = await page.locator('[data-testid=live-audit] [data-testid=audit-report] li[data-row]').evaluateAll(
    (lis) => lis.map((li) => [li.dataset.row, [...li.classList].find((c) => ['pass', 'fail', 'skipped'].includes(c))]));
  const href = await page.getByTestId('live-audit-download').getAttribute('href');
  const report = JSON.parse(decodeURIComponent(href.slice(href.indexOf(',') + 1)));
  return { card: Object.fromEntries(rows), report };
}

/** What the browser reports of the audit's requests to `urls`: refusals (4xx), a body over
 *  the limit, and the browser's own network lines; anything else is a problem. */
function auditNoise(problems, urls) {
  return problems.filter((p) => !(urls.some((u) => p === `request outside ${BASE}: ${u}`
      || /^HTTP 4\d\d: /.test(p) && p.endsWith(u)
      || p.startsWith(`request failed: ${u} (net::`))
    || /^console error: Failed to load resource: (the server responded with a status of 4\d\d|net::ERR_\w+)/.test(p)
    || (p.startsWith('console error: Access to fetch at') && p.includes('has been blocked by CORS policy'))));
}

test('live: the audit in the page against mrtr-server passes every row the terminal passes, and its download is the report', async () => {
  const url = await mrtrServer(['--cors-origin', site.origin, '--single-use', '--ttl', '2']);
  const { page, context, problems } = await open(browser, site, { path: '#w=live' });
  await waitForApp(page);
  await fill(page, url, 'alice-token');
  await page.getByTestId('live-other-token').fill('bob-token');
  await page.getByTestId('live-audit-ttl').fill('3');
  assert.match(await page.getByTestId('live-audit-command').textContent(),
    new RegExp(`^mrtr-audit ${url} --tool 'deploy' --args '\\{"env":"staging"\\}' --token … --other-token … --expect-single-use --ttl-wait 3$`));
  // Progress while it runs (rows done of rows planned, requests sent): the waits for expiry
  // keep it on screen.
  const { card, report } = await pageAudit(page, async () => {
    await page.getByTestId('live-audit-status').filter({ hasText: /Row \d+ of \d+: .* · \d+ requests sent/ }).waitFor();
    const planned = (await page.getByTestId('live-audit-status').textContent()).match(/ of (\d+):/)[1];
    assert.equal(await page.locator('[data-testid=live-audit-status] progress').getAttribute('max'), planned);
  });
  assert.equal(report.schema, 'mrtr-audit/1');
  assert.equal(report.target, url);
  assert.equal(report.verdict.ok, true, JSON.stringify(report.rows.filter((r) => r.status !== 'pass')));
  const fromFile = Object.fromEntries(report.rows.map((r) => [r.id, r.status]));
  assert.deepEqual(card, fromFile, 'the card shows the downloaded report');
  const terminal = terminalAudit(url, ['--token', 'alice-token', '--other-token', 'bob-token', '--tool', 'deploy',
    '--args', '{"env":"staging"}', '--expect-single-use', '--ttl-wait', '3']);
  assert.deepEqual(fromFile, terminal);
  // Every row passes but memory-loss, which needs the server restarted: neither the page nor a
  // terminal without --restart can, and both say so.
  assert.deepEqual(Object.keys(fromFile).filter((id) => fromFile[id] !== 'pass'), ['memory-loss'], JSON.stringify(fromFile));
  assert.equal(fromFile['memory-loss'], 'skipped');
  assert.ok(!page.url().includes('alice-token') && !page.url().includes('bob-token'));
  assert.deepEqual(auditNoise(problems, [url]), []);
  await context.close();
});

test('live: against --unsafe-skip-check signature, the page fails exactly the rows the terminal fails', async () => {
  const url = await mrtrServer(['--cors-origin', site.origin, '--single-use', '--unsafe-skip-check', 'signature']);
  const { page, context, problems } = await open(browser, site, { path: '#w=live' });
  await waitForApp(page);
  await fill(page, url, 'alice-token');
  await page.getByTestId('live-other-token').fill('bob-token');
  const { card, report } = await pageAudit(page);
  const terminal = terminalAudit(url, ['--token', 'alice-token', '--other-token', 'bob-token', '--tool', 'deploy',
    '--args', '{"env":"staging"}', '--expect-single-use']);
  assert.deepEqual(card, terminal);
  const failed = Object.keys(card).filter((id) => card[id] === 'fail').sort();
  // Exactly the rows the signature check guards (each row names its guard in the report), and
  // unused-bits: a server that never reads the signature takes any spelling of it.
  assert.deepEqual(failed, report.rows.filter((r) => r.guard === 'signature' || r.id === 'unused-bits').map((r) => r.id).sort());
  assert.ok(failed.includes('field-edit'), failed.join(' '));
  assert.equal(report.verdict.ok, false);
  // The verdict says so, and each failing row links to the widget that teaches it.
  assert.match(await page.locator('[data-testid=live-audit] [data-testid=audit-verdict]').textContent(), /^Fails/);
  assert.ok(await page.locator('[data-testid=live-audit] li.fail[data-row=field-edit] a.see').count() === 1);
  // The section with its report card, in both themes, passes axe.
  for (const theme of ['light', 'dark']) {
    await page.evaluate((t) => document.documentElement.setAttribute('data-theme', t), theme);
    assert.deepEqual(await axeViolations(page, '#live'), [], theme);
  }
  assert.deepEqual(auditNoise(problems, [url]), []);
  await context.close();
});

test('live: the audit can be cancelled, and then sends nothing more', async () => {
  const url = await mrtrServer(['--cors-origin', site.origin]);
  const { page, context, problems } = await open(browser, site, { path: '#w=live' });
  await waitForApp(page);
  await fill(page, url, 'alice-token');
  // A wait for expiry keeps it running long enough to cancel on any machine.
  await page.getByTestId('live-audit-ttl').fill('30');
  let sent = 0;
  page.on('request', (r) => { if (r.url() === url) sent += 1; });
  await page.getByTestId('live-audit-start').click();
  await page.getByTestId('live-audit-status').filter({ hasText: /Row \d+ of/ }).waitFor();
  await page.getByTestId('live-audit-cancel').click();
  assert.match(await page.getByTestId('live-audit-cancelled').textContent(), /^Cancelled after \d+ of \d+ rows and \d+ requests: nothing more is sent\.$/);
  const at = sent;
  await page.waitForTimeout(1500);
  assert.ok(sent <= at + 1, `${sent - at} requests after cancel`); // at most the one in flight
  assert.equal(await page.getByTestId('live-audit-start').isEnabled(), true);
  assert.deepEqual(auditNoise(problems, [url]), []);
  await context.close();
});

test('live: an audit of a server without CORS says so, and what to do', async () => {
  const url = await mrtrServer([]);
  const { page, context, problems } = await open(browser, site, { path: '#w=live' });
  await waitForApp(page);
  await fill(page, url, 'alice-token');
  await page.getByTestId('live-audit-start').click();
  const error = page.locator('[data-testid=live-audit] [data-testid=live-audit-error]');
  await error.waitFor();
  const text = await error.textContent();
  assert.ok(text.includes(`--cors-origin ${site.origin}`) && text.includes(`mrtr-audit ${url}`), text);
  assert.deepEqual(browserNetworkReports(problems, url), []);
  await context.close();
});

/** A server that allows the page's origin (CORS) and answers each path as it is told: the
 *  failures a reader's own server can have, one per path. `slow` never answers; `stalls-body`
 *  sends its headers and then stops in the middle of its body. */
async function oddServer(origin) {
  const http = await import('node:http');
  const cors = { 'Access-Control-Allow-Origin': origin, 'Access-Control-Allow-Headers': '*', 'Access-Control-Allow-Methods': 'POST', 'Access-Control-Allow-Private-Network': 'true' };
  const rpc = (id, result) => JSON.stringify({ jsonrpc: '2.0', id, result });
  const server = http.createServer((req, res) => {
    if (req.method === 'OPTIONS') { res.writeHead(204, cors); res.end(); return; }
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      const id = JSON.parse(body || '{}').id ?? null;
      const send = (status, type, text) => { res.writeHead(status, { ...cors, 'Content-Type': type }); res.end(text); };
      switch (req.url) {
        case '/html': return send(200, 'text/html', '<!doctype html><title>A blog</title><p>Hello');
        case '/legacy': return send(400, 'application/json', JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: No valid session ID provided' } }));
        case '/never-asks': return send(200, 'application/json', rpc(id, { content: [{ type: 'text', text: 'done at once' }] }));
        case '/big-ticket': return send(200, 'application/json', rpc(id, { resultType: 'input_required', requestState: 'v1.' + 'A'.repeat(1 << 20),
          inputRequests: { confirm: { method: 'elicitation/create', params: { mode: 'form', message: 'Go?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } } } } }));
        case '/slow': return; // never answers
        // Its headers at once, then half a body and nothing more.
        case '/stalls-body': res.writeHead(200, { ...cors, 'Content-Type': 'application/json' }); res.write('{"jsonrpc": "2.0", '); return;
        default: return send(404, 'text/plain', 'no such path');
      }
    });
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  servers.push({ kill: () => { server.closeAllConnections(); server.close(); } });
  return `http://127.0.0.1:${server.address().port}`;
}

test('live: each way a server can fail gets its own sentence, and the form is kept', async () => {
  const base = await oddServer(site.origin);
  const { page, context, problems } = await open(browser, site, { path: '#w=live' });
  await waitForApp(page);
  const said = async (p) => {
    await fill(page, base + p, 'carol-token');
    await page.getByTestId('live-connect').click();
    const line = page.getByTestId('live-error').or(page.getByTestId('live-result'));
    await line.waitFor({ timeout: 20000 });
    const text = await line.textContent();
    assert.equal(await page.getByTestId('live-url').inputValue(), base + p, 'the URL typed is kept');
    assert.equal(await page.getByTestId('live-token').inputValue(), 'carol-token', 'the token typed is kept');
    return text;
  };
  assert.match(await said('/html'), /HTTP 200, but the body is not JSON .*is .*\/html the MCP endpoint/);
  assert.match(await said('/legacy'), /speaks only MCP 2025-11-25 .*Upgrade its SDK/);
  assert.match(await said('/never-asks'), /answered at once, without asking for input: this tool never sends input_required.*It said: done at once/);
  assert.match(await said('/big-ticket'), /ticket is 1048579 bytes, over the 1 MiB a retry's body can carry/);
  assert.match(await said('/slow'), /No answer within 10 s, so the request was abandoned/);
  assert.match(await said('/stalls-body'), /No answer within 10 s, so the request was abandoned/);
  assert.ok(!page.url().includes('carol-token'));
  // Chromium reports the refused legacy call (400) and the abandoned one itself.
  const left = problems.filter((p) => !p.startsWith(`request outside ${BASE}: ${base}`) && !p.startsWith(`HTTP 400: ${base}`)
    && !p.startsWith(`request failed: ${base}/slow (net::ERR_ABORTED)`)
    && !p.startsWith(`request failed: ${base}/stalls-body (net::ERR_ABORTED)`)
    && !/^console error: Failed to load resource: the server responded with a status of 400/.test(p));
  assert.deepEqual(left, []);
  await context.close();
});

test('live: the section is folded on the page, and opened by a link to it and in its embed', async () => {
  const { page, context, problems } = await open(browser, site);
  await waitForApp(page);
  assert.equal(await page.getByTestId('live-fold').getAttribute('open'), null);
  assert.equal(await page.getByTestId('audit-fold').getAttribute('open'), null);
  // "Audit your server" points to the in-page audit: the link opens the fold it lands in.
  await page.locator('[data-testid=audit-fold] > summary').click();
  await page.locator('[data-testid=audit] a[href="#w=live"]').click();
  await page.getByTestId('live-url').waitFor({ state: 'visible' });
  assert.notEqual(await page.getByTestId('live-fold').getAttribute('open'), null);
  const embed = await open(browser, site, { path: '?embed=live' });
  await waitForLater(embed.page);
  await embed.page.getByTestId('live-audit-start').waitFor({ state: 'visible' });
  assert.deepEqual([...problems, ...embed.problems], []);
  await embed.context.close();
  await context.close();
});
