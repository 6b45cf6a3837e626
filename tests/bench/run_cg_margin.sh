#!/bin/sh
# CG's cost split in two (issue 18, eighth round): per kernel at the margin
# and once per run. CG's solver time (its own `target data` region, timed
# inside the program) at two iteration counts of one grid, for no tool, the
# do-nothing OMPT tool (libofftrace_bench_null_tool.so), offtrace host-only,
# and with BASE_BUILD (optional) that build's host-only library. Runs are
# interleaved round by round in a rotating order, one thread (a second one
# of CG's team would wait for a preempted one on a loaded 2-core machine).
# From the medians of each configuration:
#   per kernel  = (t(ITERS2) - t(ITERS1)) / (kernels2 - kernels1)
#   once        = t(ITERS1) - kernels1 * per kernel
# (CG runs 6 kernels an iteration and 2 more), both also as the difference
# to the null tool's. EXTRA_ENV (optional): environment for offtrace's runs
# (e.g. OFFTRACE_DEVICE_DETAIL=..., with LD_PRELOAD of the collector).
# CLOCK=cpu (optional): the solver timed in the main thread's CPU time
# (libofftrace_bench_thread_cpu_wtime.so preloaded into every run): steadier
# on a loaded machine, but blind to work moved to another thread and to waits.
#   usage: tests/bench/run_cg_margin.sh [BUILD_DIR] [ROUNDS] [GRID] [ITERS1 ITERS2] [BASE_BUILD]
#   default: build 15 24 "300 1200"
set -eu
BUILD=${1:-build}
ROUNDS=${2:-15}
GRID=${3:-24}
ITERS=${4:-"300 1200"}
BASE=${5:-}
EXTRA_ENV=${EXTRA_ENV:-}
CLOCK=${CLOCK:-wall}
PRELOAD=
[ "$CLOCK" = cpu ] && PRELOAD="LD_PRELOAD=$(realpath "$BUILD/lib/libofftrace_bench_thread_cpu_wtime.so")"
CG="$BUILD/bin/example_cg"
NULL_TOOL="$(realpath "$BUILD/lib/libofftrace_bench_null_tool.so")"
HOST_LIB="$(realpath "$BUILD/lib/libofftrace.so")"
CONFIGS="none null host"
if [ -n "$BASE" ]; then
    BASE_LIB="$(realpath "$BASE/lib/libofftrace.so")"
    CONFIGS="$CONFIGS before"
fi
. "$(dirname "$0")/bench_lib.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

config_env() {
    traced="OFFTRACE_OUTPUT=$TMP/t OFFTRACE_VERBOSE=0 $EXTRA_ENV"
    case $1 in
    none) echo "OMP_TOOL=disabled" ;;
    null) echo "OMP_TOOL_LIBRARIES=$NULL_TOOL" ;;
    host) echo "OMP_TOOL_LIBRARIES=$HOST_LIB $traced" ;;
    before) echo "OMP_TOOL_LIBRARIES=$BASE_LIB $traced" ;;
    esac
}

r=0
while [ $r -lt "$ROUNDS" ]; do
    for iters in $ITERS; do
        # shellcheck disable=SC2086
        for c in $(rotate $r $CONFIGS); do
            # shellcheck disable=SC2046,SC2086
            cg_solver_time "$TMP/$iters.$c" $(config_env "$c") $PRELOAD OMP_NUM_THREADS=1 "$CG" "$GRID" "$iters"
        done
    done
    r=$((r + 1))
done

i1=${ITERS% *}
i2=${ITERS#* }
k1=$((i1 * 6 + 2))
k2=$((i2 * 6 + 2))
table() {
    echo "| configuration | ms at $GRID x $i1 ($k1 kernels) | ms at $GRID x $i2 ($k2 kernels) | µs per kernel | beyond null tool | once per run, ms | beyond null tool, ms |"
    echo "|---|---|---|---|---|---|---|"
    n1=$($1 "$TMP/$i1.null")
    n2=$($1 "$TMP/$i2.null")
    for c in $CONFIGS; do
        awk -v c="$c" -v a="$($1 "$TMP/$i1.$c")" -v b="$($1 "$TMP/$i2.$c")" -v n1="$n1" -v n2="$n2" \
            -v k1="$k1" -v k2="$k2" 'BEGIN {
                a *= 1000; b *= 1000; n1 *= 1000; n2 *= 1000 # ms
                per = (b - a) / (k2 - k1); nper = (n2 - n1) / (k2 - k1)
                once = a - k1 * per; nonce = n1 - k1 * nper
                printf "| %s | %.3f | %.3f | %.3f | %+.3f | %.3f | %+.3f |\n", c, a, b, per * 1000, (per - nper) * 1000, once, once - nonce
            }'
    done
}
echo "Medians of $ROUNDS interleaved rounds (CG solver time, $CLOCK clock, OMP_NUM_THREADS=1${EXTRA_ENV:+, $EXTRA_ENV}${BASE:+; before: $BASE}):"
echo
table median
echo
echo "Fastest of $ROUNDS rounds, the same columns:"
echo
table minimum
echo
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%d)"
