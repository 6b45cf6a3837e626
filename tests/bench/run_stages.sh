#!/bin/sh
# Where the time added to an empty `target map(tofrom: 64 B)` region goes,
# stage by stage, measured inside real target regions: no tool; the
# do-nothing OMPT tool (dispatch); offtrace's library with callbacks that
# return at once (stage 1: dispatch plus a loaded session and its helper
# threads); that read the clock (stage 2); that also store a record into a
# per-thread ring that stays in cache (stage 3); and the whole recording.
# Stages come from libofftrace_bench_stages.so (host/tool.c built with
# OT_BENCH_STAGES). Configurations are interleaved round by round in a
# rotating order; median and fastest round are reported.
#   usage: tests/bench/run_stages.sh [BUILD_DIR] [ROUNDS] [REGIONS]
set -eu
BUILD=${1:-build}
ROUNDS=${2:-15}
N=${3:-30000}
BIN="$BUILD/bin/bench_target_loop"
NULL_TOOL="$(realpath "$BUILD/lib/libofftrace_bench_null_tool.so")"
STAGES_LIB="$(realpath "$BUILD/lib/libofftrace_bench_stages.so")"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

config_env() {
    case $1 in
    none) echo "OMP_TOOL=disabled" ;;
    null) echo "OMP_TOOL_LIBRARIES=$NULL_TOOL" ;;
    stage1 | stage2 | stage3) echo "OMP_TOOL_LIBRARIES=$STAGES_LIB OFFTRACE_BENCH_STAGE=${1#stage} OFFTRACE_OUTPUT=$TMP/t OFFTRACE_VERBOSE=0" ;;
    full) echo "OMP_TOOL_LIBRARIES=$STAGES_LIB OFFTRACE_OUTPUT=$TMP/t OFFTRACE_VERBOSE=0" ;;
    esac
}
. "$(dirname "$0")/bench_lib.sh"
CONFIGS="none null stage1 stage2 stage3 full"
r=0
while [ $r -lt "$ROUNDS" ]; do
    for c in $(rotate $r $CONFIGS); do
        # shellcheck disable=SC2046
        env $(config_env $c) "$BIN" map64 "$N" >> "$TMP/$c"
        rm -rf "$TMP/t"
        sync
    done
    r=$((r + 1))
done
stat() { if [ "$1" = min ]; then minimum "$2"; else median "$2"; fi; }
echo "| configuration | ns per region, median | added to the previous row | ns per region, fastest round | added to the previous row |"
echo "|---|---|---|---|---|"
prev_med=""; prev_min=""
for c in $CONFIGS; do
    med=$(stat median "$TMP/$c"); min=$(stat min "$TMP/$c")
    case $c in
    none) label="no tool" ;;
    null) label="do-nothing OMPT tool (dispatch of 12 callbacks)" ;;
    stage1) label="offtrace, callbacks return at once (its session and threads)" ;;
    stage2) label="... and read the clock (12 TSC reads)" ;;
    stage3) label="... and store a 64-byte record into a ring in cache" ;;
    full) label="offtrace, the whole recording (7 records into the stream)" ;;
    esac
    awk -v l="$label" -v a="$med" -v b="$min" -v pa="${prev_med:-$med}" -v pb="${prev_min:-$min}" \
        'BEGIN {printf "| %s | %.0f | %+.0f | %.0f | %+.0f |\n", l, a, a - pa, b, b - pb}'
    prev_med=$med; prev_min=$min
done
echo
echo "regions per run: $N, rounds: $ROUNDS, machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +%Y-%m-%d)"
echo

# The same stages inside one process, switched every 250 regions
# (bench_target_loop stages): slower machine noise hits all of them alike.
r=0
while [ $r -lt "$ROUNDS" ]; do
    OMP_TOOL_LIBRARIES=$STAGES_LIB OFFTRACE_OUTPUT=$TMP/t OFFTRACE_VERBOSE=0 "$BIN" stages "$N" >> "$TMP/inproc"
    rm -rf "$TMP/t"
    sync
    r=$((r + 1))
done
echo "Inside one process, stages switched every 250 regions; median over $ROUNDS processes of each one's median block:"
echo
echo "| stage | ns per region | added to the previous stage | per callback (12 per region) |"
echo "|---|---|---|---|"
for col in 1 2 3 4; do
    awk -v c=$col '{print $c}' "$TMP/inproc" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}' > "$TMP/col$col"
done
s1=$(cat "$TMP/col1"); s2=$(cat "$TMP/col2"); s3=$(cat "$TMP/col3"); s0=$(cat "$TMP/col4")
awk -v s1="$s1" -v s2="$s2" -v s3="$s3" -v s0="$s0" 'BEGIN {
    printf "| callbacks return at once | %.0f | | |\n", s1
    printf "| ... and read the clock | %.0f | %+.0f | %.1f ns |\n", s2, s2 - s1, (s2 - s1) / 12
    printf "| ... and store a record into a ring in cache | %.0f | %+.0f | %.1f ns |\n", s3, s3 - s2, (s3 - s2) / 12
    printf "| the whole recording | %.0f | %+.0f | %.1f ns |\n", s0, s0 - s3, (s0 - s3) / 12
    printf "| **offtrace'"'"'s own work per region (whole recording minus callbacks that return at once)** | | **%+.0f** | **%.1f ns** |\n", s0 - s1, (s0 - s1) / 12
}'
