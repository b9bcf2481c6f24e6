// Try it on a real server, against two real replicas behind nginx with single use in Redis
// (scripts/cluster.sh, what `make cluster CORS_ORIGIN=…` runs; own port and folder, so a
// running `make cluster` is left alone): the round trip is drawn across both replicas, read
// from each answer's Mrtr-Replica header, and the audit in the page passes every row there.
// Replicas: target/debug/mrtr-server (built by live.test.mjs's `cargo build`, or here).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, launch, open, waitForApp, BASE } from '../lib/harness.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const targetDir = process.env.CARGO_TARGET_DIR ?? path.join(root, 'target');
const PORT = 18480;
const env = {
  ...process.env,
  MRTR_CLUSTER_DIR: path.join(targetDir, 'cluster-e2e'),
  MRTR_CLUSTER_PORT: String(PORT),
  MRTR_CLUSTER_BIN: path.join(targetDir, 'debug'),
  MRTR_CLUSTER_QUIET: '1',
};
const url = `http://127.0.0.1:${PORT}/mcp`;
let site, browser;

const cluster = (what) => execFileSync(path.join(root, 'scripts/cluster.sh'), [what], { env, stdio: ['ignore', 'ignore', 'inherit'] });

before(async () => {
  execFileSync('cargo', ['build', '-q', '-p', 'mrtr-native', '--bin', 'mrtr-server'], { cwd: root, stdio: 'inherit' });
  site = await serve();
  env.MRTR_CLUSTER_CORS_ORIGIN = site.origin;
  cluster('stop');
  cluster('start');
  browser = await launch();
});
after(async () => {
  cluster('stop');
  await browser?.close();
  await site?.close();
});

/** The harness's problems, less Chromium's own lines about the cluster's refusals (4xx), which
 *  the audit asks for. */
function others(problems) {
  // (The 2 MiB body is refused by nginx with a 413 that carries no CORS headers: to the page,
  // a failed request.)
  return problems.filter((p) => !(p === `request outside ${BASE}: ${url}` || (/^HTTP 4\d\d: /.test(p) && p.endsWith(url))
    || p === `request failed: ${url} (net::ERR_FAILED)`
    || /^console error: Failed to load resource: (the server responded with a status of 4\d\d|net::ERR_\w+)/.test(p)
    || (p.startsWith('console error: Access to fetch at') && p.includes('has been blocked by CORS policy'))));
}

test('live, cluster: a round trip through nginx is drawn across both replicas', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=live' });
  await waitForApp(page);
  await page.getByTestId('live-url').fill(url);
  await page.getByTestId('live-token').fill('alice-token');
  // Round robin puts consecutive requests on alternate replicas, but the browser's CORS
  // preflights go through nginx too, so a retry can land where its call did: a few round
  // trips, until one crosses (each drawn from its answers' headers, nothing assumed).
  let crossed = null;
  for (let i = 0; i < 4 && !crossed; i++) {
    await page.getByTestId('live-connect').click();
    await page.getByTestId('live-question').waitFor();
    await page.getByTestId('live-q-confirm-confirm').check();
    await page.getByTestId('live-answer').click();
    await page.getByTestId('live-result').waitFor();
    const rounds = await page.getByTestId('live-round').allTextContents();
    assert.equal(rounds.length, 2);
    const served = rounds.map((r) => r.match(/from replica (replica-[ab])/)[1]);
    if (served[0] !== served[1]) crossed = rounds;
  }
  assert.ok(crossed, 'no round trip crossed replicas in 4 tries');
  assert.match(crossed[1], /^Retry 1 .* from replica replica-[ab] \(not replica-[ab]: another replica\), complete/);
  assert.deepEqual(others(problems), []);
  await context.close();
});

test('live, cluster: the audit in the page passes every row against both replicas and Redis', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=live' });
  await waitForApp(page);
  await page.getByTestId('live-url').fill(url);
  await page.getByTestId('live-token').fill('alice-token');
  await page.getByTestId('live-other-token').fill('bob-token');
  await page.getByTestId('live-audit-start').click();
  await page.getByTestId('live-audit-done').waitFor({ timeout: 120000 });
  const verdict = await page.locator('[data-testid=live-audit] [data-testid=audit-verdict]').textContent();
  const failed = await page.locator('[data-testid=live-audit] li.fail').evaluateAll((l) => l.map((li) => li.dataset.row));
  assert.deepEqual(failed, [], verdict);
  assert.deepEqual(others(problems), []);
  await context.close();
});
