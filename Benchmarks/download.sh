#!/usr/bin/env bash
# The download benchmark: `carryon download` (release build) against yt-dlp, ffmpeg and aria2c,
# all fetching the same 3-rendition HLS asset from `carryon origin` on loopback; and Carryon
# against curl (one connection), both fetching it from nginx on loopback.
#
#     Benchmarks/download.sh [--dash] [--minutes N] [--runs N] [--long "3 9"] [--latency MS] [--cap KBPS] [--links LIST] [--keep DIR]
#
#   --dash          the same asset as MPEG-DASH (an MPD with a SegmentTimeline, fMP4 segments),
#                   downloaded by Carryon and yt-dlp only (ffmpeg and aria2c have no DASH
#                   downloader to compare), with no memory check
#   --minutes N     length of the generated asset (default 20; at least 20 for the targets)
#   --runs N        run every tool N times per link; the table shows medians (default 3)
#   --long "A B"    memory check: also download playlists A, B... times as long as the asset
#                   (the same segment files referenced again with unique query strings), Carryon
#                   only, unthrottled (default "3 9": 60 and 180 minutes); "" skips it
#   --latency MS    the throttled link's latency (default 40)
#   --cap KBPS      the throttled link's cap per connection in kbit/s (default 20000 = 2.5 MB/s)
#   --links LIST    which links to measure, of: unthrottled nginx nginx-h2 throttled (default all;
#                   nginx-h2 is nginx over HTTPS and HTTP/2 with a certificate from a CA made
#                   with openssl, Carryon given it with --cacert, against curl --http2)
#   --keep DIR      keep the logs and results in DIR (default: a temporary folder, removed);
#                   the downloads themselves are removed at the end either way
#
# On the nginx links, run as root, each run starts from an emptied page cache with the asset and
# the tool's binary read back in (see settle_cache), so that neither tool pays for the memory
# the other's downloads filled.
#
# Environment: CARRYON_BENCH_MEDIA, the folder where the generated media is cached (default
# .build/bench-media). The media is made once with ffmpeg and reused.
#
# Targets (from the issue): Carryon at least 2x as fast as yt-dlp and ffmpeg (wall time), within
# 10 % of aria2c (Carryon wall <= 1.1 x aria2c wall), peak memory at most 48 MiB whatever the
# asset's length, up to 180 minutes (issue 15; it was under 64 MiB before). A missed target
# prints MISSED; the exit status is non-zero only on errors.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
# shellcheck source=../Scripts/test-ca.sh
source "$root/Scripts/test-ca.sh"
minutes=20
runs=3
long_factors="3 9"
latency=40
cap=20000
keep=""
dash=0
links="unthrottled nginx nginx-h2 throttled"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --dash) dash=1; long_factors="" ;;
        --minutes) minutes="${2:?--minutes needs a value}"; shift ;;
        --runs) runs="${2:?--runs needs a value}"; shift ;;
        --long) long_factors="${2?--long needs a value}"; shift ;;
        --latency) latency="${2:?--latency needs a value}"; shift ;;
        --cap) cap="${2:?--cap needs a value}"; shift ;;
        --keep) keep="${2:?--keep needs a directory}"; shift ;;
        --links) links="${2:?--links needs a list}"; shift ;;
        -h|--help) sed -n '2,34p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "download.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done

media_root="${CARRYON_BENCH_MEDIA:-$root/.build/bench-media}"
asset="$media_root/hls-${minutes}min"
[[ $dash == 1 ]] && asset="$media_root/dash-${minutes}min"
python="${PYTHON:-python3}"
command -v "$python" >/dev/null || { echo "download.sh: $python not found" >&2; exit 1; }

# ---------------------------------------------------------------------------------------------
echo "== tools"
apt_updated=0
apt_install() {  # apt_install PACKAGE: Debian packages, updating the lists once
    if [[ $apt_updated == 0 ]]; then apt-get update -qq; apt_updated=1; fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$1" >/dev/null
}
[[ -x /usr/bin/time ]] || { echo "   installing time (apt)"; apt_install time; }
command -v ffmpeg >/dev/null || { echo "   installing ffmpeg (apt)"; apt_install ffmpeg; }
command -v aria2c >/dev/null || { echo "   installing aria2 (apt)"; apt_install aria2; }
if ! command -v yt-dlp >/dev/null; then
    echo "   installing yt-dlp (pip)"
    "$python" -m pip install --quiet yt-dlp
    hash -r
fi
printf '   %s\n' "$(yt-dlp --version | sed 's/^/yt-dlp /')" "$(ffmpeg -version | head -n 1 | cut -d' ' -f1-3)" \
    "$(aria2c --version | head -n 1)"

# ---------------------------------------------------------------------------------------------
# The asset (see bench-media.sh), made once.
# shellcheck source=bench-media.sh
source "$here/bench-media.sh"
make_asset "$asset" "$minutes" "$dash"

# Long playlists for the memory check: the asset's segments listed FACTOR times over, each
# repetition with its own query string (so each is a distinct resource to every downloader),
# and a multivariant playlist long-FACTOR.m3u8 over them. Cheap to write, so written each run.
[[ -z "${long_factors// /}" ]] || "$python" "$here/long-playlists.py" "$asset" $long_factors

# What a complete download is: every segment of the three media playlists (or every init
# section and segment the MPD names).
read -r segments expected_bytes duration < <("$python" - "$asset" <<'PY'
import os, sys
asset = sys.argv[1]
count = total = 0
duration = 0.0
if os.path.exists(os.path.join(asset, "main.mpd")):
    for name in os.listdir(asset):
        if name.endswith(".m4s"):
            count += 1
            total += os.path.getsize(os.path.join(asset, name))
    import re
    text = open(os.path.join(asset, "main.mpd")).read()
    m = re.search(r'mediaPresentationDuration="PT(?:(\d+)H)?(?:(\d+)M)?([\d.]+)S"', text)
    duration = int(m.group(1) or 0) * 3600 + int(m.group(2) or 0) * 60 + float(m.group(3))
    print(count, total, duration)
    sys.exit(0)
for rendition in ("video", "audio_en", "audio_de"):
    for line in open(os.path.join(asset, rendition, "index.m3u8")):
        line = line.strip()
        if line.startswith("#EXTINF") and rendition == "video":
            duration += float(line[8:].split(",")[0])
        elif line and not line.startswith("#"):
            count += 1
            total += os.path.getsize(os.path.join(asset, rendition, line))
print(count, total, duration)
PY
)
printf '   asset: %s, %s s, 3 renditions, %d segments, %d bytes (%.1f MiB)\n' "$asset" "$duration" "$segments" \
    "$expected_bytes" "$(awk -v b="$expected_bytes" 'BEGIN { print b / 1048576 }')"
cat "$asset"/*/*.ts "$asset"/*.m4s > /dev/null 2>&1 || true  # into the page cache, so no tool pays for the first read

# ---------------------------------------------------------------------------------------------
echo "== building carryon (release)"
(cd "$root" && swift build -c release --product carryon --static-swift-stdlib 2>&1 | grep -Ev "^warning: 'swift-distributed-tracing'|CMakeLists.txt" | tail -n 2)
carryon="$(cd "$root" && swift build -c release --product carryon --static-swift-stdlib --show-bin-path)/carryon"

if [[ -n "$keep" ]]; then
    mkdir -p "$keep"
    work="$(cd "$keep" && pwd)"
else
    work="$(mktemp -d "${TMPDIR:-/tmp}/carryon-dlbench.XXXXXX")"
fi
origin_pid=""
cleanup() {
    if [[ -n "$origin_pid" ]]; then kill "$origin_pid" 2>/dev/null || true; wait "$origin_pid" 2>/dev/null || true; fi
    rm -rf "$work/out"
    if [[ -z "$keep" ]]; then rm -rf "$work"; fi
}
trap cleanup EXIT
results="$work/results.tsv"
: > "$results"
# Every download is kept until the end: deleting hundreds of files makes ext4 slow to create
# new ones for the next 30-60 s (its inode allocator skips recently deleted inodes, reading
# each one's inode block), which would charge one tool for the clean-up after another.
long_total=0
for factor in $long_factors; do long_total=$((long_total + factor)); done
needed_kib=$(( expected_bytes * (8 * runs + long_total + 1) / 1024 ))
available_kib=$(df --output=avail -k "$work" | tail -n 1)
if (( available_kib < needed_kib )); then
    echo "download.sh: $work has $((available_kib / 1048576)) GiB free; the downloads need $((needed_kib / 1048576 + 1)) GiB (fewer --runs or --long factors need less)" >&2
    exit 1
fi

start_origin() {  # start_origin ARGS...: serves the asset; sets origin_pid and base
    "$carryon" origin "$asset" "$@" > "$work/origin.log" 2>&1 &
    origin_pid=$!
    base=""
    for _ in $(seq 100); do
        base="$(head -n 1 "$work/origin.log" 2>/dev/null || true)"
        [[ "$base" == http://127.0.0.1:* ]] && break
        kill -0 "$origin_pid" 2>/dev/null || { cat "$work/origin.log" >&2; echo "download.sh: the origin did not start" >&2; exit 1; }
        sleep 0.1
    done
    [[ "$base" == http://127.0.0.1:* ]] || { echo "download.sh: no base URL from the origin" >&2; exit 1; }
    echo "   origin $base ($(sed -n 2p "$work/origin.log"))"
}

origin_ticks() {  # CPU time (user + system, in clock ticks) the origin has used so far
    awk '{ print $14 + $15 }' "/proc/$origin_pid/stat"
}

stop_origin() {
    kill "$origin_pid" 2>/dev/null || true
    wait "$origin_pid" 2>/dev/null || true
    origin_pid=""
}

# settle_cache COMMAND: as root, empties the page cache (clean pages only: everything is synced)
# and reads back what the next run reads, the asset and COMMAND's binary and libraries. Every
# run then starts from the same cache and memory. Without it the page cache grows run after
# run into memory the virtual machine has not touched yet, each new page costs the kernel far
# more, and a run could take twice the system time of the one before it (Benchmarks/README.md,
# issue 38). Not root: nothing is done, and the runs are as noisy as the machine.
settle_cache() {
    [[ -w /proc/sys/vm/drop_caches ]] || return 0
    echo 1 > /proc/sys/vm/drop_caches
    local binary
    binary="$(command -v "$1")"
    # shellcheck disable=SC2046 # one path per library
    cat "$asset"/*/*.ts "$asset"/*/*.m3u8 "$asset"/*.m3u8 "$binary" $(ldd "$binary" 2>/dev/null | grep -o '/[^ ]*') \
        > /dev/null 2>&1 || true
}

# measure LINK TOOL OUT CMD...: runs CMD under /usr/bin/time -v with OUT as a new output
# folder, then checks what landed there and appends a row to results.tsv.
measure() {
    local link="$1" tool="$2" out="$3"; shift 3
    mkdir -p "$out" "$work/logs"
    local name="${out#"$work/out/"}"
    local timing="$work/logs/${name//\//-}.time" log="$work/logs/${name//\//-}.log"
    sync  # no tool pays for writing back what an earlier one wrote
    [[ -z "${MEASURE_SETTLE:-}" ]] || settle_cache "$1"
    local origin_before origin_after
    origin_before=$(origin_ticks)
    if ! /usr/bin/time -v -o "$timing" "$@" > "$log" 2>&1; then
        echo "download.sh: $tool failed on the $link link:" >&2
        tail -n 20 "$log" >&2
        exit 1
    fi
    origin_after=$(origin_ticks)
    local bytes check
    case "$tool" in
        ffmpeg) # remuxed, so not byte-identical: check every output's duration and size instead
            bytes=$(find "$out" -type f -name '*.ts' -printf '%s\n' | awk '{ s += $1 } END { printf "%.0f\n", s }')
            check="ok"
            for file in video en de; do
                local seconds
                seconds=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$out/$file.ts" 2>/dev/null || echo 0)
                if ! awk -v s="$seconds" -v d="$duration" 'BEGIN { exit !(s >= d - 6.5) }'; then
                    check="$file.ts is ${seconds}s, not ${duration}s"
                fi
            done
            if ! awk -v b="$bytes" -v e="$expected_bytes" 'BEGIN { exit !(b >= 0.9 * e && b <= 1.1 * e) }'; then
                check="$bytes bytes, expected about $expected_bytes"
            fi ;;
        *)
            bytes=$(find "$out" -type f -name "${MEASURE_GLOB:-*}" -printf '%s\n' | awk '{ s += $1 } END { printf "%.0f\n", s }')
            if [[ "$bytes" == "${MEASURE_EXPECTED:-$expected_bytes}" ]]; then check="ok"; else check="$bytes bytes, expected ${MEASURE_EXPECTED:-$expected_bytes}"; fi ;;
    esac
    if [[ "$check" != "ok" ]]; then
        echo "download.sh: $tool on the $link link did not download everything: $check" >&2
        tail -n 20 "$log" >&2
        exit 1
    fi
    "$python" - "$timing" "$link" "$tool" "$bytes" "$(( origin_after - origin_before ))" "$(getconf CLK_TCK)" >> "$results" <<'PY'
import sys
timing, link, tool, bytes_, ticks, hz = sys.argv[1:]
fields = {}
for line in open(timing):
    if ":" in line:
        key, _, value = line.strip().rpartition(": ")
        fields[key] = value
def clock(text):  # h:mm:ss or m:ss.ss
    seconds = 0.0
    for part in text.split(":"):
        seconds = seconds * 60 + float(part)
    return seconds
wall = clock(fields["Elapsed (wall clock) time (h:mm:ss or m:ss)"])
cpu = float(fields["User time (seconds)"]) + float(fields["System time (seconds)"])
rss = int(fields["Maximum resident set size (kbytes)"]) / 1024
print("\t".join([link, tool, "%.2f" % wall, "%.2f" % cpu, "%.1f" % rss, bytes_, "%.2f" % (int(ticks) / int(hz))]))
PY
    tail -n 1 "$results" | awk -F'\t' '{ printf "   %-11s %-8s wall %7.2f s  cpu %7.2f s  rss %6.1f MiB  %s bytes  (origin cpu %.2f s)\n", $1, $2, $3, $4, $5, $6, $7 }'
}

# segment_list OUT FORMAT: a line of FORMAT for every segment of the asset's three media
# playlists, FORMAT a Python format string over {base}, {rendition}, {segment} and {out} (OUT).
segment_list() {
    "$python" - "$asset" "$base" "$1" "$2" <<'PY'
import os, sys
asset, base, out, form = sys.argv[1:]
for rendition in ("video", "audio_en", "audio_de"):
    for line in open(os.path.join(asset, rendition, "index.m3u8")):
        line = line.strip()
        if line and not line.startswith("#"):
            print(form.format(base=base, rendition=rendition, segment=line, out=out))
PY
}

run_link() {  # run_link NAME ORIGIN-ARGS...
    local link="$1"; shift
    echo "== link: $link (load average before: $(cut -d' ' -f1-3 /proc/loadavg))"
    start_origin "$@"
    local urls="$work/$link-aria2.txt"
    local v="$base/video/index.m3u8" en="$base/audio_en/index.m3u8" de="$base/audio_de/index.m3u8"
    local run
    for run in $(seq "$runs"); do
        local out="$work/out/$link-$run"
        if [[ $dash == 1 ]]; then
            MEASURE_GLOB='*.m4s' measure "$link" carryon "$out/carryon" \
                "$carryon" download "$base/main.mpd" --library "$out/carryon" --audio all --subtitles none
            # yt-dlp's DASH downloader writes each Representation's init section and segments into one file.
            measure "$link" yt-dlp "$out/yt-dlp" \
                yt-dlp --ignore-config --no-cache-dir --no-progress --no-warnings -N 8 --fixup never -f 0,1,2 \
                -o "$out/yt-dlp/%(format_id)s.%(ext)s" "$base/main.mpd"
            continue
        fi
        MEASURE_GLOB='*.ts' measure "$link" carryon "$out/carryon" \
            "$carryon" download "$base/main.m3u8" --library "$out/carryon" --audio all --subtitles none
        measure "$link" yt-dlp "$out/yt-dlp" \
            yt-dlp --ignore-config --no-cache-dir --no-progress --no-warnings -N 8 --hls-prefer-native --fixup never \
            -o "$out/yt-dlp/%(autonumber)s.%(ext)s" "$v" "$en" "$de"
        measure "$link" ffmpeg "$out/ffmpeg" \
            ffmpeg -hide_banner -loglevel error -nostdin -y -i "$v" -i "$en" -i "$de" \
            -map 0 -c copy -f mpegts "$out/ffmpeg/video.ts" \
            -map 1 -c copy -f mpegts "$out/ffmpeg/en.ts" \
            -map 2 -c copy -f mpegts "$out/ffmpeg/de.ts"
        segment_list "$out/aria2c" $'{base}/{rendition}/{segment}\n  dir={out}/{rendition}\n  out={segment}' > "$urls"
        measure "$link" aria2c "$out/aria2c" \
            aria2c -j 8 -x 1 -d "$out/aria2c" -i "$urls" --file-allocation=none --auto-file-renaming=false \
            --allow-overwrite=true --console-log-level=warn --summary-interval=0 --download-result=hide --show-console-readout=false
    done
    stop_origin
}

# run_nginx [tls]: Carryon against curl fetching the same segments one after another over one
# connection, both from nginx (sendfile on) on loopback: on such a link the work is the
# client's own I/O and system calls. With "tls", nginx serves HTTPS and HTTP/2 with a
# certificate from a CA made here with openssl (Carryon is given it with --cacert, curl with
# --cacert and --http2): the link real CDNs are. HLS only.
run_nginx() {
    local tls="${1:-}" link="nginx"
    command -v nginx >/dev/null || { echo "   installing nginx (apt)"; apt_install nginx-light || apt_install nginx; }
    [[ -n "$tls" ]] && link="nginx-h2"
    echo "== link: $link (load average before: $(cut -d' ' -f1-3 /proc/loadavg))"
    local port conf="$work/$link/nginx.conf" listen scheme="http" trust=() curl_trust=()
    mkdir -p "$work/$link"
    port=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    listen="127.0.0.1:$port"
    if [[ -n "$tls" ]]; then
        local ca="$work/$link/ca"
        make_test_ca "$ca" "Carryon Benchmark CA"
        listen="$listen ssl http2; ssl_certificate $ca/server.pem; ssl_certificate_key $ca/server.key"
        scheme="https"
        trust=(--cacert "$ca/ca.pem")
        curl_trust=(--http2 --cacert "$ca/ca.pem")
    fi
    cat > "$conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
pid $work/$link/nginx.pid;
error_log $work/$link/error.log;
events { worker_connections 256; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    http2_max_requests 1000000;
    types { application/vnd.apple.mpegurl m3u8; video/mp2t ts; }
    server { listen $listen; root $asset; }
}
CONF
    nginx -c "$conf" -p "$work/$link" > "$work/$link/nginx.log" 2>&1 &
    origin_pid=$!
    base="$scheme://127.0.0.1:$port"
    local tries
    for tries in $(seq 100); do
        curl -sf "${curl_trust[@]}" -o /dev/null "$base/main.m3u8" && break
        kill -0 "$origin_pid" 2>/dev/null || { cat "$work/$link/nginx.log" "$work/$link/error.log" >&2; echo "download.sh: nginx did not start" >&2; exit 1; }
        sleep 0.1
    done
    echo "   origin $base (nginx $(nginx -v 2>&1 | sed 's/.*nginx\///'), sendfile on${tls:+, TLS and HTTP/2})"
    local run
    for run in $(seq "$runs"); do
        local out="$work/out/$link-$run"
        MEASURE_SETTLE=1 MEASURE_GLOB='*.ts' measure "$link" carryon "$out/carryon" \
            "$carryon" download "$base/main.m3u8" --library "$out/carryon" --audio all --subtitles none "${trust[@]}"
        segment_list "$out/curl" $'url = "{base}/{rendition}/{segment}"\noutput = "{out}/{rendition}/{segment}"' \
            > "$work/$link-curl-$run.txt"
        # One curl for every segment: it fetches them in turn over the one connection it keeps.
        MEASURE_SETTLE=1 MEASURE_GLOB='*.ts' measure "$link" curl "$out/curl" \
            curl --silent --show-error --fail --create-dirs "${curl_trust[@]}" --config "$work/$link-curl-$run.txt"
    done
    stop_origin
}

wants() { [[ " $links " == *" $1 "* ]]; }
if wants unthrottled; then run_link unthrottled; fi
if [[ $dash == 0 ]] && wants nginx; then run_nginx; fi
if [[ $dash == 0 ]] && wants nginx-h2; then run_nginx tls; fi
if wants throttled; then run_link "${latency}ms+cap" --latency "$latency" --bandwidth "$cap"; fi

if [[ -n "${long_factors// /}" ]]; then
    echo "== memory check: Carryon on longer playlists (unthrottled)"
    start_origin
    for factor in $long_factors; do
        MEASURE_GLOB='*.ts' MEASURE_EXPECTED=$((expected_bytes * factor)) measure "long-x$factor" carryon "$work/out/long-x$factor" \
            "$carryon" download "$base/long-$factor.m3u8" --library "$work/out/long-x$factor" --audio all --subtitles none
    done
    stop_origin
fi

# ---------------------------------------------------------------------------------------------
echo "== results"
"$python" "$here/download-report.py" "$results" "$minutes" "$latency" "$cap" "$runs"
