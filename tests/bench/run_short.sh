#!/bin/bash
# Issue 18: what a short traced program pays, whole process, against the build
# at BASELINE_DIR (another build tree or an installed copy with bin/ and lib/),
# in one interleaved run (round N starts at configuration N, see bench_lib.sh's
# rotate). Wall time of the command (bash's $EPOCHREALTIME around it), median of
# ROUNDS, for hostile_many with 1, 100 and 20,000 empty mapped target regions:
#   untraced           the program alone
#   record host-only   `offtrace record --host-only` (program, conversion, summary)
#   record device      `offtrace record` (device detail)
# each with this build and with the baseline. Then the fixed costs one by one
# (parts), each measured alone on the 1-region program:
#   cli start          `offtrace --version`: loading the CLI and its libraries
#   loader list        `ld.so --list PROGRAM`, what record ran for the MPI decision
#   library host-only  the program under libofftrace.so (+ the map capture) as under
#                      record, minus untraced: start-up and exit in the program
#   library device     the same with the device collector preloaded
#   convert            `offtrace convert --keep-raw` of that recording (CLI start included)
#   summary            `offtrace info` of the archive (CLI start included)
# and the conversion and summary of the 20,000-region recording (host-only), the
# parts of the whole process that are the converter's.
#   usage: tests/bench/run_short.sh BUILD_DIR BASELINE_DIR [ROUNDS]
set -eu
BUILD=$(realpath "$1"); OLD=$(realpath "$2"); ROUNDS=${3:-11}
. "$(dirname "$0")/bench_lib.sh"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
PROG=$BUILD/bin/hostile_many
cpu_timer_setup
lib() { # name, build, preloads: the 1-region program under the library as record sets it up
    rm -rf "$T/lib"; mkdir -p "$T/lib"
    timed "$1" env OFFTRACE_OUTPUT_CLAIMED=1 OFFTRACE_OUTPUT="$T/lib" OFFTRACE_VERBOSE=0 \
        OMP_TOOL_LIBRARIES="$2/lib/libofftrace.so" LD_PRELOAD="$3" "$PROG" 1
}
keep() { # kept recordings of the 1- and 20,000-region programs, for convert and info
    for n in 1 20000; do
        rm -rf "$T/k.$1.$n"
        OFFTRACE_KEEP_RAW=1 "$2/bin/offtrace" record --host-only -o "$T/k.$1.$n" -- "$PROG" $n > /dev/null 2>&1
    done
}
convert() { # name, build, recording
    rm -rf "$T/c"; cp -a "$3" "$T/c"; rm -rf "$T/c/traces" "$T/c/traces.otf2" "$T/c/traces.def"
    timed "$1" "$2/bin/offtrace" convert --keep-raw "$T/c"
}
CONFIGS=""
for n in 1 100 20000; do
    CONFIGS="$CONFIGS none.$n new-host.$n old-host.$n new-dev.$n old-dev.$n"
done
PARTS="new-cli old-cli loader none-lib new-lib-host old-lib-host new-lib-dev old-lib-dev new-convert old-convert
    new-summary old-summary new-convert20k old-convert20k new-summary20k old-summary20k"
i=0
while [ $i -lt "$ROUNDS" ]; do
    for c in $(rotate $i $CONFIGS); do
        n=${c#*.}
        case ${c%.*} in
        none) timed "$c" "$PROG" "$n" ;;
        new-host) rm -rf "$T/o"; timed "$c" "$BUILD/bin/offtrace" record --host-only -o "$T/o" -- "$PROG" "$n" ;;
        old-host) rm -rf "$T/o"; timed "$c" "$OLD/bin/offtrace" record --host-only -o "$T/o" -- "$PROG" "$n" ;;
        new-dev) rm -rf "$T/o"; timed "$c" "$BUILD/bin/offtrace" record -o "$T/o" -- "$PROG" "$n" ;;
        old-dev) rm -rf "$T/o"; timed "$c" "$OLD/bin/offtrace" record -o "$T/o" -- "$PROG" "$n" ;;
        esac
    done
    keep new "$BUILD"; keep old "$OLD"
    for c in $(rotate $i $PARTS); do
        case $c in
        new-cli) timed "$c" "$BUILD/bin/offtrace" --version ;;
        old-cli) timed "$c" "$OLD/bin/offtrace" --version ;;
        loader) timed "$c" /lib64/ld-linux-x86-64.so.2 --list "$PROG" ;;
        none-lib) timed "$c" env "$PROG" 1 ;;
        new-lib-host) lib "$c" "$BUILD" "$BUILD/lib/libofftrace-capture.so" ;;
        old-lib-host) lib "$c" "$OLD" "$OLD/lib/libofftrace-capture.so" ;;
        new-lib-dev) lib "$c" "$BUILD" "$BUILD/lib/libofftrace-capture.so:$BUILD/lib/libofftrace-device.so" ;;
        old-lib-dev) lib "$c" "$OLD" "$OLD/lib/libofftrace-capture.so:$OLD/lib/libofftrace-device.so" ;;
        new-convert) convert "$c" "$BUILD" "$T/k.new.1" ;;
        old-convert) convert "$c" "$OLD" "$T/k.old.1" ;;
        new-summary) timed "$c" "$BUILD/bin/offtrace" info "$T/k.new.1" ;;
        old-summary) timed "$c" "$OLD/bin/offtrace" info "$T/k.old.1" ;;
        new-convert20k) convert "$c" "$BUILD" "$T/k.new.20000" ;;
        old-convert20k) convert "$c" "$OLD" "$T/k.old.20000" ;;
        new-summary20k) timed "$c" "$BUILD/bin/offtrace" info "$T/k.new.20000" ;;
        old-summary20k) timed "$c" "$OLD/bin/offtrace" info "$T/k.old.20000" ;;
        esac
    done
    i=$((i + 1))
done
m() { median "$T/$1"; }
cell() { # configuration, baseline: value (+difference, ratio)
    awk -v v="$(m "$1")" -v b="$2" 'BEGIN {printf "%.1f (+%.1f, x%.2f)", v, v - b, v / b}'
}
table() { # suffix: "" for wall time, ".cpu" for CPU time
    echo "| regions | untraced | record host-only: new (+ms, ratio) | old | record device: new (+ms, ratio) | old |"
    echo "|---|---|---|---|---|---|"
    for n in 1 100 20000; do
        b=$(m none.$n$1)
        echo "| $n | $(printf %.1f "$b") | $(cell new-host.$n$1 "$b") | $(cell old-host.$n$1 "$b") |" \
            "$(cell new-dev.$n$1 "$b") | $(cell old-dev.$n$1 "$b") |"
    done
}
echo "hostile_many N (N empty mapped target regions), median of $ROUNDS interleaved rounds"
echo
echo "wall ms:"
table ""
if [ -n "$PERF" ]; then
    echo
    echo "CPU ms (user + system of the command and its children, bench_spawn_timer):"
    table .cpu
fi
echo
echo "fixed costs, one by one (1-region program), median wall ms$([ -z "$PERF" ] || echo " (CPU ms)")"
echo "| part | new | old |"
echo "|---|---|---|"
both() { # configuration [baseline configuration]: wall (cpu), minus the baseline's
    local w c
    w=$(awk -v v="$(m "$1")" -v b="${2:+$(m "$2")}" 'BEGIN {printf "%.2f", v - b}')
    [ -z "$PERF" ] && { echo "$w"; return; }
    c=$(awk -v v="$(m "$1.cpu")" -v b="${2:+$(m "$2.cpu")}" 'BEGIN {printf "%.2f", v - b}')
    echo "$w ($c)"
}
echo "| cli start (offtrace --version) | $(both new-cli) | $(both old-cli) |"
echo "| ld.so --list (the old MPI decision; new: none, the ELF walk is inside record) | 0 | $(both loader) |"
echo "| library in the program, host-only (minus untraced: $(both none-lib)) | $(both new-lib-host none-lib) |" \
    "$(both old-lib-host none-lib) |"
echo "| library in the program, device detail (minus untraced) | $(both new-lib-dev none-lib) |" \
    "$(both old-lib-dev none-lib) |"
echo "| convert, 1 region (CLI start included) | $(both new-convert) | $(both old-convert) |"
echo "| summary: offtrace info (CLI start included) | $(both new-summary) | $(both old-summary) |"
echo "| convert, 20,000 regions, host-only (CLI start included) | $(both new-convert20k) | $(both old-convert20k) |"
echo "| summary, 20,000 regions (CLI start included) | $(both new-summary20k) | $(both old-summary20k) |"
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
