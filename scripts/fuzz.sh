#!/usr/bin/env bash
# Runs each cargo-fuzz target for SECONDS (default 15) from the committed seeds;
# `fuzz.sh check` only compiles them (part of `make lint`).
# Needs the nightly toolchain and cargo-fuzz (scripts/setup.sh installs cargo-fuzz when
# nightly is present); without nightly it says so and skips.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-15}
if ! cargo +nightly --version >/dev/null 2>&1 || ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz: SKIPPED (needs the nightly toolchain and cargo-fuzz)"
  exit 0
fi
if [ "$SECONDS_EACH" = check ]; then
  # Lint: the fuzz crate is its own workspace, so `cargo clippy --workspace` never compiles it;
  # an API change that breaks a target must fail here, not 12 minutes into `make test`.
  echo "fuzz: checking that every target compiles"
  (cd fuzz && cargo +nightly fuzz check)
  exit 0
fi
for target in ticket_open dispatch http_front stdio_front deep_link audit_report inspector_edit histories; do
  mkdir -p "fuzz/corpus/$target"
  echo "fuzz: $target for ${SECONDS_EACH}s"
  (cd fuzz && cargo +nightly fuzz run "$target" "corpus/$target" "seeds/$target" -- \
    -max_total_time="$SECONDS_EACH" -max_len=4096 -print_final_stats=1 2>&1 | tail -n 12)
done
echo "fuzz: no crash"
