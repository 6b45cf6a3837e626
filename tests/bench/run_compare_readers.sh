#!/bin/bash
# Whether a change to the archive's layout keeps every reader exact: records
# PROGRAM once with BASE_BUILD's offtrace (raw records kept, host OpenMP
# `all`), converts that recording with each build, reads both archives with
# NEW_BUILD's readers and compares: traces.def and each .evt (byte-identical
# or not, with the sizes), `report`, `report --json`, `export -o -`
# (byte-identical), `view -o` (identical but for the archive's directory
# name), `info` (its differences printed: the size on disk, the seconds).
#   usage: tests/bench/run_compare_readers.sh BASE_BUILD NEW_BUILD PROGRAM [ARGS...]
#   e.g.   OMP_NUM_THREADS=2 tests/bench/run_compare_readers.sh /tmp/base/build build \
#              build/bin/bench_host_openmp_units chunk 1000000
set -u
OLD=$(realpath "$1")/bin; NEW=$(realpath "$2")/bin; shift 2
D=$(mktemp -d); trap 'rm -rf "$D"' EXIT
OFFTRACE_KEEP_RAW=1 "$OLD/offtrace" record --host-openmp all -o "$D/rec" -- "$@" > /dev/null 2>&1 ||
    echo "record: exit status $?"
for b in old new; do
    bin=$OLD; [ $b = new ] && bin=$NEW
    cp -a "$D/rec" "$D/$b"
    rm -rf "$D/$b/traces.otf2" "$D/$b/traces.def" "$D/$b/traces"
    "$bin/offtrace" convert --quiet --keep-raw "$D/$b" > /dev/null 2>&1 || echo "convert ($b): exit status $?"
done
cmp -s "$D/old/traces.def" "$D/new/traces.def" && echo "traces.def identical" || echo "traces.def DIFFERS"
n=0; d=0
for f in "$D"/old/traces/*.evt; do
    n=$((n + 1)); cmp -s "$f" "$D/new/traces/${f##*/}" || d=$((d + 1))
done
echo ".evt files: $n, differing: $d; traces/ $(du -sb "$D/old/traces" | cut -f1) -> $(du -sb "$D/new/traces" | cut -f1) B"
for b in old new; do
    (cd "$D/$b" &&
        "$NEW/offtrace" report . > ../$b.report 2>&1
        "$NEW/offtrace" report --json . > ../$b.json 2>&1
        "$NEW/offtrace" export -o - . > ../$b.export 2>&1
        "$NEW/offtrace" view -o ../$b.html . > /dev/null 2>&1
        "$NEW/offtrace" info . > ../$b.info 2>&1)
done
for k in report json export; do
    cmp -s "$D/old.$k" "$D/new.$k" && echo "$k identical ($(wc -c < "$D/new.$k") B)" || echo "$k DIFFERS"
done
sed 's|'"$D"'/old|'"$D"'/new|g' "$D/old.html" | cmp -s - "$D/new.html" &&
    echo "view identical but for the archive's directory" || echo "view DIFFERS"
diff "$D/old.info" "$D/new.info"
exit 0
