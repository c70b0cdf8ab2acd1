#!/usr/bin/env bash
# The fleet's scaling (issue 33): throughput with 1, 2 and 3 workers on an origin that caps each
# connection, and 1,000 queued assets claimed with none run twice.
#
#     Benchmarks/fleet-scaling.sh [--titles N] [--bandwidth KBPS] [--queue N]
#
#   --titles N        titles drained by each fleet size (default 24)
#   --bandwidth KBPS  the origin's cap on each connection, kilobits per second (default 400)
#   --queue N         assets queued for the claim check (default 1000)
#
# Starts a PostgreSQL cluster of its own (as index-latency.sh does) and `carryon origin` on
# loopback; each run has a database and a library of its own. Needs PostgreSQL
# (apt-get install postgresql).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
arguments=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --titles|--bandwidth|--queue) arguments+=("$1" "${2:?$1 needs a value}"); shift ;;
        -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "fleet-scaling.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done

echo "== building carryon (release)"
(cd "$root" && swift build -c release --product carryon --static-swift-stdlib 2>&1 | grep -Ev "^warning: 'swift-distributed-tracing'|CMakeLists.txt" | tail -n 2)
carryon="$(cd "$root" && swift build -c release --product carryon --static-swift-stdlib --show-bin-path)/carryon"
exec "${PYTHON:-python3}" "$here/fleet-scaling.py" --carryon "$carryon" --media "$root/Samples/media/ts/270p" ${arguments[@]+"${arguments[@]}"}
