#!/usr/bin/env bash
# Fuzzes the DASH module with libFuzzer: random mutations of the repository's MPDs, read, their
# segments addressed, written and read again, and read as segment indexes
# (Scripts/fuzz/DASHFuzzTarget.swift).
#
#     Scripts/fuzz-dash.sh [--seconds N] [--seed N] [--keep DIR]
#
#   --seconds N   how long to fuzz (default 600: ten minutes)
#   --seed N      libFuzzer's random seed (default 1)
#   --keep DIR    keep the corpus libFuzzer grows in DIR (default: a temporary directory)
#
# The HLS module (for URIReference) is built as a library and the target from the DASH
# module's sources and the entry point, with -sanitize=fuzzer,address and -O, in .build-fuzz/.
# The seed corpus is every .mpd under Samples/ and Tests/ plus the sample's sidx boxes; a
# dictionary of the element and attribute names guides the mutations. An input that takes over
# 30 s is a hang (a timeline may legitimately name two million segments); over 2 GiB a failure.
# Exits 0 when no crash, trap, hang or leak was found, printing the number of inputs run.
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=fuzz/libfuzzer.sh
source Scripts/fuzz/libfuzzer.sh
fuzz_options "$0" 17 "$@"

out=.build-fuzz
mkdir -p "$out/dash-modules"
echo "fuzz-dash.sh: building the fuzz target"
# shellcheck disable=SC2046
swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name HLS -emit-module \
    -emit-module-path "$out/dash-modules/HLS.swiftmodule" -emit-library -static -o "$out/dash-modules/libHLS.a" \
    $(find Sources/HLS -name '*.swift' | sort) 2>&1 | { grep -v "Cannot export local symbol" || true; }
# shellcheck disable=SC2046
swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name DASHFuzz -I "$out/dash-modules" \
    $(find Sources/DASH -name '*.swift' | sort) Scripts/fuzz/DASHFuzzTarget.swift \
    "$out/dash-modules/libHLS.a" -o "$out/dash-fuzz" 2>&1 | { grep -v "Cannot export local symbol" || true; }

fuzz_corpus fuzz-dash
seeds="$out/dash-seeds"
rm -rf "$seeds"
mkdir -p "$seeds"
n=0
while IFS= read -r -d '' file; do
    n=$((n + 1))
    cp "$file" "$seeds/$n.mpd"
done < <(find Samples Tests -name '*.mpd' -print0 | sort -z)
# The sidx of each SegmentBase sample file, as an index input.
python3 - "$seeds" Samples/dash/base/stream*.mp4 <<'PY'
import struct, sys
seeds = sys.argv[1]
for number, path in enumerate(sys.argv[2:]):
    data = open(path, "rb").read()
    position = 0
    while position + 8 <= len(data):
        size, kind = struct.unpack(">I4s", data[position:position + 8])
        if kind == b"sidx":
            open("%s/sidx%d.bin" % (seeds, number), "wb").write(data[position:position + size])
            break
        position += max(size, 8)
PY
printf '<MPD type="static" mediaPresentationDuration="PT10S"><Period><AdaptationSet mimeType="video/mp4"><SegmentTemplate timescale="10" media="$Time$-$Number%%05d$.m4s" initialization="i$RepresentationID$.mp4"><SegmentTimeline><S d="20" r="-1"/><S t="50" n="9" d="5"/></SegmentTimeline></SegmentTemplate><Representation id="a" bandwidth="1"/></AdaptationSet></Period></MPD>\n' > "$seeds/timeline.mpd"
echo "fuzz-dash.sh: $(ls "$seeds" | wc -l) seeds"

dict="$out/dash.dict"
{
    grep -rhoE 'named: "[A-Za-z]+"|element\["[A-Za-z_]+"\]|\(element, "[A-Za-z]+"\)|, "[A-Za-z]+"\)' Sources/DASH/Parsing Sources/DASH/Model \
        | grep -oE '"[A-Za-z_]+"' | sort -u
    printf '%s\n' '"<"' '">"' '"</"' '"/>"' '"=\\""' '"$"' '"$$"' '"%05d"' '"<![CDATA["' '"]]>"' '"<!--"' '"-->"' '"&amp;"' '"&#x"' \
        '"<!DOCTYPE"' '"PT"' '"S"' '"-1"' '"9223372036854775807"' '"sidx"'
} > "$dict"

fuzz_run fuzz-dash.sh "$out/dash-fuzz" "$seeds" "$dict" "$out/dash-fuzz.log" 30 "$out/dash-"
