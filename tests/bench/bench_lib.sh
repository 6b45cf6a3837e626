# Helpers shared by the benchmark scripts (sourced, not run).

# median FILE / minimum FILE: of the numbers in FILE, one per line.
median() { sort -g "$1" | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
minimum() { sort -g "$1" | head -n 1; }

# rotate N A B C ...: the words starting N places on, so that round N of an
# interleaved benchmark runs its configurations in another order and none is
# always the one after a traced run (its page cache and writeback).
rotate() {
    n=$1; shift
    awk -v n="$n" 'BEGIN {c = ARGC - 1; for (i = 0; i < c; i++) printf "%s ", ARGV[1 + (i + n) % c]; print ""}' "$@"
}

# cg_solver_time FILE ENV_AND_COMMAND...: one run of example_cg under `env`
# (the environment's assignments, then CG and its arguments), the solver
# seconds it prints appended to FILE; the traced run's recording ($TMP/t)
# removed and the disk synced before the next run (run_cg.sh,
# run_device_detail.sh, run_cg_margin.sh).
cg_solver_time() {
    file=$1; shift
    env "$@" 2>&1 | awk '/^cg: solver/ {print $3}' >> "$file"
    rm -rf "$TMP/t"
    sync
}

# Device detail at each level against host-only tracing and no tool (issue 18;
# run_kernel_cost.sh, run_device_detail.sh). detail_setup BUILD [BASE_BUILD]
# sets DETAIL_CONFIGS: "none host kernels teams threads", and "before" with a
# baseline build (its host library and collector at its default detail).
# detail_env CONFIG prints one configuration's environment; its traced runs
# record into $TMP/t.
detail_setup() {
    HOST_LIB="$(realpath "$1/lib/libofftrace.so")"
    DEVICE_LIB="$(realpath "$1/lib/libofftrace-device.so")"
    DETAIL_CONFIGS="none host kernels teams threads"
    if [ -n "${2:-}" ]; then
        BASE_HOST="$(realpath "$2/lib/libofftrace.so")"
        BASE_DEVICE="$(realpath "$2/lib/libofftrace-device.so")"
        DETAIL_CONFIGS="$DETAIL_CONFIGS before"
    fi
}
detail_env() {
    traced="OFFTRACE_OUTPUT=$TMP/t OFFTRACE_VERBOSE=0"
    case $1 in
    none) echo "OMP_TOOL=disabled" ;;
    host) echo "OMP_TOOL_LIBRARIES=$HOST_LIB $traced" ;;
    before) echo "OMP_TOOL_LIBRARIES=$BASE_HOST LD_PRELOAD=$BASE_DEVICE $traced" ;;
    *) echo "OMP_TOOL_LIBRARIES=$HOST_LIB LD_PRELOAD=$DEVICE_LIB OFFTRACE_DEVICE_DETAIL=$1 $traced" ;;
    esac
}

# Wall and CPU time of whole commands (bash scripts; issue 18, run_short.sh
# and run_summary.sh). Results go under $T. cpu_timer_setup finds
# $BUILD/bin/bench_spawn_timer (tests/bench/spawn_timer.c) and sets PERF
# non-empty when it is there (the scripts' test for "CPU times too"; the
# name is from when perf measured them). timed NAME COMMAND... appends the
# command's wall ms to $T/NAME and, with the timer, its CPU ms (user +
# system of it and its children) to $T/NAME.cpu: a loaded machine stretches
# wall time far more than CPU time. The timer forks and waits itself: `perf
# stat` around the command put perf's own 10 ms of start and exit into
# every wall time, the untraced program's too, and so shrank every ratio.
cpu_timer_setup() {
    SPAWN_TIMER=$BUILD/bin/bench_spawn_timer
    PERF=
    [ -x "$SPAWN_TIMER" ] && PERF=$SPAWN_TIMER
    return 0
}
timed() {
    name=$1; shift
    if [ -n "$PERF" ]; then
        rm -f "$T/spawn"
        "$SPAWN_TIMER" "$T/spawn" -- "$@" || true
        awk '{print $1}' "$T/spawn" >> "$T/$name"
        awk '{print $2}' "$T/spawn" >> "$T/$name.cpu"
    else
        start=$EPOCHREALTIME
        "$@" > /dev/null 2>&1 || true
        end=$EPOCHREALTIME
        echo "($end - $start) * 1000" | bc -l >> "$T/$name"
    fi
}

# The live conversion's benchmarks (run_live_data.sh, run_live_threads.sh):
# timed_live NAME HOW FLAGS COMMAND... times one configuration of an
# interleaved round: HOW none (the program alone), live (BUILD's record),
# off (BUILD's record with OFFTRACE_LIVE_CONVERSION=off), old (OLD's record);
# FLAGS (unquoted: words or nothing) go to record, which writes into $T/o.
# live_cell NAME BASE: NAME's median "ms (xRATIO)" against BASE ms.
timed_live() {
    name=$1; how=$2; flags=$3; shift 3
    rm -rf "$T/o"
    case $how in
    none) timed "$name" "$@" ;;
    live) timed "$name" "$BUILD/bin/offtrace" record $flags -o "$T/o" -- "$@" ;;
    off) timed "$name" env OFFTRACE_LIVE_CONVERSION=off "$BUILD/bin/offtrace" record $flags -o "$T/o" -- "$@" ;;
    old) timed "$name" "$OLD/bin/offtrace" record $flags -o "$T/o" -- "$@" ;;
    esac
}
# live_rounds: ROUNDS interleaved rounds over $CONFIGS, each configuration run
# by the caller's `run_config CONFIG`.
live_rounds() {
    r=0
    while [ $r -lt "$ROUNDS" ]; do
        for c in $(rotate $r $CONFIGS); do
            run_config "$c"
        done
        r=$((r + 1))
    done
}
# live_tables: the caller's `table SUFFIX` for wall ms (""), then CPU ms (".cpu") when timed.
live_tables() {
    echo
    echo "wall ms:"
    table ""
    if [ -n "$PERF" ]; then
        echo
        echo "CPU ms (user + system of the command and its children):"
        table .cpu
    fi
}
live_cell() { awk -v v="$(median "$T/$1")" -v b="$2" 'BEGIN {printf "%.1f (x%.2f)", v, v / b}'; }
