#!/bin/bash
# Issue 18: the conversion's CPU time and instructions, finer than
# run_convert.sh's (bash's `time`: a millisecond on 30-70 ms). Records
# run_convert.sh's three programs once with BUILD_DIR's offtrace (raw
# records kept), then:
#   - instructions (load-independent): `valgrind --tool=callgrind` of each
#     build's whole `offtrace convert --quiet --keep-raw REC` command, with
#     `strip -g` copies of its offtrace and symbolizer library (valgrind 3.19
#     gives up on clang 19's DWARF), split into OTF2's library, libc, and
#     offtrace's own;
#   - CPU time: `perf stat -e task-clock` of the same command, each build in
#     turn in a rotating order, ROUNDS rounds, medians and the fastest.
#   (a) bench_target_loop map64 N, device detail
#   (b) bench_host_openmp_units parallel N*5, --host-openmp all, 2 threads
#   (c) bench_host_openmp_units chunk N*50, --host-openmp all, 2 threads
#   usage: tests/bench/run_convert_cpu.sh BUILD_DIR BASELINE_DIR [N] [ROUNDS] [RECORDINGS]
#   e.g.   tests/bench/run_convert_cpu.sh build /tmp/base/build 20000 31 "a b c"
set -eu
BUILD=$(realpath "$1"); OLD=$(realpath "$2"); N=${3:-20000}; ROUNDS=${4:-31}; RECS=${5:-a b c}
. "$(dirname "$0")/bench_lib.sh"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
export OFFTRACE_KEEP_RAW=1 OMP_NUM_THREADS=2

for rec in $RECS; do
    case $rec in
    a) "$BUILD/bin/offtrace" record -o "$T/a" -- "$BUILD/bin/bench_target_loop" map64 "$N" ;;
    b) "$BUILD/bin/offtrace" record --host-openmp all -o "$T/b" -- "$BUILD/bin/bench_host_openmp_units" parallel \
           $((N * 5)) ;;
    c) "$BUILD/bin/offtrace" record --host-openmp all -o "$T/c" -- "$BUILD/bin/bench_host_openmp_units" chunk \
           $((N * 50)) ;;
    esac > /dev/null 2>&1
done

for b in new old; do # the stripped copies, laid out as a build (the symbolizer beside ../lib)
    dir=$BUILD; [ $b = old ] && dir=$OLD
    mkdir -p "$T/$b/bin" "$T/$b/lib"
    cp "$dir/bin/offtrace" "$T/$b/bin/"
    cp -a "$dir"/lib/libofftrace-symbolize.so* "$T/$b/lib/"
    strip -g "$T/$b/bin/offtrace" "$T/$b"/lib/libofftrace-symbolize.so*
done

echo "Instructions of the whole command (callgrind, stripped copies), M:"
echo
echo "| recording | build | all | OTF2 | libc | offtrace (the rest) |"
echo "|---|---|---|---|---|---|"
for rec in $RECS; do
    for b in old new; do
        valgrind --tool=callgrind --callgrind-out-file="$T/cg" "$T/$b/bin/offtrace" convert --quiet --keep-raw \
            "$T/$rec" > /dev/null 2>&1
        callgrind_annotate "$T/cg" 2> /dev/null | awk -v rec="$rec" -v b="$b" '
            function n(s) { gsub(",", "", s); return s + 0 }
            /PROGRAM TOTALS/ { all = n($1) }
            /\[.*libopen-trace-format2/ { otf2 += n($1) }
            /\[.*libc\.so/ { libc += n($1) }
            END { printf "| (%s) | %s | %.1f | %.1f | %.1f | %.1f |\n", rec, b, all / 1e6, otf2 / 1e6, libc / 1e6,
                  (all - otf2 - libc) / 1e6 }'
    done
done

echo
echo "CPU time (perf stat -e task-clock of the whole command), ms, $ROUNDS rounds:"
echo
echo "| recording | events | build | median | fastest | M events/s (CPU, median) |"
echo "|---|---|---|---|---|---|"
for rec in $RECS; do
    i=0
    while [ $i -lt "$ROUNDS" ]; do
        for b in $(rotate $i new old); do
            perf stat -x, -e task-clock -o "$T/perf" "$T/$b/bin/offtrace" convert --quiet --keep-raw "$T/$rec" \
                > /dev/null 2>&1
            awk -F, '/task-clock/ {print $1}' "$T/perf" >> "$T/$rec.$b"
        done
        i=$((i + 1))
    done
    events=$("$T/new/bin/offtrace" info "$T/$rec" 2> /dev/null | awk '/ trace / {print $3}')
    for b in old new; do
        awk -v rec="$rec" -v b="$b" -v e="$events" -v m="$(median "$T/$rec.$b")" -v f="$(minimum "$T/$rec.$b")" \
            'BEGIN {printf "| (%s) | %d | %s | %.2f | %.2f | %.1f |\n", rec, e, b, m, f, e / m / 1000}'
    done
done
echo
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%d)"
