#!/usr/bin/env bash
# Prints what a visitor downloads on first load: each file of the build, raw and gzip -9.
set -euo pipefail
DIR=${1:-dist}
total_raw=0; total_gz=0
printf '%-48s %10s %10s\n' file raw gzip
for f in "$DIR"/*; do
  [ -f "$f" ] || continue
  raw=$(stat -c %s "$f"); gz=$(gzip -9c "$f" | wc -c)
  total_raw=$((total_raw + raw)); total_gz=$((total_gz + gz))
  printf '%-48s %10d %10d\n' "$(basename "$f")" "$raw" "$gz"
done
printf '%-48s %10d %10d\n' TOTAL "$total_raw" "$total_gz"
