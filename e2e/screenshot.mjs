// Screenshots of the release build for a human to look at: 1280 px and 375 px, light and
// dark. Usage: node screenshot.mjs [OUTDIR]  (default ../target/screenshots)
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch, open, waitForApp } from './lib/harness.mjs';

const out = path.resolve(process.argv[2] ?? new URL('../target/screenshots', import.meta.url).pathname);
fs.mkdirSync(out, { recursive: true });
const site = await serve();
const browser = await launch();
try {
  const states = { start: '', end: '#w=roundtrip&step=5', tampered: '#w=roundtrip&end=tampered&step=5', bench: '#w=bench&move=alice&predict=0' };
  for (const [name, hash] of Object.entries(states)) for (const width of [1280, 375]) {
    for (const colorScheme of ['light', 'dark']) {
      const { page, context, problems } = await open(browser, site, { colorScheme, viewport: { width, height: 900 }, path: hash });
      await waitForApp(page);
      const file = path.join(out, `${name}-${width}-${colorScheme}.png`);
      await page.screenshot({ path: file, fullPage: true });
      console.log(file, problems.length ? `PROBLEMS: ${problems.join('; ')}` : 'clean');
      await context.close();
    }
  }
} finally {
  await browser.close();
  await site.close();
}
