#!/usr/bin/env bash
# Makes Sources/CarryonCLI/carryon.order: the code a download runs, which the linker lays out
# together at the start of the release binary's text (lld --symbol-ordering-file; see
# Package.swift and Documentation/Development.md, "How the binary is linked").
#
#     Scripts/link-order.sh
#
# Why: the kernel maps a binary's code into a process 64 KiB around each page it runs
# (fault-around), so a process's memory counts every 64 KiB stretch that holds one function it
# ran. A download ran 3 MiB of functions spread over 25 MiB of the 37 MiB of code: 25 MiB of
# its peak memory. Laid out together, what it runs takes 17 MiB (the rest is code the
# linker cannot split: whole objects' .text, Swift's standard library's among them).
#
# How: the release binary is built with a link map, and run under valgrind's callgrind, which
# names every function that runs, on the downloads the layout is for: the sample's HLS
# (fMP4 and MPEG-TS) and MPEG-DASH streams over HTTP/1.1 from `carryon origin`, and its HLS
# stream over HTTPS and HTTP/2 from nginx with a test CA. Every input section of the map that
# holds a function that ran is named in the file by up to three of its functions (one moves
# the whole section; three keep it in place when one is renamed). Run it again after large
# changes; Benchmarks/download.sh shows what it is worth (peak memory).
#
# Needs valgrind, nginx, openssl and objcopy (binutils): on Debian
# `apt-get install valgrind nginx-light openssl binutils`.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=test-ca.sh
source "$root/Scripts/test-ca.sh"
order="$root/Sources/CarryonCLI/carryon.order"
for tool in valgrind nginx openssl objcopy python3; do
    command -v "$tool" >/dev/null || { echo "link-order.sh: $tool is missing (apt-get install valgrind nginx-light openssl binutils)" >&2; exit 1; }
done
work="$(mktemp -d)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

cd "$root"
echo "== building the release binary with a link map"
swift build -c release --product carryon --static-swift-stdlib -Xlinker -Map="$work/carryon.map" 2>&1 | tail -1
bin="$(swift build -c release --show-bin-path)/carryon"
# valgrind cannot read Swift's DWARF 5; the symbol table is all callgrind needs.
objcopy --strip-debug "$bin" "$work/carryon"

echo "== serving the samples"
"$bin" origin "$root/Samples" > "$work/origin.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [[ -s "$work/origin.out" ]] && break; sleep 0.1; done
base="$(head -1 "$work/origin.out")"
[[ "$base" == http://* ]] || { cat "$work/origin.out" >&2; echo "link-order.sh: carryon origin did not start" >&2; exit 1; }

make_test_ca "$work/ca" "Carryon Link Order CA"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$work/nginx"
cat > "$work/nginx/nginx.conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 64; }
http {
    access_log off;
    types { application/vnd.apple.mpegurl m3u8; video/mp2t ts; video/mp4 mp4 m4s; }
    server { listen 127.0.0.1:$port ssl http2; ssl_certificate $work/ca/server.pem; ssl_certificate_key $work/ca/server.key; root $root/Samples/media; }
}
CONF
nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" > "$work/nginx/out.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do curl -sf --cacert "$work/ca/ca.pem" -o /dev/null "https://127.0.0.1:$port/fmp4/main.m3u8" && break; sleep 0.1; done

# profile NAME URL [OPTIONS...]: one download under callgrind.
profile() {
    local name="$1" url="$2"
    shift 2
    echo "== $name"
    valgrind --tool=callgrind --demangle=no --collect-jumps=no --callgrind-out-file="$work/$name.callgrind" \
        "$work/carryon" download "$url" --library "$work/library-$name" --audio all --subtitles all "$@" \
        > "$work/$name.log" 2>&1 || { tail -20 "$work/$name.log" >&2; echo "link-order.sh: the $name download failed" >&2; exit 1; }
}
profile hls-fmp4 "$base/media/fmp4/main.m3u8"
profile hls-ts "$base/media/ts/main.m3u8"
profile dash "$base/dash/timeline/main.mpd"
profile https-http2 "https://127.0.0.1:$port/fmp4/main.m3u8" --cacert "$work/ca/ca.pem"

echo "== writing $order"
python3 - "$work" "$order" <<'PY'
import collections, glob, re, sys
work, order = sys.argv[1], sys.argv[2]
ran = set()
for path in glob.glob(f"{work}/*.callgrind"):
    for line in open(path, errors="replace"):
        # "fn=(12) name" names function 12 the first time; later lines give the number alone.
        m = re.match(r"^c?fn=\(\d+\) (.+)$", line.rstrip("\n"))
        if m: ran.add(m.group(1))
# The map: an output section's line, then each of its input sections ("file:(section)"),
# then each input section's symbols, each level indented 8 columns further.
names = collections.defaultdict(set)
output, section = None, None
for line in open(f"{work}/carryon.map", errors="replace"):
    m = re.match(r"^\s*[0-9a-f]+\s+[0-9a-f]+\s+[0-9a-f]+\s+\d+( +)(.*)$", line.rstrip("\n"))
    if not m: continue
    depth, text = len(m.group(1)), m.group(2)
    if depth == 1: output, section = text, None
    elif depth == 9: section = text
    elif output == ".text" and section and text in ran: names[section].add(text)
chosen = sorted({name for found in names.values() for name in sorted(found, key=lambda n: (len(n), n))[:3]})
with open(order, "w") as f:
    f.write("# The functions a download runs, for lld to lay out together (--symbol-ordering-file).\n")
    f.write("# Made by Scripts/link-order.sh; do not edit.\n")
    f.write("\n".join(chosen) + "\n")
print(f"   {len(ran)} functions ran, in {len(names)} input sections of .text; {len(chosen)} names written")
PY
# SwiftPM does not see the file change: the next release build links again only without the binary.
rm -f "$bin"
echo "   the next release build lays the binary out by it"
