#!/usr/bin/env bash
# The large-playlist benchmark: what a 1,000,000-segment VOD playlist costs `carryon` (release
# build) to read, report and plan, and a 90,000-segment download from a loopback origin.
#
#     Benchmarks/large-playlist.sh [--segments N] [--download N] [--keep DIR]
#
#   --segments N    segments of the playlist read, reported and planned (default 1000000)
#   --download N    segments of the playlist downloaded (default 90000); 0 skips the download
#   --keep DIR      write the fixtures and logs to DIR and keep them (default: a temporary folder)
#
# Targets (issue 18): `carryon inspect --json` (parse, resolve, report) and `carryon keys
# prefetch` (parse, resolve, plan, write the index and the local playlists) of the 1,000,000-
# segment playlist each take at most 5 s and 300 MiB peak memory; the 90,000-segment downloads
# — one request per segment, and 90,000 byte ranges of one file — complete in time linear in
# their segments (the script also downloads a third of them and compares the times). A missed target prints MISSED; the exit status is non-zero
# only on errors.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
segments=1000000
download=90000
keep=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --segments) segments="${2:?--segments needs a value}"; shift ;;
        --download) download="${2:?--download needs a value}"; shift ;;
        --keep) keep="${2:?--keep needs a directory}"; shift ;;
        -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "large-playlist.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done
command -v python3 >/dev/null || { echo "large-playlist.sh: python3 is needed to write the playlists" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "large-playlist.sh: /usr/bin/time is needed (apt-get install -y time)" >&2; exit 1; }

if [[ -n "$keep" ]]; then
    mkdir -p "$keep"
    work="$(cd "$keep" && pwd)"
else
    work="$(mktemp -d "${TMPDIR:-/tmp}/carryon-large.XXXXXX")"
fi
origin_pid=""
cleanup() {
    if [[ -n "$origin_pid" ]]; then kill "$origin_pid" 2>/dev/null || true; wait "$origin_pid" 2>/dev/null || true; fi
    if [[ -z "$keep" ]]; then rm -rf "$work"; fi
}
trap cleanup EXIT

echo "== building carryon (release)"
(cd "$root" && swift build -c release --product carryon --static-swift-stdlib 2>&1 | grep -Ev "^warning: 'swift-distributed-tracing'|CMakeLists.txt" | tail -n 2)
carryon="$(cd "$root" && swift build -c release --product carryon --static-swift-stdlib --show-bin-path)/carryon"

echo "== writing a $segments-segment playlist"
python3 "$here/generate.py" "$work/vod.m3u8" "$segments" --short
printf '   %s bytes\n' "$(stat -c %s "$work/vod.m3u8")"

# run NAME TARGET_SECONDS TARGET_MIB CMD...: runs CMD under /usr/bin/time, prints wall time and
# peak memory against the targets.
run() {
    local name="$1" seconds="$2" mib="$3"; shift 3
    if ! /usr/bin/time -f "%e %M" -o "$work/$name.time" "$@" > "$work/$name.out" 2> "$work/$name.err"; then
        echo "large-playlist.sh: $name failed:" >&2
        tail -n 5 "$work/$name.err" >&2
        exit 1
    fi
    read -r wall kib < "$work/$name.time"
    local verdict="ok"
    if ! awk -v w="$wall" -v s="$seconds" -v k="$kib" -v m="$mib" 'BEGIN { exit !(w <= s && k <= m * 1024) }'; then verdict="MISSED"; fi
    printf '   %-34s %7.2f s  %7.1f MiB   (target %s s, %s MiB)  %s\n' "$name" "$wall" \
        "$(awk -v k="$kib" 'BEGIN { print k / 1024 }')" "$seconds" "$mib" "$verdict"
}

echo "== reading, reporting and planning it"
run "inspect --json" 5 300 "$carryon" inspect "$work/vod.m3u8" --json
printf '   (%s bytes of JSON)\n' "$(stat -c %s "$work/inspect --json.out")"
run "inspect (text)" 5 300 "$carryon" inspect "$work/vod.m3u8"
run "keys prefetch (plan + index)" 5 300 "$carryon" keys prefetch "$work/vod.m3u8" --library "$work/library"

if (( download > 0 )); then
    echo "== downloading $download segments from a loopback origin"
    # One small real segment, named by every line with its own query string, so that every
    # line is a resource of its own (one request each) without writing $download files.
    mkdir -p "$work/origin"
    head -c 1880 /dev/urandom > "$work/origin/seg.ts"
    write_playlist() {  # write_playlist FILE COUNT [ranges]: one file per line, or byte ranges of one file
        python3 - "$@" <<'PY'
import sys
out, count, ranges = sys.argv[1], int(sys.argv[2]), len(sys.argv) > 3
with open(out, "w") as f:
    f.write("#EXTM3U\n#EXT-X-VERSION:4\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n")
    for i in range(count):
        if ranges:
            f.write(f"#EXTINF:2.000,\n#EXT-X-BYTERANGE:188@{i * 188}\nall.ts\n")
        else:
            f.write(f"#EXTINF:2.000,\nseg.ts?n={i}\n")
    f.write("#EXT-X-ENDLIST\n")
PY
    }
    third=$((download / 3))
    write_playlist "$work/origin/full.m3u8" "$download"
    write_playlist "$work/origin/third.m3u8" "$third"
    write_playlist "$work/origin/ranges-full.m3u8" "$download" ranges
    write_playlist "$work/origin/ranges-third.m3u8" "$third" ranges
    head -c $((download * 188)) /dev/urandom > "$work/origin/all.ts"
    "$carryon" origin "$work/origin" > "$work/origin.log" 2>&1 &
    origin_pid=$!
    base=""
    for _ in $(seq 100); do
        base="$(head -n 1 "$work/origin.log" 2>/dev/null || true)"
        [[ "$base" == http://127.0.0.1:* ]] && break
        sleep 0.1
    done
    [[ "$base" == http://127.0.0.1:* ]] || { echo "large-playlist.sh: the origin did not start" >&2; exit 1; }

    # linear NAME THIRD_PLAYLIST FULL_PLAYLIST CHECK: downloads both, checks the full one with
    # CHECK (a command given the library folder), and compares their times.
    linear() {
        local name="$1" third_playlist="$2" full_playlist="$3" check="$4"
        run "$name ($third)" 600 300 "$carryon" download "$base/$third_playlist" --library "$work/dl-$name-third"
        local third_wall full_wall ratio verdict="ok"
        third_wall=$(cut -d' ' -f1 "$work/$name ($third).time")
        run "$name ($download)" 600 300 "$carryon" download "$base/$full_playlist" --library "$work/dl-$name-full"
        full_wall=$(cut -d' ' -f1 "$work/$name ($download).time")
        "$check" "$work/dl-$name-full"
        ratio=$(awk -v f="$full_wall" -v t="$third_wall" 'BEGIN { printf "%.2f", f / t }')
        awk -v r="$ratio" 'BEGIN { exit !(r <= 3.6) }' || verdict="MISSED"
        printf '   3 times the segments took %s times as long (linear: 3; target at most 3.6)  %s\n' "$ratio" "$verdict"
    }
    every_segment() {
        local files
        files=$(find "$1" -name '*.ts' | wc -l)
        [[ "$files" == "$download" ]] || { echo "large-playlist.sh: the download has $files segments, not $download" >&2; exit 1; }
    }
    the_whole_file() {
        local file
        file=$(find "$1" -name '*.ts' | head -n 1)
        cmp -s "$file" "$work/origin/all.ts" || { echo "large-playlist.sh: the shared file differs from the origin's" >&2; exit 1; }
    }
    linear "download" third.m3u8 full.m3u8 every_segment
    linear "download, byte ranges of one file" ranges-third.m3u8 ranges-full.m3u8 the_whole_file
fi
