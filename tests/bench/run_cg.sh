#!/bin/sh
# The CG target of issue 5 ("under 3 % on the CG example"): the solver time
# CG reports itself (its `target data` region; start-up and the archive
# written at exit are outside it), for no tool, the do-nothing OMPT tool,
# offtrace host-only and offtrace with device detail, at several problem
# sizes. Configurations are interleaved round by round in a rotating order,
# with a sync after each traced run; median and fastest round are reported.
#   usage: tests/bench/run_cg.sh [BUILD_DIR] [ROUNDS] [SIZES]
#   SIZES: grid:iterations pairs, default "32:50 64:200 256:200 512:50"
#   CG_CONFIGS: the configurations, default "none null host device"; also, for a
#   GPU, device-flush-every-target (OFFTRACE_CUPTI_FLUSH_INTERVAL_MS=0),
#   cupti-floor and cupti-kernels (host-only with CUPTI alone preloaded, every kind
#   the backend enables or kernels only: cupti_floor.c)
set -eu
BUILD=${1:-build}
ROUNDS=${2:-21}
SIZES=${3:-"32:50 64:200 256:200 512:50"}
CG="$BUILD/bin/example_cg"
NULL_TOOL="$(realpath "$BUILD/lib/libofftrace_bench_null_tool.so")"
HOST_LIB="$(realpath "$BUILD/lib/libofftrace.so")"
DEVICE_LIB="$(realpath "$BUILD/lib/libofftrace-device.so")"
CONFIGS=${CG_CONFIGS:-none null host device}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

config_env() {
    case $1 in
    none) echo "OMP_TOOL=disabled" ;;
    null) echo "OMP_TOOL_LIBRARIES=$NULL_TOOL" ;;
    host) echo "OMP_TOOL_LIBRARIES=$HOST_LIB OFFTRACE_OUTPUT=$TMP/t OFFTRACE_VERBOSE=0" ;;
    device) echo "OMP_TOOL_LIBRARIES=$HOST_LIB LD_PRELOAD=$DEVICE_LIB OFFTRACE_OUTPUT=$TMP/t OFFTRACE_VERBOSE=0" ;;
    device-flush-every-target) echo "$(config_env device) OFFTRACE_CUPTI_FLUSH_INTERVAL_MS=0" ;;
    cupti-floor) echo "$(config_env host) LD_PRELOAD=$(realpath "$BUILD/lib/libofftrace_bench_cupti_floor.so")" ;;
    cupti-kernels) echo "$(config_env cupti-floor) OFFTRACE_BENCH_CUPTI_KINDS=kernels" ;;
    esac
}
. "$(dirname "$0")/bench_lib.sh"
r=0
while [ $r -lt "$ROUNDS" ]; do
    for size in $SIZES; do
        # shellcheck disable=SC2086
        for c in $(rotate $r $CONFIGS); do
            # shellcheck disable=SC2046
            cg_solver_time "$TMP/$size.$c" $(config_env $c) "$CG" "${size%:*}" "${size#*:}"
        done
    done
    r=$((r + 1))
done
stat() { if [ "$1" = min ]; then minimum "$2"; else median "$2"; fi; }
# One column per configuration but none: its median's ratio to none's median;
# in brackets the median of the rounds' own ratios (each round's run against
# none's run of the same round: steadier where the machine drifts between
# rounds, as a GPU's clocks do) and the fastest round's to none's fastest.
header="| CG grid x iterations | kernels | no tool, ms |"
rule="|---|---|---|"
for c in $CONFIGS; do
    [ "$c" = none ] && continue
    header="$header $c |"
    rule="$rule---|"
done
echo "$header"
echo "$rule"
for size in $SIZES; do
    kernels=$((${size#*:} * 6 + 2))
    n=$(stat median "$TMP/$size.none")
    nm=$(stat min "$TMP/$size.none")
    row=$(awk -v l="${size%:*} x ${size#*:}" -v k="$kernels" -v n="$n" 'BEGIN {printf "| %s | %d | %.2f |", l, k, n * 1000}')
    for c in $CONFIGS; do
        [ "$c" = none ] && continue
        paste -d ' ' "$TMP/$size.none" "$TMP/$size.$c" | awk '$1 > 0 {print $2 / $1}' > "$TMP/$size.$c.paired"
        row="$row$(awk -v n="$n" -v nm="$nm" -v x="$(stat median "$TMP/$size.$c")" -v xm="$(stat min "$TMP/$size.$c")" \
            -v p="$(stat median "$TMP/$size.$c.paired")" 'BEGIN {printf " %.3f (%.3f, %.3f) |", x / n, p, xm / nm}')"
    done
    echo "$row"
done
echo
echo "Ratios of CG's own solver time to no tool's: median of $ROUNDS rounds to median (in brackets: the median of the rounds' own ratios, and fastest round to fastest round); machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +%Y-%m-%d)"
