#!/bin/bash
# Issue 18: conversion throughput. Records three programs once with
# BUILD_DIR's offtrace (raw records kept), then converts each recording
# again and again with BUILD_DIR's and BASELINE_DIR's `offtrace convert
# --quiet --keep-raw`, interleaved round by round in a rotating order, beside
# OTF2's own writing cost for the same events (bench_convert floor: the
# archive's events written again through OTF2 with the converter's buffer
# settings and no offtrace logic), for each build's archive (they differ
# where the builds put attributes differently: issue 18's map attributes).
# Prints, per recording: the archive's events, each build's wall time and
# CPU time (medians; the whole command, its process start included), events
# per second, peak RSS, and each archive's floor.
#   (a) bench_target_loop map64 N (N empty `target map(tofrom: 64 B)`), device detail
#   (b) bench_host_openmp_units parallel N*5, --host-openmp all, 2 threads
#   (c) bench_host_openmp_units chunk N*50, --host-openmp all, 2 threads
#   usage: tests/bench/run_convert.sh BUILD_DIR BASELINE_DIR [N] [ROUNDS]
#   e.g.   tests/bench/run_convert.sh build /tmp/base/build 20000 9
set -eu
BUILD=$(realpath "$1"); OLD=$(realpath "$2"); N=${3:-20000}; ROUNDS=${4:-9}
. "$(dirname "$0")/bench_lib.sh"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
export OFFTRACE_KEEP_RAW=1 OMP_NUM_THREADS=2

"$BUILD/bin/offtrace" record -o "$T/a" -- "$BUILD/bin/bench_target_loop" map64 "$N" > /dev/null 2>&1
"$BUILD/bin/offtrace" record --host-openmp all -o "$T/b" -- "$BUILD/bin/bench_host_openmp_units" parallel \
    $((N * 5)) > /dev/null 2>&1
"$BUILD/bin/offtrace" record --host-openmp all -o "$T/c" -- "$BUILD/bin/bench_host_openmp_units" chunk \
    $((N * 50)) > /dev/null 2>&1

TIMEFORMAT='%3R %3U %3S'
# Each build's archive, kept aside for its floor (the rounds convert into the recording again and again).
for rec in a b c; do
    for b in new old; do
        dir=$BUILD; [ $b = old ] && dir=$OLD
        "$dir/bin/offtrace" convert --quiet --keep-raw "$T/$rec" > /dev/null 2>&1
        mkdir "$T/$rec.$b.archive"
        mv "$T/$rec/traces.otf2" "$T/$rec/traces.def" "$T/$rec/traces" "$T/$rec.$b.archive/"
    done
done
convert() { # name, build, recording: wall ms, CPU ms (bash's time: millisecond resolution)
    { time "$2/bin/offtrace" convert --quiet --keep-raw "$3" > /dev/null 2>&1; } 2> "$T/time"
    awk '{print $1 * 1000}' "$T/time" >> "$T/$1.wall"
    awk '{print ($2 + $3) * 1000}' "$T/time" >> "$T/$1.cpu"
}
peak_rss() { # build, recording: KiB (GNU time), once per build: it does not move with load
    /usr/bin/time -f "%M" -o "$T/rss" "$1/bin/offtrace" convert --quiet --keep-raw "$2" > /dev/null 2>&1
    cat "$T/rss"
}

for rec in a b c; do
    i=0
    while [ $i -lt "$ROUNDS" ]; do
        for c in $(rotate $i new old floor.new floor.old); do
            case $c in
            new) convert "$rec.new" "$BUILD" "$T/$rec" ;;
            old) convert "$rec.old" "$OLD" "$T/$rec" ;;
            floor.*) b=${c#floor.}
                "$BUILD/bin/bench_convert" floor "$T/$rec.$b.archive/traces.otf2" "$T/floor" 1 > "$T/floor.out"
                field() { awk -v f="$1" '{for (i = 1; i < NF; i++) if ($i == f) print $(i + 1)}' "$T/floor.out"; }
                echo "$(field floor_s) * 1000" | bc >> "$T/$rec.$b.floor"
                echo "$(field floor_cpu_s) * 1000" | bc >> "$T/$rec.$b.floor_cpu"
                field without_attributes_cpu_ns_per_event >> "$T/$rec.$b.bare"
                field attributes > "$T/$rec.$b.attributes" ;;
            esac
        done
        i=$((i + 1))
    done
    awk '{print $2}' "$T/floor.out" > "$T/$rec.events"
    peak_rss "$OLD" "$T/$rec" > "$T/$rec.old.rss"
    peak_rss "$BUILD" "$T/$rec" > "$T/$rec.new.rss"
    "$BUILD/bin/bench_convert" raw "$T/$rec" 5 > "$T/$rec.raw"
done

echo "Wall and CPU: the whole \`offtrace convert\` command, its process start included; the floor: OTF2's open to close."
echo
echo "| recording | events | build | CPU ms | ns/event (CPU) | M events/s (CPU) | wall ms | M events/s (wall) | peak RSS KiB |"
echo "|---|---|---|---|---|---|---|---|---|"
for rec in a b c; do
    case $rec in
    a) label="bench_target_loop map64 $N, device detail" ;;
    b) label="bench_host_openmp_units parallel $((N * 5)), host OpenMP all" ;;
    c) label="bench_host_openmp_units chunk $((N * 50)), host OpenMP all" ;;
    esac
    ev=$(cat "$T/$rec.events")
    for b in old new; do
        w=$(median "$T/$rec.$b.wall"); c=$(median "$T/$rec.$b.cpu"); m=$(cat "$T/$rec.$b.rss")
        awk -v l="$label" -v b="$b" -v e="$ev" -v w="$w" -v c="$c" -v m="$m" \
            'BEGIN {printf "| %s | %d | %s | %.0f | %.0f | %.1f | %.0f | %.1f | %d |\n", l, e, b, c, c * 1e6 / e, e / c / 1000, w, e / w / 1000, m}'
    done
    for b in old new; do
        f=$(median "$T/$rec.$b.floor"); fc=$(median "$T/$rec.$b.floor_cpu"); bare=$(median "$T/$rec.$b.bare")
        at=$(cat "$T/$rec.$b.attributes")
        awk -v l="$label" -v e="$ev" -v f="$f" -v fc="$fc" -v bare="$bare" -v b="$b" -v at="$at" \
            'BEGIN {printf "| %s | %d | OTF2 floor of %s'"'"'s archive (%d attributes; %.0f ns/event without them) | %.0f | %.0f | %.1f | %.0f | %.1f | |\n", l, e, b, at, bare, fc, fc * 1e6 / e, e / fc / 1000, f, e / f / 1000}'
    done
done
echo
echo "Ratio old/new of the medians, CPU and wall:"
for rec in a b c; do
    echo "  ($rec) $(echo "scale=2; $(median "$T/$rec.old.cpu") / $(median "$T/$rec.new.cpu")" | bc)" \
        "$(echo "scale=2; $(median "$T/$rec.old.wall") / $(median "$T/$rec.new.wall")" | bc)"
done
echo
echo "Raw records alone (bench_convert raw, median of 5: ot_raw_load, then one cursor pass):"
for rec in a b c; do echo "  ($rec) $(cat "$T/$rec.raw")"; done
echo
echo "rounds: $ROUNDS, machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%d)"
