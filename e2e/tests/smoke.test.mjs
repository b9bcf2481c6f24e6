// The release build, served under a sub-path, renders real content computed by the core,
// with no error of any kind.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, waitForApp } from '../lib/harness.mjs';

let site, browser;
before(async () => { site = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

for (const colorScheme of ['light', 'dark']) {
  test(`renders the title and the core's verdicts (${colorScheme})`, async () => {
    const { page, context, problems } = await open(browser, site, { colorScheme, path: '#w=roundtrip&step=5' });
    await waitForApp(page);
    assert.equal(await page.getByTestId('title').textContent(), 'MRTR Lab');
    assert.equal(await page.getByTestId('roundtrip').getByTestId('verdict').textContent(), 'Replica B: Accepted');
    assert.match(await page.getByTestId('transcript').textContent(), /deployed to staging/);
    // Folded, the ticket reads as what it says; whole, it is the bytes the client sends back.
    assert.match(await page.getByTestId('transcript').textContent(), /"requestState": ticket: sub bob · env staging · exp t\+120 s/);
    assert.match(await page.getByTestId('transcript').textContent(), /"_meta": \{ … 3 fields \}/);
    await page.getByTestId('whole-messages').click();
    assert.match(await page.getByTestId('transcript').textContent(), /"requestState": "v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}"/);
    assert.equal(await page.locator('#fatal-error').count(), 0);
    assert.deepEqual(problems, []);
    await context.close();
  });
}

test('every request stays under the sub-path', async () => {
  const { page, context, problems } = await open(browser, site);
  await waitForApp(page);
  await page.waitForLoadState('networkidle');
  assert.ok(site.requests.length >= 3, `requests: ${site.requests}`);
  for (const p of site.requests) assert.ok(p.startsWith('/course/mrtr/'), p);
  assert.deepEqual(problems, []);
  await context.close();
});

test('nothing scrolls sideways at 375 px', async () => {
  const { page, context, problems } = await open(browser, site, { viewport: { width: 375, height: 800 }, path: '#w=roundtrip&step=5' });
  await waitForApp(page);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.equal(overflow, 0);
  assert.deepEqual(problems, []);
  await context.close();
});
