#!/usr/bin/env bash
# The library benchmark (issue 39): `list`, `list --json`, `show`, `purge --dry-run`, `storage`,
# `serve`'s start and the API's asset list, timed on libraries of growing size.
#
#     Benchmarks/library.sh [--sizes "1000 10000"] [--runs N] [--keep DIR]
#
#   --sizes "A B"   the library sizes to measure, in assets (default "1000 10000"); the per-asset
#                   cost is taken between the smallest and the largest
#   --runs N        runs per measurement; the table shows medians (default 3)
#   --keep DIR      keep the library in DIR (default: a temporary folder, removed)
#
# One real asset is downloaded from a generated one-segment stream (ffmpeg; cached in
# .build/bench-media/one-segment), then copied in the index and hard-linked on disk until the
# library holds each size: 10,000 assets in seconds. Targets at 10,000 assets (issue 39):
# list <= 150 ms, list --json <= 200 ms, show <= 50 ms, the API's first page <= 50 ms, purge
# --dry-run <= 300 ms, serve ready <= 1 s; a missed one prints MISSED. The exit status is
# non-zero only on errors.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
sizes="1000 10000"
runs=3
keep=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --sizes) sizes="${2:?--sizes needs a value}"; shift ;;
        --runs) runs="${2:?--runs needs a value}"; shift ;;
        --keep) keep=(--keep "${2:?--keep needs a directory}"); shift ;;
        -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "library.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done
[[ -x /usr/bin/time ]] || { echo "library.sh: /usr/bin/time is needed (apt-get install time)" >&2; exit 1; }

echo "== building carryon (release)"
(cd "$root" && swift build -c release --product carryon --static-swift-stdlib 2>&1 | grep -Ev "^warning: 'swift-distributed-tracing'|CMakeLists.txt" | tail -n 2)
carryon="$(cd "$root" && swift build -c release --product carryon --static-swift-stdlib --show-bin-path)/carryon"

# shellcheck disable=SC2086
exec "${PYTHON:-python3}" "$here/library.py" --carryon "$carryon" --sizes $sizes --runs "$runs" "${keep[@]}" \
    --media "${CARRYON_BENCH_MEDIA:-$root/.build/bench-media}/one-segment"
