#!/bin/sh
# The whole MPI job, untraced and under `offtrace record` (each rank records,
# converts its part, the last one out merges; docs/mpi.md), at 2, 4 and 8
# ranks (oversubscribed on a small machine): wall time of mpirun, and the
# ranks' conversion of their parts (the job summary's "conversion" line: the
# sum over the ranks; the merge alone is bench_merge's, docs/performance.md).
# Interleaved rounds; median of the rounds.
#   usage: tests/bench/run_mpi_job.sh [BUILD_DIR] [ROUNDS] [PROGRAM ARGS...]
set -eu
BUILD=${1:-build}
ROUNDS=${2:-5}
shift 2 2>/dev/null || shift $#
[ $# -gt 0 ] || set -- "$BUILD/bin/example_cg" 64 100
MPIRUN="mpirun --allow-run-as-root --oversubscribe --mca mpi_yield_when_idle 1"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. "$(dirname "$0")/bench_lib.sh"
now() { date +%s%N; }
for np in 2 4 8; do
    r=0
    while [ $r -lt "$ROUNDS" ]; do
        for c in $(rotate $r untraced traced); do
            t0=$(now)
            if [ "$c" = untraced ]; then
                $MPIRUN -np $np "$@" > /dev/null 2>&1
            else
                rm -rf "$TMP/run"
                $MPIRUN -np $np "$BUILD/bin/offtrace" record -o "$TMP/run" -- "$@" > /dev/null 2> "$TMP/err"
                awk '/^offtrace: conversion/ {print $3 * 1000}' "$TMP/err" >> "$TMP/$np.conversion"
            fi
            echo $(( ($(now) - t0) / 1000000 )) >> "$TMP/$np.$c"
        done
        r=$((r + 1))
    done
done
echo "| ranks | untraced job, ms | traced job, ms | ratio | conversion of the parts, summed over the ranks (the summary's line), ms |"
echo "|---|---|---|---|---|"
for np in 2 4 8; do
    u=$(median "$TMP/$np.untraced"); t=$(median "$TMP/$np.traced"); w=$(median "$TMP/$np.conversion")
    awk -v n=$np -v u="$u" -v t="$t" -v w="$w" 'BEGIN {printf "| %d | %d | %d | %.2f | %.0f |\n", n, u, t, t / u, w}'
done
echo
echo "Median of $ROUNDS interleaved rounds; program: $*; $(nproc) cores, $(date -u +%Y-%m-%d)"
