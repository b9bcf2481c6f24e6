#!/usr/bin/env bash
# Prints what a visitor downloads: each file of the build, raw and gzip -9, then two totals:
# the first load (the page and the first module) and what follows once the page is
# interactive (the second module, mrtr-lab-more*, and the service worker).
set -euo pipefail
DIR=${1:-dist}
first_raw=0; first_gz=0; later_raw=0; later_gz=0
printf '%-48s %10s %10s\n' file raw gzip
for f in "$DIR"/*; do
  [ -f "$f" ] || continue
  name=$(basename "$f")
  raw=$(stat -c %s "$f"); gz=$(gzip -9c "$f" | wc -c)
  case "$name" in
    mrtr-lab-more*|sw.js) later_raw=$((later_raw + raw)); later_gz=$((later_gz + gz)) ;;
    *) first_raw=$((first_raw + raw)); first_gz=$((first_gz + gz)) ;;
  esac
  printf '%-48s %10d %10d\n' "$name" "$raw" "$gz"
done
printf '%-48s %10d %10d\n' 'FIRST LOAD' "$first_raw" "$first_gz"
printf '%-48s %10d %10d\n' 'AFTER IT (second module, service worker)' "$later_raw" "$later_gz"
