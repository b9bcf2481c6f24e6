// The end-to-end harness: serves the release build under a sub-path with a plain static
// server, opens it in Debian's Chromium, and records everything that would mean a broken
// page: page errors, console errors, failed requests, and requests outside the sub-path.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
export const DIST = process.env.DIST ?? path.resolve(here, '../../dist');
export const BASE = '/course/mrtr/';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.wasm': 'application/wasm',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
};

/** Serves `dir` at `base` on 127.0.0.1; anything else is a 404 and is recorded. */
export async function serve(dir = DIST, base = BASE) {
  const requests = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    requests.push(url.pathname);
    if (!url.pathname.startsWith(base)) {
      res.writeHead(404).end('outside the sub-path');
      return;
    }
    let rel = decodeURIComponent(url.pathname.slice(base.length)) || 'index.html';
    const file = path.resolve(dir, rel);
    if (!file.startsWith(path.resolve(dir)) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return { origin, url: origin + base, requests, close: () => new Promise((ok) => server.close(ok)) };
}

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--no-first-run', '--disable-sync', '--disable-quic'],
  });
}

/** Opens a page that records every sign of trouble in `problems`. */
export async function open(browser, site, { path: sub = '', colorScheme = 'light', viewport = { width: 1280, height: 900 }, reducedMotion = 'no-preference', hasTouch = false, serviceWorkers = 'allow' } = {}) {
  const context = await browser.newContext({ colorScheme, viewport, reducedMotion, hasTouch, serviceWorkers });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('crash', () => problems.push('the tab crashed (its renderer died)'));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  // ERR_ABORTED only means the page navigated away mid-request (a reload); every other failure counts.
  page.on('requestfailed', (r) => { if (r.failure()?.errorText !== 'net::ERR_ABORTED') problems.push(`request failed: ${r.url()} (${r.failure()?.errorText})`); });
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
  page.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(site.url) && !u.startsWith('data:') && !u.startsWith('blob:')) problems.push(`request outside ${BASE}: ${u}`);
  });
  await page.goto(site.url + sub);
  return { page, context, problems };
}

/** Waits until the app has rendered real content: the title and a caption from the core's trace. */
export async function waitForFirstScreen(page, timeout = 15000) {
  await page.getByTestId('title').waitFor({ timeout });
  await page.getByTestId('caption').locator('h3').filter({ hasText: /\S/ }).first().waitFor({ timeout });
}

/** Waits until every widget the page shows is in its place (they mount once the page is idle). */
export async function waitForLater(page, timeout = 15000) {
  await page.waitForFunction(() => document.documentElement.dataset.widgets === 'ready', null, { timeout });
}

/** Waits until the address bar matches `re`: the page writes it soon after each change (at most
 *  every 150 ms, the last state always), not on every event. Returns the URL. */
export async function urlSoon(page, re, timeout = 3000) {
  await page.waitForFunction((src) => new RegExp(src).test(location.href), re.source, { timeout }).catch(() => {});
  return page.url();
}

/** The whole page: the round trip and every widget below it. */
export async function waitForApp(page, timeout = 15000) {
  await waitForFirstScreen(page, timeout);
  await waitForLater(page, timeout);
}
