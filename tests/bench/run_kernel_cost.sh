#!/bin/sh
# Device detail's cost per kernel in CPU time (issue 18): bench_kernel_cost
# (CG-shaped kernels, data on the device) with no tool, host-only tracing,
# and device detail at each OFFTRACE_DEVICE_DETAIL level (and, given a
# BASE_BUILD, that build's device detail), interleaved round by round in a
# rotating order. OMP_SETTINGS (default OMP_NUM_THREADS=1: no thread waits
# for another, so CPU time counts work only and stays readable on a loaded
# machine, where wall-clock time does not; bench_kernel_cost.c says why).
# Reports per kernel: wall and CPU time (medians of the rounds), the CPU
# time each configuration adds to host-only (of the medians, and the median
# of each round's difference), the part of it spent in the kernel (system
# time: the record files' pages), and the fastest batch of
# BATCH kernels over all rounds (bench_kernel_cost.c), with what it adds.
#   usage: [OMP_SETTINGS=...] tests/bench/run_kernel_cost.sh [BUILD_DIR] [ROUNDS] [ELEMENTS] [KERNELS] [BASE_BUILD] [BATCH]
set -eu
BUILD=${1:-build}
ROUNDS=${2:-15}
ELEMENTS=${3:-1024}
KERNELS=${4:-20000}
BASE=${5:-}
BATCH=${6:-1000}
OMP_SETTINGS=${OMP_SETTINGS:-OMP_NUM_THREADS=1}
PROG="$BUILD/bin/bench_kernel_cost"
. "$(dirname "$0")/bench_lib.sh"
detail_setup "$BUILD" "$BASE"
CONFIGS=$DETAIL_CONFIGS
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
r=0
while [ $r -lt "$ROUNDS" ]; do
    # shellcheck disable=SC2086
    for c in $(rotate $r $CONFIGS); do
        # shellcheck disable=SC2046
        env $(detail_env $c) $OMP_SETTINGS "$PROG" "$ELEMENTS" "$KERNELS" "$BATCH" |
            awk -v d="$TMP/$c" '/^kernel_cost:/ {print $8 >> (d ".wall"); print $11 >> (d ".cpu"); print $14 >> (d ".batch"); print $29 >> (d ".sys")}'
        rm -rf "$TMP/t"
        sync
    done
    r=$((r + 1))
done
host_cpu=$(median "$TMP/host.cpu")
host_batch=$(minimum "$TMP/host.batch")
echo "| configuration | wall, µs per kernel | CPU, µs per kernel | CPU added to host-only | CPU added, paired | of the CPU, in the kernel | fastest batch, µs per kernel | fastest batch, added to host-only |"
echo "|---|---|---|---|---|---|---|---|"
for c in $CONFIGS; do
    # paired: each round's CPU minus host-only's in the same round, median
    # over the rounds (load that lasts a round moves both)
    paste "$TMP/$c.cpu" "$TMP/host.cpu" | awk '{print $1 - $2}' > "$TMP/$c.paired"
    awk -v c="$c" -v w="$(median "$TMP/$c.wall")" -v u="$(median "$TMP/$c.cpu")" -v h="$host_cpu" -v k="$KERNELS" \
        -v p="$(median "$TMP/$c.paired")" -v sy="$(median "$TMP/$c.sys")" -v b="$(minimum "$TMP/$c.batch")" -v hb="$host_batch" \
        'BEGIN {printf "| %s | %.2f | %.2f | %+.2f | %+.2f | %.2f | %.2f | %+.2f |\n", c, w * 1e6 / k, u * 1e6 / k, (u - h) * 1e6 / k, p * 1e6 / k, sy * 1e6 / k, b, b - hb}'
done
echo
echo "bench_kernel_cost $ELEMENTS $KERNELS $BATCH, $OMP_SETTINGS, median of $ROUNDS rounds; levels: OFFTRACE_DEVICE_DETAIL${BASE:+; before: $BASE, device detail}"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%d)"
