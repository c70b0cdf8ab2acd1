#!/usr/bin/env bash
# Makes Carryon's sample asset: a real multivariant HLS stream, 12 s long, with three video
# variants, two audio languages (English, German) and WebVTT subtitles in two languages, in three
# flavours that exercise different parts of HLS:
#
#   ts/          MPEG-TS segments, one file per segment
#   fmp4/        fragmented MP4 segments with an init section per rendition (EXT-X-MAP)
#   byterange/   one MPEG-TS file per rendition, segments addressed with EXT-X-BYTERANGE
#
# The tests download these through the origin and decode them with ffmpeg; `carryon demo` will
# use them too. Usage: Scripts/make-sample-media.sh [OUTPUT_DIR] (default Samples/media).
# Needs ffmpeg (apt-get install -y ffmpeg) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-Samples/media}"
duration=12
segment=4

command -v ffmpeg >/dev/null || { echo "make-sample-media: ffmpeg is missing; apt-get install -y ffmpeg" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"

# Sources: a moving test pattern, and a tone per language (440 Hz English, 660 Hz German).
inputs=(-f lavfi -i "testsrc2=size=640x360:rate=25:duration=$duration"
        -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=$duration"
        -f lavfi -i "sine=frequency=660:sample_rate=48000:duration=$duration")
video=(-filter_complex "[0:v]split=3[a][b][c];[a]scale=320:180[v0];[b]scale=480:270[v1];[c]null[v2]"
       -map "[v0]" -map "[v1]" -map "[v2]" -map 1:a -map 2:a
       -c:v libx264 -threads 1 -preset veryfast -profile:v main -pix_fmt yuv420p -g 50 -keyint_min 50 -sc_threshold 0
       -b:v:0 100k -maxrate:v:0 120k -bufsize:v:0 200k
       -b:v:1 200k -maxrate:v:1 240k -bufsize:v:1 400k
       -b:v:2 350k -maxrate:v:2 420k -bufsize:v:2 700k
       -c:a aac -b:a 64k -ac 2
       -fflags +bitexact -flags:v +bitexact -flags:a +bitexact -map_metadata -1)
streams="v:0,agroup:aud,name:180p v:1,agroup:aud,name:270p v:2,agroup:aud,name:360p a:0,agroup:aud,language:en,name:audio_en,default:yes a:1,agroup:aud,language:de,name:audio_de"

make_flavour() {
    local flavour="$1"; shift
    mkdir -p "$out/$flavour"
    ffmpeg -hide_banner -loglevel error -y "${inputs[@]}" "${video[@]}" \
        -f hls -hls_time "$segment" -hls_playlist_type vod -hls_list_size 0 \
        -master_pl_name main.m3u8 -var_stream_map "$streams" "$@" \
        "$out/$flavour/%v/index.m3u8"
}

make_flavour ts -hls_segment_type mpegts -hls_segment_filename "$out/ts/%v/segment%d.ts"
make_flavour fmp4 -hls_segment_type fmp4 -hls_fmp4_init_filename init.mp4 \
    -hls_segment_filename "$out/fmp4/%v/segment%d.m4s"
make_flavour byterange -hls_segment_type mpegts -hls_flags single_file \
    -hls_segment_filename "$out/byterange/%v/media.ts"

# ffmpeg writes no subtitle renditions, no AVERAGE-BANDWIDTH and no CODECS for fMP4: add them,
# with WebVTT subtitle playlists of one cue per segment.
python3 - "$out" "$duration" "$segment" <<'PY'
import os, re, sys
out, duration, segment = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
languages = [("en", "English", ["Hello", "The test pattern moves", "Goodbye"]),
             ("de", "Deutsch", ["Hallo", "Das Testbild bewegt sich", "Auf Wiedersehen"])]

def stamp(seconds):
    return "%02d:%02d:%06.3f" % (seconds // 3600, seconds // 60 % 60, seconds % 60)

for flavour in ("ts", "fmp4", "byterange"):
    root = os.path.join(out, flavour)
    for code, name, lines in languages:
        folder = os.path.join(root, "subs_" + code)
        os.makedirs(folder, exist_ok=True)
        playlist = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:%d" % segment,
                    "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:VOD"]
        for index in range(duration // segment):
            start, end = index * segment, (index + 1) * segment
            with open(os.path.join(folder, "cue%d.vtt" % index), "w") as cue:
                cue.write("WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:126000,LOCAL:00:00:00.000\n\n")
                cue.write("%s --> %s\n%s\n" % (stamp(start + 0.5), stamp(end - 0.5), lines[index % len(lines)]))
            playlist += ["#EXTINF:%d.000," % segment, "cue%d.vtt" % index]
        playlist.append("#EXT-X-ENDLIST")
        with open(os.path.join(folder, "index.m3u8"), "w") as handle:
            handle.write("\n".join(playlist) + "\n")

    main_path = os.path.join(root, "main.m3u8")
    text = open(main_path).read()
    sizes = {}
    def average_bandwidth(folder):
        total = 0
        media = open(os.path.join(root, folder, "index.m3u8")).read()
        files = set(l for l in media.splitlines() if l and not l.startswith("#"))
        files |= set(re.findall(r'URI="([^"]+)"', media))
        for name in files:
            total += os.path.getsize(os.path.join(root, folder, name))
        return int(total * 8 / duration)
    codecs = {"180p": "avc1.4d400c", "270p": "avc1.4d4015", "360p": "avc1.4d401e"}
    lines = []
    for line in text.splitlines():
        if line.startswith("#EXT-X-MEDIA:TYPE=AUDIO"):
            language = re.search(r'LANGUAGE="([^"]+)"', line).group(1)
            line = re.sub(r'NAME="[^"]*"', 'NAME="%s"' % dict((c, n) for c, n, _ in languages)[language], line)
            line = line.replace(',DEFAULT=NO', '')
            line = line.replace('URI="', 'AUTOSELECT=YES,CHANNELS="2",URI="')
        if line.startswith("#EXT-X-STREAM-INF"):
            pending = line
            continue
        if lines and not line.startswith("#") and line.strip() and 'pending' in dir():
            folder = line.split("/")[0]
            attributes = pending.split(":", 1)[1]
            attributes = re.sub(r',?CODECS="[^"]*"', "", attributes)
            audio = max(average_bandwidth("audio_en"), average_bandwidth("audio_de"))
            attributes += ',AVERAGE-BANDWIDTH=%d,CODECS="%s,mp4a.40.2",SUBTITLES="subs"' % (
                average_bandwidth(folder) + audio, codecs[folder])
            lines.append("#EXT-X-STREAM-INF:" + attributes)
            del pending
        if line.strip() == "":
            continue
        lines.append(line)
    header_end = max(i for i, l in enumerate(lines) if l.startswith("#EXT-X-MEDIA:")) + 1
    subtitles = ['#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="%s",LANGUAGE="%s",%sAUTOSELECT=YES,URI="subs_%s/index.m3u8"'
                 % (name, code, "DEFAULT=YES," if code == "en" else "", code) for code, name, _ in languages]
    lines[header_end:header_end] = subtitles
    with open(main_path, "w") as handle:
        handle.write("\n".join(lines) + "\n")
PY
du -sh "$out"
