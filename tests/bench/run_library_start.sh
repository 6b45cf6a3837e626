#!/bin/bash
# What the host library costs a 1-region program, start-up and exit, in CPU
# time (issue 18, eighth round): hostile_many 1 alone, then under each
# build's libofftrace.so (and map capture) as `offtrace record` sets it up
# (the output claimed: no conversion at exit), runs interleaved round by
# round; `perf stat`'s task-clock (CPU ms of the process) and page faults,
# median and fastest of ROUNDS. CPU time, not wall: on a loaded 2-core
# machine wall time moves by milliseconds between runs, CPU time far less.
# Each BUILD is a build tree (or a directory with bin/ and lib/).
#   usage: tests/bench/run_library_start.sh ROUNDS BUILD [BUILD...]
set -eu
ROUNDS=$1; shift
PROG=$(realpath "$1/bin/hostile_many")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
n=0
for b in none "$@"; do : > "$T/$n"; n=$((n + 1)); done
for ((i = 0; i < ROUNDS; i++)); do
    n=0
    for b in none "$@"; do
        rm -rf "$T/out"; mkdir "$T/out"
        if [ "$b" = none ]; then
            perf stat -x, -e task-clock,page-faults "$PROG" 1 2>> "$T/$n" > /dev/null
        else
            perf stat -x, -e task-clock,page-faults env OFFTRACE_OUTPUT_CLAIMED=1 OFFTRACE_OUTPUT="$T/out" \
                OFFTRACE_VERBOSE=0 OMP_TOOL_LIBRARIES="$b/lib/libofftrace.so" \
                LD_PRELOAD="$b/lib/libofftrace-capture.so" "$PROG" 1 2>> "$T/$n" > /dev/null
        fi
        n=$((n + 1))
    done
done
stat_of() { # FILE COLUMN: median and fastest task-clock, median page faults
    grep task-clock "$1" | cut -d, -f1 | sort -g | awk '{a[NR] = $1} END {printf "%s %s ", a[int((NR + 1) / 2)], a[1]}'
    grep page-faults "$1" | cut -d, -f1 | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'
}
read -r med0 min0 _ <<< "$(stat_of "$T/0")"
echo "| library | CPU ms, median | beyond untraced | fastest | beyond untraced | page faults (median) |"
echo "|---|---|---|---|---|---|"
n=0
for b in untraced "$@"; do
    read -r med min faults <<< "$(stat_of "$T/$n")"
    awk -v b="$b" -v med="$med" -v min="$min" -v m0="$med0" -v n0="$min0" -v f="$faults" \
        'BEGIN {printf "| %s | %.2f | %+.2f | %.2f | %+.2f | %d |\n", b, med, med - m0, min, min - n0, f}'
    n=$((n + 1))
done
echo
echo "hostile_many 1, $ROUNDS interleaved rounds; machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%d)"
