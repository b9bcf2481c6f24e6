#!/usr/bin/env bash
# Prints what a visitor downloads: each file of the build, raw and gzip -9, and the whole site.
set -euo pipefail
DIR=${1:-dist}
raw_total=0; gz_total=0
printf '%-48s %10s %10s\n' file raw gzip
for f in "$DIR"/*; do
  [ -f "$f" ] || continue
  raw=$(stat -c %s "$f"); gz=$(gzip -9c "$f" | wc -c)
  raw_total=$((raw_total + raw)); gz_total=$((gz_total + gz))
  printf '%-48s %10d %10d\n' "$(basename "$f")" "$raw" "$gz"
done
printf '%-48s %10d %10d\n' 'WHOLE SITE' "$raw_total" "$gz_total"
