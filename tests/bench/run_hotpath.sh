#!/bin/sh
# The recorder's hot path (issue 18): what an empty `target map(tofrom: 64 B)`
# region costs with this build's recorder beside another build's (BASE_DIR:
# a build tree with lib/libofftrace.so and lib/libofftrace-capture.so), the
# map capture preloaded everywhere and the loop built with -g (every region
# passes its names: the capture of issue 15 included), against no tool and
# a do-nothing OMPT tool (null_tool.c: libomp's and libomptarget's own cost
# of having a tool, the floor no recorder gets under).
#
# 1. Time: ns per region, configurations interleaved round by round (order
#    rotated), median and minimum of ROUNDS. Load moves these.
# 2. Instructions (valgrind's callgrind, when installed; INSTRUCTIONS=0
#    skips it): instructions per region of the program's main thread inside
#    main(), the difference of a 4000- and a 2000-region run (start-up,
#    warm-up and the exit's conversion cancel out), in all and in offtrace's
#    own libraries. Load does not move these. callgrind runs stripped copies
#    of the libraries and of the loop: valgrind 3.19 cannot read clang-19's
#    DWARF 5.
#   usage: tests/bench/run_hotpath.sh BUILD_DIR BASE_DIR [ITERATIONS] [ROUNDS]
# Prints two Markdown tables (docs/performance.md, "Issue 18: the recorder's hot path").
set -eu
BUILD=$(realpath "$1"); OLD=$(realpath "$2"); ITER=${3:-100000}; ROUNDS=${4:-15}
. "$(dirname "$0")/bench_lib.sh"
BIN="$BUILD/bin/bench_target_loop_g"
NULL_TOOL="$BUILD/lib/libofftrace_bench_null_tool.so"
# device/ is not part of the hot path's changes: the base uses its own collector if it has one
device_of() { if [ -e "$1/lib/libofftrace-device.so" ]; then echo "$1/lib/libofftrace-device.so"; else echo "$BUILD/lib/libofftrace-device.so"; fi; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT

# env assignments of configuration $1, libraries under $2 (for callgrind's stripped copies)
config_env() {
    c=$1; new=$2; old=$3
    case $c in
    none) echo "OMP_TOOL=disabled LD_PRELOAD=$new/libofftrace-capture.so" ;;
    null) echo "OMP_TOOL_LIBRARIES=$NULL_TOOL LD_PRELOAD=$new/libofftrace-capture.so" ;;
    old) echo "OMP_TOOL_LIBRARIES=$old/libofftrace.so LD_PRELOAD=$old/libofftrace-capture.so" ;;
    new) echo "OMP_TOOL_LIBRARIES=$new/libofftrace.so LD_PRELOAD=$new/libofftrace-capture.so" ;;
    old-dev) echo "OMP_TOOL_LIBRARIES=$old/libofftrace.so LD_PRELOAD=$old/libofftrace-capture.so:$old/libofftrace-device.so" ;;
    new-dev) echo "OMP_TOOL_LIBRARIES=$new/libofftrace.so LD_PRELOAD=$new/libofftrace-capture.so:$new/libofftrace-device.so" ;;
    esac
}
CONFIGS="none null old new old-dev new-dev"
# the libraries' own directories: the exit's converter is found beside them (../bin/offtrace)
mkdir -p "$T/new" "$T/old"
ln -s "$(device_of "$BUILD")" "$T/new/libofftrace-device.so"; ln -s "$(device_of "$OLD")" "$T/old/libofftrace-device.so"
config_env_timed() { config_env "$1" "$BUILD/lib" "$OLD/lib" | sed "s#$BUILD/lib/libofftrace-device.so#$T/new/libofftrace-device.so#; s#$OLD/lib/libofftrace-device.so#$T/old/libofftrace-device.so#"; }

i=0
while [ $i -lt "$ROUNDS" ]; do
    for c in $(rotate $i $CONFIGS); do
        # shellcheck disable=SC2046
        env $(config_env_timed "$c") OFFTRACE_OUTPUT="$T/o" OFFTRACE_VERBOSE=0 "$BIN" "$ITER" >> "$T/time-$c"
        rm -rf "$T/o"; sync
    done
    i=$((i + 1))
done
N=$(median "$T/time-none"); NMIN=$(minimum "$T/time-none")
echo "| configuration | ns per region, median | added vs no tool | ns per region, min | added vs no tool |"
echo "|---|---|---|---|---|"
for c in $CONFIGS; do
    v=$(median "$T/time-$c"); m=$(minimum "$T/time-$c")
    awk -v c="$c" -v v="$v" -v n="$N" -v m="$m" -v nm="$NMIN" 'BEGIN {printf "| %s | %.0f | %+.0f | %.0f | %+.0f |\n", c, v, v - n, m, m - nm}'
done
echo
echo "iterations per run: $ITER, rounds: $ROUNDS, machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) at the end"

[ "${INSTRUCTIONS:-1}" = 0 ] && exit 0
command -v valgrind > /dev/null || { echo "(no valgrind: instructions per region not measured)"; exit 0; }
for d in new old; do
    mkdir -p "$T/s$d"
    dir=$BUILD; [ $d = old ] && dir=$OLD
    for f in libofftrace.so libofftrace-capture.so; do strip -g -o "$T/s$d/$f" "$dir/lib/$f"; done
    strip -g -o "$T/s$d/libofftrace-device.so" "$T/$d/libofftrace-device.so"
done
strip -g -o "$T/loop" "$BIN"
strip -g -o "$T/null.so" "$NULL_TOOL"
NULL_TOOL="$T/null.so"
count() { # configuration, regions: instructions in all and in offtrace's libraries
    # shellcheck disable=SC2046
    env $(config_env "$1" "$T/snew" "$T/sold") OFFTRACE_OUTPUT="$T/o" OFFTRACE_VERBOSE=0 \
        valgrind --tool=callgrind --toggle-collect=main --callgrind-out-file="$T/cg" "$T/loop" "$2" > /dev/null 2>&1
    rm -rf "$T/o"
    callgrind_annotate --threshold=100 "$T/cg" 2> /dev/null |
        awk '/PROGRAM TOTALS/ {gsub(",", "", $1); all = $1}
             /libofftrace/ && /\[/ && !/__tgt_/ {gsub(",", "", $1); own += $1}
             END {printf "%d %d\n", all, own}'
}
echo
echo "| configuration | instructions per region | added vs no tool | in offtrace's libraries |"
echo "|---|---|---|---|"
for c in $CONFIGS; do
    a=$(count "$c" 2000); b=$(count "$c" 4000)
    echo "$c $a $b"
done | awk '{all = ($4 - $2) / 2000; own = ($5 - $3) / 2000; if ($1 == "none") base = all
             printf "| %s | %.0f | %+.0f | %.0f |\n", $1, all, all - base, own}'
echo
echo "instructions: callgrind, main thread inside main(), (4000-region run - 2000-region run) / 2000"
