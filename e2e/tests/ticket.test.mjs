// The ticket inspector and the attack bench, in the browser.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, waitForApp, urlSoon } from '../lib/harness.mjs';

let site, browser;
before(async () => { site = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

const verdictOf = (page) => page.getByTestId('ticket-verdict').textContent();
/** The symbols of the checks on the open move's last request, e.g. '✓✓✗––'. */
const lastChecks = (page) => page.getByTestId('attempts').locator('li.attempt').last().locator('li.check .symbol').evaluateAll((els) => els.map((e) => e.textContent.trim()).join(''));

test('inspector: any edit of the ticket is refused at the signature', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=ticket' });
  await waitForApp(page);
  assert.match(await verdictOf(page), /^Accepted/);
  assert.match(await page.getByTestId('claims').textContent(), /"bob"/);

  // Change one character by typing in the field (folded until asked for).
  const input = page.getByTestId('ticket-input');
  assert.equal(await input.isVisible(), false);
  await page.getByTestId('ticket-text-fold').locator('summary').click();
  const ticket = await input.inputValue();
  const i = 30;
  await input.fill(ticket.slice(0, i) + (ticket[i] === 'A' ? 'B' : 'A') + ticket.slice(i + 1));
  assert.match(await verdictOf(page), /^Refused — signature check/);
  assert.match(await page.getByTestId('ticket-response').textContent(), /Invalid or expired requestState/);
  assert.match(await urlSoon(page, /ticket=/), /ticket=/);

  // The readable edit: staging → prod.
  await page.getByTestId('edit-prod').click();
  assert.match(await page.getByTestId('claims').textContent(), /"prod"/);
  assert.match(await verdictOf(page), /^Refused — signature check/);

  // Damage that breaks the format is located.
  await input.fill('v1.eyJ2Ijox!');
  assert.match(await page.getByTestId('ticket-problem').textContent(), /character 12/);

  // Back to bob's ticket. The inspector has no clock of its own (the bench has the clock).
  await page.getByText("Reset to bob's ticket").click();
  assert.match(await verdictOf(page), /^Accepted/);
  assert.equal(await page.locator('#ticket input[type=range]').count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});

test('inspector: editing a decoded field re-encodes the payload, marks what changed, and the signatures differ', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=ticket' });
  await waitForApp(page);
  assert.match(await page.getByTestId('signature-check').textContent(), /They match/);
  assert.equal(await page.locator('#ticket .tseg.changed').count(), 0);
  const env = page.locator('[data-claim=env]');
  assert.equal(await env.inputValue(), 'staging');
  await env.fill('prod');
  await env.press('Enter');
  await env.blur();
  await page.waitForFunction(() => /Refused/.test(document.querySelector('[data-testid=ticket-verdict]').textContent));
  assert.match(await verdictOf(page), /signature check/);
  assert.match(await page.getByTestId('signature-check').textContent(), /They differ/);
  // The changed characters are marked, all of them in the payload; the signature is A's.
  const changed = await page.locator('#ticket .tseg.changed').evaluateAll((els) => els.map((e) => e.classList.contains('payload')));
  assert.ok(changed.length > 0 && changed.every(Boolean), JSON.stringify(changed));
  assert.match(await page.getByTestId('ticket-parts').textContent(), /\.[A-Za-z0-9_-]{43}$/);
  assert.match(await page.getByTestId('claims').textContent(), /"prod"/);
  // The edit lives in the link, like any typed ticket.
  assert.match(await urlSoon(page, /ticket=v1\./), /ticket=v1\./);
  // exp, edited as t: a longer life is refused the same way.
  await page.getByRole('button', { name: "Reset to bob's ticket" }).click();
  const exp = page.locator('[data-claim=exp]');
  await exp.fill('9999');
  await exp.blur();
  await page.waitForFunction(() => /Refused/.test(document.querySelector('[data-testid=ticket-verdict]').textContent));
  assert.match(await page.getByTestId('claims').textContent(), /t = 9999 s/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('inspector: turning off B\'s signature check lets the edited ticket deploy to prod', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=ticket' });
  await waitForApp(page);
  // B's settings are folded until asked for.
  assert.equal(await page.getByTestId('ticket-knobs').isVisible(), false);
  await page.getByTestId('ticket-knobs-fold').locator('summary').click();
  await page.getByTestId('ticket-knobs').locator('input[data-check=signature]').uncheck();
  await page.getByTestId('edit-prod').click();
  assert.match(await verdictOf(page), /deployed to prod/);
  // Sealing: the payload becomes unreadable, and the honest ticket is still accepted.
  await page.getByText("Reset to bob's ticket").click();
  await page.getByRole('checkbox', { name: /Seal tickets/ }).check();
  assert.equal(await page.getByTestId('claims').count(), 0);
  assert.match(await verdictOf(page), /^Accepted/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('words: a signed ticket is never called sealed; only a sealed one\'s seal opens', async () => {
  // Step 2, where A mints the ticket: the round trip's caption and the code widget both speak of it.
  const sealedWords = /\bseal(s|ed)? (its|the|that) work|seal opens|seals (it|that work) into the ticket/i;
  for (const lang of ['ts', 'rust']) {
    const { page, context, problems } = await open(browser, site, { path: `#w=roundtrip&step=1${lang === 'rust' ? '&lang=rust' : ''}` });
    await waitForApp(page);
    assert.match(await page.getByTestId('caption').textContent(), /signs its work into a ticket/);
    assert.match(await page.getByTestId('code-now').textContent(), /signs that work into the ticket/);
    const text = await page.evaluate(() => document.body.textContent);
    assert.doesNotMatch(text, sealedWords, lang);
    assert.match(await page.locator('#ticket').textContent(), /Signature matches/);
    assert.deepEqual(problems, []);
    await context.close();
  }
  // Sealed (AEAD): now the words say sealed, and the signature check is the seal opening.
  const { page, context, problems } = await open(browser, site, { path: '#w=roundtrip&step=1&seal=aead&lang=rust' });
  await waitForApp(page);
  assert.match(await page.getByTestId('caption').textContent(), /seals its work into a ticket/);
  assert.match(await page.getByTestId('code-now').textContent(), /seals that work into the ticket/);
  assert.match(await page.locator('#ticket').getByTestId('verdict').locator('..').textContent(), /Seal opens/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('words: with B\'s signature check off, nothing says B refuses the edited ticket', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=ticket&offb=signature' });
  await waitForApp(page);
  await page.getByTestId('edit-prod').click();
  assert.match(await verdictOf(page), /deployed to prod/);
  const meaning = await page.getByTestId('signature-meaning').textContent();
  assert.match(meaning, /They differ/);
  assert.match(meaning, /signature check is off/);
  assert.doesNotMatch(meaning, /refuses/);
  assert.doesNotMatch(await page.locator('#ticket').textContent(), /\bB refuses\b/);
  // The naive server's preset: principal and expiry signed into the ticket, checked by nobody.
  const naive = await open(browser, site, { path: '#w=ticket&offb=principal,expiry' });
  await waitForApp(naive.page);
  const claim = (key) => naive.page.getByTestId('claims').locator('tr', { has: naive.page.locator('th code', { hasText: new RegExp(`^${key}$`) }) }).textContent();
  for (const key of ['sub', 'exp']) {
    const row = await claim(key);
    assert.doesNotMatch(row, /refused/, key);
    assert.match(row, /check is off/, key);
  }
  assert.deepEqual([...problems, ...naive.problems], []);
  await naive.context.close();
  await context.close();
});

test('harm: a second deploy and an edit let through are drawn as harm, never as a green success', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=bench&move=twice&predict=0' });
  await waitForApp(page);
  const colour = (l) => l.evaluate((e) => getComputedStyle(e).color);
  const answers = page.getByTestId('attempts').getByTestId('misuse-answer');
  const verdicts = page.getByTestId('attempts').getByTestId('verdict');
  assert.equal(await answers.count(), 2);
  // The first deploy is the one bob confirmed: a success.
  assert.match(await answers.nth(0).textContent(), /Accepted: deployed to staging/);
  assert.doesNotMatch(await answers.nth(0).getAttribute('class'), /\bharm\b/);
  assert.match(await verdicts.nth(0).getAttribute('class'), /\bok\b/);
  // The second is harm: its words, its class and its headline say so, in another colour.
  const second = answers.nth(1);
  assert.match(await second.getAttribute('class'), /\bharm\b/);
  assert.match(await second.textContent(), /⚠\s*Harm done: deployed to staging/);
  assert.match(await second.textContent(), /deploy 2 on that one confirmation/);
  assert.doesNotMatch(await second.textContent(), /Accepted/);
  assert.match(await verdicts.nth(1).getAttribute('class'), /\bharm\b/);
  assert.doesNotMatch(await verdicts.nth(1).getAttribute('class'), /\bok\b/);
  assert.doesNotMatch(await verdicts.nth(1).textContent(), /Accepted/);
  assert.notEqual(await colour(verdicts.nth(1)), await colour(verdicts.nth(0)));
  // Its row and its marker on the clock say harm too; the honest move's say deployed.
  assert.match(await page.getByTestId('chip-twice').textContent(), /⚠ Harm done/);
  assert.match(await page.getByTestId('chip-twice').getAttribute('class'), /\bharm\b/);
  assert.match(await page.getByTestId('chip-honest').getAttribute('class'), /\bok\b/);
  assert.match(await page.getByTestId('time-5').locator('.dot').getAttribute('class'), /\bharm\b/);
  assert.match(await page.getByTestId('time-0').locator('.dot').getAttribute('class'), /\bok\b/);

  // The inspector: B's signature check off, bob's ticket edited to prod.
  const t = await open(browser, site, { path: '#w=ticket&offb=signature' });
  await waitForApp(t.page);
  const bar = t.page.getByTestId('ticket-verdict');
  assert.match(await bar.textContent(), /^Accepted/, 'bob\'s own ticket is still a success');
  await t.page.getByTestId('edit-prod').click();
  await t.page.waitForFunction(() => /Harm done/.test(document.querySelector('[data-testid=ticket-verdict]').textContent));
  assert.match(await bar.getAttribute('class'), /\bharm\b/);
  assert.doesNotMatch(await bar.getAttribute('class'), /\bok\b/);
  assert.match(await bar.textContent(), /⚠\s*Harm done/);
  assert.doesNotMatch(await bar.locator('strong').textContent(), /Accepted/);
  assert.match(await bar.textContent(), /bob confirmed a deploy to staging, not to prod/);
  const list = t.page.locator('#ticket').getByTestId('verdict');
  assert.match(await list.getAttribute('class'), /\bharm\b/);
  assert.doesNotMatch(await list.textContent(), /Accepted/);
  assert.deepEqual([...problems, ...t.problems], []);
  await t.context.close();
  await context.close();
});

test('bench: the lesson\'s table, and the clock moves the moves', async () => {
  // An old timeline link opens the bench, its six times on the bench's first six moves.
  const { page, context, problems } = await open(browser, site, { path: '#w=timeline&predict=0' });
  await waitForApp(page);
  assert.match(await urlSoon(page, /w=bench/), /w=bench/);
  const row = async (move) => { await page.getByTestId(`move-${move}`).check(); return lastChecks(page); };
  const symbols = [];
  for (const m of ['honest', 'edit', 'alice', 'wait', 'prod', 'twice']) symbols.push(await row(m));
  assert.deepEqual(symbols, ['✓✓✓✓✓', '✗––––', '✓✗–––', '✓✓✗––', '✓✓✓✗–', '✓✓✓✓✓']);
  await page.getByTestId('move-honest').check();
  assert.match(await page.getByTestId('misuse-answer').textContent(), /Accepted: deployed to staging/);
  // Move the honest retry past the expiry with the keyboard: it leaves the scale for an arrow.
  await page.getByTestId('time-0').focus();
  await page.keyboard.press('End');
  assert.equal(await lastChecks(page), '✓✓✗––');
  assert.match(await page.getByTestId('chip-honest').textContent(), /Stopped by the expiry/);
  assert.equal(await page.getByTestId('time-0').getAttribute('aria-valuenow'), '600');
  assert.match(await page.getByTestId('time-0').textContent(), /t = 600 s →/);
  await page.keyboard.press('Home');
  assert.equal(await lastChecks(page), '✓✓✓✓✓');
  // Drag with the pointer: the late retry's marker, from its arrow back to mid-axis (90 s of
  // the 180 s the axis shows for a 120 s ticket), and it is accepted.
  await page.getByTestId('move-wait').check();
  await page.getByTestId('clock').scrollIntoViewIfNeeded();
  assert.match(await page.getByTestId('time-3').getAttribute('class'), /\boff\b/);
  const lane = await page.getByTestId('time-3').locator('..').boundingBox();
  const handle = await page.getByTestId('time-3').locator('.dot').boundingBox();
  await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
  await page.mouse.down();
  // A long drag (every pointer move changes the link): the address bar keeps up during the
  // gesture and holds the last position after it.
  await page.mouse.move(lane.x + lane.width * 0.6, lane.y + lane.height / 2, { steps: 40 });
  const midDrag = await page.getByTestId('time-3').getAttribute('aria-valuenow');
  const at = (t) => new RegExp(`times=(?:\\d+,){3}${t}(?:,|&|$)`);
  assert.match(await urlSoon(page, at(midDrag)), at(midDrag), 'the URL is current while the pointer is still down');
  await page.mouse.move(lane.x + lane.width / 2, lane.y + lane.height / 2, { steps: 40 });
  await page.mouse.up();
  assert.equal(await page.getByTestId('time-3').getAttribute('aria-valuenow'), '90');
  assert.match(await urlSoon(page, at(90)), at(90), 'the URL holds where the drag ended');
  assert.equal(await lastChecks(page), '✓✓✓✓✓');
  // The expiry is the valid band's end: drag it left of the repeat (40 s) and the repeat is late.
  await page.getByTestId('move-twice').check();
  await page.getByTestId('clock').scrollIntoViewIfNeeded();
  const ttl = await page.getByTestId('ttl').boundingBox();
  await page.mouse.move(ttl.x + 3, ttl.y + ttl.height / 2);
  await page.mouse.down();
  const lane2 = await page.getByTestId('time-3').locator('..').boundingBox();
  await page.mouse.move(lane2.x + lane2.width * 0.08, ttl.y + ttl.height / 2, { steps: 4 });
  await page.mouse.up();
  assert.equal(await page.getByTestId('ttl').getAttribute('aria-valuenow'), '14');
  assert.equal(await lastChecks(page), '✓✓✗––');
  await page.getByTestId('ttl').focus();
  await page.keyboard.press('End');
  // Single use: the repeat is refused by a sixth check...
  await page.getByTestId('single-use').check();
  assert.equal(await lastChecks(page), '✓✓✓✓✓✗');
  // ...unless each replica keeps its own memory (the repeat lands on A).
  await page.getByTestId('store-replica').check();
  assert.equal(await lastChecks(page), '✓✓✓✓✓✓');
  assert.match(await page.getByTestId('attempts').locator('li.attempt').last().textContent(), /Replica A checks/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('bench on a touch screen: a finger on a lane scrolls past it; only the marker drags', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=bench', viewport: { width: 375, height: 800 }, hasTouch: true });
  await waitForApp(page);
  const marker = page.getByTestId('time-0');
  await marker.scrollIntoViewIfNeeded();
  const lane = await marker.locator('..').boundingBox();
  await page.touchscreen.tap(lane.x + lane.width * 0.5, lane.y + lane.height / 2);
  assert.equal(await marker.getAttribute('aria-valuenow'), '8', 'a tap on the lane leaves the marker');
  const dot = await marker.locator('.dot').boundingBox();
  await page.touchscreen.tap(dot.x + dot.width / 2, dot.y + dot.height / 2);
  assert.notEqual(await marker.getAttribute('aria-valuenow'), null);
  assert.deepEqual(problems, []);
  await context.close();
});

test('bench: every move meets the check the lesson says', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=bench&predict=0' });
  await waitForApp(page);
  const expected = { honest: null, edit: 'signature', alice: 'principal', wait: 'expiry', prod: 'request', twice: null, noanswer: null, onechar: 'signature', forge: 'signature', launder: null, renew: 'expiry', memdies: null };
  for (const [move, check] of Object.entries(expected)) {
    await page.getByTestId(`move-${move}`).check();
    const failed = await page.getByTestId('attempts').locator('li.check.failed').evaluateAll((els) => els.map((e) => e.dataset.check));
    assert.deepEqual(failed.slice(0, 1), check ? [check] : [], move);
  }
  // A retry without the answer is asked again, not refused.
  await page.getByTestId('move-noanswer').check();
  assert.equal(await page.getByTestId('attempts').locator('li.check.asked-again').getAttribute('data-check'), 'answer');
  assert.match(await page.getByTestId('attempts').getByTestId('verdict').textContent(), /Asked again/);
  // Sent twice deploys twice; only the honest move deploys exactly once.
  await page.getByTestId('move-twice').check();
  assert.equal((await page.getByTestId('misuse-answer').allTextContents()).filter((t) => t.includes('deployed')).length, 2);
  assert.deepEqual(problems, []);
  await context.close();
});

test('bench: the memory\'s machine dies: one machine deploys twice, three machines refuse', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=bench&move=memdies&single=1&predict=0' });
  await waitForApp(page);
  const deployed = async () => (await page.getByTestId('misuse-answer').allTextContents()).filter((t) => t.includes('deployed')).length;
  const attempts = page.getByTestId('attempts');
  // The default shared store is one machine: its copy took over without the redemption.
  assert.equal(await page.getByTestId('store-shared').isChecked(), true);
  assert.equal(await deployed(), 2);
  assert.match(await attempts.textContent(), /standby copy took over without the redemption it had not yet copied/);
  assert.match(await attempts.textContent(), /Harm done/);
  // Three machines: the two left hold it, and the repeat is refused by single use.
  await page.getByTestId('store-quorum').check();
  assert.match(await page.evaluate(() => location.hash), /store=quorum/);
  assert.equal(await deployed(), 1);
  assert.match(await attempts.textContent(), /2 left, still a majority/);
  assert.equal(await attempts.locator('li.check.failed').last().getAttribute('data-check'), 'single-use');
  assert.match(await page.getByTestId('store-note').textContent(), /three machines/);
  // The choice is a radio group, off while single use is off.
  await page.getByTestId('single-use').uncheck();
  assert.equal(await page.getByTestId('store-quorum').isDisabled(), true);
  assert.deepEqual(problems, []);
  await context.close();
});

test('bench: laundering deploys twice on a naive server and is refused by ours', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=bench&move=launder&predict=0' });
  await waitForApp(page);
  const deployed = async () => (await page.getByTestId('misuse-answer').allTextContents()).filter((t) => t.includes('deployed')).length;
  assert.match(await page.getByTestId('launder-note').textContent(), /Single use is off/);
  await page.getByTestId('single-use').check();
  assert.equal(await page.getByTestId('misuse-answer').count(), 2, 'no fresh ticket to redeem');
  assert.equal(await deployed(), 1);
  assert.equal(await page.getByTestId('attempts').locator('li.check.failed').last().getAttribute('data-check'), 'single-use');
  await page.getByTestId('naive-ask-again').check();
  assert.equal(await page.getByTestId('misuse-answer').count(), 3);
  assert.equal(await deployed(), 2, 'the naive server deploys twice');
  assert.match(await urlSoon(page, /naive=1/), /naive=1/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('bench: a renewal by a wrong-kind answer is asked again on the first deadline and refused after it', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=bench&move=renew&predict=0' });
  await waitForApp(page);
  const attempts = page.getByTestId('attempts');
  assert.equal(await page.getByTestId('misuse-answer').count(), 2);
  assert.equal(await attempts.locator('li.check.asked-again').first().getAttribute('data-check'), 'answer');
  assert.equal(await attempts.locator('li.check.failed').last().getAttribute('data-check'), 'expiry');
  assert.match(await page.getByTestId('renew-note').textContent(), /same deadline \(t = 120 s\)/);
  await page.getByTestId('naive-ask-again').check();
  assert.match(await page.getByTestId('renew-note').textContent(), /brand-new ticket/);
  assert.equal((await page.getByTestId('misuse-answer').allTextContents()).filter((t) => t.includes('deployed')).length, 1);
  assert.deepEqual(problems, []);
  await context.close();
});

test('bench: predicting is the default; a wrong guess is told why, all by keyboard', async () => {
  // An old misuse link opens the bench.
  const { page, context, problems } = await open(browser, site, { path: '#w=misuse' });
  await waitForApp(page);
  assert.equal(await page.getByTestId('predict').isChecked(), true);
  // No outcome anywhere before a prediction: not on the chips, not on the clock.
  assert.deepEqual([...new Set(await page.locator('.move-chip').allTextContents())], ['?']);
  assert.deepEqual([...new Set(await page.getByTestId('clock').locator('.dot').evaluateAll((els) => els.map((e) => e.className)))], ['dot hidden']);
  await page.getByTestId('move-alice').focus();
  await page.keyboard.press('Space');
  assert.equal(await page.getByTestId('attempts').count(), 0, 'nothing shown before the reveal');
  await page.getByTestId('prediction').getByLabel('It deploys').focus();
  await page.keyboard.press('Space');
  await page.getByTestId('reveal').focus();
  await page.keyboard.press('Enter');
  const feedback = await page.getByTestId('prediction-feedback').textContent();
  assert.match(feedback, /^Not this time\. The answer: Stopped by the principal\. Why: Refused: “Principal is this caller” failed/);
  assert.match(await page.getByTestId('misuse-answer').textContent(), /Principal is this caller/);
  assert.match(await page.getByTestId('time-2').locator('.dot').getAttribute('class'), /\brefused\b/);
  // A right guess, on the next move.
  await page.getByTestId('move-edit').focus();
  await page.keyboard.press('Space');
  await page.getByTestId('prediction').getByLabel('Stopped by the signature').check();
  await page.getByTestId('reveal').click();
  assert.match(await page.getByTestId('prediction-feedback').textContent(), /^You called it\./);
  // Other servers pose every question again.
  await page.getByTestId('single-use').check();
  assert.equal(await page.getByTestId('chip-alice').textContent(), '?');
  assert.deepEqual(problems, []);
  await context.close();
});
