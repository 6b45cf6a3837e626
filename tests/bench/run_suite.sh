#!/bin/sh
# The overhead suite of issue 5, in one run; prints Markdown tables
# (docs/performance.md, "Overhead suite (issue 5)", holds the last ones).
#   usage: tests/bench/run_suite.sh [BUILD_DIR] [QUICK|FULL]
# QUICK (default) takes about 1-2 minutes, FULL about 5-10 on 2 cores.
#  1. micro: bench_target_loop OP N (tests/bench/target_loop.c) for each
#     operation under: no tool (OMP_TOOL=disabled), a do-nothing OMPT tool
#     with offtrace's callbacks (null_tool.c), offtrace host-only, offtrace
#     with device detail (LD_PRELOAD=libofftrace-device.so), and, for target
#     operations, LIBOMPTARGET_PROFILE; ns per operation, median of ROUNDS.
#  2. per recorded host event: (offtrace - do-nothing tool) / callbacks per
#     operation, counted by the counting build of null_tool.c;
#     ns, TSC cycles (rate measured), and instructions inside offtrace's
#     callbacks from callgrind when valgrind can run it.
#  3. whole programs: every example, wall time (and CG's own solver time)
#     for no tool, host-only, device detail; median of ROUNDS.
#  4. trace bytes per event (archive size / `offtrace info` events) and the
#     peak RSS of the traced program (GNU time %M), median of ROUNDS.
# Every section interleaves its configurations round by round, so machine
# noise hits all of them alike; the script syncs after each traced run so
# that no run pays for another's writeback.
set -eu
BUILD=${1:-build}
MODE=${2:-QUICK}
case "$MODE" in
QUICK) ROUNDS=3; SCALE=1 ;;
FULL) ROUNDS=11; SCALE=4 ;;
*) echo "usage: $0 [BUILD_DIR] [QUICK|FULL]" >&2; exit 2 ;;
esac
BIN="$BUILD/bin/bench_target_loop"
OFFTRACE="$BUILD/bin/offtrace"
NULL_TOOL="$(realpath "$BUILD/lib/libofftrace_bench_null_tool.so")"
COUNT_TOOL="$(realpath "$BUILD/lib/libofftrace_bench_count_tool.so")"
HOST_LIB="$(realpath "$BUILD/lib/libofftrace.so")"
DEVICE_LIB="$(realpath "$BUILD/lib/libofftrace-device.so")"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

TARGET_OPS="map64 target_in_data update enter_exit"
HOST_OPS="parallel task barrier"
iters() { # operations per run, about 50 ms (QUICK) of each op with no tool
    case $1 in
    map64 | enter_exit) echo $((15000 * SCALE)) ;;
    target_in_data) echo $((20000 * SCALE)) ;;
    update | parallel) echo $((40000 * SCALE)) ;;
    task | barrier) echo $((100000 * SCALE)) ;;
    esac
}
. "$(dirname "$0")/bench_lib.sh"
now_ns() { date +%s%N; }

# The env assignments of each configuration ($2: a fresh trace directory).
config_env() {
    case $1 in
    none) echo "OMP_TOOL=disabled" ;;
    null) echo "OMP_TOOL_LIBRARIES=$NULL_TOOL" ;;
    host) echo "OMP_TOOL_LIBRARIES=$HOST_LIB OFFTRACE_OUTPUT=$2 OFFTRACE_VERBOSE=0" ;;
    device) echo "OMP_TOOL_LIBRARIES=$HOST_LIB LD_PRELOAD=$DEVICE_LIB OFFTRACE_OUTPUT=$2 OFFTRACE_VERBOSE=0" ;;
    profile) echo "OMP_TOOL=disabled LIBOMPTARGET_PROFILE=$2.json" ;;
    esac
}

# ---------------------------------------------------------------- 1. micro
r=0
while [ $r -lt "$ROUNDS" ]; do
    for op in $TARGET_OPS $HOST_OPS; do
        configs="none null host device"
        case " $TARGET_OPS " in *" $op "*) configs="$configs profile" ;; esac
        configs=$(rotate $r $configs)
        for c in $configs; do
            # shellcheck disable=SC2046
            env $(config_env $c "$TMP/trace") "$BIN" "$op" "$(iters $op)" >> "$TMP/micro.$op.$c"
            rm -rf "$TMP/trace" "$TMP/trace.json"
            sync
        done
    done
    r=$((r + 1))
done
TSC_MHZ=$(OMP_TOOL=disabled "$BIN" tsc)

cell() { # value baseline
    awk -v v="$1" -v b="$2" 'BEGIN {printf "%.0f (%+.0f, %.2f)", v, v-b, v/b}'
}
micro_table() { # statistic (median or minimum)
    echo "| operation | no tool | do-nothing OMPT tool | offtrace host-only | offtrace + device detail | LIBOMPTARGET_PROFILE |"
    echo "|---|---|---|---|---|---|"
    for op in $TARGET_OPS $HOST_OPS; do
        none=$($1 "$TMP/micro.$op.none")
        line="| $op ($(iters $op)/run) | $(printf %.0f "$none")"
        for c in null host device profile; do
            if [ -f "$TMP/micro.$op.$c" ]; then
                line="$line | $(cell "$($1 "$TMP/micro.$op.$c")" "$none")"
            else
                line="$line | -"
            fi
        done
        echo "$line |"
    done
    echo
}
echo "### Micro: ns per operation (added vs no tool, ratio to no tool), median of $ROUNDS rounds"
echo
micro_table median
echo "### Micro: the same, fastest round of each configuration"
echo
echo "Interference from other work only ever adds time, so the fastest round is the"
echo "least disturbed estimate of each configuration's own cost."
echo
micro_table minimum

# ------------------------------------------------- 2. per recorded host event
# Instructions inside offtrace's three target callbacks per call, from
# callgrind on copies of the libraries without DWARF (valgrind 3.19 cannot
# read clang 19's DWARF 5); empty when valgrind cannot run.
CG_N=2000
instr_per_record=""
if command -v valgrind > /dev/null 2>&1 && command -v objcopy > /dev/null 2>&1; then
    objcopy --strip-debug "$HOST_LIB" "$TMP/libofftrace.so"
    if OMP_TOOL_LIBRARIES="$TMP/libofftrace.so" OFFTRACE_OUTPUT="$TMP/cgtrace" OFFTRACE_VERBOSE=0 \
        valgrind --tool=callgrind --callgrind-out-file="$TMP/callgrind.out" \
        --toggle-collect=on_target_emi --toggle-collect=on_data_op_emi --toggle-collect=on_submit_emi \
        "$BIN" map64 $CG_N > /dev/null 2> "$TMP/callgrind.log"; then
        collected=$(awk '/Collected :/ {print $NF}' "$TMP/callgrind.log")
        calls=$(OMP_TOOL_LIBRARIES="$COUNT_TOOL" "$BIN" map64 $CG_N 2>&1 > /dev/null | awk '/^callbacks/ {print $2}')
        instr_per_record=$(awk -v i="$collected" -v c="$calls" 'BEGIN {printf "%.1f", i/c}')
    fi
    rm -rf "$TMP/cgtrace"
fi

echo "### Per recorded host event (offtrace host-only minus the do-nothing tool)"
echo
echo "| operation | host events (callbacks) per operation | added per operation, median (min) | ns per event, median (min) | TSC cycles per event, median (min) |"
echo "|---|---|---|---|---|"
for op in $TARGET_OPS; do
    n=$(iters $op)
    calls=$(OMP_TOOL_LIBRARIES="$COUNT_TOOL" "$BIN" "$op" "$n" 2>&1 > /dev/null | awk '/^callbacks/ {print $2}')
    awk -v op="$op" -v calls="$calls" -v n="$n" -v w=1000 -v h="$(median "$TMP/micro.$op.host")" \
        -v z="$(median "$TMP/micro.$op.null")" -v hm="$(minimum "$TMP/micro.$op.host")" \
        -v zm="$(minimum "$TMP/micro.$op.null")" -v mhz="$TSC_MHZ" 'BEGIN {
        per = calls / (n + w); d = h - z; dm = hm - zm
        printf "| %s | %.2f | %+.0f (%+.0f) ns | %.1f (%.1f) | %.0f (%.0f) |\n", op, per, d, dm, d/per, dm/per,
            d/per*mhz/1000, dm/per*mhz/1000 }'
done
echo
if [ -n "$instr_per_record" ]; then
    echo "Instructions inside offtrace's target callbacks (callgrind, map64 $CG_N, stripped copy of libofftrace.so): $instr_per_record per event, i.e. per callback (clock read, pending slot or slot reserve, record build and store, chunk slow path amortised; libomp's dispatch to the tool is not included)."
else
    echo "Instructions: callgrind could not run here (see $TMP/callgrind.log)."
fi
echo "TSC: $TSC_MHZ MHz (measured against CLOCK_MONOTONIC). perf stat: $(perf stat -e instructions true 2>&1 | grep -q 'not supported' && echo 'instructions and cycles not supported on this machine' || echo 'see perf stat -e instructions')."
echo

# --------------------------------------- 3./4. whole programs, trace size, RSS
EXAMPLES="cg saxpy stencil enter_exit nowait two_devices device_tasks transfer_mistakes transfer_done_right cg:256:200 cg:512:50"
r=0
while [ $r -lt "$ROUNDS" ]; do
    for ex in $EXAMPLES; do
        name=$(echo "$ex" | tr ':' '_')
        prog="$BUILD/bin/example_$(echo "$ex" | cut -d: -f1)"
        args=$(echo "$ex" | cut -s -d: -f2- | tr ':' ' ')
        for c in $(rotate $r none host device); do
            t0=$(now_ns)
            # shellcheck disable=SC2046,SC2086
            env $(config_env $c "$TMP/trace") /usr/bin/time -f %M -o "$TMP/rss" "$prog" $args > "$TMP/out" 2>&1
            t1=$(now_ns)
            echo $(((t1 - t0) / 1000)) >> "$TMP/ex.$name.$c.us"
            cat "$TMP/rss" >> "$TMP/ex.$name.$c.rss"
            awk '/^cg: solver/ {print $3}' "$TMP/out" >> "$TMP/ex.$name.$c.solver"
            if [ $c != none ] && [ ! -f "$TMP/ex.$name.$c.events" ]; then
                "$OFFTRACE" info "$TMP/trace" | awk '/ trace / {print $3}' > "$TMP/ex.$name.$c.events"
                du -cb "$TMP/trace/traces.otf2" "$TMP/trace/traces.def" "$TMP/trace/traces" | awk '/total/ {print $1}' > "$TMP/ex.$name.$c.bytes"
            fi
            rm -rf "$TMP/trace"
            sync
        done
    done
    r=$((r + 1))
done

echo "### Whole programs: wall time of the process (ms), median; ratio to no tool"
echo
echo "| example | no tool | host-only | device detail | host-only ratio | device detail ratio |"
echo "|---|---|---|---|---|---|"
for ex in $EXAMPLES; do
    name=$(echo "$ex" | tr ':' '_')
    label=$(echo "$ex" | tr ':' ' ')
    awk -v l="$label" -v a="$(median "$TMP/ex.$name.none.us")" -v b="$(median "$TMP/ex.$name.host.us")" \
        -v c="$(median "$TMP/ex.$name.device.us")" \
        'BEGIN {printf "| %s | %.1f | %.1f | %.1f | %.3f | %.3f |\n", l, a/1000, b/1000, c/1000, b/a, c/a}'
done
for ex in cg cg:256:200 cg:512:50; do
    name=$(echo "$ex" | tr ':' '_')
    label=$(echo "$ex" | tr ':' ' ')
    awk -v l="$label" -v a="$(median "$TMP/ex.$name.none.solver")" -v b="$(median "$TMP/ex.$name.host.solver")" \
        -v c="$(median "$TMP/ex.$name.device.solver")" \
        'BEGIN {printf "| %s, solver time only (its own timer) | %.2f | %.2f | %.2f | %.3f | %.3f |\n", l, a*1000, b*1000, c*1000, b/a, c/a}'
done
echo

echo "### Trace bytes per event and peak RSS (KiB, GNU time %M, median)"
echo
echo "| example | events host-only | bytes/event host-only | events device detail | bytes/event device detail | RSS no tool | RSS host-only | RSS device detail |"
echo "|---|---|---|---|---|---|---|---|"
for ex in $EXAMPLES; do
    name=$(echo "$ex" | tr ':' '_')
    label=$(echo "$ex" | tr ':' ' ')
    awk -v l="$label" -v he="$(cat "$TMP/ex.$name.host.events")" -v hb="$(cat "$TMP/ex.$name.host.bytes")" \
        -v de="$(cat "$TMP/ex.$name.device.events")" -v db="$(cat "$TMP/ex.$name.device.bytes")" \
        -v rn="$(median "$TMP/ex.$name.none.rss")" -v rh="$(median "$TMP/ex.$name.host.rss")" \
        -v rd="$(median "$TMP/ex.$name.device.rss")" \
        'BEGIN {printf "| %s | %d | %.1f | %d | %.1f | %d | %d (%+d) | %d (%+d) |\n", l, he, hb/he, de, db/de, rn, rh, rh-rn, rd, rd-rn}'
done
cat "$TMP"/ex.*.host.events | awk '{s += $1} END {print s}' > "$TMP/sum.he"
cat "$TMP"/ex.*.host.bytes | awk '{s += $1} END {print s}' > "$TMP/sum.hb"
cat "$TMP"/ex.*.device.events | awk '{s += $1} END {print s}' > "$TMP/sum.de"
cat "$TMP"/ex.*.device.bytes | awk '{s += $1} END {print s}' > "$TMP/sum.db"
awk -v he="$(cat "$TMP/sum.he")" -v hb="$(cat "$TMP/sum.hb")" -v de="$(cat "$TMP/sum.de")" -v db="$(cat "$TMP/sum.db")" \
    'BEGIN {printf "| all examples (total bytes / total events) | %d | %.1f | %d | %.1f | | | |\n", he, hb/he, de, db/de}'
echo
echo "Archive bytes: traces.otf2 + traces.def + traces/ (OTF2 3.0.2, no compression option), over the events \`offtrace info\` counts. Raw records before conversion: 64 bytes per host record (one per data operation or kernel submission, two per construct), 48 per device record."
echo
echo "mode: $MODE, rounds: $ROUNDS (median), machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +%Y-%m-%d)"
