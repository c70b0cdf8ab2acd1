#!/usr/bin/env bash
# Where a download's wall time goes: how long `carryon download` takes to connect, to write the
# bundle's manifest, to put its first segment in place, to put its last one in place, and to end,
# each from the moment the process starts (the kernel's exec).
#
#     Benchmarks/phases.sh [--runs N] [--binary PATH] URL [download options...]
#
#   --runs N        download N times (default 5); each run into a new library, removed after
#   --binary PATH   the carryon to run (default: .build/release/carryon, built if missing)
#   URL ...         the stream and any options `carryon download` takes (`--cacert`, `--audio all`...)
#
# Read from the kernel's tracepoints with `perf record` (the process exec, connect(2), rename(2),
# exit_group(2)): nothing is added to the process, unlike strace, which stops it at every traced
# call. A run's renames are its playlists and manifest.json first, then its files as they are
# put in place (perf shows a rename's paths as addresses, not names): the manifest is the rename
# before the longest pause among the first 40 (the plan's files are written, then the transfer
# starts), the first file the rename after it. Needs perf and the right to trace (root, or
# kernel.perf_event_paranoid <= -1). Prints each run, then the medians.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
runs=5
binary=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --runs) runs="$2"; shift 2 ;;
        --binary) binary="$2"; shift 2 ;;
        -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) break ;;
    esac
done
[[ $# -ge 1 ]] || { echo "phases.sh: give the stream's URL (--help says how)" >&2; exit 2; }
command -v perf > /dev/null || { echo "phases.sh: perf is missing: apt-get install linux-perf" >&2; exit 2; }
if [[ -z "$binary" ]]; then
    binary="$root/.build/release/carryon"
    [[ -x "$binary" ]] || (cd "$root" && swift build -c release --product carryon --static-swift-stdlib)
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

for run in $(seq "$runs"); do
    perf record -q -e sched:sched_process_exec -e syscalls:sys_enter_connect -e syscalls:sys_enter_rename \
        -e syscalls:sys_enter_exit_group -o "$work/perf.data" -- \
        "$binary" download "$@" --library "$work/library-$run" > /dev/null 2> "$work/stderr" \
        || { echo "phases.sh: run $run failed:" >&2; cat "$work/stderr" >&2; exit 1; }
    perf script -i "$work/perf.data" -F time,event,trace 2> /dev/null > "$work/run-$run.txt"
    rm -rf "$work/library-$run"
done

python3 - "$work" "$runs" <<'PY'
import re, statistics, sys
work, runs = sys.argv[1], int(sys.argv[2])
names = ["connect", "manifest", "first file", "last file", "end"]
table = []
for run in range(1, runs + 1):
    start = None
    phase = {}
    for line in open(f"{work}/run-{run}.txt"):
        parts = line.split(None, 2)
        if len(parts) < 2:
            continue
        ms = float(parts[0].rstrip(":")) * 1000
        event, detail = parts[1], parts[2] if len(parts) > 2 else ""
        if "sched_process_exec" in event:
            start = ms
        elif start is None:
            continue
        elif "connect" in event:
            phase.setdefault("connect", ms - start)
        elif "rename" in event:
            phase.setdefault("renames", []).append(ms - start)
        elif "exit_group" in event:
            phase["end"] = ms - start
    renames = phase.pop("renames", [])
    table.append(phase | {"renames": renames})

# Which rename is the manifest: the last of the first burst (playlists, then manifest.json), the
# burst ending where the longest gap among the first renames begins (the plan is read, the
# transfer starts).
rows = []
for phase in table:
    renames = phase["renames"]
    if len(renames) < 2:
        rows.append(None)
        continue
    head = renames[: min(len(renames), 40)]
    gaps = [b - a for a, b in zip(head, head[1:])]
    split = gaps.index(max(gaps)) + 1
    rows.append([phase.get("connect"), head[split - 1], renames[split], renames[-1], phase.get("end")])

print("run  " + "  ".join(f"{n:>10}" for n in names) + "  (ms after the process started)")
for run, row in enumerate(rows, 1):
    print(f"{run:>3}  " + ("  ".join(f"{v:10.1f}" if v is not None else f"{'-':>10}" for v in row) if row else "no renames seen"))
kept = [r for r in rows if r and None not in r]
if kept:
    medians = [statistics.median(r[i] for r in kept) for i in range(len(names))]
    print("med  " + "  ".join(f"{v:10.1f}" for v in medians))
    print(f"start {medians[2]:.1f} ms to the first file, transfer {medians[3] - medians[2]:.1f} ms, end {medians[4] - medians[3]:.1f} ms after the last file")
PY
