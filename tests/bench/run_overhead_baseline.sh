#!/bin/sh
# Cost added to an empty `target map(tofrom: 64 B)` region by this build's
# recorder against another build's (BASELINE_DIR: a build tree or an install
# with bin/ and lib/), no tool beside them, in one interleaved run; host-only
# and with the device collector preloaded. Median ns per region of ROUNDS.
#   usage: tests/bench/run_overhead_baseline.sh BUILD_DIR BASELINE_DIR [ITERATIONS] [ROUNDS]
set -eu
BUILD=$(realpath "$1"); OLD=$(realpath "$2"); ITER=${3:-100000}; ROUNDS=${4:-15}
. "$(dirname "$0")/bench_lib.sh"
BIN="$BUILD/bin/bench_target_loop"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
run() { # name, root of the build (or -), device (0/1)
    if [ "$2" = - ]; then env OMP_TOOL=disabled "$BIN" "$ITER" >> "$T/$1"; return; fi
    pre=""; [ "$3" = 1 ] && pre="$2/lib/libofftrace-device.so"
    env LD_PRELOAD="$pre" OMP_TOOL_LIBRARIES="$2/lib/libofftrace.so" OFFTRACE_OUTPUT="$T/o" OFFTRACE_VERBOSE=0 \
        "$BIN" "$ITER" >> "$T/$1"
    rm -rf "$T/o"; sync
}
i=0
while [ $i -lt "$ROUNDS" ]; do
    for c in $(rotate $i none new old new-dev old-dev); do
        case $c in
        none) run none - 0 ;; new) run new "$BUILD" 0 ;; old) run old "$OLD" 0 ;;
        new-dev) run new-dev "$BUILD" 1 ;; old-dev) run old-dev "$OLD" 1 ;;
        esac
    done
    i=$((i + 1))
done
N=$(median "$T/none")
echo "| configuration | ns per region | added vs no tool |"
echo "|---|---|---|"
for c in none old new old-dev new-dev; do
    v=$(median "$T/$c"); echo "| $c | $v | $(echo "$v - $N" | bc) |"
done
