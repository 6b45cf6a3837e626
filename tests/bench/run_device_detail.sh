#!/bin/sh
# Device detail on fine kernels (issue 18): CG's own solver time (its
# `target data` region, timed inside the program) with no tool, host-only
# tracing, and device detail at each OFFTRACE_DEVICE_DETAIL level, at
# several problem sizes; a second build (BASE_BUILD, optional: the build
# before issue 18) adds its device detail as a column. Configurations are
# interleaved round by round in a rotating order, with a sync after each
# traced run; medians are reported as ratios to no tool, and the cost of
# device detail per kernel as (device detail - host-only) / kernels.
# OMP_SETTINGS (optional, e.g. OMP_NUM_THREADS=1): environment for every
# run. With one thread on two cores no thread of CG's team waits for a
# preempted one, so the untraced run is steadier (issue 18, third round).
#   usage: [OMP_SETTINGS=...] tests/bench/run_device_detail.sh [BUILD_DIR] [ROUNDS] [SIZES] [BASE_BUILD]
#   SIZES: grid:iterations pairs, default "64:200 512:50" (kernels of about 10 and 250 us here)
set -eu
BUILD=${1:-build}
ROUNDS=${2:-11}
SIZES=${3:-"64:200 512:50"}
BASE=${4:-}
OMP_SETTINGS=${OMP_SETTINGS:-}
CG="$BUILD/bin/example_cg"
. "$(dirname "$0")/bench_lib.sh"
detail_setup "$BUILD" "$BASE"
CONFIGS=$DETAIL_CONFIGS
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
r=0
while [ $r -lt "$ROUNDS" ]; do
    for size in $SIZES; do
        # shellcheck disable=SC2086
        for c in $(rotate $r $CONFIGS); do
            # shellcheck disable=SC2046
            cg_solver_time "$TMP/$size.$c" $(detail_env $c) $OMP_SETTINGS "$CG" "${size%:*}" "${size#*:}"
        done
    done
    r=$((r + 1))
done
levels=""
for c in $CONFIGS; do
    case $c in none | host) ;; *) levels="$levels $c" ;; esac
done
# table STAT: ratios to no tool and the cost per kernel, of the median (STAT
# median) or of the fastest round (STAT minimum) of each configuration.
table() {
    header="| CG grid x iterations | kernels | no tool, µs per kernel | host-only |"
    rule="|---|---|---|---|"
    for l in $levels; do header="$header $l |"; rule="$rule---|"; done
    for l in $levels; do header="$header $l, µs per kernel |"; rule="$rule---|"; done
    echo "$header"
    echo "$rule"
    for size in $SIZES; do
        kernels=$((${size#*:} * 6 + 2))
        none=$($1 "$TMP/$size.none")
        host=$($1 "$TMP/$size.host")
        line=$(awk -v l="${size%:*} x ${size#*:}" -v k="$kernels" -v n="$none" -v h="$host" \
            'BEGIN {printf "| %s | %d | %.1f | %.3f |", l, k, n * 1e6 / k, h / n}')
        for c in $CONFIGS; do
            case $c in none | host) continue ;; esac
            line="$line$(awk -v n="$none" -v d="$($1 "$TMP/$size.$c")" 'BEGIN {printf " %.3f |", d / n}')"
        done
        for c in $CONFIGS; do
            case $c in none | host) continue ;; esac
            line="$line$(awk -v h="$host" -v d="$($1 "$TMP/$size.$c")" -v k="$kernels" 'BEGIN {printf " %+.2f |", (d - h) * 1e6 / k}')"
        done
        echo "$line"
    done
}
echo "Medians of $ROUNDS rounds: ratios to no tool; device detail's cost per kernel = (device detail - host-only) / kernels"
echo
table median
echo
echo "Fastest rounds (each configuration's fastest of $ROUNDS), the same columns:"
echo
table minimum
echo
echo "levels: OFFTRACE_DEVICE_DETAIL=kernels, teams, threads${BASE:+; before: $BASE, device detail}${OMP_SETTINGS:+; $OMP_SETTINGS}"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%d)"
