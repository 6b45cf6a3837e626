#!/bin/bash
# Issue 18: the summary record and convert print, and the whole 20,000-region
# microbenchmark, against the build at BASELINE_DIR, in one interleaved run
# (round N starts at configuration N, bench_lib.sh's rotate); medians of
# ROUNDS, wall ms and CPU ms (user + system time of the command and its
# children, which the machine's load changes least).
#   untraced            bench_target_loop map64 20000 alone
#   record host/dev     `offtrace record [--host-only]` of it (program, conversion, summary)
#   convert / quiet     `offtrace convert --keep-raw [--quiet]` of a kept recording of
#                       it (host-only) and of hostile_many 1: the difference is what
#                       the summary costs after the conversion
#   info                `offtrace info` of the 20,000-region archive: reading it back
# each with this build (new) and the baseline's (old).
#   usage: tests/bench/run_summary.sh BUILD_DIR BASELINE_DIR [ROUNDS]
set -eu
BUILD=$(realpath "$1"); OLD=$(realpath "$2"); ROUNDS=${3:-11}
. "$(dirname "$0")/bench_lib.sh"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
cpu_timer_setup
LOOP="$BUILD/bin/bench_target_loop map64 20000"
for b in new old; do # kept recordings, converted again by each build below
    dir=$BUILD; [ $b = new ] || dir=$OLD
    OFFTRACE_KEEP_RAW=1 "$dir/bin/offtrace" record --host-only -o "$T/k.$b.20k" -- $LOOP > /dev/null 2>&1
    OFFTRACE_KEEP_RAW=1 "$dir/bin/offtrace" record --host-only -o "$T/k.$b.1" -- "$BUILD/bin/hostile_many" 1 \
        > /dev/null 2>&1
done
convert() { # name, build dir, recording, [--quiet]
    rm -rf "$T/c"; cp -a "$3" "$T/c"; rm -rf "$T/c/traces" "$T/c/traces.otf2" "$T/c/traces.def"
    timed "$1" "$2/bin/offtrace" convert --keep-raw ${4:-} "$T/c"
}
CONFIGS="none new-host old-host new-dev old-dev new-conv20k old-conv20k new-quiet20k old-quiet20k
    new-conv1 old-conv1 new-quiet1 old-quiet1 new-info20k old-info20k"
i=0
while [ $i -lt "$ROUNDS" ]; do
    for c in $(rotate $i $CONFIGS); do
        b=${c%%-*}; dir=$BUILD; [ "$b" = new ] || dir=$OLD
        case ${c#*-} in
        none) timed "$c" $LOOP ;;
        host) rm -rf "$T/o"; timed "$c" "$dir/bin/offtrace" record --host-only -o "$T/o" -- $LOOP ;;
        dev) rm -rf "$T/o"; timed "$c" "$dir/bin/offtrace" record -o "$T/o" -- $LOOP ;;
        conv20k) convert "$c" "$dir" "$T/k.$b.20k" ;;
        quiet20k) convert "$c" "$dir" "$T/k.$b.20k" --quiet ;;
        conv1) convert "$c" "$dir" "$T/k.$b.1" ;;
        quiet1) convert "$c" "$dir" "$T/k.$b.1" --quiet ;;
        info20k) timed "$c" "$dir/bin/offtrace" info "$T/k.$b.20k" ;;
        esac
    done
    i=$((i + 1))
done
m() { median "$T/$1"; }
row() { # label, new configuration, old configuration, suffix ("" wall, ".cpu")
    awk -v l="$1" -v n="$(m "$2$4")" -v o="$(m "$3$4")" \
        'BEGIN {printf "| %s | %.1f | %.1f | %+.1f | x%.3f |\n", l, n, o, n - o, n / o}'
}
diffrow() { # label, new a, new b, old a, old b, suffix: (a - b) new and old
    awk -v l="$1" -v n="$(awk -v a="$(m "$2$6")" -v b="$(m "$3$6")" 'BEGIN {print a - b}')" \
        -v o="$(awk -v a="$(m "$4$6")" -v b="$(m "$5$6")" 'BEGIN {print a - b}')" \
        'BEGIN {printf "| %s | %.1f | %.1f | %+.1f | |\n", l, n, o, n - o}'
}
for s in .cpu ""; do
    [ -n "$s" ] && [ -z "$PERF" ] && continue
    echo
    echo "$([ -n "$s" ] && echo "CPU ms (user + system, bench_spawn_timer)" || echo "wall ms"), median of $ROUNDS interleaved rounds:"
    echo "| command | new | old | new - old | new / old |"
    echo "|---|---|---|---|---|"
    echo "| untraced bench_target_loop map64 20000 | $(printf %.1f "$(m none$s)") | | | |"
    row "record --host-only, 20,000 regions" new-host old-host "$s"
    row "record (device detail), 20,000 regions" new-dev old-dev "$s"
    awk -v u="$(m none$s)" -v nh="$(m new-host$s)" -v oh="$(m old-host$s)" -v nd="$(m new-dev$s)" \
        -v od="$(m old-dev$s)" 'BEGIN {printf "| ratio to untraced: host-only, device | x%.2f, x%.2f | x%.2f, x%.2f | | |\n",
        nh / u, nd / u, oh / u, od / u}'
    row "convert --keep-raw, 20,000 regions (with the summary)" new-conv20k old-conv20k "$s"
    row "convert --keep-raw --quiet, 20,000 regions (no summary)" new-quiet20k old-quiet20k "$s"
    diffrow "the summary after a 20,000-region conversion (the two above)" new-conv20k new-quiet20k old-conv20k \
        old-quiet20k "$s"
    row "convert --keep-raw, 1 region" new-conv1 old-conv1 "$s"
    row "convert --keep-raw --quiet, 1 region" new-quiet1 old-quiet1 "$s"
    diffrow "the summary after a 1-region conversion" new-conv1 new-quiet1 old-conv1 old-quiet1 "$s"
    row "offtrace info, 20,000 regions (reads the archive back, both)" new-info20k old-info20k "$s"
done
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
