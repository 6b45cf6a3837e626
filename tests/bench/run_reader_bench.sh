#!/bin/sh
# Archive readers at scale: `offtrace export` (and `report`, `view` when this
# build has them, `info`, and bench_read_only: a trace_read visitor that only
# counts, and OTF2's per-location readers without trace_read's time order)
# on host-only recordings of bench_target_loop of about 1 and 10 million
# events (22 events per target region). Wall time and peak RSS from GNU
# time, median of ROUNDS runs; peak RSS is the largest seen (the verbs read
# in a child process, which GNU time's %M includes).
#   usage: tests/bench/run_reader_bench.sh [BUILD_DIR] [ARCHIVE_DIR] [ROUNDS]
# The archives are kept in ARCHIVE_DIR (default /tmp/offtrace-reader-bench)
# and reused when present. Prints a Markdown table (docs/performance.md,
# "Reading archives").
set -eu
BUILD=${1:-build}
ARCHIVES=${2:-/tmp/offtrace-reader-bench}
ROUNDS=${3:-3}
OFFTRACE="$BUILD/bin/offtrace"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$ARCHIVES"

# An archive of bench_target_loop REGIONS (+1000 warm-up regions), made once.
archive() { # name regions
    dir="$ARCHIVES/$1"
    if [ ! -f "$dir/traces.otf2" ]; then
        rm -rf "$dir"
        "$OFFTRACE" record --host-only -o "$dir" "$BUILD/bin/bench_target_loop" "$2" > /dev/null 2>&1
    fi
    echo "$dir"
}

events_of() { "$OFFTRACE" info "$1" | awk '$2 == "trace" { print $3 }'; }

has_verb() { "$OFFTRACE" --help | awk '{ print $1 }' | grep -qx "$1"; }

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# Run a command ROUNDS times; print "median-seconds max-peak-KiB".
measure() {
    : > "$TMP/runs"
    i=0
    while [ $i -lt "$ROUNDS" ]; do
        /usr/bin/time -f "%e %M" -o "$TMP/t" "$@" > /dev/null 2> "$TMP/err" || { cat "$TMP/err" >&2; exit 1; }
        cat "$TMP/t" >> "$TMP/runs"
        i=$((i + 1))
    done
    s=$(awk '{ print $1 }' "$TMP/runs" | median)
    kb=$(awk '$2 > m { m = $2 } END { print m }' "$TMP/runs")
    echo "$s $kb"
}

row() { # events verb command...
    events=$1 verb=$2
    shift 2
    set -- $(measure "$@")
    awk -v e="$events" -v v="$verb" -v s="$1" -v kb="$2" 'BEGIN {
        printf "| %d | %s | %.2f | %.2f M | %.1f |\n", e, v, s, (s > 0 ? e / s / 1e6 : 0), kb / 1024 }'
}

echo "| archive events | verb | seconds | events/s | peak RSS (MiB) |"
echo "|---|---|---|---|---|"
for size in "1m 44500" "10m 454000"; do
    set -- $size
    dir=$(archive "$1" "$2")
    n=$(events_of "$dir")
    if [ -x "$BUILD/bin/bench_read_only" ]; then
        row "$n" "OTF2 per-location readers, no merge (bench_read_only --local)" "$BUILD/bin/bench_read_only" "$dir" 1 --local
        row "$n" "trace_read, do-nothing visitor (bench_read_only)" "$BUILD/bin/bench_read_only" "$dir" 1
    fi
    row "$n" "export --format chrome -o /dev/null" "$OFFTRACE" export --format chrome "$dir" -o /dev/null
    has_verb report && row "$n" "report > /dev/null" "$OFFTRACE" report "$dir"
    has_verb view && row "$n" "view -o x.svg" "$OFFTRACE" view "$dir" -o "$TMP/x.svg"
    row "$n" "info" "$OFFTRACE" info "$dir"
done
echo
echo "rounds: $ROUNDS (median seconds, largest peak RSS), machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
