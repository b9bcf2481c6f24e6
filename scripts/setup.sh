#!/usr/bin/env bash
# Installs what the build and the tests need, and only what is missing. Idempotent: when
# everything is present it only checks versions (a few seconds).
#   wasm32 target · Trunk 0.21.14 · wasm-bindgen-cli = Cargo.lock's wasm-bindgen
#   wasm-opt from npm binaryen@132 (Debian's binaryen 108 breaks the page) into tools/
#   Debian chromium + chromium-driver · Playwright (playwright-core, no browser download) in e2e/
#   Debian protobuf-compiler (protoc: the etcd client's build generates its gRPC code)
#   Debian nginx + redis-server + etcd (the two-replica cluster; installed, never started as services)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export PATH="$ROOT/tools/node_modules/.bin:$HOME/.cargo/bin:$PATH"
TRUNK_VERSION=0.21.14
BINARYEN_VERSION=132
say() { printf '[setup] %s\n' "$*"; }

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

if ! command -v protoc >/dev/null; then
  say "installing Debian's protobuf-compiler (the etcd client crate generates its gRPC code with protoc)"
  if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq protobuf-compiler >/dev/null
fi

if [ "$(trunk --version 2>/dev/null || true)" != "trunk $TRUNK_VERSION" ]; then
  say "installing trunk $TRUNK_VERSION (a few minutes, once)"
  cargo install --locked "trunk@$TRUNK_VERSION"
fi

WB_VERSION=$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/"/,"",$3); print $3; exit}' Cargo.lock)
if [ "$(wasm-bindgen --version 2>/dev/null || true)" != "wasm-bindgen $WB_VERSION" ]; then
  say "installing wasm-bindgen-cli $WB_VERSION (without --locked: a locked dependency is missing from the registry)"
  cargo install --force "wasm-bindgen-cli@$WB_VERSION"
fi

if [ "$("$ROOT/tools/node_modules/.bin/wasm-opt" --version 2>/dev/null | awk '{print $3}')" != "$BINARYEN_VERSION" ]; then
  say "installing wasm-opt from npm binaryen@$BINARYEN_VERSION into tools/"
  mkdir -p tools
  [ -f tools/package.json ] || echo '{"name":"mrtr-lab-tools","private":true}' > tools/package.json
  npm install --prefix tools --no-audit --no-fund --loglevel=error "binaryen@$BINARYEN_VERSION"
fi

if cargo +nightly --version >/dev/null 2>&1 && ! cargo fuzz --version >/dev/null 2>&1; then
  say "installing cargo-fuzz (nightly is present)"
  cargo install --locked cargo-fuzz@0.13.2
fi

if [ "${SKIP_BROWSER:-}" != 1 ]; then
  if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    say "installing Debian chromium and chromium-driver"
    if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver >/dev/null
  fi
  LOCK_SUM=$(sha256sum e2e/package-lock.json | cut -d' ' -f1)
  if [ "$(cat e2e/node_modules/.lock-sum 2>/dev/null || true)" != "$LOCK_SUM" ]; then
    say "installing Playwright (playwright-core: no browser download) into e2e/"
    (cd e2e && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)
    echo "$LOCK_SUM" > e2e/node_modules/.lock-sum
  fi
fi
[ "${SKIP_CLUSTER:-}" = 1 ] || scripts/cluster.sh install
say "ready"
