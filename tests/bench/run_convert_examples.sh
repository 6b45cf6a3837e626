#!/bin/bash
# Issue 18: the conversion's throughput on the archives the examples write
# (run_convert.sh measures three benchmark programs; the goal names the
# examples). Records each example once, scaled up so that its events, not
# the command's fixed start, take most of the time, with BUILD_DIR's
# offtrace (raw records kept); then converts each recording again and again
# with BUILD_DIR's and BASELINE_DIR's `offtrace convert --quiet --keep-raw`,
# alternating, ROUNDS rounds, and prints per example the medians of the
# process's own rusage (user + system, to the microsecond: wait4), events
# per second of that CPU, and the same less the fixed cost (the conversion
# of `example_saxpy`'s 160-event archive, measured in the same rounds).
# Both builds write the same events (the script says where they differ).
#   usage: tests/bench/run_convert_examples.sh BUILD_DIR BASELINE_DIR [ROUNDS] [EXAMPLES]
#   e.g.   tests/bench/run_convert_examples.sh build /tmp/base/build 11
#          tests/bench/run_convert_examples.sh build /tmp/base/build 11 "lock tasktree"
set -eu
BUILD=$(realpath "$1"); OLD=$(realpath "$2"); ROUNDS=${3:-11}
ALL="fixed cg implicit mistakes right devtasks hosttgt tasktree bucket lock mapA"
EXAMPLES="fixed $(echo ${4:-$ALL} | tr ' ' '\n' | grep -vx fixed | tr '\n' ' ')" # fixed once, first
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
export OFFTRACE_KEEP_RAW=1 OMP_NUM_THREADS=2
B=$BUILD/bin
rec() { # name, record option ("" for none), program and arguments
    name=$1; opt=$2; shift 2
    "$B/offtrace" record $opt -o "$T/$name" -- "$@" > "$T/record.log" 2>&1 || {
        echo "recording $name failed:" >&2; tail -5 "$T/record.log" >&2; exit 1; }
}
for e in $EXAMPLES; do
    case $e in
    fixed) rec fixed "--host-only" "$B/example_saxpy" ;;
    cg) rec cg "" "$B/example_cg" 24 3000 ;;                               # device detail, 3000 iterations
    implicit) rec implicit "" "$B/example_implicit_maps" 3000 ;;
    mistakes) rec mistakes "" "$B/example_transfer_mistakes" 1500 ;;
    right) rec right "" "$B/example_transfer_done_right" 3000 ;;
    devtasks) rec devtasks "" "$B/example_device_tasks" 2000 0 ;;
    hosttgt) rec hosttgt "--host-openmp=all" "$B/example_host_target_tasks" 300 0 ;;
    tasktree) rec tasktree "--host-openmp=all" "$B/example_task_tree" 200000 64 2 ;;
    bucket) rec bucket "--host-openmp=all" "$B/example_bucket_sort" 200000 20 ;;
    lock) rec lock "--host-openmp=all" "$B/example_lock_histogram" 200000 4 ;;
    mapA) rec mapA "" "$B/bench_target_loop" map64 20000 ;;             # run_convert.sh's (a)
    *) echo "unknown example $e (one of: $ALL)" >&2; exit 2 ;;
    esac
done
for e in $EXAMPLES; do # the events of each archive, as each build writes it
    for b in new old; do
        dir=$BUILD; [ $b = old ] && dir=$OLD
        "$dir/bin/offtrace" convert --quiet --keep-raw "$T/$e" > /dev/null 2>&1
        "$BUILD/bin/offtrace" info "$T/$e" | awk '/^offtrace: trace / {print $3}' > "$T/$e.$b.events"
    done
    cmp -s "$T/$e.new.events" "$T/$e.old.events" ||
        echo "note: $e: $(cat "$T/$e.new.events") events now, $(cat "$T/$e.old.events") in the baseline's archive"
done
python3 - "$ROUNDS" "$T" "$OLD" "$BUILD" $EXAMPLES <<'PY'
import os, statistics, sys
rounds, tmp, builds, examples = int(sys.argv[1]), sys.argv[2], {"old": sys.argv[3], "new": sys.argv[4]}, sys.argv[5:]
cpu = {(e, b): [] for e in examples for b in builds}
for i in range(rounds):
    for e in examples:
        for b in (["old", "new"] if (i + len(e)) % 2 == 0 else ["new", "old"]):
            pid = os.fork()
            if pid == 0:
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, 1)
                os.dup2(null, 2)
                os.execv(builds[b] + "/bin/offtrace", ["offtrace", "convert", "--quiet", "--keep-raw", tmp + "/" + e])
            _, status, usage = os.wait4(pid, 0)
            if status != 0:
                sys.exit("offtrace convert %s failed (%s build)" % (e, b))
            cpu[(e, b)].append((usage.ru_utime + usage.ru_stime) * 1e3)
med = {k: statistics.median(v) for k, v in cpu.items()}
print("CPU: user + system of the whole `offtrace convert --quiet --keep-raw`, median of %d rounds; "
      "less fixed: less the conversion of a 160-event archive (`fixed`) in the same build" % rounds)
print()
print("| archive | events | baseline CPU ms | now CPU ms | now / baseline | baseline M events/s | now M events/s "
      "| baseline less fixed | now less fixed |")
print("|---|---|---|---|---|---|---|---|---|")
for e in examples:
    ev = {b: int(open("%s/%s.%s.events" % (tmp, e, b)).read().strip() or 0) for b in builds}
    rate = lambda b, ms: ev[b] / ms / 1e3 if ms > 0 else float("nan")
    less = lambda b: rate(b, med[(e, b)] - med[("fixed", b)]) if e != "fixed" else float("nan")
    print("| %s | %d | %.2f | %.2f | %.3f | %.1f | %.1f | %.1f | %.1f |" % (
        e, ev["new"], med[(e, "old")], med[(e, "new")], med[(e, "new")] / med[(e, "old")],
        rate("old", med[(e, "old")]), rate("new", med[(e, "new")]), less("old"), less("new")))
PY
echo
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date +%F)"
