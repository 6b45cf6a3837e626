#!/bin/sh
# The cost of an NVTX push/pop pair, untraced (NVTX a no-op), under
# `offtrace record`, and under `offtrace record --start-paused` (recording
# off: the text lookup and the checks, no record), interleaved ROUNDS times;
# medians (docs/performance.md, "NVTX (issue 14)").
# Usage: tests/bench/run_nvtx.sh BUILD_DIR [ROUNDS] [PAIRS]
set -eu
build=${1:?usage: run_nvtx.sh BUILD_DIR [ROUNDS] [PAIRS]}
rounds=${2:-9}
pairs=${3:-200000}
bench="$build/bin/bench_nvtx"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for r in $(seq "$rounds"); do
    "$bench" "$pairs" >>"$out/untraced"
    "$build/bin/offtrace" record -o "$out/trace" "$bench" "$pairs" >>"$out/traced" 2>/dev/null
    rm -rf "$out/trace"
    "$build/bin/offtrace" record --start-paused -o "$out/trace" "$bench" "$pairs" >>"$out/paused" 2>/dev/null
    rm -rf "$out/trace"
done
median() { grep "^$1 " "$2" | awk '{print $2}' | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
minimum() { grep "^$1 " "$2" | awk '{print $2}' | sort -n | head -1; }
printf '%-24s %10s %10s %8s %10s %12s\n' "ns per pair" untraced traced ratio paused "traced (min)"
for k in pushA_pop_ns pushEx_pop_ns pushA_changing_text_ns; do
    u=$(median "$k" "$out/untraced"); t=$(median "$k" "$out/traced"); p=$(median "$k" "$out/paused")
    printf '%-24s %10s %10s %8.1f %10s %12s\n' "$k" "$u" "$t" "$(echo "$t $u" | awk '{print $1 / $2}')" "$p" \
        "$(minimum "$k" "$out/traced")"
done
