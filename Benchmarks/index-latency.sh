#!/usr/bin/env bash
# What a PostgreSQL index adds to a download, per resource, against SQLite's (issue 33).
#
#     Benchmarks/index-latency.sh [--runs N] [--segments N]
#
#   --runs N        downloads on each index, in turn; the table shows medians (default 5)
#   --segments N    the generated stream's segments, half a second each (default 400)
#
# A stream of many short segments (ffmpeg; cached in .build/bench-media/index-latency-N) is
# served by `carryon origin` on loopback and downloaded into a fresh library on SQLite, and on
# a PostgreSQL cluster the script starts (fsync on, as a server runs) over its Unix socket and
# over TCP. Needs ffmpeg and PostgreSQL (apt-get install ffmpeg postgresql).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
runs=5
segments=400
while [[ $# -gt 0 ]]; do
    case "$1" in
        --runs) runs="${2:?--runs needs a value}"; shift ;;
        --segments) segments="${2:?--segments needs a value}"; shift ;;
        -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "index-latency.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done

echo "== building carryon (release)"
(cd "$root" && swift build -c release --product carryon --static-swift-stdlib 2>&1 | grep -Ev "^warning: 'swift-distributed-tracing'|CMakeLists.txt" | tail -n 2)
carryon="$(cd "$root" && swift build -c release --product carryon --static-swift-stdlib --show-bin-path)/carryon"
exec "${PYTHON:-python3}" "$here/index-latency.py" --carryon "$carryon" --runs "$runs" --segments "$segments" \
    --media "${CARRYON_BENCH_MEDIA:-$root/.build/bench-media}/index-latency-$segments"
