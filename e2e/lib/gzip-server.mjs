// The release build served as a course host would: under a sub-path, gzipped (level 9),
// hashed files cached for a year and the rest revalidated. Counts what it sends, so a
// measurement can say what a visit downloaded.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { DIST, BASE } from './harness.mjs';

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css', '.svg': 'image/svg+xml', '.json': 'application/json' };

/** Starts the server; `sent` lists each response as { path, bytes } (gzipped body bytes). */
export async function serveGzipped(dir = DIST, base = BASE) {
  const gz = new Map();
  const sent = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    if (!url.pathname.startsWith(base)) { res.writeHead(404).end(); return; }
    const rel = decodeURIComponent(url.pathname.slice(base.length)) || 'index.html';
    const file = path.resolve(dir, rel);
    if (!file.startsWith(path.resolve(dir)) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) { res.writeHead(404).end(); return; }
    if (!gz.has(file)) gz.set(file, zlib.gzipSync(fs.readFileSync(file), { level: 9 }));
    // Hashed names never change: cache them; the page itself is revalidated.
    const hashed = /-[0-9a-f]{16}[._]/.test(rel);
    res.writeHead(200, {
      'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
      'content-encoding': 'gzip',
      'cache-control': hashed ? 'public, max-age=31536000, immutable' : 'no-cache',
    });
    sent.push({ path: rel, bytes: gz.get(file).length });
    res.end(gz.get(file));
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${server.address().port}${base}`;
  return { url, sent, close: () => new Promise((ok) => server.close(ok)) };
}
