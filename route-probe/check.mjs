// The probe's figures count only if both routes work: in each site, the widget takes input
// (Next moves to step 2 of 6) and the page logs no error. Usage: node check.mjs SITES_DIR
import path from 'node:path';
import { serve, launch, open } from '../e2e/lib/harness.mjs';

const sites = process.argv[2];
const browser = await launch();
let failed = false;
try {
  for (const route of ['mount', 'hydrate']) {
    const site = await serve(path.join(sites, route));
    const { page, context, problems } = await open(browser, site);
    const status = page.locator('.controls span');
    // Until the wasm has taken over, Next does nothing: keep pressing until the step moves.
    let moved = false;
    for (let i = 0; i < 100 && !moved; i++) {
      if ((await status.count()) > 0) {
        await page.getByRole('button', { name: 'Next' }).click();
        moved = (await status.textContent()) === 'Step 2 of 6';
      }
      if (!moved) await page.waitForTimeout(100);
    }
    const ok = moved && problems.length === 0;
    failed ||= !ok;
    console.log(`${route}: ${ok ? 'works' : 'BROKEN'} (Next ${moved ? 'moved to step 2 of 6' : 'never moved'}${problems.length ? '; ' + problems.join('; ') : ''})`);
    await context.close();
    await site.close();
  }
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
