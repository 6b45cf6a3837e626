#!/bin/sh
# Build offtrace and run the whole test suite (Criterion, through ctest).
set -eu
cd "$(dirname "$0")"
cmake -S . -B build
cmake --build build -j "$(nproc)"
ctest --test-dir build --output-on-failure --timeout 600
