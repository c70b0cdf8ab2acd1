#!/usr/bin/env python3
"""Long playlists for Benchmarks/download.sh's memory check: the asset's segments listed FACTOR
times over, each repetition with its own query string (so each is a distinct resource to every
downloader), and a multivariant playlist long-FACTOR.m3u8 over them.

    long-playlists.py ASSET FACTOR..."""
import os, sys
asset, factors = sys.argv[1], [int(f) for f in sys.argv[2:]]
main = open(os.path.join(asset, "main.m3u8")).read()
for factor in factors:
    for rendition in ("video", "audio_en", "audio_de"):
        lines = open(os.path.join(asset, rendition, "index.m3u8")).read().splitlines()
        head = [l for l in lines if l.startswith("#EXT") and not l.startswith(("#EXTINF", "#EXT-X-ENDLIST"))]
        body = []
        pending = None
        pairs = []
        for line in lines:
            if line.startswith("#EXTINF"):
                pending = line
            elif line and not line.startswith("#") and pending:
                pairs.append((pending, line))
                pending = None
        for repeat in range(factor):
            for extinf, uri in pairs:
                body += [extinf, "%s?r=%d" % (uri, repeat)]
        with open(os.path.join(asset, rendition, "long-%d.m3u8" % factor), "w") as f:
            f.write("\n".join(head + body + ["#EXT-X-ENDLIST"]) + "\n")
    with open(os.path.join(asset, "long-%d.m3u8" % factor), "w") as f:
        f.write(main.replace("/index.m3u8", "/long-%d.m3u8" % factor))
