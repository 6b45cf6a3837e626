#!/bin/sh
# Judge here what tests/gpu/run.sh brought back from the GPU machine:
# gpu_check (tests/gpu/gpu_check.c) on every example's archive against its
# own OMPT counter line.
# usage: tests/gpu/check.sh RESULTS_DIR [BUILD_DIR]   (RESULTS_DIR: the unpacked gpu-results)
set -u
RESULTS=${1:?usage: tests/gpu/check.sh RESULTS_DIR [BUILD_DIR]}
BUILD=${2:-build}
failed=0
for d in "$RESULTS"/*/; do
    [ -f "$d/counts" ] && [ -f "$d/trace/traces.otf2" ] || continue
    echo "== $(basename "$d")"
    "$BUILD/bin/gpu_check" "$d/trace" "$d/counts" || failed=$((failed + 1))
done
echo "gpu checks: $failed archive(s) with problems"
[ "$failed" -eq 0 ]
