#!/usr/bin/env bash
# Makes Carryon's DASH sample: an 8 s presentation with two video Representations (192x108,
# 320x180), English and German audio AdaptationSets and an English WebVTT AdaptationSet, in one
# flavour per addressing mode ISO/IEC 23009-1 defines, and one of two Periods:
#
#   timeline/     SegmentTemplate with a SegmentTimeline ($Number$ names), plus WebVTT
#   number/       SegmentTemplate with @duration ($Number%05d$)
#   list/         SegmentList of one file per segment
#   single/       SegmentList of byte ranges of one file per Representation
#   base/         SegmentBase: one file per Representation, its segments in its sidx (@indexRange)
#   periods/      two Periods (4 s each, BaseURL per Period), SegmentTemplate+Timeline
#   clearkey/     the 320x180 video encrypted with CENC (cenc-aes-ctr) under a test key, one MP4
#                 named by a bare BaseURL, protected by W3C Clear Key (licence at clearkey/license)
#   clearkey-segments/  the same video in segments (SegmentTemplate, $Number$), each fragment
#                 encrypted with CENC by Scripts/cenc-encrypt.py (subsamples, senc/saiz/saio, a
#                 Clear Key pssh): what a browser's Media Source Extensions and EME play
#
# The Clear Key test key and KID are public test values (the tests answer the licence with them):
#   key 000102030405060708090a0b0c0d0e0f, KID 10111213-1415-1617-1819-202122232425
# ffmpeg 5.1 encrypts only unfragmented MP4 correctly (it writes a fragmented file's sample
# encryption into the init section), hence one file for clearkey/, its moov first (+faststart)
# so that a reader that cannot seek, such as ffmpeg's HLS demuxer, plays it as it arrives; and
# Scripts/cenc-encrypt.py for clearkey-segments/. ffmpeg 5.1 decrypts those fragments only from a
# stream it cannot seek (a pipe, or its HLS demuxer): reading a seekable file it takes the last
# fragment's sample encryption for every fragment.
#
# The tests download these through the origin and play the bundles with GStreamer (DASH) and
# ffmpeg (HLS). Usage: Scripts/make-dash-media.sh [OUTPUT_DIR] (default Samples/dash).
# Needs ffmpeg (apt-get install -y ffmpeg) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-Samples/dash}"
command -v ffmpeg >/dev/null || { echo "make-dash-media: ffmpeg is missing; apt-get install -y ffmpeg" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"

sources() {
    local duration="$1" pattern="$2"
    echo -f lavfi -i "$pattern=size=320x180:rate=25:duration=$duration" \
         -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=$duration" \
         -f lavfi -i "sine=frequency=660:sample_rate=48000:duration=$duration"
}
encode=(-filter_complex "[0:v]split=2[a][b];[a]scale=192:108[v0];[b]null[v1]" -map "[v0]" -map "[v1]" -map 1:a -map 2:a
        -c:v libx264 -threads 1 -preset veryfast -profile:v main -pix_fmt yuv420p -g 50 -keyint_min 50 -sc_threshold 0
        -b:v:0 60k -b:v:1 120k -c:a aac -b:a 48k -ac 2 -metadata:s:a:0 language=eng -metadata:s:a:1 language=deu
        -fflags +bitexact -flags:v +bitexact -flags:a +bitexact -map_metadata -1)
sets=(-adaptation_sets "id=0,streams=v id=1,streams=2 id=2,streams=3")

dash() {
    local folder="$1" duration="$2" pattern="$3"; shift 3
    mkdir -p "$out/$folder"
    # shellcheck disable=SC2046
    ffmpeg -hide_banner -loglevel error -y $(sources "$duration" "$pattern") "${encode[@]}" -f dash -seg_duration 2 "${sets[@]}" "$@" \
        "$out/$folder/main.mpd"
}
dash timeline 8 testsrc2
dash number 8 testsrc2 -use_timeline 0
dash list 8 testsrc2 -use_template 0 -use_timeline 0
dash single 8 testsrc2 -single_file 1
dash periods/p1 4 testsrc2
dash periods/p2 4 smptebars

# SegmentBase: one fragmented MP4 per Representation with a global sidx.
mkdir -p "$out/base"
for stream in 0 1 2 3; do
    ffmpeg -hide_banner -loglevel error -y -i "$out/single/main-stream$stream.mp4" -c copy -map 0 \
        -movflags +dash+global_sidx -frag_duration 2000000 "$out/base/stream$stream.mp4"
done

# A Clear Key MPD of the video: clearkey_mpd FILE PROFILE ADDRESSING (the Representation's content).
clearkey_mpd() {
    cat > "$1" <<MPD
<?xml version="1.0" encoding="utf-8"?>
<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" xmlns:cenc="urn:mpeg:cenc:2013" xmlns:dashif="https://dashif.org/CPS"
     type="static" mediaPresentationDuration="PT8S" minBufferTime="PT2S" profiles="urn:mpeg:dash:profile:$2:2011">
  <Period id="1">
    <AdaptationSet contentType="video" mimeType="video/mp4" codecs="avc1.4d400c" width="320" height="180" frameRate="25">
      <ContentProtection schemeIdUri="urn:mpeg:dash:mp4protection:2011" value="cenc" cenc:default_KID="10111213-1415-1617-1819-202122232425"/>
      <ContentProtection schemeIdUri="urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e" value="ClearKey1.0">
        <dashif:Laurl>license</dashif:Laurl>
      </ContentProtection>
      <Representation id="video" bandwidth="120000">$3</Representation>
    </AdaptationSet>
  </Period>
</MPD>
MPD
}

# Clear Key in segments: ffmpeg cuts the clear video, Scripts/cenc-encrypt.py encrypts it.
mkdir -p "$out/clearkey-segments"
ffmpeg -hide_banner -loglevel error -y -i "$out/single/main-stream1.mp4" -map 0:v -c copy -f dash -seg_duration 2 \
    -use_timeline 0 -init_seg_name 'init.m4s' -media_seg_name 'chunk-$Number%05d$.m4s' "$out/clearkey-segments/ffmpeg.mpd"
rm "$out/clearkey-segments/ffmpeg.mpd"
python3 Scripts/cenc-encrypt.py 000102030405060708090a0b0c0d0e0f 10111213141516171819202122232425 \
    "$out/clearkey-segments/init.m4s" "$out"/clearkey-segments/chunk-*.m4s
clearkey_mpd "$out/clearkey-segments/main.mpd" isoff-live \
    '<SegmentTemplate timescale="1000" duration="2000" startNumber="1" initialization="init.m4s" media="chunk-$Number%05d$.m4s"/>'
# The proof that it decrypts: ffmpeg, reading the segments as a stream, gives the clear frames.
clear=$(ffmpeg -v error -i "$out/single/main-stream1.mp4" -map 0:v -f framemd5 - | grep -v '^#')
decrypted=$(cat "$out/clearkey-segments/init.m4s" "$out"/clearkey-segments/chunk-*.m4s \
    | ffmpeg -v error -decryption_key 000102030405060708090a0b0c0d0e0f -i - -f framemd5 - | grep -v '^#')
[ "$clear" = "$decrypted" ] || { echo "make-dash-media: clearkey-segments does not decrypt to the clear video" >&2; exit 1; }

mkdir -p "$out/clearkey"
ffmpeg -hide_banner -loglevel error -y -i "$out/single/main-stream1.mp4" -c copy -movflags +faststart -encryption_scheme cenc-aes-ctr \
    -encryption_key 000102030405060708090a0b0c0d0e0f -encryption_kid 10111213141516171819202122232425 \
    "$out/clearkey/video.mp4"
clearkey_mpd "$out/clearkey/main.mpd" full '<BaseURL>video.mp4</BaseURL>'

python3 - "$out" <<'PY'
import os, re, struct, sys
out = sys.argv[1]

def boxes(path):
    data = open(path, "rb").read()
    position, found = 0, {}
    while position + 8 <= len(data):
        size, kind = struct.unpack(">I4s", data[position:position + 8])
        found.setdefault(kind.decode(), (position, size))
        position += size
    return found

# WebVTT: one file for the whole presentation, an AdaptationSet naming it by BaseURL.
with open(os.path.join(out, "timeline", "subs_en.vtt"), "w") as vtt:
    vtt.write("WEBVTT\n\n00:00:00.500 --> 00:00:03.500\nHello\n\n00:00:04.500 --> 00:00:07.500\nThe test pattern moves\n")
vtt_set = ('\t\t<AdaptationSet id="3" contentType="text" mimeType="text/vtt" lang="en">\n'
           '\t\t\t<Role schemeIdUri="urn:mpeg:dash:role:2011" value="subtitle"/>\n'
           '\t\t\t<Representation id="4" bandwidth="256">\n\t\t\t\t<BaseURL>subs_en.vtt</BaseURL>\n'
           '\t\t\t</Representation>\n\t\t</AdaptationSet>\n')
path = os.path.join(out, "timeline", "main.mpd")
text = open(path).read().replace("\t</Period>", vtt_set + "\t</Period>")
open(path, "w").write(text)

# SegmentBase: the single-file MPD's Representations, each pointing at its sidx.
text = open(os.path.join(out, "single", "main.mpd")).read()
def segment_base(match):
    stream = match.group(1)
    found = boxes(os.path.join(out, "base", "stream%s.mp4" % stream))
    moov_end = found["moov"][0] + found["moov"][1]
    sidx_start, sidx_size = found["sidx"]
    return ('<BaseURL>stream%s.mp4</BaseURL>\n\t\t\t\t<SegmentBase indexRange="%d-%d" timescale="1000">\n'
            '\t\t\t\t\t<Initialization range="0-%d" />\n\t\t\t\t</SegmentBase>'
            % (stream, sidx_start, sidx_start + sidx_size - 1, moov_end - 1))
text = re.sub(r'<BaseURL>main-stream(\d)\.mp4</BaseURL>\s*<SegmentList.*?</SegmentList>', segment_base, text, flags=re.S)
open(os.path.join(out, "base", "main.mpd"), "w").write(text)

# Two Periods: each part's Period, with a BaseURL naming its folder.
parts = []
for name in ("p1", "p2"):
    part = open(os.path.join(out, "periods", name, "main.mpd")).read()
    period = re.search(r"\t<Period.*?</Period>\n", part, re.S).group(0)
    period = re.sub(r'<Period id="0" start="PT0.0S">', '<Period id="%s" duration="PT4.0S">\n\t\t<BaseURL>%s/</BaseURL>' % (name, name), period)
    parts.append(period)
header = re.search(r"^.*?\n(?=\t<Period)", part, re.S).group(0).replace('PT4.0S"', 'PT8.0S"', 1)
open(os.path.join(out, "periods", "main.mpd"), "w").write(header + "".join(parts) + "</MPD>\n")
for name in ("p1", "p2"):
    os.remove(os.path.join(out, "periods", name, "main.mpd"))
PY
du -sh "$out"
