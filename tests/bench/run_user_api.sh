#!/bin/sh
# The user API's cost per call, side by side (docs/performance.md, "User API
# (issue 14)"): bench_user_api without offtrace, under `offtrace record` with
# the default buffers, and under `offtrace record` with 64 MiB chunks and a
# 1 GiB budget (the stream's pages ready before they are written: the hot
# path's own cost). Each run is the minimum of ROUNDS rounds of N iterations;
# the three runs are repeated RUNS times, interleaved, and the minimum kept.
#   tests/bench/run_user_api.sh BUILD_DIR [N [ROUNDS [RUNS]]]
set -eu
build=${1:?usage: run_user_api.sh BUILD_DIR [N [ROUNDS [RUNS]]]}
n=${2:-50000}
rounds=${3:-7}
runs=${4:-3}
bench=$build/bin/bench_user_api
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for r in $(seq "$runs"); do
    "$bench" "$n" "$rounds" >>"$work/untraced"
    "$build/bin/offtrace" record -o "$work/a$r" -- "$bench" "$n" "$rounds" >>"$work/traced" 2>/dev/null
    OFFTRACE_BUFFER_SIZE=64M OFFTRACE_MEMORY_BUDGET=1G \
        "$build/bin/offtrace" record -o "$work/b$r" -- "$bench" "$n" "$rounds" >>"$work/ready" 2>/dev/null
    rm -rf "$work/a$r" "$work/b$r"
done
grep -q '^traced: 1' "$work/traced" || { echo "run_user_api.sh: the traced runs were not traced" >&2; exit 1; }
# ns per iteration of one case (the bench's first 34 columns name it), minimum over the runs
best() { awk -v c="$2" 'substr($0, 1, 34) ~ "^" c {v = substr($0, 35) + 0; if (m == "" || v < m) m = v} END {print m}' "$1"; }
printf '%-34s %10s %10s %10s %8s %8s\n' "ns per call pair (per event: /2)" untraced traced "traced*" "ratio" "ratio*"
for c in "empty loop" "region begin\\+end \\(static" "region begin\\+end \\(measurement" \
         "region begin\\+end \\(named" "event begin\\+end" "value"; do
    u=$(best "$work/untraced" "$c"); t=$(best "$work/traced" "$c"); p=$(best "$work/ready" "$c")
    name=$(grep -m1 -E "^$c" "$work/untraced" | cut -c1-34)
    awk -v name="$name" -v u="$u" -v t="$t" -v p="$p" 'BEGIN {
        r = "-"; q = "-"
        if (u > 0.5) { r = sprintf("%.1f", t / u); q = sprintf("%.1f", p / u) }
        printf "%-34s %10.2f %10.2f %10.2f %8s %8s\n", name, u, t, p, r, q }'
done
echo "traced*: OFFTRACE_BUFFER_SIZE=64M OFFTRACE_MEMORY_BUDGET=1G (pages ready: the hot path's own cost)"
