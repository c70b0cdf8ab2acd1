#!/usr/bin/env python3
"""What a PostgreSQL index adds to a download, per resource, against SQLite's (issue 33).

Run by Benchmarks/index-latency.sh, which builds the release binary. One generated stream of
many short segments (ffmpeg; cached) is served by `carryon origin` on loopback; it is downloaded
into a fresh library RUNS times on each index, in turn: SQLite in the library folder, and a
PostgreSQL cluster this script starts (initdb, durable as a server is: fsync on), over its Unix
socket and over TCP on 127.0.0.1, each on a database of its own whose schema is made before the
clock starts. Each download's wall time is measured; the table gives the
medians and the difference per resource: the index's added latency, as a download sees it
(every resource is one fenced transaction recording it done, and progress is written as it goes).
"""
import argparse
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from pgcluster import Cluster


def run(command, **kwargs):
    return subprocess.run(command, check=True, capture_output=True, text=True, **kwargs)


def make_media(folder: pathlib.Path, segments: int) -> pathlib.Path:
    playlist = folder / "index.m3u8"
    if playlist.exists():
        return playlist
    folder.mkdir(parents=True, exist_ok=True)
    seconds = segments // 2
    run(["ffmpeg", "-loglevel", "error", "-f", "lavfi", "-i", f"testsrc=size=160x90:rate=10:duration={seconds}",
         "-c:v", "libx264", "-g", "5", "-keyint_min", "5", "-sc_threshold", "0", "-f", "hls", "-hls_time", "0.5",
         "-hls_playlist_type", "vod", "-hls_segment_filename", str(folder / "s%04d.ts"), str(playlist)])
    return playlist


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--carryon", required=True)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--segments", type=int, default=400)
    parser.add_argument("--media", required=True)
    arguments = parser.parse_args()
    playlist = make_media(pathlib.Path(arguments.media), arguments.segments)
    resources = sum(1 for line in playlist.read_text().splitlines() if line and not line.startswith("#"))
    work = pathlib.Path(tempfile.mkdtemp(prefix="carryon-index-latency-"))
    os.chmod(work, 0o755)
    cluster = None
    origin = None
    try:
        cluster = Cluster(work)
        origin = subprocess.Popen([arguments.carryon, "origin", str(playlist.parent)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  text=True)
        base = origin.stdout.readline().strip()
        if not base.startswith("http://127.0.0.1:"):
            sys.exit(f"index-latency: the origin did not start ({base!r})")
        url = f"{base}/index.m3u8"
        indexes = {"sqlite": lambda: "sqlite", "postgres (socket)": lambda: cluster.database(tcp=False),
                   "postgres (tcp)": lambda: cluster.database(tcp=True)}
        times = {name: [] for name in indexes}
        for attempt in range(arguments.runs):
            for name, make in indexes.items():
                library = work / f"library-{attempt}-{name.split()[0]}{len(times[name])}"
                index = make()
                # The schema made before the clock starts: what is timed is the download's own use of the index.
                run([arguments.carryon, "list", "--library", str(library), "--index", index])
                start = time.perf_counter()
                result = subprocess.run([arguments.carryon, "download", url, "--library", str(library), "--index", index],
                                        capture_output=True, text=True)
                elapsed = time.perf_counter() - start
                if result.returncode != 0:
                    sys.exit(f"index-latency: the download on {name} failed: {result.stderr.strip()}")
                times[name].append(elapsed)
                shutil.rmtree(library, ignore_errors=True)
        sqlite = statistics.median(times["sqlite"])
        print(f"{resources} resources (one segment a resource), {arguments.runs} runs each, in turn; medians")
        print(f"| index | download | per resource | added per resource vs SQLite |")
        print(f"| --- | --- | --- | --- |")
        for name, values in times.items():
            median = statistics.median(values)
            added = (median - sqlite) / resources * 1000
            print(f"| {name} | {median * 1000:.0f} ms | {median / resources * 1000:.2f} ms | "
                  f"{'' if name == 'sqlite' else f'{added:+.2f} ms'} |")
    finally:
        if origin:
            origin.terminate()
            origin.wait()
        if cluster:
            cluster.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
