#!/bin/sh
# Regenerate the fuzzers' seeds from real recordings of the test programs:
#   tests/fuzz/make_corpus.sh [BUILD_DIR]     (default: build)
# writes
#   archive/          the template archive of fuzz_archive (example_two_devices)
#   job_archive/      the template archive of fuzz_job_archive (a 2-rank example_mpi_halo job)
#   corpus/archive/   seed-two_devices: the files of that archive
#   corpus/job_archive/ seed-mpi_halo: the files of the job's archive
#   corpus/raw/       one seed per recording: its raw/ files; thread streams cut after their last record (300 at
#                     most), device files after 200 records, maps.<n> left out
# A seed is files as "<name>\n<contents>" parts between separators
# (fuzz_parts.h). Keep the corpus small (the seeds are committed): a few files, < 200 KiB.
# Fuzzing finds its own way from these; regression inputs for fixed bugs
# (corpus/*/regress-*) are kept as they are.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-build}" && pwd)
bin=$build/bin
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
separator='
=offtrace-fuzz-part=
'

record() { # record NAME PROGRAM [ARGS]: a recording with raw/ kept, in $scratch/NAME
    name=$1
    shift
    OFFTRACE_KEEP_RAW=1 "$bin/offtrace" record -o "$scratch/$name" -- "$@" >/dev/null 2>"$scratch/$name.log" || {
        cat "$scratch/$name.log" >&2
        echo "make_corpus.sh: recording $* failed" >&2
        exit 1
    }
}

# A thread stream up to its first uncommitted record (event byte 0): the
# 4096-byte header, then 64-byte records.
committed_records() {
    od -An -v -t u1 -w64 -j 4096 "$1" | awk '$64 == 0 { print NR - 1; found = 1; exit } END { if (!found) print NR }'
}

add_part() { # add_part SEED NAME FILE [BYTES]: append FILE as part NAME (its first BYTES)
    [ ! -s "$1" ] || printf '%s' "$separator" >>"$1"
    printf '%s\n' "$2" >>"$1"
    head -c "${4:-100000000}" "$3" >>"$1"
}

raw_seed() { # raw_seed NAME: corpus/raw/seed-NAME from $scratch/NAME/raw
    raw=$scratch/$1/raw
    seed=$here/corpus/raw/seed-$1
    : >"$seed"
    for f in $(cd "$raw" && LC_ALL=C ls); do
        case $f in
        thread-*.rec)
            records=$(committed_records "$raw/$f")
            add_part "$seed" "$f" "$raw/$f" $((4096 + 64 * (records < 300 ? records : 300)))
            ;;
        device-*.rec) add_part "$seed" "$f" "$raw/$f" $((64 + 48 * 200)) ;;
        clock.pairs | devices.txt | user.defs | nvtx.defs | map-sites.defs | mpi.*) add_part "$seed" "$f" "$raw/$f" ;;
        esac
    done
}

mkdir -p "$here/corpus/raw" "$here/corpus/archive"
rm -f "$here"/corpus/raw/seed-* "$here"/corpus/archive/seed-*

# The template archive at the full device detail (every device thread's row and
# region kinds); the other recordings at the default level (team summaries).
OFFTRACE_DEVICE_DETAIL=threads record two_devices "$bin/example_two_devices"
record saxpy "$bin/example_saxpy"
record nowait "$bin/example_nowait"
record devpar "$bin/hostile_devpar"
record user_phases "$bin/example_user_phases" 2
record nvtx_phases "$bin/example_nvtx_phases"
record map_names "$bin/map_names"
seeds="two_devices saxpy nowait devpar user_phases nvtx_phases map_names"
if [ -x "$bin/example_mpi_reduce" ] && [ -f "$build/lib/libofftrace-mpi.so" ]; then
    # MPI records (issue 16): one rank alone (MPI's singleton start), libofftrace-mpi.so preloaded
    LD_PRELOAD="$build/lib/libofftrace-mpi.so" record mpi_reduce "$bin/example_mpi_reduce" 1000
    seeds="$seeds mpi_reduce"
fi
for name in $seeds; do
    raw_seed $name
done

rm -rf "$here/archive"
mkdir -p "$here/archive/traces"
cp "$scratch/two_devices/traces.otf2" "$scratch/two_devices/traces.def" "$here/archive/"
cp "$scratch"/two_devices/traces/* "$here/archive/traces/"
seed=$here/corpus/archive/seed-two_devices
: >"$seed"
for f in $(cd "$here/archive" && find . -type f | sed 's|^\./||' | LC_ALL=C sort); do
    add_part "$seed" "$f" "$here/archive/$f"
done
# An MPI job's archive (issue 16): two ranks of example_mpi_halo, a few steps,
# merged into one archive with every rank's messages and collectives.
# mpirun by name: Open MPI run by an absolute path takes its prefix from it ("/" for /usr/bin) and refuses it.
if command -v mpirun >/dev/null && [ -x "$bin/example_mpi_halo" ] && [ -f "$build/lib/libofftrace-mpi.so" ]; then
    timeout 60 mpirun --allow-run-as-root --oversubscribe --mca mpi_yield_when_idle 1 --timeout 55 -np 2 \
        "$bin/offtrace" record -o "$scratch/job" -- "$bin/example_mpi_halo" 2 >/dev/null 2>"$scratch/job.log" || {
        cat "$scratch/job.log" >&2
        echo "make_corpus.sh: the MPI job failed" >&2
        exit 1
    }
    rm -rf "$here/job_archive"
    mkdir -p "$here/job_archive/traces" "$here/corpus/job_archive"
    cp "$scratch/job/traces.otf2" "$scratch/job/traces.def" "$here/job_archive/"
    cp "$scratch"/job/traces/* "$here/job_archive/traces/"
    seed=$here/corpus/job_archive/seed-mpi_halo
    rm -f "$here"/corpus/job_archive/seed-*
    : >"$seed"
    for f in $(cd "$here/job_archive" && find . -type f | sed 's|^\./||' | LC_ALL=C sort); do
        add_part "$seed" "$f" "$here/job_archive/$f"
    done
fi
du -sh "$here/archive" "$here/job_archive" "$here/corpus"
