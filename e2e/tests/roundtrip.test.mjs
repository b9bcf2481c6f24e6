// The two-replica round trip: play it, take the other ending, step by keyboard, deep links.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, waitForApp, urlSoon } from '../lib/harness.mjs';

let site, browser;
before(async () => { site = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

const stepCount = (page) => page.getByTestId('step-count').textContent();

test('plays to the end and deploys to staging', async () => {
  const { page, context, problems } = await open(browser, site);
  await waitForApp(page);
  assert.equal(await stepCount(page), '1 / 6');
  await page.getByTestId('roundtrip').locator('select').selectOption('4');
  await page.getByTestId('play').click();
  await page.getByTestId('roundtrip').getByTestId('verdict').waitFor({ timeout: 15000 });
  await page.waitForFunction(() => document.querySelector('[data-testid=play]')?.textContent.includes('Play'), null, { timeout: 15000 });
  assert.equal(await stepCount(page), '6 / 6');
  assert.equal(await page.getByTestId('roundtrip').getByTestId('verdict').textContent(), 'Replica B: Accepted');
  assert.match(await page.getByTestId('caption').textContent(), /deployed to staging/);
  assert.match(await urlSoon(page, /#w=roundtrip&step=5&speed=4$/), /#w=roundtrip&step=5&speed=4$/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the edited ticket is refused by B at the signature check', async () => {
  const { page, context, problems } = await open(browser, site);
  await waitForApp(page);
  await page.getByTestId('roundtrip').getByText('Ticket edited to prod').click();
  for (let i = 0; i < 5; i++) await page.getByTestId('forward').click();
  assert.equal(await page.getByTestId('roundtrip').getByTestId('verdict').textContent(), 'Replica B: Refused at the signature check');
  const rows = await page.getByTestId('roundtrip').locator('.checks li').evaluateAll((els) => els.map((e) => e.dataset.check + ':' + e.querySelector('.word').textContent));
  assert.deepEqual(rows, ['signature:failed', 'principal:not reached', 'expiry:not reached', 'request:not reached', 'answer:not reached']);
  assert.match(await page.getByTestId('transcript').textContent(), /Invalid or expired requestState/);
  // The wire log shows the retry carrying a ticket that is not the one A issued.
  assert.match(await page.getByTestId('edited-ticket').textContent(), /^edited ticket: sub bob · env prod/);
  assert.match(await urlSoon(page, /end=tampered/), /end=tampered/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('steps forward and back by keyboard, and shows the help', async () => {
  const { page, context, problems } = await open(browser, site);
  await waitForApp(page);
  await page.getByTestId('forward').focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.equal(await stepCount(page), '3 / 6');
  await page.keyboard.press('ArrowLeft');
  assert.equal(await stepCount(page), '2 / 6');
  await page.keyboard.press('?');
  await page.getByTestId('help').waitFor();
  assert.match(await page.getByTestId('help').textContent(), /play or pause/);
  await page.keyboard.press('Escape');
  assert.equal(await page.getByTestId('help').count(), 0);
  await page.keyboard.press('Home');
  assert.equal(await stepCount(page), '1 / 6');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a reloaded deep link lands on the same step', async () => {
  const { page, context, problems } = await open(browser, site);
  await waitForApp(page);
  for (let i = 0; i < 3; i++) await page.getByTestId('forward').click();
  const caption = await page.getByTestId('caption').textContent();
  await urlSoon(page, /step=3/);
  await page.reload();
  await waitForApp(page);
  assert.equal(await stepCount(page), '4 / 6');
  assert.equal(await page.getByTestId('caption').textContent(), caption);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a deep link to a quiet step shows the newest message and says nothing crossed the wire', async () => {
  for (const step of [2, 4]) {
    const { page, context, problems } = await open(browser, site, { path: `#w=roundtrip&step=${step}` });
    await waitForApp(page);
    const note = page.getByTestId('quiet-step');
    await note.waitFor();
    assert.match(await note.textContent(), /Nothing crosses the client's connection/);
    // The wire log is scrolled to it, not left at step 1.
    await page.waitForFunction(() => {
      const ol = document.querySelector('#roundtrip .messages');
      const li = ol.querySelector('.quiet-step');
      return ol.scrollTop > 0 && li.offsetTop - ol.scrollTop < ol.clientHeight;
    });
    // The client's requests say who is calling.
    assert.match(await page.locator('#roundtrip .message[data-kind=call] .http-header').textContent(), /Authorization: Bearer bob-token/);
    assert.deepEqual(problems, []);
    await context.close();
  }
});

test('a malformed link falls back to the start with a visible note', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=nope&step=banana&ttl=-3&%%%' });
  await waitForApp(page);
  assert.equal(await stepCount(page), '1 / 6');
  const note = await page.getByTestId('link-note').textContent();
  assert.match(note, /no widget called "nope"/);
  assert.match(note, /step="banana"/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('with reduced motion it still plays, stepping without moving messages', async () => {
  const { page, context, problems } = await open(browser, site, { reducedMotion: 'reduce' });
  await waitForApp(page);
  await page.getByTestId('roundtrip').locator('select').selectOption('4');
  await page.getByTestId('play').click();
  await page.waitForTimeout(300);
  // Mid-play, the one message shown sits on an actor, never between two.
  const cx = await page.locator('.diagram.wide [data-testid=message] circle').getAttribute('cx');
  assert.ok(['88', '258', '440', '660'].includes(cx), `message at x=${cx}`);
  await page.getByTestId('roundtrip').getByTestId('verdict').waitFor({ timeout: 15000 });
  assert.deepEqual(problems, []);
  await context.close();
});

test('the diagram carries the ticket, the replicas\' memory and B\'s checks', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=roundtrip' });
  await waitForApp(page);
  const d = page.locator('svg.diagram.wide');
  const note = (actor) => d.locator(`[data-actor=${actor}] .actor-note`).textContent();
  assert.equal(await note('replica-a'), "memory: bob's call");
  assert.equal(await d.getByTestId('ticket-chip').count(), 0, 'no ticket before A mints it');
  await page.getByTestId('forward').click();
  assert.equal(await note('replica-a'), 'memory: empty');
  assert.equal(await note('replica-b'), 'memory: empty');
  assert.equal(await note('client'), 'holds the ticket');
  assert.match(await d.getByTestId('ticket-card').textContent(), /sub bob · env staging · exp t\+120 s/);
  // Tampered: the chip and the card show the edited field; B's checks stop at the first.
  await page.getByTestId('roundtrip').getByText('Ticket edited to prod').click();
  for (let i = 0; i < 6 && (await stepCount(page)) !== '4 / 6'; i++) await page.getByTestId('forward').click();
  assert.match(await d.getByTestId('ticket-chip').getAttribute('class'), /edited/);
  assert.match(await d.getByTestId('ticket-card').textContent(), /edited on the way back: env prod/);
  assert.equal(await d.getByTestId('diagram-checks').textContent(), '');
  for (let i = 0; i < 2; i++) await page.getByTestId('forward').click();
  assert.equal(await stepCount(page), '6 / 6');
  const checks = await d.getByTestId('diagram-checks').locator('text').allTextContents();
  assert.deepEqual(checks, ['✗ signature', '– principal', '– expiry', '– request', '– answer']);
  assert.equal(await d.getByTestId('ticket-chip').count(), 0, 'judged: the checks stand for it');
  assert.deepEqual(problems, []);
  await context.close();
});

test('only the diagram the viewport shows is drawn, and it follows a resize', async () => {
  const { page, context, problems } = await open(browser, site, { viewport: { width: 375, height: 800 } });
  await waitForApp(page);
  assert.equal(await page.locator('svg.diagram').count(), 1);
  assert.equal(await page.locator('svg.diagram.tall').count(), 1);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.locator('svg.diagram.wide').waitFor({ timeout: 5000 });
  assert.equal(await page.locator('svg.diagram').count(), 1);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a deep link opens every step as stepping there does, with the host prompt on step 3 only', async () => {
  const { page, context, problems } = await open(browser, site);
  await waitForApp(page);
  const captions = [];
  for (let s = 0; s < 6; s++) {
    if (s > 0) await page.getByTestId('forward').click();
    captions.push(await page.getByTestId('caption').textContent());
  }
  await context.close();
  for (let s = 0; s < 6; s++) {
    const { page, context, problems: p } = await open(browser, site, { path: `#w=roundtrip&step=${s}` });
    await waitForApp(page);
    assert.equal(await stepCount(page), `${s + 1} / 6`);
    assert.equal(await page.getByTestId('caption').textContent(), captions[s]);
    const prompts = await page.locator('.diagram.wide [data-testid=host-prompt]').count();
    assert.equal(prompts, s === 2 ? 1 : 0, `host prompt at step ${s + 1}`);
    if (s === 2) assert.match(await page.locator('.diagram.wide [data-testid=host-prompt]').textContent(), /Deploy release 2026\.11\.30-2 to staging\?.*Confirm/);
    assert.deepEqual(p, []);
    await context.close();
  }
  assert.deepEqual(problems, []);
});

test('at 375 px a key\'s note stays inside the message, and a ticket chip wraps between words', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=roundtrip&step=3', viewport: { width: 375, height: 800 } });
  await waitForApp(page);
  const fields = page.locator('#roundtrip .message.current .field');
  for (let i = 0; i < await fields.count(); i++) {
    await fields.nth(i).focus();
    const box = await fields.nth(i).evaluate((e) => {
      const pre = e.closest('pre').getBoundingClientRect();
      const tip = getComputedStyle(e, '::after');
      // The note is placed against the field itself unless the field is static (then the message).
      const base = getComputedStyle(e).position === 'static' ? pre.left : e.getBoundingClientRect().left;
      return { right: base + parseFloat(tip.left) + parseFloat(tip.width), edge: pre.right };
    });
    assert.ok(box.right <= box.edge + 1, `note of field ${i} ends at ${box.right}, the message at ${box.edge}`);
  }
  assert.equal(await page.locator('#roundtrip .message.current .fold-chip.ticket').evaluate((e) => getComputedStyle(e).wordBreak), 'normal');
  assert.deepEqual(problems, []);
  await context.close();
});

test('at 375 px the round trip reads caption, diagram, the step\'s message (open), verdict; the controls never cover the caption', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=roundtrip&step=4', viewport: { width: 375, height: 740 } });
  await waitForApp(page);
  for (const step of [4, 5]) {
    if (step === 5) await page.getByTestId('forward').click();
    await page.waitForFunction((n) => document.querySelector('[data-testid=step-count]').textContent === `${n} / 6`, step + 1);
    const tops = await page.evaluate(() => {
      const top = (sel) => document.querySelector(sel)?.getBoundingClientRect().top ?? NaN;
      const msg = document.querySelector('#roundtrip .message.current') ?? document.querySelector('#roundtrip .message.latest');
      return { caption: top('[data-testid=caption]'), diagram: top('#roundtrip svg.diagram'), message: msg.getBoundingClientRect().top, open: getComputedStyle(msg.querySelector('pre.json')).display !== 'none', verdict: top('#roundtrip [data-testid=verdict]') };
    });
    assert.ok(tops.caption < tops.diagram && tops.diagram < tops.message, `step ${step + 1}: ${JSON.stringify(tops)}`);
    // B's verdict comes on the last step, under the message.
    if (step === 5) assert.ok(tops.message < tops.verdict, `step ${step + 1}: ${JSON.stringify(tops)}`);
    assert.ok(tops.open, `step ${step + 1}: the step's message is open`);
  }
  // The controls stick to the bottom of the screen: with the caption at the top of the view,
  // they are on screen and do not overlap it.
  await page.evaluate(() => { const c = document.querySelector('[data-testid=caption]'); scrollBy(0, c.getBoundingClientRect().top - 10); });
  const r = await page.evaluate(() => {
    const box = (el) => el.getBoundingClientRect();
    const c = box(document.querySelector('[data-testid=caption]'));
    const k = box(document.querySelector('#roundtrip .controls'));
    return { overlap: !(k.bottom <= c.top || k.top >= c.bottom), onScreen: k.top >= 0 && k.bottom <= innerHeight + 1 };
  });
  assert.deepEqual(r, { overlap: false, onScreen: true });
  assert.deepEqual(problems, []);
  await context.close();
});

for (const width of [375, 1280]) {
  test(`at ${width} px the wire's JSON breaks between tokens: no key and no date is split across lines`, async () => {
    const { page, context, problems } = await open(browser, site, { path: '#w=roundtrip&step=5', viewport: { width, height: 800 } });
    await waitForApp(page);
    await page.getByTestId('whole-messages').click();
    const split = await page.evaluate(() => {
      const out = [];
      const walk = document.createTreeWalker(document.querySelector('#roundtrip .transcript'), NodeFilter.SHOW_TEXT);
      for (let n = walk.nextNode(); n; n = walk.nextNode()) {
        // A namespaced key longer than the line breaks after its '/', never inside a word.
        for (const word of ['2026-07-28', 'requestState', 'inputResponses', 'protocolVersion', 'clientCapabilities', 'io.modelcontextprotocol/']) {
          const i = n.textContent.indexOf(word);
          if (i < 0) continue;
          const r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + word.length);
          const lines = new Set([...r.getClientRects()].map((x) => Math.round(x.top)));
          if (lines.size > 1) out.push(word);
        }
      }
      return out;
    });
    assert.deepEqual(split, []);
    assert.deepEqual(problems, []);
    await context.close();
  });
}

test('an embedded round trip keeps one height across all its steps', async () => {
  for (const width of [375, 800, 1280]) {
    const { page, context, problems } = await open(browser, site, { path: '?embed=roundtrip#w=roundtrip', viewport: { width, height: 900 } });
    await page.getByTestId('forward').waitFor();
    await page.waitForTimeout(200);
    const heights = [];
    for (let s = 0; s < 6; s++) {
      if (s > 0) await page.getByTestId('forward').click();
      await page.waitForFunction((n) => document.querySelector('[data-testid=step-count]').textContent === `${n} / 6`, s + 1);
      await page.waitForTimeout(50);
      heights.push(await page.evaluate(() => document.documentElement.scrollHeight));
    }
    assert.equal(new Set(heights).size, 1, `${width} px: ${heights.join(', ')}`);
    assert.deepEqual(problems, []);
    await context.close();
  }
});

test('the diagram draws the client inside the host, at 1280 and 375 px', async () => {
  for (const width of [1280, 375]) {
    const { page, context, problems } = await open(browser, site, { viewport: { width, height: 900 } });
    await waitForApp(page);
    const r = await page.evaluate(() => {
      const box = (el) => el.getBoundingClientRect();
      const frame = box(document.querySelector('#roundtrip [data-testid=host-frame] rect'));
      const inside = (id) => { const b = box(document.querySelector(`#roundtrip [data-actor=${id}] rect`)); return b.left >= frame.left && b.right <= frame.right && b.top >= frame.top && b.bottom <= frame.bottom; };
      return { host: inside('host'), client: inside('client'), balancer: inside('balancer'), label: document.querySelector('#roundtrip [data-testid=host-frame] text').textContent };
    });
    assert.deepEqual(r, { host: true, client: true, balancer: false, label: 'Host: the app bob uses' }, `${width} px`);
    assert.deepEqual(problems, []);
    await context.close();
  }
});
