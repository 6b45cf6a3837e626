#!/bin/sh
# The zoomable page of `offtrace view` at scale (docs/performance.md, "view
# tiles"): on a host-only recording of bench_target_loop of about 10 million
# events (the archive of run_reader_bench.sh, made if missing), the HTML file
# at several --max-size budgets (wall time, peak RSS, size, levels), then
# --serve: time until it serves (the archive read into memory plus the
# served page), its memory, and the time of single tile requests over HTTP,
# from level 0 down to the deepest level along one path of tiles that are
# not exact (each computed once: first request; then cached: second).
#   usage: tests/bench/run_view_tiles_bench.sh [BUILD_DIR] [ARCHIVE_DIR]
# Needs curl and GNU time.
set -eu
BUILD=${1:-build}
ARCHIVES=${2:-/tmp/offtrace-reader-bench}
OFFTRACE="$BUILD/bin/offtrace"
TMP=$(mktemp -d)
SERVER=""
trap '[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; rm -rf "$TMP"' EXIT
dir="$ARCHIVES/10m"
if [ ! -f "$dir/traces.otf2" ]; then
    mkdir -p "$ARCHIVES"
    rm -rf "$dir"
    "$OFFTRACE" record --host-only -o "$dir" "$BUILD/bin/bench_target_loop" 454000 > /dev/null 2>&1
fi
events=$("$OFFTRACE" info "$dir" | awk '$2 == "trace" { print $3 }')
echo "archive: $dir, $events events"
echo
echo "| --max-size | seconds | peak RSS (MiB) | file (MiB) | what the summary says |"
echo "|---|---|---|---|---|"
for budget in 1M 8M 32M 128M; do
    /usr/bin/time -f "%e %M" -o "$TMP/t" "$OFFTRACE" view "$dir" -o "$TMP/x.html" --max-size "$budget" > "$TMP/out"
    set -- $(cat "$TMP/t")
    size=$(stat -c %s "$TMP/x.html")
    said=$(sed "s/^[^:]*: [^:]*: [^,]*, //; s/ (--max-size).*//" "$TMP/out")
    awk -v b="$budget" -v s="$1" -v kb="$2" -v f="$size" -v w="$said" \
        'BEGIN { printf "| %s | %.2f | %.0f | %.1f | %s |\n", b, s, kb / 1024, f / 1048576, w }'
done
echo

# serve: until the URL line, then tiles
start=$(date +%s.%N)
"$OFFTRACE" view "$dir" --serve --port 0 > "$TMP/serve" 2>&1 &
SERVER=$!
while ! grep -q http "$TMP/serve" 2>/dev/null; do sleep 0.02; done
ready=$(date +%s.%N)
url=$(grep -o 'http://[^ ]*' "$TMP/serve")
child=$(pgrep -P "$SERVER" | head -1)
rss=$(awk '/VmRSS/ { print $2 }' "/proc/$child/status")
awk -v a="$start" -v b="$ready" -v r="$rss" \
    'BEGIN { printf "--serve: serving after %.2f s (archive read into memory, 2 MiB page made), RSS %.0f MiB\n\n", b - a, r / 1024 }'
echo "| tile | bytes | exact | first request (ms) | cached (ms) |"
echo "|---|---|---|---|---|"
k=0
i=0
while :; do
    first=$(curl -s -o "$TMP/tile" -w "%{http_code} %{time_total}" "${url}tile/$k/$i.json")
    [ "${first%% *}" = 200 ] || break
    again=$(curl -s -o /dev/null -w "%{time_total}" "${url}tile/$k/$i.json")
    exact=$(grep -o '"exact":[a-z]*' "$TMP/tile" | cut -d: -f2)
    awk -v t="$k/$i" -v n="$(stat -c %s "$TMP/tile")" -v e="$exact" -v f="${first#* }" -v g="$again" \
        'BEGIN { printf "| %s | %d | %s | %.1f | %.1f |\n", t, n, e, f * 1000, g * 1000 }'
    [ "$exact" = false ] || break
    # down the middle of the trace: the child holding its centre
    k=$((k + 1))
    i=$(awk -v k="$k" 'BEGIN { printf "%d", 2 ^ k / 2 }')
done
kill -TERM "$SERVER" # (SIGINT: a background job of a script ignores it)
wait "$SERVER" || true
SERVER=""
echo
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
