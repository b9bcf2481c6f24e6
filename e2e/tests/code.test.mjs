// Read the code: the listings are the interop files byte for byte, the marked lines follow the
// round trip's step, tabs work by keyboard, and the SDK table is the audit's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { serve, launch, open, waitForApp, waitForLater, urlSoon } from '../lib/harness.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
let site, browser;
before(async () => { site = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

const marked = (page) => page.locator('#code .cl[data-marked]').allTextContents();
const RMCP = 'interop/rmcp/src/bin/rmcp-deploy-server.rs';

/** Every listing of `file` shown (folded ones opened first): each pre's lines, from its first line's number. */
async function shownPieces(page, file) {
  const folds = page.locator('#code details.more-code', { has: page.locator(`code:text-is("${file}")`) });
  for (let i = 0; i < await folds.count(); i++) {
    if (!(await folds.nth(i).getAttribute('open') !== null)) await folds.nth(i).locator('summary').click();
    // A folded listing is drawn once opened, a moment after the click.
    await folds.nth(i).locator(`pre[data-path="${file}"]`).waitFor();
  }
  return page.locator(`#code pre[data-path="${file}"]`).evaluateAll((pres) => pres.map((pre) => ({
    first: Number(pre.querySelector('.cl').dataset.n),
    lines: pre.textContent.split('\n').slice(0, -1),
  })));
}

/** The marked lines, as [line number in the file, text]. */
const markedLines = (page) => page.locator('#code .cl[data-marked]').evaluateAll((ls) => ls.map((l) => [Number(l.dataset.n), l.textContent.replace(/\n$/, '')]));

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
  // The Rust SDK's tab: the rmcp peer's own items, at their real line numbers.
  await page.locator('#code [data-lang=rmcp]').click();
  const rmcp = fs.readFileSync(ROOT + RMCP, 'utf8').split('\n');
  const pieces = await shownPieces(page, RMCP);
  assert.equal(pieces.length, 3);
  for (const { first: n, lines: l } of pieces) assert.deepEqual(l, rmcp.slice(n - 1, n - 1 + l.length));
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
  await page.waitForFunction(() => location.hash.includes('lang=rmcp'));
  assert.equal(await page.evaluate(() => document.activeElement.dataset.lang), 'rmcp');
  await page.keyboard.press('End');
  await page.waitForFunction(() => location.hash.includes('lang=rust'));
  assert.equal(await page.evaluate(() => document.activeElement.dataset.lang), 'rust');
  await page.keyboard.press('Home');
  await page.waitForFunction(() => !location.hash.includes('lang='));
  assert.equal(await page.locator('#code [role=tabpanel]').getAttribute('aria-labelledby'), 'code-tab-ts');
  assert.equal(await page.getByTestId('code-now').getAttribute('aria-live'), 'polite');
  assert.deepEqual(problems, []);
  await context.close();
});

test('code: ?embed=code shows the Rust SDK tab from the interop file, its lines marked step by step', async () => {
  const file = fs.readFileSync(ROOT + RMCP, 'utf8').split('\n');
  const at = async (step, end = 'honest') => {
    const t = await open(browser, site, { path: `?embed=code#w=code&lang=rmcp&step=${step}&end=${end}` });
    await t.page.locator('#code').waitFor();
    await waitForLater(t.page);
    assert.equal(await t.page.locator('section.widget:visible').count(), 1, 'the code widget alone');
    assert.equal(await t.page.locator('#code [role=tab][data-lang=rmcp]').getAttribute('aria-selected'), 'true');
    assert.match(await t.page.locator('#code [role=tab][data-lang=rmcp]').getAttribute('title'), /rmcp\) 3\.11\.0/);
    // What is shown is the file on disk, at its own line numbers.
    for (const { first: n, lines } of await shownPieces(t.page, RMCP)) assert.deepEqual(lines, file.slice(n - 1, n - 1 + lines.length));
    const m = await markedLines(t.page);
    for (const [n, text] of m) assert.equal(text, file[n - 1], `line ${n}`);
    const notes = await t.page.locator('[data-testid=code-notes] li').allTextContents();
    const now = await t.page.getByTestId('code-now').textContent();
    assert.deepEqual(t.problems, []);
    await t.context.close();
    return { text: m.map(([, x]) => x).join('\n'), notes, now };
  };
  const first = await at(0);
  assert.match(first.text, /async fn deploy\(/);
  assert.match(first.text, /RequestState\(ticket\): RequestState/);
  // The ask: the handler calls the codec, at each --bind level.
  const asked = await at(1);
  assert.match(asked.now, /rmcp does not make the ticket: the handler calls rmcp's codec/);
  assert.match(asked.text, /self\.codec\.seal_json\(&state\)/);
  assert.match(asked.text, /\.associated_data\(&ad\)\.ttl\(self\.ttl\)/);
  assert.match(asked.text, /Duration::from_millis\(left\)/);
  assert.equal((await at(2)).text, '');
  // The retry: rmcp hands the ticket over unopened, the handler has it opened, then deploys.
  const retry = await at(5);
  assert.match(retry.notes[0], /rmcp passed it to the tool as it came/);
  assert.match(retry.notes[1], /rmcp never opens one by itself/);
  assert.match(retry.text, /let opened = s\.open\(&call, &ticket\)\?;/);
  assert.match(retry.text, /open_json::<Value>\(ticket\)/);
  assert.match(retry.text, /Ok\(text\(format!\("\{done\} \{env\}"\)\)\)/);
  // The notes quote the audit's verdicts on each level, as the table does.
  assert.match(retry.notes[2], /--bind none.*left to you: Principal, Expiry, Request/);
  assert.match(retry.notes[3], /--bind docs.*still left to you: Expiry \(in part\), Request \(in part\)/);
  // The edited ticket: refused at the open, nothing deployed.
  const refused = await at(5, 'tampered');
  assert.equal(refused.notes.length, 2);
  assert.doesNotMatch(refused.text, /\{done\} \{env\}/);
  assert.match(refused.now, /nothing is deployed/);
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
  // A changed last character that decodes to the same bytes is a second spelling (its own row), not a broken signature.
  const sig = page.getByTestId('sdk-table').locator('tr', { has: page.locator('th', { hasText: /^Signature$/ }) });
  assert.match(await sig.locator('td[data-server=ts-sdk-example]').textContent(), /^the SDK does it/);
  const spelling = page.getByTestId('sdk-table').locator('tr', { has: page.locator('th', { hasText: /^One spelling per ticket$/ }) });
  assert.match(await spelling.locator('td[data-server=ts-sdk-example]').textContent(), /unused-bits: fail/);
  // The TS example hardened with bind: the principal and request gaps close, as audited.
  await page.locator('#code [data-lang=ts]').click();
  for (const name of ['Principal', 'Request']) {
    const row = page.getByTestId('sdk-table').locator('tr', { has: page.locator('th', { hasText: new RegExp(`^${name}$`) }) });
    assert.match(await row.locator('td[data-server=ts-sdk-example]').textContent(), /left to you/);
    assert.match(await row.locator('td[data-server=ts-sdk-example-hardened]').textContent(), /^holds/);
  }
  assert.equal(expected['ts-sdk-example-hardened']['other-arguments'], 'pass');
  // rmcp: one server at three --bind levels; its example (none) binds no caller, its docs do.
  await page.locator('#code [data-lang=rmcp]').click();
  assert.match(await page.getByTestId('sdk-fold').locator('summary').textContent(), /Rust SDK \(rmcp\) 3\.11\.0 .*finds 3 of the 5 protections it tested left to you/);
  const principal = page.getByTestId('sdk-table').locator('tr', { has: page.locator('th', { hasText: /^Principal$/ }) });
  assert.match(await principal.locator('td[data-server=rmcp-bind-none]').textContent(), new RegExp(`^left to you.*other-token: ${expected['rmcp-bind-none']['other-token']}`));
  assert.match(await principal.locator('td[data-server=rmcp-bind-docs]').textContent(), /^holds/);
  const request = page.getByTestId('sdk-table').locator('tr', { has: page.locator('th', { hasText: /^Request$/ }) });
  assert.match(await request.locator('td[data-server=rmcp-bind-docs]').textContent(), new RegExp(`^still left to you.*other-arguments: ${expected['rmcp-bind-docs']['other-arguments']}`));
  assert.match(await request.locator('td[data-server=rmcp-bind-full]').textContent(), /^holds/);
  // A protection the audit skips says so, on screen (the skip link's class once put it off it).
  const single = page.getByTestId('sdk-table').locator('tr', { has: page.locator('th', { hasText: /^Single use$/ }) });
  const untested = single.locator('td[data-server=rmcp-bind-none] .cell');
  assert.equal(await untested.textContent(), 'not tested');
  assert.ok((await untested.boundingBox()).x >= 0, 'not tested is on screen');
  // The hardening's single use lives in the process: restarted with its key, it takes a spent ticket again.
  assert.match(await single.locator('td[data-server=rmcp-bind-full]').textContent(), /^still left to you.*memory-loss: fail/);
  // No sideways scroll of the page at 375 px (the listing scrolls inside itself).
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 375));
  assert.deepEqual(problems, []);
  await context.close();
});
