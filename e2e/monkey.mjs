// A monkey: random clicks, key presses, drags, text edits and fragment edits across every
// widget, from a fixed seed, so any failure reproduces. Returns what it did and saw.
const FRAGMENTS = [
  'w=roundtrip&step=3', 'w=roundtrip&end=tampered&step=5&speed=4', 'w=ticket&offb=signature', 'w=ticket&seal=aead&at=300',
  'w=bench&single=1&store=replica', 'w=timeline&ttl=10&times=1,2,3,4,5,6', 'w=bench&move=forge&predict=0', 'w=misuse&move=twice', 'w=raw&chg=1&nosig=1&lane=stateless',
  'w=rules&method=prompts/get&caps=sampling', 'w=quiz', 'w=nope&step=zz', '%%%', 'ticket=v1.%FF', 'times=9,9',
];
const KEYS = ['Space', 'ArrowLeft', 'ArrowRight', 'Home', 'Tab', 'Shift+Tab', 'Escape', '?', 'Enter', 'k', 'j', 'l'];

/** mulberry32: a small seeded generator. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function heap(cdp) {
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = await cdp.send('Runtime.getHeapUsage');
  return usedSize;
}

export async function monkey(page, { actions = 300, seed = 2026, log = () => {}, onAction = () => {} } = {}) {
  const next = rng(seed);
  const pick = (list) => list[Math.floor(next() * list.length)];
  const cdp = await page.context().newCDPSession(page);
  const counts = {};
  let heapAfter100 = null;
  // A crashed tab answers nothing, and waiting on it would hang the run: stop and say where.
  let crashedAt = null;
  page.on('crash', () => { crashedAt ??= counts.total ?? 0; });
  // "Try it on a real server" calls whatever server its form names, off this page's origin:
  // not the monkey's ground (its own tests start real servers). Out of reach of clicks and keys.
  const OFF = ':not(#live *)';
  await page.locator('#live').evaluate((e) => { e.inert = true; }).catch(() => {});
  for (let i = 0; i < actions && crashedAt === null; i++) {
    counts.total = i;
    if (i === 100) heapAfter100 = await heap(cdp);
    const kind = pick(['click', 'click', 'click', 'key', 'key', 'drag', 'text', 'fragment']);
    await onAction(i, kind);
    counts[kind] = (counts[kind] ?? 0) + 1;
    try {
      if (kind === 'click') {
        const targets = page.locator(['button', 'label', 'input[type=checkbox]', 'input[type=radio]', 'select', 'a[href^="#"]'].map((t) => `main ${t}${OFF}:visible`).join(', '));
        const n = await targets.count();
        if (n) {
          const el = targets.nth(Math.floor(next() * n));
          if (await el.evaluate((e) => e.tagName === 'SELECT')) {
            const opts = await el.locator('option').evaluateAll((os) => os.map((o) => o.value));
            const o = pick(opts);
            await onAction(i, kind, `select ${o}`);
            await el.selectOption(o, { timeout: 1000 });
          } else {
            await onAction(i, kind, await el.evaluate((e) => `${e.tagName} ${e.dataset.testid ?? ''} ${(e.textContent ?? '').slice(0, 40)}`));
            await el.click({ timeout: 1000 });
          }
        }
      } else if (kind === 'key') {
        const key = pick(KEYS);
        await onAction(i, kind, key);
        await page.keyboard.press(key);
      } else if (kind === 'drag') {
        const ranges = page.locator(`main input[type=range]${OFF}:visible`);
        const n = await ranges.count();
        if (n) {
          const r = ranges.nth(Math.floor(next() * n));
          const [min, max] = await r.evaluate((e) => [Number(e.min), Number(e.max)]);
          const v = String(Math.floor(min + next() * (max - min + 1)));
          await onAction(i, kind, `range ${await r.evaluate((e) => e.dataset.testid ?? e.getAttribute('aria-label'))} = ${v}`);
          await r.fill(v, { timeout: 1000 });
        }
      } else if (kind === 'text') {
        const box = page.getByTestId('ticket-input');
        if (await box.isVisible()) {
          const v = await box.inputValue();
          const at = Math.floor(next() * (v.length + 1));
          const ch = pick(['A', '.', '-', '_', 'é', ' ', '=', '']);
          await box.fill(v.slice(0, at) + ch + v.slice(at + (next() < 0.5 ? 1 : 0)));
        }
      } else {
        const f = pick(FRAGMENTS);
        await onAction(i, kind, f);
        await page.evaluate((h) => { location.hash = h; }, f);
      }
    } catch (e) {
      // A target that vanished or moved mid-action is not a bug of the page; errors are
      // caught by the harness's page-error and console listeners.
      log(`action ${i} (${kind}) skipped: ${String(e.message).split('\n')[0]}`);
    }
  }
  delete counts.total;
  const heapEnd = crashedAt === null ? await heap(cdp) : null;
  return { counts, heapAfter100, heapEnd, crashedAt };
}
