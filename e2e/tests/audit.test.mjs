// Audit your server: a report card from a report the reader opens or pastes, or from a weak
// server audited on the spot; failing rows lead to the widget that shows the misuse.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, waitForApp, urlSoon } from '../lib/harness.mjs';

let site, browser;
before(async () => { site = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

const failed = (page) => page.locator('.audit-row.fail').evaluateAll((els) => els.map((e) => e.dataset.row));

test('audit: the sample is a weak server audited here, and a failing row links to its misuse', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=audit' });
  await waitForApp(page);
  await page.getByTestId('audit-sample').click();
  // Rows are called by their level: the naive preset fails SHOULD rows only, which fails the audit.
  assert.match(await page.getByTestId('audit-verdict').textContent(), /^Fails: 4 SHOULD rows failed; no MUST row did\. \d+ passed, 4 failed/);
  assert.match(await page.getByTestId('audit-levels').textContent(), /fails a server when a MUST or SHOULD row fails/);
  assert.deepEqual(await failed(page), ['other-token', 'no-token', 'expired', 'renewal']);
  assert.match(await urlSoon(page, /w=audit.*sample=1/), /w=audit.*sample=1/);
  await page.locator('.audit-row[data-row=other-token] a.see').click();
  await page.getByTestId('bench').waitFor();
  assert.match(page.url(), /w=bench&.*move=alice/);
  // The evidence shows at once: a link from a report does not ask for a prediction.
  assert.match(await page.getByTestId('misuse-answer').textContent(), /Principal is this caller/);
  assert.ok(await page.getByTestId('move-alice').isChecked());
  assert.deepEqual(problems, []);
  await context.close();
});

test('audit: a pasted or opened report is read here; a bad one gets a sentence', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=audit' });
  await waitForApp(page);
  await page.locator('.audit .paste summary').click();
  await page.getByTestId('audit-paste').fill('{"not": "a report"}');
  assert.match(await page.getByTestId('audit-error').textContent(), /not an mrtr-audit report/);
  const report = {
    schema: 'mrtr-audit/1', target: 'http://example.test/mcp', tool: 'deploy', requests: 3,
    rows: [
      { id: 'honest', status: 'pass', evidence: 'sent the honest retry; got a complete result' },
      { id: 'substitution', status: 'fail', evidence: '<img src=x onerror=alert(1)>', shows: 'javascript:alert(1)' },
    ],
  };
  await page.getByTestId('audit-file').setInputFiles({ name: 'report.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(report)) });
  await page.getByTestId('audit-report').waitFor();
  assert.deepEqual(await failed(page), ['substitution']);
  // The evidence is text, and the link is the lab's own.
  assert.equal(await page.locator('.audit-row img').count(), 0);
  assert.equal(await page.locator('.audit-row[data-row=substitution] a.see').getAttribute('href'), '#w=bench&move=onechar&predict=0');
  assert.deepEqual(problems, []);
  await context.close();
});

test('audit: a sample that cannot be fetched and a file over the limit are each said as what they are', async () => {
  // The service worker would answer the sample's fetch before a route could: blocked here.
  const { page, context, problems } = await open(browser, site, { path: '#w=audit', serviceWorkers: 'block' });
  await waitForApp(page);
  // The sample is gone from beside the page: the card says so, not that some JSON has no schema.
  await page.route('**/audit-sample.json', (route) => route.fulfill({ status: 404, body: 'gone' }));
  await page.getByTestId('audit-sample').click();
  const fetched = await page.getByTestId('audit-error').textContent();
  assert.match(fetched, /^The sample report could not be fetched \(HTTP 404\)\. Press “Show the report of a weak server” again, or open a report of your own\.$/);
  assert.doesNotMatch(fetched, /schema|JSON/);
  assert.equal(await page.getByTestId('audit-report').count(), 0);
  // Asked for again once the file is back, the sample is fetched again and read: nothing is stuck.
  await page.unroute('**/audit-sample.json');
  await page.getByTestId('audit-sample').click();
  await page.getByTestId('audit-report').waitFor();
  assert.deepEqual(await failed(page), ['other-token', 'no-token', 'expired', 'renewal']);
  // A file one byte over 4 MB is not read at all, and the sentence gives its size and the limit.
  const big = Buffer.alloc((4 << 20) + 1, 0x20);
  await page.getByTestId('audit-file').setInputFiles({ name: 'huge.json', mimeType: 'application/json', buffer: big });
  await page.waitForFunction(() => /bytes/.test(document.querySelector('[data-testid=audit-error]')?.textContent ?? ''));
  assert.equal(await page.getByTestId('audit-error').textContent(), `This report is ${(4 << 20) + 1} bytes; the page reads reports up to 4 MB.`);
  // The only trouble is the one 404 this test made: its response, and the browser's line about it.
  const made = (p) => p === `HTTP 404: ${site.url}audit-sample.json`
    || p === 'console error: Failed to load resource: the server responded with a status of 404 (Not Found)';
  assert.ok(problems.some(made), problems.join('\n'));
  assert.deepEqual(problems.filter((p) => !made(p)), []);
  await context.close();
});

test('audit: at 375 px the commands wrap between arguments, never inside one', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=audit', viewport: { width: 375, height: 800 } });
  await waitForApp(page);
  const split = await page.getByTestId('audit-commands').locator('.arg').evaluateAll((els) => els.filter((e) => e.getClientRects().length > 1).map((e) => e.textContent));
  assert.deepEqual(split, []);
  assert.ok(await page.getByTestId('audit-commands').locator('.arg').count() >= 14);
  assert.deepEqual(problems, []);
  await context.close();
});
