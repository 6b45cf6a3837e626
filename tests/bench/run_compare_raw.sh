#!/bin/sh
# What two builds' recorders write, compared record by record with the
# times masked (compare_raw_streams.py), on the examples and the
# run_convert.sh-style micro, host-only and with device detail: for a
# change to the recording path that must not change the records (issue 18).
# Each build's offtrace and libraries are copied to directories of the same
# path length and the programs are NEW's, run with ASLR off (setarch -R),
# so that the stack and heap addresses in the records are the same (with
# device detail not always: a program is recorded up to three times).
# Exit status 0 when every program's records are equal.
#   usage: tests/bench/run_compare_raw.sh NEW_BUILD BASE_BUILD
set -u
NEW=$(realpath "$1"); OLD=$(realpath "$2"); CMP="$(realpath "$(dirname "$0")")/compare_raw_streams.py"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
mkdir -p "$T/new/bin" "$T/old/bin"
cp "$NEW/bin/offtrace" "$T/new/bin/"; cp -r "$NEW/lib" "$T/new/lib"
cp "$OLD/bin/offtrace" "$T/old/bin/"; cp -r "$OLD/lib" "$T/old/lib"
status=0
run() { # NAME threads|"" PROGRAM ARGS...
    name=$1$SUFFIX; mt=$2; shift 2
    try=1
    while :; do
        for w in new old; do
            rm -rf "$T/$w-$name"
            # shellcheck disable=SC2086
            OMP_NUM_THREADS=2 OFFTRACE_KEEP_RAW=1 setarch -R "$T/$w/bin/offtrace" record $OPTS -o "$T/$w-$name" -- \
                "$NEW/bin/$@" > "$T/$w-$name.out" 2>&1 || echo "$w $name: exit status $?"
            grep -v '^offtrace: ' "$T/$w-$name.out" > "$T/$w-$name.prog"
        done
        # shellcheck disable=SC2086
        if out=$(python3 "$CMP" "$T/new-$name" "$T/old-$name" $mt); then
            echo "$name: $out (try $try)"
            break
        fi
        # with device detail the collector's allocations move the program's
        # heap, and threads meet map sites in either order: a build against
        # itself differs too, now and then; three tries
        if [ $try = 3 ]; then echo "$name: $out"; status=1; break; fi
        try=$((try + 1))
    done
    cmp -s "$T/new-$name.prog" "$T/old-$name.prog" ||
        echo "  (the program's output differs: $(diff "$T/new-$name.prog" "$T/old-$name.prog" | sed -n 2p))"
}
for OPTS in --host-only ""; do
    SUFFIX=${OPTS:+-host}
    echo "== offtrace record ${OPTS:-(device detail)}"
    run map64 "" bench_target_loop map64 3000
    run implicit_maps "" example_implicit_maps
    run transfer_mistakes "" example_transfer_mistakes
    run stencil "" example_stencil
    run enter_exit "" example_enter_exit
    run saxpy "" example_saxpy
    run two_devices "" example_two_devices
    run cg "" example_cg 32 20
    run device_tasks threads example_device_tasks
    run nowait threads example_nowait
done
OPTS=--start-paused SUFFIX=-paused run control_windows "" example_control_windows windows
exit $status
