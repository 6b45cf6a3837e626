#!/bin/sh
# The CG target of issue 5 ("under 3 % on the CG example"): the solver time
# CG reports itself (its `target data` region; start-up and the archive
# written at exit are outside it), for no tool, the do-nothing OMPT tool,
# offtrace host-only and offtrace with device detail, at several problem
# sizes. Configurations are interleaved round by round in a rotating order,
# with a sync after each traced run; median and fastest round are reported.
#   usage: tests/bench/run_cg.sh [BUILD_DIR] [ROUNDS] [SIZES]
#   SIZES: grid:iterations pairs, default "32:50 64:200 256:200 512:50"
set -eu
BUILD=${1:-build}
ROUNDS=${2:-21}
SIZES=${3:-"32:50 64:200 256:200 512:50"}
CG="$BUILD/bin/example_cg"
NULL_TOOL="$(realpath "$BUILD/lib/libofftrace_bench_null_tool.so")"
HOST_LIB="$(realpath "$BUILD/lib/libofftrace.so")"
DEVICE_LIB="$(realpath "$BUILD/lib/libofftrace-device.so")"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

config_env() {
    case $1 in
    none) echo "OMP_TOOL=disabled" ;;
    null) echo "OMP_TOOL_LIBRARIES=$NULL_TOOL" ;;
    host) echo "OMP_TOOL_LIBRARIES=$HOST_LIB OFFTRACE_OUTPUT=$TMP/t OFFTRACE_VERBOSE=0" ;;
    device) echo "OMP_TOOL_LIBRARIES=$HOST_LIB LD_PRELOAD=$DEVICE_LIB OFFTRACE_OUTPUT=$TMP/t OFFTRACE_VERBOSE=0" ;;
    esac
}
. "$(dirname "$0")/bench_lib.sh"
r=0
while [ $r -lt "$ROUNDS" ]; do
    for size in $SIZES; do
        for c in $(rotate $r none null host device); do
            # shellcheck disable=SC2046
            cg_solver_time "$TMP/$size.$c" $(config_env $c) "$CG" "${size%:*}" "${size#*:}"
        done
    done
    r=$((r + 1))
done
stat() { if [ "$1" = min ]; then minimum "$2"; else median "$2"; fi; }
echo "| CG grid x iterations | kernels | no tool, ms | do-nothing tool | host-only | device detail | host-only, fastest rounds | device detail, fastest rounds |"
echo "|---|---|---|---|---|---|---|---|"
for size in $SIZES; do
    kernels=$((${size#*:} * 6 + 2))
    awk -v l="${size%:*} x ${size#*:}" -v k="$kernels" \
        -v n="$(stat median "$TMP/$size.none")" -v z="$(stat median "$TMP/$size.null")" \
        -v h="$(stat median "$TMP/$size.host")" -v d="$(stat median "$TMP/$size.device")" \
        -v nm="$(stat min "$TMP/$size.none")" -v hm="$(stat min "$TMP/$size.host")" -v dm="$(stat min "$TMP/$size.device")" \
        'BEGIN {printf "| %s | %d | %.2f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", l, k, n * 1000, z / n, h / n, d / n, hm / nm, dm / nm}'
done
echo
echo "Ratios of CG's own solver time to no tool's (median of $ROUNDS rounds, and fastest round to fastest round); machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +%Y-%m-%d)"
