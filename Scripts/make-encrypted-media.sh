#!/usr/bin/env bash
# Makes the encrypted sample streams from the clear samples (Samples/media): the 180p video
# and the English audio, each segment encrypted with AES-128-CBC by openssl, as an
# origin serving HLS AES-128 would have them:
#
#   aes-iv/         one key, an explicit IV on EXT-X-KEY
#   aes-rotation/   IVs from the media sequence number (EXT-X-MEDIA-SEQUENCE:7), the key
#                   rotated for the last segment; the second key is a data: URI
#   fmp4-init/      fragmented MP4 (from Samples/media/fmp4) with the init section encrypted too
#   keys/           the keys the playlists name (16 raw bytes each)
#
# The keys are fixed test values, so the output is the same byte for byte on every run.
# Usage: Scripts/make-encrypted-media.sh [OUTPUT_DIR] (default Samples/encrypted).
# Needs openssl and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-Samples/encrypted}"
clear=Samples/media/ts
key1=2b7e151628aed2a6abf7158809cf4f3c
key2=603deb1015ca71be2b73aef0857d7781
iv=000102030405060708090a0b0c0d0e0f

command -v openssl >/dev/null || { echo "make-encrypted-media: openssl is missing; apt-get install -y openssl" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out/keys"
printf '%s' "$key1" | xxd -r -p > "$out/keys/key1.bin"
printf '%s' "$key2" | xxd -r -p > "$out/keys/key2.bin"
key2_base64=$(base64 -w0 < "$out/keys/key2.bin")

# encrypt IN OUT KEY IV
encrypt() { openssl enc -aes-128-cbc -K "$3" -iv "$4" -in "$1" -out "$2"; }

for flavour in aes-iv aes-rotation; do
    for rendition in 180p audio_en; do
        mkdir -p "$out/$flavour/$rendition"
        {
            echo "#EXTM3U"
            echo "#EXT-X-VERSION:3"
            echo "#EXT-X-TARGETDURATION:4"
            if [[ $flavour == aes-iv ]]; then
                echo "#EXT-X-MEDIA-SEQUENCE:0"
                echo "#EXT-X-PLAYLIST-TYPE:VOD"
                echo "#EXT-X-KEY:METHOD=AES-128,URI=\"../../keys/key1.bin\",IV=0x$iv"
            else
                echo "#EXT-X-MEDIA-SEQUENCE:7"
                echo "#EXT-X-PLAYLIST-TYPE:VOD"
                echo "#EXT-X-KEY:METHOD=AES-128,URI=\"../../keys/key1.bin\""
            fi
            for n in 0 1 2; do
                if [[ $flavour == aes-iv ]]; then
                    encrypt "$clear/$rendition/segment$n.ts" "$out/$flavour/$rendition/segment$n.ts" "$key1" "$iv"
                else
                    sequence=$((7 + n))
                    seq_iv=$(printf '%032x' "$sequence")
                    if [[ $n == 2 ]]; then
                        echo "#EXT-X-KEY:METHOD=AES-128,URI=\"data:application/octet-stream;base64,$key2_base64\""
                        encrypt "$clear/$rendition/segment$n.ts" "$out/$flavour/$rendition/segment$n.ts" "$key2" "$seq_iv"
                    else
                        encrypt "$clear/$rendition/segment$n.ts" "$out/$flavour/$rendition/segment$n.ts" "$key1" "$seq_iv"
                    fi
                fi
                echo "#EXTINF:4.000000,"
                echo "segment$n.ts"
            done
            echo "#EXT-X-ENDLIST"
        } > "$out/$flavour/$rendition/index.m3u8"
    done
    cat > "$out/$flavour/main.m3u8" <<'M3U8'
#EXTM3U
#EXT-X-VERSION:3
#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="audio_en/index.m3u8"
#EXT-X-STREAM-INF:BANDWIDTH=180400,RESOLUTION=320x180,CODECS="avc1.4d400c,mp4a.40.2",AUDIO="aud"
180p/index.m3u8
M3U8
done
# fMP4 with its init section encrypted too: the EXT-X-KEY stands before EXT-X-MAP, so the same
# key and IV apply to the init section and to every segment.
fmp4=Samples/media/fmp4
mkdir -p "$out/fmp4-init"
for rendition in 180p audio_en; do
    mkdir -p "$out/fmp4-init/$rendition"
    init=$(ls "$fmp4/$rendition" | grep '^init' | head -n 1)
    encrypt "$fmp4/$rendition/$init" "$out/fmp4-init/$rendition/$init" "$key1" "$iv"
    {
        echo "#EXTM3U"
        echo "#EXT-X-VERSION:7"
        echo "#EXT-X-TARGETDURATION:4"
        echo "#EXT-X-MEDIA-SEQUENCE:0"
        echo "#EXT-X-PLAYLIST-TYPE:VOD"
        echo "#EXT-X-KEY:METHOD=AES-128,URI=\"../../keys/key1.bin\",IV=0x$iv"
        echo "#EXT-X-MAP:URI=\"$init\""
        for n in 0 1 2; do
            encrypt "$fmp4/$rendition/segment$n.m4s" "$out/fmp4-init/$rendition/segment$n.m4s" "$key1" "$iv"
            echo "#EXTINF:4.000000,"
            echo "segment$n.m4s"
        done
        echo "#EXT-X-ENDLIST"
    } > "$out/fmp4-init/$rendition/index.m3u8"
done
cat > "$out/fmp4-init/main.m3u8" <<'M3U8'
#EXTM3U
#EXT-X-VERSION:7
#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="audio_en/index.m3u8"
#EXT-X-STREAM-INF:BANDWIDTH=180400,RESOLUTION=320x180,CODECS="avc1.4d400c,mp4a.40.2",AUDIO="aud"
180p/index.m3u8
M3U8

echo "made $out"
