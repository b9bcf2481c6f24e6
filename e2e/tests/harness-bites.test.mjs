// Proof that the harness bites: deliberately broken copies of the build must be caught.
// If any of these passes as healthy, the smoke tests above prove nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DIST, serve, launch, open, waitForApp } from '../lib/harness.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

function brokenCopy(breakIt) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mrtr-broken-'));
  fs.cpSync(DIST, dir, { recursive: true });
  breakIt(dir);
  return dir;
}

async function verdictOf(dir) {
  const site = await serve(dir);
  try {
    const { page, context, problems } = await open(browser, site);
    let rendered = true;
    try { await waitForApp(page, 4000); } catch { rendered = false; }
    await context.close();
    return { rendered, problems };
  } finally {
    await site.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('a truncated wasm module is caught', async () => {
  const dir = brokenCopy((d) => {
    const wasm = fs.readdirSync(d).find((f) => f.endsWith('.wasm'));
    const p = path.join(d, wasm);
    fs.writeFileSync(p, fs.readFileSync(p).subarray(0, 1000));
  });
  const { rendered, problems } = await verdictOf(dir);
  assert.equal(rendered, false);
  assert.ok(problems.length > 0, 'no problem was recorded');
});

test('a page that never starts the app (blank page) is caught', async () => {
  const dir = brokenCopy((d) => {
    const p = path.join(d, 'index.html');
    // Without its scripts the page never starts a module.
    fs.writeFileSync(p, fs.readFileSync(p, 'utf8').replace(/<script[^>]*>[\s\S]*?<\/script>/g, ''));
  });
  const { rendered } = await verdictOf(dir);
  assert.equal(rendered, false);
});

test('a missing stylesheet (request failure) is caught', async () => {
  const dir = brokenCopy((d) => {
    fs.rmSync(path.join(d, fs.readdirSync(d).find((f) => f.endsWith('.css'))));
  });
  const { problems } = await verdictOf(dir);
  assert.ok(problems.some((p) => p.includes('404') || p.includes('failed')), problems.join('\n'));
});

test('a request outside the sub-path is caught', async () => {
  const dir = brokenCopy((d) => {
    const p = path.join(d, 'index.html');
    fs.writeFileSync(p, fs.readFileSync(p, 'utf8').replace('</head>', '<link rel="stylesheet" href="/elsewhere.css"></head>'));
  });
  const { problems } = await verdictOf(dir);
  assert.ok(problems.some((p) => p.includes('outside')), problems.join('\n'));
});
