#!/bin/sh
# The cost of an NVTX push/pop pair, untraced (NVTX a no-op) and under
# `offtrace record`, interleaved ROUNDS times; medians (docs/performance.md,
# "NVTX (issue 14)").
# Usage: tests/bench/run_nvtx.sh BUILD_DIR [ROUNDS] [PAIRS]
set -eu
build=${1:?usage: run_nvtx.sh BUILD_DIR [ROUNDS] [PAIRS]}
rounds=${2:-9}
pairs=${3:-200000}
bench="$build/tests/bench/bench_nvtx"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for r in $(seq "$rounds"); do
    "$bench" "$pairs" >>"$out/untraced"
    "$build/bin/offtrace" record -o "$out/trace" "$bench" "$pairs" >>"$out/traced" 2>/dev/null
    rm -rf "$out/trace"
done
median() { grep "^$1 " "$2" | awk '{print $2}' | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
printf '%-24s %10s %10s %8s\n' "ns per pair" untraced traced ratio
for k in pushA_pop_ns pushEx_pop_ns pushA_changing_text_ns; do
    u=$(median "$k" "$out/untraced"); t=$(median "$k" "$out/traced")
    printf '%-24s %10s %10s %8.1f\n' "$k" "$u" "$t" "$(echo "$t $u" | awk '{print $1 / $2}')"
done
