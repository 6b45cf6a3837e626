#!/bin/sh
# Two builds' recorders against each other, paired, for changes to the
# target callbacks too small for run_hotpath.sh's medians of separate
# configurations (issue 18):
#  1. bench_target_loop_g 100000 (empty mapped regions, the capture
#     preloaded) host-only and with device detail, NEW and BASE alternated
#     in each round (order flipped every round): NEW minus BASE per round;
#  2. bench_host_record (the data-op callback alone, begin and end
#     alternating, no OpenMP runtime), PROCS processes of each build
#     alternated, each the median of 9 rounds of 200,000 events.
# Each build runs its own libraries and collector, the loop is NEW's.
#   usage: tests/bench/run_hotpath_paired.sh NEW_BUILD BASE_BUILD [ROUNDS] [PROCS]
set -eu
NEW=$(realpath "$1"); OLD=$(realpath "$2"); R=${3:-31}; P=${4:-41}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
BIN=$NEW/bin/bench_target_loop_g
quartiles() { sort -n | awk -v what="$1" '{v[NR] = $1} END {printf "%s: median %+.1f, quartiles %+.1f / %+.1f, %d samples\n", what, v[int((NR + 1) / 2)], v[int(NR / 4) + 1], v[int(3 * NR / 4)], NR}'; }
region() { # BUILD host|dev: ns per region
    pre=$1/lib/libofftrace-capture.so; [ "$2" = dev ] && pre=$pre:$1/lib/libofftrace-device.so
    OMP_TOOL_LIBRARIES=$1/lib/libofftrace.so LD_PRELOAD=$pre OFFTRACE_OUTPUT=$T/out OFFTRACE_VERBOSE=0 "$BIN" 100000
    rm -rf "$T/out"
}
event() { # BUILD: ns per event, median of the process's rounds
    OFFTRACE_OUTPUT=$T/out OFFTRACE_VERBOSE=0 "$1/bin/bench_host_record" "$1/lib/libofftrace.so" 200000 9 |
        awk -F'|' '/ns per recorded/ {print $3}'
    rm -rf "$T/out"
}
i=0
while [ $i -lt "$R" ]; do
    for mode in host dev; do
        if [ $((i % 2)) = 0 ]; then a=$(region "$NEW" $mode); b=$(region "$OLD" $mode)
        else b=$(region "$OLD" $mode); a=$(region "$NEW" $mode); fi
        echo "$a $b" >> "$T/$mode"
    done
    i=$((i + 1))
done
i=0
while [ $i -lt "$P" ]; do
    if [ $((i % 2)) = 0 ]; then a=$(event "$NEW"); b=$(event "$OLD"); else b=$(event "$OLD"); a=$(event "$NEW"); fi
    echo "$a $b" >> "$T/event"
    i=$((i + 1))
done
for mode in host dev; do
    awk '{print $1 - $2}' "$T/$mode" | quartiles "empty mapped region, $mode, NEW - BASE per round, ns per region"
    echo "  NEW faster in $(awk '$1 < $2' "$T/$mode" | wc -l) of $R rounds"
done
awk '{print $1 - $2}' "$T/event" | quartiles "bench_host_record, NEW - BASE per process, ns per event"
echo "fastest process: NEW $(awk '{print $1}' "$T/event" | sort -n | head -1), BASE $(awk '{print $2}' "$T/event" | sort -n | head -1) ns per event"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) at the end"
