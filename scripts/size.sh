#!/usr/bin/env bash
# Prints what a visitor downloads: each file of the build, raw and gzip -9, the whole site, and
# the site split as the page loads it: the lesson (every visit) and the implementers' tools
# (their module and the audit's sample report, fetched only when those sections are opened).
# What a first visit really fetches (the service worker's install included) is measured by
# e2e/first-visit.mjs in make bench.
set -euo pipefail
DIR=${1:-dist}
raw_total=0; gz_total=0; tools_raw=0; tools_gz=0
printf '%-48s %10s %10s\n' file raw gzip
for f in "$DIR"/*; do
  [ -f "$f" ] || continue
  raw=$(stat -c %s "$f"); gz=$(gzip -9c "$f" | wc -c)
  raw_total=$((raw_total + raw)); gz_total=$((gz_total + gz))
  case "$(basename "$f")" in mrtr-lab-tools*|audit-sample.json) tools_raw=$((tools_raw + raw)); tools_gz=$((tools_gz + gz)) ;; esac
  printf '%-48s %10d %10d\n' "$(basename "$f")" "$raw" "$gz"
done
printf '%-48s %10d %10d\n' 'WHOLE SITE' "$raw_total" "$gz_total"
printf '%-48s %10d %10d\n' '  the lesson (every visit)' "$((raw_total - tools_raw))" "$((gz_total - tools_gz))"
printf '%-48s %10d %10d\n' '  the implementers'"'"' tools (when opened)' "$tools_raw" "$tools_gz"
