#!/usr/bin/env python3
"""Writes realistic HLS media playlists for the parser benchmark.

    generate.py OUT.m3u8 SEGMENTS [--short] [--scte35]

A VOD media playlist: version 7, target duration 7, an EXT-X-MAP, then SEGMENTS segments of
~6 s (23.976 fps durations such as 6.006 and 5.839), each with a long absolute-path URI with a
query string (a CDN token and an expiry), an EXT-X-PROGRAM-DATE-TIME every 10 segments, a
discontinuity (with a new date) every 1,500 segments, and EXT-X-ENDLIST. About 117 bytes a
segment, so 9,000 segments weigh about 1 MB.

With --short the segment URIs are short relative names (for the 10,000,000-segment playlist,
which would otherwise weigh more than a gigabyte).

With --scte35 an ad break is marked every 20 segments by an EXT-X-DATERANGE carrying an SCTE-35
splice message, written quoted (`SCTE35-OUT="0xFC30…"`) as real packagers do and RFC 8216bis
forbids: the lenient parser reads each with a warning. About 70 KB more for 9,000 segments.
"""
import random
import sys
from datetime import datetime, timedelta, timezone


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    short = "--short" in sys.argv[1:]
    scte35 = "--scte35" in sys.argv[1:]
    if len(args) != 2:
        sys.exit(__doc__)
    out, count = args[0], int(args[1])
    rng = random.Random(20240701)  # deterministic output
    asset = "7f3c9a1e4b2d4e8f9a6c1d2e3f4a5b6c"
    token = "".join(rng.choice("0123456789abcdef") for _ in range(16))
    durations = ["6.006", "6.006", "6.006", "5.839", "6.006", "4.171", "6.006", "6.006"]
    clock = datetime(2024, 7, 1, 12, 0, 0, tzinfo=timezone.utc)
    with open(out, "w", encoding="utf-8", newline="\n") as f:
        w = f.write
        w("#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:7\n#EXT-X-MEDIA-SEQUENCE:0\n")
        w("#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-INDEPENDENT-SEGMENTS\n")
        w(f'#EXT-X-MAP:URI="/vod/{asset}/1080p/init.mp4"\n')
        for i in range(count):
            if i and i % 1500 == 0:
                w("#EXT-X-DISCONTINUITY\n")
                clock += timedelta(seconds=30)
            if i % 10 == 0:
                w("#EXT-X-PROGRAM-DATE-TIME:" + clock.isoformat(timespec="milliseconds").replace("+00:00", "Z") + "\n")
            if scte35 and i % 20 == 0:
                start = clock.isoformat(timespec="milliseconds").replace("+00:00", "Z")
                message = "0xFC302F000000000000FFFFF00506FE" + "".join(rng.choice("0123456789ABCDEF") for _ in range(40))
                w(f'#EXT-X-DATERANGE:ID="splice-{i}",START-DATE="{start}",PLANNED-DURATION=30.000,SCTE35-OUT="{message}"\n')
            d = durations[i % len(durations)]
            w(f"#EXTINF:{d},\n")
            if short:
                w(f"seg{i}.m4s\n")
            else:
                w(f"/vod/{asset}/1080p/seg_{i:06d}.m4s?token={token}&exp={1720000000 + i // 100}\n")
            clock += timedelta(seconds=float(d))
        w("#EXT-X-ENDLIST\n")


if __name__ == "__main__":
    main()
