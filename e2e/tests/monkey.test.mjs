// The monkey at a small count (the full 2 000 runs in `make bench`): no page error, no
// console error, no crash, and the heap does not grow past 5 MB over the run. (At 400 it
// passes action 327, where content-visibility once made the tab crash.)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, waitForApp } from '../lib/harness.mjs';
import { monkey } from '../monkey.mjs';

let site, browser;
before(async () => { site = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

test('400 random actions with a fixed seed break nothing', { timeout: 300000 }, async () => {
  const { page, context, problems } = await open(browser, site);
  await waitForApp(page);
  // Downloads and new windows are not what this test is about.
  page.on('popup', (p) => p.close());
  const r = await monkey(page, { actions: Number(process.env.MONKEY_ACTIONS ?? 400), seed: 2026 });
  assert.deepEqual(problems, []);
  assert.equal(await page.locator('#fatal-error').count(), 0);
  const growth = (r.heapEnd - r.heapAfter100) / 1e6;
  assert.ok(growth < 5, `heap grew ${growth.toFixed(2)} MB`);
  console.log(`monkey: ${JSON.stringify(r.counts)}; heap after 100 actions ${(r.heapAfter100 / 1e6).toFixed(2)} MB, at the end ${(r.heapEnd / 1e6).toFixed(2)} MB`);
  await context.close();
});
