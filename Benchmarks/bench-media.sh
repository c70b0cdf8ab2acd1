# The benchmarks' generated media, sourced by download.sh and verify.sh: `make_asset DIR
# MINUTES DASH` makes the asset in DIR once (a `.complete` file marks it made) and reuses it.
#
# The asset: one video variant (320x180 H.264 at a constant 2 Mbit/s, padded by x264's CBR
# filler so the segments are as large as a real 2 Mbit/s stream's) with an AUDIO group of two
# renditions (AAC 128 kbit/s, English 440 Hz and German 660 Hz), 6 s MPEG-TS segments. Exactly
# one variant, so every tool downloads the same three media playlists.
#
# As DASH (DASH = 1): the same encoding, 6 s fMP4 segments of a SegmentTimeline, one
# AdaptationSet per stream; the Representations' ids are 0 (video), 1 (English) and 2 (German).

encode() {  # encode SECONDS ARGS...: the asset's streams, encoded, written as ARGS say
    local seconds="$1"; shift
    ffmpeg -hide_banner -loglevel error -nostdin -y \
        -f lavfi -i "testsrc2=size=320x180:rate=25:duration=$seconds" \
        -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=$seconds" \
        -f lavfi -i "sine=frequency=660:sample_rate=48000:duration=$seconds" \
        -map 0:v -map 1:a -map 2:a \
        -c:v libx264 -preset ultrafast -pix_fmt yuv420p -g 150 -keyint_min 150 -sc_threshold 0 \
        -b:v 2000k -minrate 2000k -maxrate 2000k -bufsize 2000k -x264-params nal-hrd=cbr \
        -c:a aac -b:a 128k -ac 2 "$@"
}

make_asset() {  # make_asset DIR MINUTES DASH
    local asset="$1" minutes="$2" dash="$3"
    [[ -f "$asset/.complete" ]] && return 0
    local seconds=$((minutes * 60))
    rm -rf "$asset"
    mkdir -p "$asset"
    if [[ $dash == 1 ]]; then
        echo "== generating a ${minutes}-minute DASH asset in $asset (once; a few minutes)"
        encode "$seconds" -metadata:s:a:0 language=eng -metadata:s:a:1 language=deu \
            -f dash -seg_duration 6 -adaptation_sets "id=0,streams=0 id=1,streams=1 id=2,streams=2" "$asset/main.mpd"
    else
        echo "== generating a ${minutes}-minute asset in $asset (once; a few minutes)"
        encode "$seconds" \
            -f hls -hls_time 6 -hls_playlist_type vod -hls_list_size 0 -hls_segment_type mpegts \
            -master_pl_name main.m3u8 \
            -var_stream_map "v:0,agroup:aud,name:video a:0,agroup:aud,language:en,name:audio_en,default:yes a:1,agroup:aud,language:de,name:audio_de" \
            -hls_segment_filename "$asset/%v/seg%04d.ts" "$asset/%v/index.m3u8"
        # Readable rendition names, and AUTOSELECT as a packager would write it.
        sed -i -e 's/NAME="audio_1"/NAME="English"/' -e 's/NAME="audio_2"/NAME="Deutsch"/' \
            -e 's/,URI="/,AUTOSELECT=YES,CHANNELS="2",URI="/' "$asset/main.m3u8"
    fi
    touch "$asset/.complete"
}
