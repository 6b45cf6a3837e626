#!/bin/sh
# Install what offtrace needs (Debian 12 packages only), build it, and trace
# the bundled CG example. Safe to run again: installed packages are skipped.
set -eu
cd "$(dirname "$0")"

PACKAGES="cmake make pkg-config clang-19 libomp-19-dev libotf2-trace-dev otf2-tools \
libcriterion-dev libhwloc-dev libdw-dev python3 libclang-rt-19-dev groff-base libstdc++-12-dev binutils \
libmicrohttpd-dev chromium nodejs libopenmpi-dev openmpi-bin"

missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "offtrace setup: installing$missing"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q $missing
fi

cmake -S . -B build
cmake --build build -j "$(nproc)"

# The browser test of the view page (ctest -L browser) drives chromium through
# playwright-core, pinned by tests/browser/package-lock.json.
if command -v npm >/dev/null 2>&1; then
    (cd tests/browser && npm ci --no-audit --no-fund --loglevel=error)
else
    echo "offtrace setup: npm not found: the browser test (ctest -L browser) needs node and npm" >&2
fi

if [ "${1:-}" != "--no-demo" ]; then
    rm -rf offtrace-demo-cg
    ./build/bin/offtrace record -o offtrace-demo-cg -- ./build/bin/example_cg
    ./build/bin/offtrace report --limit 3 offtrace-demo-cg
    ./build/bin/offtrace view offtrace-demo-cg -o offtrace-demo-cg.html
    echo "setup: open offtrace-demo-cg.html in a browser for the timeline; 'offtrace report offtrace-demo-cg' for all tables"
fi
