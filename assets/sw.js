// MRTR Lab's service worker: once the page has loaded, it keeps working offline.
// Network first (so a new build is picked up at once), the cache as the fallback. On install
// it caches the page and every file the page names, since those loaded before it took over.
// The implementers' tools' module is not among them (index.html names it another way): it
// is cached when a reader first opens the tools, so a first visit never downloads it.
const CACHE = 'mrtr-lab-v1';

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    const page = await fetch('./', { cache: 'no-cache' });
    if (!page.ok) return;
    await cache.put('./', page.clone());
    const html = await page.text();
    const files = new Set(html.match(/\.\/[A-Za-z0-9._-]+\.(?:js|wasm|css|svg)/g) ?? []);
    await Promise.all([...files].map((f) => cache.add(f).catch(() => {})));
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) if (name !== CACHE) await caches.delete(name);
    await self.clients.claim();
  })());
});

self.addEventListener('fetch', (event) => {
  const req = event.request;
  const url = new URL(req.url);
  if (req.method !== 'GET' || url.origin !== self.location.origin) return;
  event.respondWith((async () => {
    try {
      const res = await fetch(req);
      if (res.ok) {
        const copy = res.clone();
        caches.open(CACHE).then((c) => c.put(req, copy));
      }
      return res;
    } catch (err) {
      const cached = (await caches.match(req, { ignoreSearch: true })) ?? (req.mode === 'navigate' ? await caches.match('./') : undefined);
      if (cached) return cached;
      throw err;
    }
  })());
});
