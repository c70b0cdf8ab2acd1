#!/usr/bin/env bash
# The playback server benchmark: many players fetching one downloaded asset's segments from
# `carryon serve` (release build) and from nginx (sendfile on) serving the same bundle files,
# side by side in one run, with wrk.
#
#     Benchmarks/serve.sh [--connections "50 200 1000"] [--runs N] [--seconds N]
#
#   --connections LIST  the numbers of concurrent connections (default "50 200 1000")
#   --runs N            runs per server and count, alternating; the table shows medians (default 3)
#   --seconds N         each run's length (default 15)
#
# The asset: the 20-minute asset of download.sh (bench-media.sh), downloaded by `carryon
# download` from `carryon origin`; players fetch its video segments (1.5 MB each) in turn,
# each connection starting at another, over keep-alive connections (wrk -t2, a Lua script
# that walks the segment list). Both servers run on this machine's cores beside wrk: nginx with
# `worker_processes auto`, `sendfile on`, `tcp_nopush on`, keep-alive; `carryon serve` with
# --max-connections 2000 and the file-descriptor limit raised for both.
#
# Per server and count: throughput (MB/s), requests/s, latency p50 and p99 (wrk's), errors
# (connect, read, write, timeout, non-2xx), and for Carryon its peak RSS and CPU seconds per
# run. Targets (issue 36): at 200 connections Carryon's throughput at least 0.8x nginx's and its
# p99 at most 2x nginx's; 1,000 connections served without an error. A missed target prints
# MISSED; the exit status is non-zero only on errors.
#
# Environment: CARRYON_BENCH_MEDIA, the folder where the generated media is cached (default
# .build/bench-media), shared with download.sh; CARRYON_BENCH_BINARY, a carryon binary to
# measure instead of building this checkout's (an earlier commit's, for a before and after).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
counts="50 200 1000"
runs=3
seconds=15
while [[ $# -gt 0 ]]; do
    case "$1" in
        --connections) counts="${2:?--connections needs a list}"; shift ;;
        --runs) runs="${2:?--runs needs a value}"; shift ;;
        --seconds) seconds="${2:?--seconds needs a value}"; shift ;;
        -h|--help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "serve.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done
for tool in wrk nginx ffmpeg; do
    command -v "$tool" >/dev/null || { echo "serve.sh: $tool is needed: apt-get install -y $tool" >&2; exit 1; }
done
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

media_root="${CARRYON_BENCH_MEDIA:-$root/.build/bench-media}"
asset="$media_root/hls-20min"
# shellcheck source=bench-media.sh
source "$here/bench-media.sh"
make_asset "$asset" 20 0

if [[ -n "${CARRYON_BENCH_BINARY:-}" ]]; then
    carryon="$CARRYON_BENCH_BINARY"
else
    echo "== building carryon (release)"
    (cd "$root" && swift build -c release --product carryon --static-swift-stdlib 2>&1 | grep -Ev "^warning: 'swift-distributed-tracing'|CMakeLists.txt" | tail -n 2)
    carryon="$(cd "$root" && swift build -c release --product carryon --static-swift-stdlib --show-bin-path)/carryon"
fi

work="$(mktemp -d)"
library="$work/library"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    [[ -f "$work/nginx.conf" ]] && nginx -c "$work/nginx.conf" -s stop 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

"$carryon" origin "$asset" > "$work/origin.out" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do [[ -s "$work/origin.out" ]] && break; sleep 0.1; done
echo "== downloading the asset"
"$carryon" download "$(head -n 1 "$work/origin.out")/main.m3u8" --audio all --library "$library" > "$work/download.out"
id="$(tail -n 1 "$work/download.out")"
bundle="$library/bundles/$id"
segments=$(cd "$bundle" && ls video/*.ts | wc -l)
echo "   $id: $segments video segments, $(du -sh "$bundle/video" | cut -f1)"

# nginx over the bundle folder, as an edge box would serve files, on a port the OS picks.
nginx_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > "$work/nginx.conf" <<EOF
user root;
worker_processes auto;
worker_rlimit_nofile 65536;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 4096; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 100000;
    keepalive_timeout 60;
    types { video/mp2t ts; }
    server {
        listen 127.0.0.1:$nginx_port;
        root $bundle;
    }
}
EOF
nginx -c "$work/nginx.conf"
first="$(head -n 1 <(cd "$bundle" && ls video/*.ts))"
[[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$nginx_port/$first")" == 200 ]] \
    || { echo "serve.sh: nginx does not serve $bundle/$first" >&2; exit 1; }

"$carryon" serve --library "$library" --max-connections 2000 > "$work/serve.out" 2>&1 &
serve_pid=$!
pids+=("$serve_pid")
for _ in $(seq 1 100); do [[ -s "$work/serve.out" ]] && break; sleep 0.1; done
base="$(head -n 1 "$work/serve.out")"
base="${base%/}"

# The paths each server is asked for, one per segment; each connection starts at another.
(cd "$bundle" && ls video/*.ts) > "$work/paths"
cat > "$work/walk.lua" <<'EOF'
local paths = {}
local prefix = os.getenv("PREFIX") or ""
for line in io.lines(os.getenv("PATHS")) do paths[#paths + 1] = line end
local counter = 0
function setup(thread) counter = counter + 1; thread:set("offset", counter * 7919) end
function init(args) index = offset % #paths end
function request()
    index = index % #paths + 1
    return wrk.format("GET", prefix .. "/" .. paths[index])
end
EOF

# One run: "MB/s req/s p50_ms p99_ms errors rss_kib cpu_s".
run() {  # run SERVER CONNECTIONS
    local server="$1" connections="$2" url prefix=""
    if [[ $server == nginx ]]; then url="http://127.0.0.1:$nginx_port"; else
        local address="${base#http://}"
        url="http://${address%%/*}"
        prefix="/${address#*/}/$id"
    fi
    local before=0
    [[ $server == carryon ]] && before=$(awk '{print $14 + $15}' "/proc/$serve_pid/stat")
    PATHS="$work/paths" PREFIX="$prefix" wrk -t2 -c"$connections" -d"${seconds}s" --latency --timeout 10s -s "$work/walk.lua" "$url" > "$work/wrk.out" 2>&1 || true
    local cpu=0 rss=0
    if [[ $server == carryon ]]; then
        cpu=$(( $(awk '{print $14 + $15}' "/proc/$serve_pid/stat") - before ))
        rss=$(awk '/VmHWM/ {print $2}' "/proc/$serve_pid/status")
    fi
    python3 - "$work/wrk.out" "$cpu" "$rss" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
def number(pattern, default="0"):
    match = re.search(pattern, text)
    return match.group(1) if match else default
def scaled(value, units):
    match = re.match(r"([\d.]+)([A-Za-z]+)", value)
    if not match or match.group(2) not in units:
        print(f"serve.sh: cannot read {value!r} in wrk's output:\n{text}", file=sys.stderr)
        return 0.0
    return float(match.group(1)) * units[match.group(2)]
def ms(value):
    return scaled(value, {"us": 0.001, "ms": 1, "s": 1000, "m": 60000})
def mb(value):
    return scaled(value, {"B": 1e-6, "KB": 1.024e-3, "MB": 1.048576, "GB": 1073.741824})
errors = sum(int(value) for value in re.findall(r"(?:connect|read|write|timeout) (\d+)", text)) + int(number(r"Non-2xx or 3xx responses: (\d+)"))
throughput = mb(number(r"Transfer/sec:\s+(\S+)", "0B"))
requests = float(number(r"Requests/sec:\s+([\d.]+)"))
p50, p99 = ms(number(r"50%\s+(\S+)", "0ms")), ms(number(r"99%\s+(\S+)", "0ms"))
print(f"{throughput:.0f} {requests:.0f} {p50:.1f} {p99:.1f} {errors} {int(sys.argv[3])} {int(sys.argv[2]) / 100:.2f}")
PY
}

results="$work/results"
: > "$results"
for connections in $counts; do
    for round in $(seq 1 "$runs"); do
        for server in nginx carryon; do
            line="$(run "$server" "$connections")"
            echo "$server $connections $line" >> "$results"
            echo "   round $round, $connections connections, $server: $line"
        done
    done
done

python3 - "$results" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    server, connections, *values = line.split()
    rows.setdefault((server, int(connections)), []).append([float(v) for v in values])
print()
print(f"{'connections':>11}  {'server':7}  {'MB/s':>7}  {'req/s':>7}  {'p50 ms':>7}  {'p99 ms':>7}  {'errors':>6}  {'RSS MiB':>7}  {'CPU s':>6}")
medians = {}
for (server, connections), runs in sorted(rows.items(), key=lambda item: (item[0][1], item[0][0] != "nginx")):
    median = [statistics.median(column) for column in zip(*runs)]
    medians[(server, connections)] = median
    rss = f"{max(run[5] for run in runs) / 1024:7.1f}" if server == "carryon" else f"{'-':>7}"
    cpu = f"{median[6]:6.2f}" if server == "carryon" else f"{'-':>6}"
    print(f"{connections:>11}  {server:7}  {median[0]:7.0f}  {median[1]:7.0f}  {median[2]:7.1f}  {median[3]:7.1f}  {max(run[4] for run in runs):6.0f}  {rss}  {cpu}")
if ("carryon", 200) in medians and ("nginx", 200) in medians:
    c, n = medians[("carryon", 200)], medians[("nginx", 200)]
    throughput, tail = c[0] / n[0], c[3] / n[3] if n[3] else float("inf")
    print(f"\nat 200 connections: throughput {throughput:.2f}x nginx's (target >= 0.8), p99 {tail:.2f}x nginx's (target <= 2.0)")
    if throughput < 0.8: print("MISSED: throughput at 200 connections")
    if tail > 2.0: print("MISSED: p99 at 200 connections")
if ("carryon", 1000) in rows:
    errors = max(run[4] for run in rows[("carryon", 1000)])
    print(f"at 1000 connections: {errors:.0f} errors (target 0)")
    if errors: print("MISSED: errors at 1000 connections")
PY
