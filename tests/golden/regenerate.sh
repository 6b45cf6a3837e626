#!/bin/sh
# Rewrites the golden archive signatures in tests/golden/ (one file per example and mode: with device
# detail, and --host-only) from what this checkout's offtrace records, through
# tests/test_archive_equivalence.c with OFFTRACE_REGENERATE_GOLDEN=1.
#
# Regenerate ONLY for an intended change of what the archive holds (a new kind of event, a renamed
# region, a changed byte count), and say in the commit which change and why. A refactoring, or any
# change that must keep the archive as it is, must pass tests/test_archive_equivalence.c unchanged:
# regenerating then would hide exactly what that test is there to find.
#
# Usage: tests/golden/regenerate.sh [build-dir]   (default: build)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-"$root/build"}
cmake -S "$root" -B "$build" >/dev/null
cmake --build "$build" -j2 --target test_archive_equivalence >/dev/null
OFFTRACE_REGENERATE_GOLDEN=1 "$build/tests/test_archive_equivalence" --jobs 1 --filter 'archive_equivalence/*'
# the files just written must pass the comparison on a second recording, or the signature is not stable
"$build/tests/test_archive_equivalence" --jobs 1
git -C "$root" status --short -- tests/golden
