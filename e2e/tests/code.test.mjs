// Read the code: the listings are the interop files byte for byte, the marked lines follow the
// round trip's step, tabs work by keyboard, and the SDK table is the audit's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { serve, launch, open, waitForApp, urlSoon } from '../lib/harness.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
let site, browser;
before(async () => { site = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

const marked = (page) => page.locator('#code .cl[data-marked]').allTextContents();

test('code: the SDK listings are the files make interop runs, byte for byte', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=code' });
  await waitForApp(page);
  for (const [lang, file] of [['ts', 'interop/ts_server.mjs'], ['ts', 'interop/ts_server_hardened.mjs'], ['py', 'interop/py_server.py']]) {
    await page.locator(`#code [data-lang=${lang}]`).click();
    // A folded listing is drawn when it is first opened.
    const fold = page.locator('#code details.more-code', { has: page.locator(`code:text-is("${file}")`) });
    if (await fold.count()) {
      assert.equal(await page.locator(`#code pre[data-path="${file}"]`).count(), 0);
      await fold.locator('summary').click();
    }
    const shown = await page.locator(`#code pre[data-path="${file}"]`).textContent();
    assert.equal(shown, fs.readFileSync(ROOT + file, 'utf8'), `${file} as shown`);
  }
  // The Rust tab: the real functions, at their real line numbers.
  await page.locator('#code [data-lang=rust]').click();
  const fixtures = fs.readFileSync(ROOT + 'crates/mrtr-core/src/fixtures.rs', 'utf8').split('\n');
  const pre = page.locator('#code pre[data-path="crates/mrtr-core/src/fixtures.rs"]');
  const first = Number(await pre.locator('.cl').first().getAttribute('data-n'));
  const lines = (await pre.textContent()).split('\n').slice(0, -1);
  assert.deepEqual(lines, fixtures.slice(first - 1, first - 1 + lines.length));
  assert.match(lines.join('\n'), /pub fn deploy\(/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('code: the marked lines follow the round trip, step by step', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=roundtrip&step=0' });
  await waitForApp(page);
  // The round trip's own step buttons drive the code widget.
  await page.getByTestId('forward').click();
  await page.waitForFunction(() => location.hash.includes('step=1'));
  assert.ok((await marked(page)).some((l) => l.includes('codec.mint({ env })')), 'step 2 marks the mint');
  // Between the calls nothing on a server runs.
  await page.locator('#code [data-step="2"]').click();
  assert.deepEqual(await marked(page), []);
  assert.match(await page.getByTestId('code-now').textContent(), /No server code runs/);
  assert.match(await urlSoon(page, /w=code.*step=2|step=2.*w=code/), /w=code.*step=2|step=2.*w=code/);
  // The retry: the SDK's check comes first, then the handler finishes.
  await page.locator('#code [data-step="5"]').click();
  const notes = await page.locator('[data-testid=code-notes] li').allTextContents();
  assert.match(notes[0], /verify/);
  assert.ok((await marked(page)).some((l) => l.includes('deployed to')));
  // The tampered ending: the check refuses and the handler never runs.
  const t = await open(browser, site, { path: '#w=code&end=tampered&step=5&lang=py' });
  await waitForApp(t.page);
  const tNotes = await t.page.locator('[data-testid=code-notes] li').allTextContents();
  assert.equal(tNotes.length, 1);
  assert.match(tNotes[0], /never runs/);
  assert.deepEqual([...problems, ...t.problems], []);
  await t.context.close();
  await context.close();
});

test('code: tabs by keyboard, the link keeps the language, the live note speaks', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=code&lang=py&step=1' });
  await waitForApp(page);
  const py = page.locator('#code [role=tab][data-lang=py]');
  assert.equal(await py.getAttribute('aria-selected'), 'true');
  await py.focus();
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => location.hash.includes('lang=rust'));
  assert.equal(await page.evaluate(() => document.activeElement.dataset.lang), 'rust');
  await page.keyboard.press('Home');
  await page.waitForFunction(() => !location.hash.includes('lang='));
  assert.equal(await page.locator('#code [role=tabpanel]').getAttribute('aria-labelledby'), 'code-tab-ts');
  assert.equal(await page.getByTestId('code-now').getAttribute('aria-live'), 'polite');
  assert.deepEqual(problems, []);
  await context.close();
});

test('code: what each SDK leaves to you is the audit of its example server', async () => {
  const expected = JSON.parse(fs.readFileSync(ROOT + 'interop/audit-expected.json', 'utf8'));
  const { page, context, problems } = await open(browser, site, { path: '#w=code', viewport: { width: 375, height: 800 } });
  await waitForApp(page);
  for (const [lang, server] of [['ts', 'ts-sdk-example'], ['py', 'python-sdk-example']]) {
    await page.locator(`#code [data-lang=${lang}]`).click();
    const row = page.getByTestId('sdk-table').locator('tr', { has: page.locator('th', { hasText: /^Principal$/ }) });
    assert.match(await row.textContent(), /left to you/);
    assert.match(await row.textContent(), new RegExp(`other-token: ${expected[server]['other-token']}`));
    // The expired ticket is refused, but a wrong-kind answer renews it: the renewal row.
    const expiry = page.getByTestId('sdk-table').locator('tr', { has: page.locator('th', { hasText: /^Expiry$/ }) });
    assert.match(await expiry.textContent(), /left to you/);
    assert.match(await expiry.textContent(), new RegExp(`expired: ${expected[server].expired}`));
    assert.match(await expiry.textContent(), new RegExp(`renewal: ${expected[server].renewal}`));
  }
  // Folded to its count, which is the audit's.
  await page.locator('#code [data-lang=ts]').click();
  assert.match(await page.getByTestId('sdk-fold').locator('summary').textContent(), /finds 4 of the 5 protections it tested left to you/);
  // A changed last character that decodes to the same bytes is a second spelling, not a broken signature.
  const sig = page.getByTestId('sdk-table').locator('tr', { has: page.locator('th', { hasText: /^Signature$/ }) });
  assert.match(await sig.locator('td[data-server=ts-sdk-example]').textContent(), /^the SDK does it/);
  const spelling = page.getByTestId('sdk-table').locator('tr', { has: page.locator('th', { hasText: /^One spelling per ticket$/ }) });
  assert.match(await spelling.locator('td[data-server=ts-sdk-example]').textContent(), /substitution: fail/);
  // The TS example hardened with bind: the principal and request gaps close, as audited.
  await page.locator('#code [data-lang=ts]').click();
  for (const name of ['Principal', 'Request']) {
    const row = page.getByTestId('sdk-table').locator('tr', { has: page.locator('th', { hasText: new RegExp(`^${name}$`) }) });
    assert.match(await row.locator('td[data-server=ts-sdk-example]').textContent(), /left to you/);
    assert.match(await row.locator('td[data-server=ts-sdk-example-hardened]').textContent(), /^holds/);
  }
  assert.equal(expected['ts-sdk-example-hardened']['other-arguments'], 'pass');
  // No sideways scroll of the page at 375 px (the listing scrolls inside itself).
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 375));
  assert.deepEqual(problems, []);
  await context.close();
});
