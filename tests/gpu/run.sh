#!/bin/bash
# Run on the GPU machine, from the repository root, with gpu-bundle.tar.xz
# (tests/gpu/build.sh) beside it: every offload example under the
# independent OMPT counter and under `offtrace record` with device detail,
# the reports, otf2-print -Werror, and the CG overhead benchmark. Everything
# goes into $OUT (results.tar.gz: archives, reports, logs; log.txt: the
# summary), to be checked back on the build machine (tests/gpu/check.sh).
# usage: OUT=DIR tests/gpu/run.sh [BUDGET_S]   (stops starting new steps after BUDGET_S, default 300)
set -u
BUDGET=${1:-300}
OFFLOAD=${GPU_OFFLOAD:-MANDATORY}   # DEFAULT to try the script where there is no GPU
START=$(date +%s)
OUT=${OUT:-/tmp/gpu-out}
ROOT=$(pwd)
R=/tmp/gpu-results
rm -rf "$R" && mkdir -p "$R" "$OUT"
LOG=$OUT/log.txt
exec > >(tee "$LOG") 2>&1
ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
say() { echo "== $(( $(date +%s) - START ))s: $*"; }
left() { [ $(( $(date +%s) - START )) -lt "$BUDGET" ]; }

say "unpacking"
tar -C /tmp -xJf "$ROOT/gpu-bundle.tar.xz" || { echo "no bundle"; exit 2; }
B=/tmp/gpu-bundle
cat "$B/commit" 2>/dev/null

# The CUDA plugin dlopens "libcuda.so" (the unversioned name): point it at the driver's.
libcuda=$(ldconfig -p | awk '/libcuda\.so\.1 / {print $NF; exit}')
[ -n "$libcuda" ] || libcuda=$(ls /usr/local/nvidia/lib64/libcuda.so.1 /usr/lib/x86_64-linux-gnu/libcuda.so.1 2>/dev/null | head -1)
echo "libcuda: $libcuda"
[ -n "$libcuda" ] && ln -sf "$libcuda" "$B/sys/libcuda.so"
# libomptarget connects to libomp's OMPT by dlopen("libomp.so"), the unversioned name too:
# without it the target callbacks never reach a tool.
[ -e "$B/sys/libomp.so" ] || ln -s libomp.so.5 "$B/sys/libomp.so"
env | grep -E "^(OMP|KMP|LD_|CUDA|LIBOMP|GOMP)" | sort > "$R/env.txt"; echo "environment:"; cat "$R/env.txt"
# The image's own OpenMP settings must not decide whether a tool loads.
unset OMP_TOOL OMP_TOOL_LIBRARIES OMP_TOOL_VERBOSE_INIT LD_PRELOAD
export LD_LIBRARY_PATH=$B/sys:$B/lib
export PATH=/usr/local/cuda/bin:$PATH

{
    say "machine"
    nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
    uname -a; grep PRETTY /etc/os-release; nproc
    which ptxas && ptxas --version | tail -2
    ls /usr/local/cuda/extras/CUPTI/lib64 /usr/local/cuda/lib64 2>/dev/null | grep -i cupti
} > "$R/machine.txt" 2>&1
cat "$R/machine.txt"

say "ahead-of-time image (expected to be rejected by libomptarget 19.1)"
OMP_TARGET_OFFLOAD=$OFFLOAD timeout 60 "$B/bin/example_saxpy_aot" > "$R/aot.txt" 2>&1
echo "aot rc=$?" | tee -a "$R/aot.txt"; tail -3 "$R/aot.txt"

say "JIT image, LIBOMPTARGET_INFO=-1"
OMP_TARGET_OFFLOAD=$OFFLOAD LIBOMPTARGET_INFO=-1 timeout 120 "$B/bin/example_saxpy" > "$R/jit_info.txt" 2>&1
echo "jit rc=$?" | tee -a "$R/jit_info.txt"; grep -m5 -i "device\|error\|fail" "$R/jit_info.txt"; tail -2 "$R/jit_info.txt"

say "does libomp load a tool here (OMP_TOOL_VERBOSE_INIT)"
OMP_TARGET_OFFLOAD=$OFFLOAD OMP_TOOL_VERBOSE_INIT=stdout OMP_TOOL_LIBRARIES=$B/lib/libofftrace-test-counter.so \
    OFFTRACE_TEST_COUNTER_OUT=$R/tool_check.counts timeout 60 "$B/bin/example_saxpy" > "$R/tool_check.txt" 2>&1
echo "rc=$?"; cat "$R/tool_check.txt" "$R/tool_check.counts" 2>/dev/null | head -30
ldd "$B/bin/example_saxpy" | grep -E "omp|LLVM"; cat /etc/ld.so.preload 2>/dev/null

# run_example NAME PROGRAM [ARGS...]: untraced, under the counter, under record; report; otf2-print.
run_example() {
    local ex=$1 prog=$2; shift 2
    local d=$R/$ex; mkdir -p "$d"
    say "$ex $*"
    local t0=$(date +%s%N)
    OMP_TARGET_OFFLOAD=$OFFLOAD timeout 60 "$prog" "$@" > "$d/untraced.out" 2> "$d/untraced.err"; echo "untraced rc=$? $(ms_since $t0) ms"
    OMP_TARGET_OFFLOAD=$OFFLOAD OMP_TOOL_LIBRARIES=$B/lib/libofftrace-test-counter.so OFFTRACE_TEST_COUNTER_OUT=$d/counts \
        timeout 60 "$prog" "$@" > "$d/counted.out" 2>&1; echo "counter rc=$? $(cat "$d/counts" 2>/dev/null)"
    t0=$(date +%s%N)
    OMP_TARGET_OFFLOAD=$OFFLOAD timeout 90 "$B/bin/offtrace" record -v -o "$d/trace" -- "$prog" "$@" > "$d/traced.out" 2> "$d/record.err"
    echo "record rc=$? $(ms_since $t0) ms"
    grep -v "solver" "$d/untraced.out" > "$d/u"; grep -v "solver" "$d/traced.out" > "$d/t"
    cmp -s "$d/u" "$d/t" && echo "output unchanged (but for timings)" || echo "OUTPUT DIFFERS"
    grep -E "^offtrace: (kernels|host->device|device->host|device|lost|warning|PARTIAL)" "$d/record.err" | head -8
    grep -iE "cupti|error|unavailable" "$d/record.err" | head -5
    timeout 60 "$B/tools/otf2-print" --silent -Werror "$d/trace/traces.otf2" > "$d/otf2print.txt" 2>&1; echo "otf2-print -Werror rc=$?"
    timeout 60 "$B/bin/offtrace" report "$d/trace" > "$d/report.txt" 2>&1
    timeout 60 "$B/bin/offtrace" report --json "$d/trace" > "$d/report.json" 2>/dev/null
}

EXAMPLES=${GPU_EXAMPLES:-saxpy cg stencil enter_exit nowait transfer_mistakes transfer_done_right implicit_maps bucket_sort device_tasks user_phases}
for ex in $EXAMPLES; do
    left || { say "budget spent: $ex and later skipped"; break; }
    run_example "$ex" "$B/bin/example_$ex"
done
# CG at the benchmark's sizes: its kernels' own times, from the device
for size in ${CG_RECORD_SIZES:-64:500 1024:200 4096:50}; do
    left && run_example "cg_${size%%:*}" "$B/bin/example_cg" "${size%%:*}" "${size#*:}"
done

if left; then
    say "host-only saxpy and cg"
    for ex in saxpy cg; do
        OMP_TARGET_OFFLOAD=$OFFLOAD timeout 60 "$B/bin/offtrace" record --host-only -o "$R/$ex/trace-host" -- "$B/bin/example_$ex" \
            > /dev/null 2> "$R/$ex/record-host.err"; echo "$ex host-only rc=$?"
    done
fi
# A program that died under record: where (no gdb there; cuda-gdb debugs host code too).
crashed=$(grep -l "killed by SIG" "$R"/*/record.err 2>/dev/null | head -1)
if [ -n "$crashed" ] && command -v cuda-gdb > /dev/null; then
    ex=$(basename "$(dirname "$crashed")")
    say "backtrace of $ex's crash under the device collector (cuda-gdb)"
    timeout 120 cuda-gdb -batch -ex "set environment OMP_TOOL_LIBRARIES=$B/lib/libofftrace.so" \
        -ex "set environment LD_PRELOAD=$B/lib/libofftrace-device.so" -ex "set environment OFFTRACE_OUTPUT=$R/gdb-trace" \
        -ex "set environment LD_LIBRARY_PATH=$LD_LIBRARY_PATH" -ex run -ex bt -ex "info sharedlibrary" \
        --args "$B/bin/example_$ex" > "$R/crash_bt.txt" 2>&1
    grep -A25 "received signal" "$R/crash_bt.txt" | head -40
fi
if left; then
    say "CG benchmark (solver time: ${CG_CONFIGS:=none null host cupti-floor device})"
    CG_CONFIGS=$CG_CONFIGS timeout $(( BUDGET + 60 - ($(date +%s) - START) )) sh "$ROOT/tests/bench/run_cg.sh" "$B" \
        "${CG_ROUNDS:-3}" "${CG_SIZES:-64:500 1024:200 4096:50}" > "$R/cg_bench.txt" 2>&1
    echo "cg bench rc=$?"; cat "$R/cg_bench.txt"
fi
say "packing"
tar -C /tmp -czf "$OUT/results.tar.gz" gpu-results
ls -la "$OUT"
say "done"
