#!/bin/bash
# The 16-core machine's run of issue 38's tables, "before" and "after" in one call (docs/performance.md, "bench scale").
#
#   bash bench/device_scale.sh [TREE ...]
#
# From the checkout's root, with .devkit/ made by the device kit's build.sh and carried. For each TREE (default:
# .devkit/before if it is there, then the checkout itself, "."): `python3 -m bench scale` with the sizes below, run
# in that tree through .devkit/run.sh, under `timeout`; its output in $OUT/scale-NAME.txt (NAME: the tree's folder
# name, "after" for "."), its figures in $OUT/scale-NAME.json, run.sh's log in $OUT/NAME/log.txt.
# Make the "before" tree here first, from the bench's commit:
#   rm -rf .devkit/before && mkdir -p .devkit/before && git archive COMMIT | tar -x -C .devkit/before
# SCALE_OPTIONS replaces the sizes; SCALE_LIMIT (seconds, default 255) bounds each tree's run.
set -u
ROOT=$PWD
OUT=${OUT:-$ROOT/.devkit/out}
SIZES=${SCALE_OPTIONS:---bots 2000 --workers 1,2,4,8 --ladder-bots 4000 --hosts 1,2,4 --seconds 10 --warmup 4}
LIMIT=${SCALE_LIMIT:-255}
if [ $# -eq 0 ]; then
  set -- .
  [ -d .devkit/before ] && set -- .devkit/before .
fi
status=0
for tree in "$@"; do
  name=$(basename "$(cd "$tree" && pwd)")
  [ "$tree" = . ] && name=after
  mkdir -p "$OUT/$name"
  echo "device_scale: $tree ($name), at most $LIMIT s: python3 -m bench scale $SIZES"
  # shellcheck disable=SC2086
  (cd "$tree" && OUT=$OUT/$name timeout -k 10 "$LIMIT" bash "$ROOT/.devkit/run.sh" \
     python3 -m bench scale $SIZES --json "$OUT/scale-$name.json") > "$OUT/scale-$name.txt" 2>&1 || status=$?
  tail -n 40 "$OUT/scale-$name.txt"
done
exit "$status"
