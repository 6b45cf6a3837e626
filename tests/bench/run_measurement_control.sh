#!/bin/sh
# Cost per empty target region and per empty host parallel region (1
# thread): no tool, offtrace recording on, offtrace recording off
# (omp_control_tool pause), interleaved ROUNDS times; the median of each.
#   tests/bench/run_measurement_control.sh BUILD_DIR [ROUNDS] [REGIONS]
set -eu
build=${1:?usage: run_measurement_control.sh BUILD_DIR [ROUNDS] [REGIONS]}
rounds=${2:-7}
regions=${3:-20000}
bench=$build/bin/bench_control
[ -x "$bench" ] || bench=$(find "$build" -name bench_control -type f | head -1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for r in $(seq "$rounds"); do
    OMP_NUM_THREADS=2 "$bench" on "$regions" >>"$work/none"
    OMP_NUM_THREADS=2 "$build/bin/offtrace" record -o "$work/on$r" -- "$bench" on "$regions" >>"$work/on" 2>/dev/null
    OMP_NUM_THREADS=2 "$build/bin/offtrace" record -o "$work/off$r" -- "$bench" off "$regions" >>"$work/off" 2>/dev/null
    rm -rf "$work/on$r" "$work/off$r"
done
median() { sed -n "s/.*$2=\([0-9]*\).*/\1/p" "$1" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
printf '%-22s %12s %14s\n' "" "target (ns)" "parallel (ns)"
for mode in none on off; do
    printf '%-22s %12s %14s\n' "$mode" "$(median "$work/$mode" target_ns)" "$(median "$work/$mode" parallel_ns)"
done
