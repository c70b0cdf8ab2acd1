#!/usr/bin/env bash
# The verify benchmark: `carryon verify` (release build) over a library of about 1 GB — the
# 20-minute asset of download.sh (3 renditions, 6 s MPEG-TS segments, 352 MB) downloaded three
# times from `carryon origin` on loopback — and proof that it reads each byte once.
#
#     Benchmarks/verify.sh [--copies N] [--runs N]
#
#   --copies N   how many times the asset is downloaded into the library (default 3: ~1.06 GB)
#   --runs N     timed runs of verify; the table shows the median and the range (default 3)
#
# Each byte once: `verify` runs once under `strace -f -y -e trace=pread64,read`, and the bytes
# its reads returned from media files under the library's `bundles/` are summed and compared with
# the bytes of the resources the index records (the renditions' playlists, which it reads to
# tell a rendition encrypted whole, are counted apart).
# Timed runs read from the page cache (a library this size fits in memory); when
# /proc/sys/vm/drop_caches is writable, a run from a cold cache is timed too.
#
# Environment: CARRYON_BENCH_MEDIA, the folder where the generated media is cached (default
# .build/bench-media), shared with download.sh.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
copies=3
runs=3
while [[ $# -gt 0 ]]; do
    case "$1" in
        --copies) copies="${2:?--copies needs a value}"; shift ;;
        --runs) runs="${2:?--runs needs a value}"; shift ;;
        -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "verify.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done
command -v ffmpeg >/dev/null || { echo "verify.sh: ffmpeg is needed to make the asset: apt-get install -y ffmpeg" >&2; exit 1; }
command -v strace >/dev/null || { echo "verify.sh: strace is needed to count the bytes read: apt-get install -y strace" >&2; exit 1; }

media_root="${CARRYON_BENCH_MEDIA:-$root/.build/bench-media}"
asset="$media_root/hls-20min"
# shellcheck source=bench-media.sh
source "$here/bench-media.sh"
make_asset "$asset" 20 0

echo "== building carryon (release)"
(cd "$root" && swift build -c release --product carryon --static-swift-stdlib 2>&1 | grep -Ev "^warning: 'swift-distributed-tracing'|CMakeLists.txt" | tail -n 2)
carryon="$(cd "$root" && swift build -c release --product carryon --static-swift-stdlib --show-bin-path)/carryon"

work="$(mktemp -d)"
library="$work/library"
origin_pid=""
cleanup() {
    [[ -n "$origin_pid" ]] && kill "$origin_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

"$carryon" origin "$asset" > "$work/origin.out" 2>&1 &
origin_pid=$!
for _ in $(seq 1 100); do [[ -s "$work/origin.out" ]] && break; sleep 0.1; done
base="$(head -n 1 "$work/origin.out")"

echo "== downloading the asset $copies times into $library"
for copy in $(seq 1 "$copies"); do
    "$carryon" download "$base/main.m3u8" --audio all --name "copy $copy" --library "$library" > /dev/null 2> "$work/download.err" \
        || { cat "$work/download.err" >&2; exit 1; }
done
kill "$origin_pid"; origin_pid=""

recorded=$(python3 - "$library/index.sqlite" <<'PY'
import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT SUM(bytes) FROM resource WHERE state = 'done'").fetchone()[0])
PY
)

echo "== each byte once (strace)"
strace -f -y -e trace=pread64,read -o "$work/trace" "$carryon" verify --library "$library" > /dev/null
# Media files and playlists apart: verify reads each rendition's local playlist too, to tell a
# rendition encrypted whole (AES-128: ciphertext, no structure to check).
read -r read_bytes playlist_bytes < <(python3 - "$work/trace" "$library/bundles/" <<'PY'
import re, sys
media = playlists = 0
pattern = re.compile(r'(?:pread64|read)\(\d+<([^>]*)>.*\)\s+=\s+(\d+)')
for line in open(sys.argv[1], errors="replace"):
    match = pattern.search(line)
    if match and match.group(1).startswith(sys.argv[2]):
        if match.group(1).endswith((".m3u8", ".mpd", ".json")):
            playlists += int(match.group(2))
        else:
            media += int(match.group(2))
print(media, playlists)
PY
)

timed() {  # one verify: "seconds peak-RSS-KiB", failing when it finds damage
    /usr/bin/time -f "%e %M" -o "$work/time" "$carryon" verify --library "$library" > "$work/verify.out"
    cat "$work/time"
}
seconds=()
peaks=()
for _ in $(seq 1 "$runs"); do
    read -r wall peak < <(timed)
    seconds+=("$wall")
    peaks+=("$peak")
done
cold="-"
if (sync && echo 3 > /proc/sys/vm/drop_caches) 2>/dev/null; then
    read -r cold _ < <(timed)
fi

python3 - "$recorded" "$read_bytes" "$cold" "${seconds[*]}" "${peaks[*]}" "$copies" "$playlist_bytes" <<'PY'
import statistics, sys
recorded, read, cold = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
seconds = [float(value) for value in sys.argv[4].split()]
peaks = [int(value) for value in sys.argv[5].split()]
playlists = int(sys.argv[7])
gib = recorded / 2**30
median = statistics.median(seconds)
print(f"library: {sys.argv[6]} assets, {recorded:,} bytes of resources ({gib:.2f} GiB)")
print(f"bytes read from the bundles' media files: {read:,} ({read / recorded:.4f} x the resources' bytes); and {playlists:,} of their playlists")
print(f"verify, page cache warm: median {median:.2f} s ({min(seconds):.2f}-{max(seconds):.2f}), {recorded / median / 2**20:,.0f} MiB/s; peak RSS {max(peaks) / 1024:.1f} MiB")
print(f"verify, page cache dropped: {cold} s" if cold != "-" else "verify, page cache dropped: not measured (/proc/sys/vm/drop_caches is not writable here)")
if read != recorded:
    print(f"MISSED: verify read {read:,} bytes of the bundles, not each of the {recorded:,} once")
PY
