#!/bin/sh
# What a filtered region costs (issue 14; docs/performance.md "Filters"):
# bench_filter untraced, then under `offtrace record --filter` removing the
# region "filtered" and the masked construct of filter_bench_removed.c.
#   usage: tests/bench/run_filter.sh [BUILD_DIR] [N] [ROUNDS]
set -eu
build=${1:-build}
n=${2:-200000}
rounds=${3:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'exclude region filtered\nexclude file filter_bench_removed.c\n' > "$work/bench.flt"
echo "== untraced"
OMP_NUM_THREADS=1 "$build/bin/bench_filter" "$n" "$rounds"
echo "== traced (offtrace record --filter, OFFTRACE_HOST_OPENMP=loops)"
OMP_NUM_THREADS=1 "$build/bin/offtrace" record --filter "$work/bench.flt" -o "$work/run" \
    "$build/bin/bench_filter" "$n" "$rounds" 2>"$work/summary"
grep 'filter ' "$work/summary"
