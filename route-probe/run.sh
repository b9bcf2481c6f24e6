#!/usr/bin/env bash
# make route-probe: builds the probe's widget both ways and runs Lighthouse (mobile and desktop,
# RUNS runs each) on each site, served like the page (sub-path, gzip). Prints the sizes and the
# medians. Figures, not a test.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
runs=${1:-3}
export CARGO_TARGET_DIR="$root/target/route-probe"
sites="$CARGO_TARGET_DIR/sites"
wasm_opt="$root/tools/node_modules/.bin/wasm-opt"
rm -rf "$sites" && mkdir -p "$sites"
cd "$here"

build_site() { # route feature widget-html
  local route=$1 feature=$2 widget=$3 out="$sites/$1" tmp="$CARGO_TARGET_DIR/bindgen-$1"
  cargo build -q --offline --release --target wasm32-unknown-unknown --features "$feature" --bin route-probe
  rm -rf "$tmp" && mkdir -p "$tmp" "$out"
  wasm-bindgen --target web --no-typescript --out-dir "$tmp" "$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/route-probe.wasm"
  "$wasm_opt" -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals \
    --enable-reference-types --enable-multivalue "$tmp/route-probe_bg.wasm" -o "$tmp/opt.wasm"
  local hash; hash=$(cat "$tmp/opt.wasm" "$tmp/route-probe.js" | sha256sum | cut -c1-16)
  cp "$tmp/opt.wasm" "$out/probe-${hash}_bg.wasm"
  cp "$tmp/route-probe.js" "$out/probe-${hash}.js"
  WIDGET="$widget" JS="probe-${hash}.js" WASM="probe-${hash}_bg.wasm" python3 - "$here/page.html" "$out/index.html" <<'PY'
import os, sys
page = open(sys.argv[1]).read()
for key in ("WIDGET", "JS", "WASM"):
    page = page.replace("{{%s}}" % key, os.environ[key])
open(sys.argv[2], "w").write(page)
PY
  local raw=0 gz=0 f
  for f in "$out"/*; do raw=$((raw + $(stat -c%s "$f"))); gz=$((gz + $(gzip -9c "$f" | wc -c))); done
  printf '%-8s site %4d KB gzip (raw %4d KB); wasm %4d KB gzip; page %3d KB gzip\n' "$route" $((gz / 1024)) $((raw / 1024)) \
    $(( $(gzip -9c "$out"/*.wasm | wc -c) / 1024 )) $(( $(gzip -9c "$out/index.html" | wc -c) / 1024 ))
}

echo "route-probe: the honest round trip, mounted after the first paint (the page's route) or rendered ahead and hydrated"
build_site mount csr '<p class="starting">Starting the round trip…</p>'
# The same renderer settings as the browser build (.cargo/config.toml erases component types there).
html=$(RUSTFLAGS="--cfg=erase_components" cargo run -q --offline --release --features ssr --bin prerender)
build_site hydrate hydrate "$html"

# The figures count only if both routes work.
node "$here/check.mjs" "$sites"

lh=${LIGHTHOUSE_DIR:-$root/target/lighthouse}
if [ ! -x "$lh/node_modules/.bin/lighthouse" ]; then
  mkdir -p "$lh" && (cd "$lh" && echo '{"private":true}' > package.json && npm install -E --no-audit --no-fund --loglevel=error lighthouse@12.2.3 >/dev/null)
fi
cd "$root/e2e"
for route in mount hydrate; do
  echo "== $route"
  DIST="$sites/$route" LIGHTHOUSE_DIR="$lh" CHROME_PATH="${CHROME_PATH:-/usr/bin/chromium}" \
    node lighthouse.mjs "$runs" | grep '^lighthouse'
done
