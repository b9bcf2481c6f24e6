# MRTR Lab. Quick start: `make serve`, `make test`. Every target installs what it is missing.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
export PATH := $(CURDIR)/tools/node_modules/.bin:$(HOME)/.cargo/bin:$(PATH)
export CHROMEDRIVER ?= /usr/bin/chromedriver
PUBLIC_URL ?= ./

.PHONY: setup serve dist scorm lint test test-native test-wasm test-e2e test-cluster interop bench fuzz-smoke fuzz screenshots cluster cluster-stop clean

setup:
	@scripts/setup.sh

## Builds (debug) and serves the app at http://127.0.0.1:8080/ with live reload.
serve: setup
	trunk serve --open=false

## Builds the release site into dist/ (works under any sub-path) and prints its size.
dist: setup
	trunk build --release --public-url $(PUBLIC_URL)
	@scripts/size.sh dist

## The release site as a SCORM 1.2 package for course platforms: dist-scorm/mrtr-lab-scorm12.zip.
scorm: setup
	scripts/scorm.sh

lint: setup
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings
	cargo clippy -p mrtr-lab --target wasm32-unknown-unknown --all-targets -- -D warnings
	@scripts/fuzz.sh check

test-native:
	cargo test --workspace

test-wasm: setup
	scripts/test-wasm.sh

test-e2e: dist
	cd e2e && npm test

## Fault tests of two real replicas behind nginx with a Redis or etcd memory of redemptions (loopback only).
test-cluster: setup
	cargo test -p mrtr-native --test cluster --test faults -- --ignored --test-threads=1 --nocapture

## Starts the memory of redemptions, two replicas and nginx on loopback (http://127.0.0.1:8380/mcp);
## stop with `make cluster-stop`. STORE=redis (one Redis, the default), STORE=sentinel (a Redis
## primary, its asynchronous replica and a Sentinel) or STORE=etcd (three etcd members). CORS_ORIGIN="ORIGIN …": web pages that may call it (each replica's --cors-origin).
STORE ?= redis
cluster: setup
	cargo build -q --profile speed -p mrtr-native --bin mrtr-server --bin mrtr-client
	MRTR_CLUSTER_STORE="$(STORE)" MRTR_CLUSTER_CORS_ORIGIN="$(CORS_ORIGIN)" scripts/cluster.sh start

cluster-stop:
	scripts/cluster.sh stop

## Interop with real peers: conformance suite, TypeScript and Python SDKs (installs them into .cache/peers).
interop: setup dist
	scripts/interop.sh

## Figures, not tests: the page (Lighthouse, size, long tasks, monkey), then ticket round trips
## per second against mrtr-server, the cluster and the SDK servers.
bench: setup
	scripts/bench.sh

## A short fuzz run of every fuzz target, 10 s each (nightly + cargo-fuzz).
fuzz-smoke: setup
	@scripts/fuzz.sh 10

## A longer fuzz run: FUZZ_SECONDS per target (default 300).
fuzz: setup
	@scripts/fuzz.sh $${FUZZ_SECONDS:-300}

## Everything: lint, native tests, a short fuzz run, component tests in Chromium, end-to-end tests of the
## release build, the two-replica fault tests, interop with real MCP peers.
test: setup lint test-native fuzz-smoke test-wasm test-e2e test-cluster interop
	@echo "make test: all suites passed"

## Screenshots of the release build at 1280/375 px, light/dark, into target/screenshots/.
screenshots: dist
	cd e2e && node screenshot.mjs

clean:
	cargo clean
	rm -rf dist
