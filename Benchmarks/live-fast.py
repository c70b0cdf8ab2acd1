#!/usr/bin/env python3
"""Records a synthetic live HLS stream that runs faster than real time, to see in minutes how a
recording's memory behaves over hours of segments: issue 34's "does not grow with the
recording's length", beyond what the 30 minutes of Benchmarks/live.py reach.

    Benchmarks/live-fast.py --carryon .build/release/carryon [--segments 12000] [--rate 20] [--keep DIR]

The origin (in this process, on 127.0.0.1) serves a sliding window of 60 one-second segments
whose newest is --rate segments ahead each wall-clock second, every segment the same small
MPEG-TS file ffmpeg makes once; `carryon download URL --duration SEGMENTS --json` records
--segments of them into a fresh library. Every 10 s the script reads the recorder's RssAnon (its
heap and stacks) and VmHWM from /proc, with how many segments it has recorded. The report gives
the samples, the heap's growth per 1,000 segments over the second half of the recording (after
start-up and the index's page caches, 512 KiB a connection, have filled), and checks the
recording: completed, every segment on disk.
"""
import argparse
import http.server
import json
import os
import shutil
import socketserver
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from live import memory  # noqa: E402  (VmRSS, VmHWM and RssAnon from /proc)

WINDOW = 60


def origin(segment, rate):
    """A threaded server of the live playlist and its segments, started; its port."""
    start = time.time()

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            if self.path.startswith("/live.m3u8"):
                newest = int((time.time() - start) * rate) + WINDOW
                lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:1", "#EXT-X-MEDIA-SEQUENCE:%d" % (newest - WINDOW)]
                for number in range(newest - WINDOW, newest):
                    lines += ["#EXTINF:1.000,", "seg-%d.ts" % number]
                body, kind = ("\n".join(lines) + "\n").encode(), "application/vnd.apple.mpegurl"
            elif self.path.startswith("/seg-"):
                body, kind = segment, "video/mp2t"
            else:
                self.send_response(404)
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True

    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server.server_address[1]


def recorded(events):
    """The seconds the last progress event in the file `events` says are recorded."""
    seconds = 0
    try:
        with open(events, "rb") as file:
            file.seek(max(0, os.path.getsize(events) - 4096))
            for line in file.read().decode(errors="replace").splitlines():
                if '"recordedSeconds"' in line:
                    try:
                        seconds = json.loads(line)["recording"]["recordedSeconds"]
                    except (ValueError, KeyError):
                        pass
    except FileNotFoundError:
        pass
    return seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--carryon", required=True, help="the carryon binary (a release build)")
    parser.add_argument("--segments", type=int, default=12000, help="segments to record (one second each)")
    parser.add_argument("--rate", type=float, default=20, help="segments the origin adds each second")
    parser.add_argument("--keep", help="a folder to keep the library and logs in (a temporary one otherwise)")
    args = parser.parse_args()
    if shutil.which("ffmpeg") is None:
        sys.exit("live-fast.py needs ffmpeg (apt-get install ffmpeg) to make its segment")
    folder = args.keep or tempfile.mkdtemp(prefix="carryon-live-fast-")
    os.makedirs(folder, exist_ok=True)
    segment_file = os.path.join(folder, "segment.ts")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=64x64:rate=10", "-t", "1",
                    "-c:v", "libx264", "-g", "10", "-f", "mpegts", segment_file], check=True)
    port = origin(open(segment_file, "rb").read(), args.rate)
    url = "http://127.0.0.1:%d/live.m3u8" % port
    library = os.path.join(folder, "library")
    events = os.path.join(folder, "events.jsonl")
    command = [args.carryon, "download", url, "--library", library, "--duration", str(args.segments), "--json"]
    print("recording %d segments at %g a second: %s" % (args.segments, args.rate, " ".join(command)), flush=True)
    with open(events, "wb") as out, open(os.path.join(folder, "stderr.txt"), "wb") as err:
        process = subprocess.Popen(command, stdout=out, stderr=err)
        samples = []
        while process.poll() is None:
            time.sleep(10)
            sample = memory(process.pid)
            if sample is None:
                break
            rss, peak, anonymous = sample
            samples.append((recorded(events), anonymous, peak))
            print("  %6d segments  heap %6.2f MiB  peak RSS %5.1f MiB" % (samples[-1][0], anonymous / 1024, peak / 1024), flush=True)
        code = process.wait()
    later = [sample for sample in samples if sample[0] >= args.segments / 2 and sample[0] < args.segments]
    growth = None
    if len(later) >= 2 and later[-1][0] > later[0][0]:
        growth = (later[-1][1] - later[0][1]) / (later[-1][0] - later[0][0]) * 1000
    bundles = os.path.join(library, "bundles")
    bundle = os.path.join(bundles, os.listdir(bundles)[0]) if os.path.isdir(bundles) and os.listdir(bundles) else None
    files = len([name for name in os.listdir(os.path.join(bundle, "media")) if name.endswith(".ts")]) if bundle else 0
    print("exit %d; %d segment files in the bundle (%d asked for)" % (code, files, args.segments))
    if growth is not None:
        print("heap growth over the second half: %+.1f KiB per 1,000 segments (%d to %d segments: %.2f to %.2f MiB)"
              % (growth, later[0][0], later[-1][0], later[0][1] / 1024, later[-1][1] / 1024))
    print("peak RSS %.1f MiB" % (max(sample[2] for sample in samples) / 1024 if samples else 0))
    if not args.keep:
        shutil.rmtree(folder, ignore_errors=True)
    if code != 0 or files != args.segments:
        sys.exit("the recording did not complete whole")


if __name__ == "__main__":
    main()
