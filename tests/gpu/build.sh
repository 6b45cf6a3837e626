#!/bin/sh
# Build, on this machine (no GPU needed), everything a GPU machine needs to
# run offtrace's GPU checks (tests/gpu/run.sh) and pack it into one file:
#   gpu-bundle/bin   offtrace and the offload examples compiled for sm_90
#   gpu-bundle/lib   offtrace's libraries, the independent OMPT counter, the bench's null tool
#   gpu-bundle/sys   every other shared library they load that is not glibc or libstdc++/libgcc
#                    (LLVM 19's libomptarget, libomp and libLLVM with its dependencies, OTF2,
#                    hwloc, libdw, CUPTI ...), because the GPU machine has no LLVM and no network
#   gpu-bundle/tools otf2-print
#   gpu-bundle.tar.xz  the above, the one path `carry` sends (it must stay under 64 MiB with the tree)
# usage: tests/gpu/build.sh [BUILD_DIR]   (BUILD_DIR: a configured and built offtrace, default build)
#
# Examples are compiled with -fopenmp-target-jit: libomptarget 19.1 rejects
# the cubins CUDA 13's ptxas writes (new ELF ABI; llvm/llvm-project#159088),
# while a JIT image is LLVM IR that the CUDA plugin compiles at run time
# (with ptxas from PATH). saxpy is also built ahead of time (example_saxpy_aot)
# to show the rejection on the GPU machine.
set -eu
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$ROOT/gpu-bundle
CUDA=${CUDA_PATH:-/usr/local/cuda}
CC=clang-19
LLVM_LIB=/usr/lib/llvm-19/lib
ARCH=${OFFTRACE_GPU_ARCH:-sm_90}
GPU_FLAGS="-fopenmp --offload-arch=$ARCH --cuda-path=$CUDA -Wno-unknown-cuda-version -g -O2"
# Debian's libomptarget registers no LLVM target for its JIT: nvptx_jit_init.c does (see there).
JIT="-fopenmp-target-jit $ROOT/tests/gpu/nvptx_jit_init.c -L$LLVM_LIB -lLLVM-19"

[ -x "$BUILD/bin/offtrace" ] || { echo "gpu build: $BUILD/bin/offtrace not found: build offtrace first" >&2; exit 2; }
[ -x "$CUDA/bin/ptxas" ] || { echo "gpu build: no CUDA toolkit at $CUDA" >&2; exit 2; }
rm -rf "$OUT" "$OUT.tar.xz"
mkdir -p "$OUT/bin" "$OUT/lib" "$OUT/sys" "$OUT/tools"

# The offload examples (two_devices needs two GPUs and is left out).
for ex in saxpy cg stencil enter_exit nowait transfer_mistakes transfer_done_right implicit_maps \
          bucket_sort device_tasks; do
    extra=""
    [ "$ex" = cg ] && extra=-lm
    $CC $GPU_FLAGS $JIT "$ROOT/examples/$ex.c" -o "$OUT/bin/example_$ex" $extra
done
$CC $GPU_FLAGS -I"$ROOT/include" $JIT "$ROOT/examples/user_phases.c" -o "$OUT/bin/example_user_phases" \
    -L"$BUILD/lib" -lofftrace-user
$CC $GPU_FLAGS --libomptarget-nvptx-bc-path=$LLVM_LIB/libomptarget-nvptx-$ARCH.bc \
    "$ROOT/examples/saxpy.c" -o "$OUT/bin/example_saxpy_aot"

cp "$BUILD/bin/offtrace" "$OUT/bin/"
for l in libofftrace.so libofftrace-device.so libofftrace-device-cupti.so libofftrace-capture.so libofftrace-symbolize.so \
         libofftrace-user.so.0 libofftrace-test-counter.so libofftrace_bench_null_tool.so libofftrace_bench_cupti_floor.so; do
    cp -L "$BUILD/lib/$l" "$OUT/lib/"
done
ln -s libofftrace-user.so.0 "$OUT/lib/libofftrace-user.so"
cp /usr/bin/otf2-print "$OUT/tools/"

# Every library they load, but the C runtime the GPU machine has its own of.
for f in "$OUT"/bin/* "$OUT"/lib/*.so* "$OUT"/tools/* "$LLVM_LIB/libomptarget.so.19.1"; do
    ldd "$f" 2>/dev/null | awk '$3 ~ /^\// {print $3}'
done | sort -u | while read -r lib; do
    case $(basename "$lib") in
    libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|libutil.so.*|ld-linux*|libstdc++.so.*|libgcc_s.so.*) ;;
    libofftrace*) ;;
    *) cp -L "$lib" "$OUT/sys/" ;;
    esac
done
# libomptarget finds libomptarget.rtl.* and the device runtime next to itself.
cp -L "$LLVM_LIB/libomptarget.so.19.1" "$OUT/sys/"
# libomptarget connects to libomp's OMPT by dlopen("libomp.so"): the unversioned name must be there.
ln -s libomp.so.5 "$OUT/sys/libomp.so"
git -C "$ROOT" rev-parse --short HEAD > "$OUT/commit" 2>/dev/null || true
du -sh "$OUT"
tar -C "$ROOT" -cf - gpu-bundle | xz -T2 -6 > "$OUT.tar.xz"
ls -la "$OUT.tar.xz"
