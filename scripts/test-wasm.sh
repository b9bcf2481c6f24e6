#!/usr/bin/env bash
# Component tests in headless Chromium through chromedriver. The tests run in a session of
# their own, and when they end, the whole session is stopped by its ID: a test that hangs can
# leave Chromium renderers behind when the runner stops chromedriver, and they would eat the
# cores of everything after. Only what this script started is stopped.
set -u
setsid cargo test --target wasm32-unknown-unknown --test web --test page --test panic "$@" &
session=$!
trap 'kill -- -"$session" 2>/dev/null' INT TERM
wait "$session"
status=$?
kill -- -"$session" 2>/dev/null || true
exit "$status"
