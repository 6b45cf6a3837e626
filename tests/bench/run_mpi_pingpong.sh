#!/bin/sh
# The cost of MPI recording (docs/performance.md, "MPI recording (issue
# 16)"): bench_mpi_pingpong at 2 ranks without offtrace and under one
# `offtrace record` per rank with libofftrace-mpi.so preloaded; the one-way
# latency of 8 B and 64 KiB messages, the best of RUNS interleaved runs, and
# the ratio traced / untraced. Not part of the tests (timings).
#   tests/bench/run_mpi_pingpong.sh BUILD_DIR [N [ROUNDS [RUNS]]]
set -eu
build=$(cd "${1:?usage: run_mpi_pingpong.sh BUILD_DIR [N [ROUNDS [RUNS]]]}" && pwd)
n=${2:-10000}
rounds=${3:-5}
runs=${4:-3}
bench=$build/bin/bench_mpi_pingpong
mpirun="mpirun --allow-run-as-root --oversubscribe --mca mpi_yield_when_idle 1 -np 2"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for r in $(seq "$runs"); do
    $mpirun "$bench" "$n" "$rounds" >>"$work/untraced"
    mkdir "$work/run$r"
    LD_PRELOAD=$build/lib/libofftrace-mpi.so $mpirun sh -c \
        "exec '$build/bin/offtrace' record -o '$work/run$r/rank.'\$OMPI_COMM_WORLD_RANK -- '$bench' $n $rounds" \
        >>"$work/traced" 2>/dev/null
    [ -f "$work/run$r/rank.0/traces.otf2" ] || { echo "run_mpi_pingpong.sh: the traced run made no archive" >&2; exit 1; }
    rm -rf "$work/run$r"
done
best() { awk -v s="$2" '$1 == "pingpong" && $2 == s {v = $4 + 0; if (m == "" || v < m) m = v} END {print m}' "$1"; }
printf '%-10s %14s %14s %7s\n' "message" "untraced (us)" "traced (us)" "ratio"
for s in 8 65536; do
    u=$(best "$work/untraced" $s); t=$(best "$work/traced" $s)
    awk -v s="$s" -v u="$u" -v t="$t" 'BEGIN { printf "%-10s %14.3f %14.3f %7.2f\n", s " B", u, t, t / u }'
done
