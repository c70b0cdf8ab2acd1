#!/usr/bin/env bash
# Fuzzes the HLS parser with libFuzzer: random mutations of the repository's playlists, read
# leniently and strictly, resolved, written and read again (Scripts/fuzz/HLSFuzzTarget.swift).
#
#     Scripts/fuzz-hls.sh [--seconds N] [--seed N] [--keep DIR]
#
#   --seconds N   how long to fuzz (default 600: ten minutes)
#   --seed N      libFuzzer's random seed (default 1); the same seed, corpus and build replay
#                 the same mutations
#   --keep DIR    keep the corpus libFuzzer grows in DIR (default: a temporary directory)
#
# The target is built with -sanitize=fuzzer,address in .build-fuzz/ (about a minute), from the
# HLS module's sources and the entry point, with -O as users get it. The seed corpus is every
# .m3u8 under Tests/ and Samples/ and the benchmark's generated playlist cut to 64 KiB; a
# dictionary of the tag and attribute names guides the mutations. An input that takes over 10 s
# is a hang; over 2 GiB of memory a failure.
# Exits 0 when no crash, trap, hang or leak was found, printing the number of inputs run; else
# non-zero, with the input that failed saved as .build-fuzz/crash-* (replay it with
# `.build-fuzz/hls-fuzz FILE`).
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=fuzz/libfuzzer.sh
source Scripts/fuzz/libfuzzer.sh
fuzz_options "$0" 20 "$@"

out=.build-fuzz
mkdir -p "$out"
echo "fuzz-hls.sh: building the fuzz target"
# shellcheck disable=SC2046
swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name HLSFuzz \
    $(find Sources/HLS -name '*.swift' | sort) Scripts/fuzz/HLSFuzzTarget.swift \
    -o "$out/hls-fuzz" 2>&1 | { grep -v "Cannot export local symbol" || true; }

fuzz_corpus fuzz-hls
seeds="$out/seeds"
rm -rf "$seeds"
mkdir -p "$seeds"
n=0
while IFS= read -r -d '' file; do
    n=$((n + 1))
    cp "$file" "$seeds/$n.m3u8"
done < <(find Tests Samples -name '*.m3u8' -print0 | sort -z)
# The lenient-reading cases are written inline in the tests: a few of their shapes as files.
printf '\xef\xbb\xbf\n# old tool\n#EXTM3U x-tvg-url="http://e.example/g.xml"\r#EXTINF:-1 tvg-id="n" group-title="News",News\r\nhttp://s.example/n.ts \n' > "$seeds/iptv.m3u8"
printf '#EXTM3U\n#EXT-X-VERSION: 3\n#EXT-X-MEDIA-SEQUENCE:-5\n#EXT-X-DATERANGE:ID="a",START-DATE="2024-07-01T12:00:00Z",SCTE35-OUT="0xFC30"\n#EXT-X-SESSION-KEY:METHOD=aes-128,URI="my key.bin"\n#EXT-X-PART:DURATION=1.0,URI="p.mp4",BYTERANGE=20000@0\n#EXTINF:6,\ns1.ts\n#EXT-X-PLAYLIST-TYPE:\n#EXT-X-ENDLIST\n' > "$seeds/media-deviations.m3u8"
printf '#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-MEDIA:TYPE=audio,GROUP-ID="a",NAME="e",DEFAULT=yes,URI="a.m3u8"\n#EXT-X-STREAM-INF:RESOLUTION=640X360\n#EXT-X-STREAM-INF:BANDWIDTH=1280000.0,AUDIO="a"\nv.m3u8\n' > "$seeds/multivariant-deviations.m3u8"
python3 Benchmarks/generate.py "$seeds/generated.m3u8" 600 --scte35 >/dev/null
echo "fuzz-hls.sh: $(ls "$seeds" | wc -l) seed playlists"

dict="$out/hls.dict"
{
    grep -rhoE '"(EXT[A-Z0-9-]*)"' Sources/HLS/Model/Tag.swift Sources/HLS/Parsing | sort -u | sed 's/^"/"#/'
    grep -rhoE '"[A-Z][A-Z0-9-]+"' Sources/HLS/Tags | sort -u
    printf '%s\n' '":"' '","' '"="' '"\\""' '"\\x0d"' '"\\x0a"' '"0x"' '"@"' '"YES"' '"NO"' '"-1"' '"1e308"' '"$"' '"{$"' '"}"'
} > "$dict"

fuzz_run fuzz-hls.sh "$out/hls-fuzz" "$seeds" "$dict" "$out/fuzz.log" 10 "$out/"
