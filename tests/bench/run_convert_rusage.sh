#!/bin/bash
# Issue 18: the conversion's user and system time apart, and its page faults
# (run_convert_cpu.sh gives their sum). Records run_convert.sh's recording
# (b) (or (a), (c)) once with BUILD_DIR's offtrace (raw records kept), then
# runs each build's `offtrace convert --quiet --keep-raw REC` in turn, in
# an alternating order, ROUNDS rounds, and prints the medians of the
# process's own rusage (wait4: user and system time to the microsecond,
# minor faults, the ones MADV_POPULATE_WRITE takes included).
#   usage: tests/bench/run_convert_rusage.sh BUILD_DIR BASELINE_DIR [N] [ROUNDS] [RECORDING]
#   e.g.   tests/bench/run_convert_rusage.sh build /tmp/base/build 20000 31 b
set -eu
BUILD=$(realpath "$1"); OLD=$(realpath "$2"); N=${3:-20000}; ROUNDS=${4:-31}; REC=${5:-b}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
export OFFTRACE_KEEP_RAW=1 OMP_NUM_THREADS=2
case $REC in
a) "$BUILD/bin/offtrace" record -o "$T/r" -- "$BUILD/bin/bench_target_loop" map64 "$N" ;;
b) "$BUILD/bin/offtrace" record --host-openmp all -o "$T/r" -- "$BUILD/bin/bench_host_openmp_units" parallel $((N * 5)) ;;
c) "$BUILD/bin/offtrace" record --host-openmp all -o "$T/r" -- "$BUILD/bin/bench_host_openmp_units" chunk $((N * 50)) ;;
*) echo "usage: RECORDING is a, b or c" >&2; exit 2 ;;
esac > /dev/null 2>&1
python3 - "$ROUNDS" "$T/r" "$OLD" "$BUILD" "$REC" <<'PY'
import os, statistics, sys
rounds, rec, builds, name = int(sys.argv[1]), sys.argv[2], {"old": sys.argv[3], "new": sys.argv[4]}, sys.argv[5]
runs = {b: [] for b in builds}
for i in range(rounds):
    for b in (["old", "new"] if i % 2 == 0 else ["new", "old"]):
        pid = os.fork()
        if pid == 0:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.dup2(null, 2)
            os.execv(builds[b] + "/bin/offtrace", ["offtrace", "convert", "--quiet", "--keep-raw", rec])
        _, status, usage = os.wait4(pid, 0)
        if status != 0:
            sys.exit("offtrace convert failed (%s build)" % b)
        runs[b].append((usage.ru_utime * 1e3, usage.ru_stime * 1e3, usage.ru_minflt))
print("| (%s), %d rounds | user ms | system ms | user + system ms | minor faults |" % (name, rounds))
print("|---|---|---|---|---|")
for b in ("old", "new"):
    med = lambda f: statistics.median(f(r) for r in runs[b])
    print("| %s | %.1f | %.1f | %.1f | %d |" % (b, med(lambda r: r[0]), med(lambda r: r[1]), med(lambda r: r[0] + r[1]),
                                              med(lambda r: r[2])))
PY
echo
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date +%F)"
