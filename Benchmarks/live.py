#!/usr/bin/env python3
"""Records a live HLS stream ffmpeg makes in real time for --minutes (30 by default) and samples
the recording process's memory each minute: issue 34's target is a peak RSS within the VOD
download's (48 MiB) that does not grow with the recording's length.

    Benchmarks/live.py --carryon .build/release/carryon [--minutes 30] [--sample 60] [--keep DIR]

ffmpeg encodes a 640x360 test pattern and a tone (`-re`, 2 s segments, a window of 10) into a
folder that Python's static server serves on 127.0.0.1; `carryon download URL --duration M`
records it into a fresh library. Each sample reads the process's VmRSS, VmHWM and RssAnon (its heap) from
/proc/PID/status. The report gives every sample, the peak, the growth from the second minute to
the last (the first minute includes start-up), and the verdicts; the recording is then checked:
complete, every segment in one run, and ffprobe's count of its frames.
"""
import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def memory(pid):
    """VmRSS, VmHWM and RssAnon of `pid` in KiB, or None once it has ended. RssAnon is the heap
    and stacks; the rest of VmRSS is mostly the binary's pages (about 35 MiB of a static
    release build), which the recording's length does not change."""
    try:
        with open("/proc/%d/status" % pid) as status:
            fields = dict(line.split(":", 1) for line in status if ":" in line)
    except FileNotFoundError:
        return None
    if "VmRSS" not in fields:
        return None  # ended, not reaped yet
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0]), int(fields["RssAnon"].split()[0])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--carryon", required=True, help="the carryon binary (a release build)")
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--sample", type=float, default=60, help="seconds between samples")
    parser.add_argument("--keep", help="a folder to keep the stream and the library in")
    args = parser.parse_args()

    folder = args.keep or tempfile.mkdtemp(prefix="carryon-live-bench-")
    origin = os.path.join(folder, "origin")
    library = os.path.join(folder, "library")
    shutil.rmtree(origin, ignore_errors=True)
    shutil.rmtree(library, ignore_errors=True)
    os.makedirs(origin)
    seconds = int(args.minutes * 60)
    ffmpeg = subprocess.Popen([
        "ffmpeg", "-hide_banner", "-loglevel", "error", "-re",
        "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
        "-t", str(seconds + 60), "-c:v", "libx264", "-preset", "ultrafast", "-g", "50", "-keyint_min", "50",
        "-sc_threshold", "0", "-b:v", "1M", "-c:a", "aac", "-b:a", "96k",
        "-f", "hls", "-hls_time", "2", "-hls_list_size", "10", "-hls_flags", "temp_file+program_date_time+delete_segments",
        os.path.join(origin, "live.m3u8")])
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", origin],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 60
        while not os.path.exists(os.path.join(origin, "live.m3u8")) and time.time() < deadline:
            time.sleep(0.2)
        time.sleep(8)
        url = "http://127.0.0.1:%d/live.m3u8" % port
        command = [args.carryon, "download", url, "--library", library, "--duration", "%d" % seconds, "--json"]
        print("recording %s for %g minutes: %s" % (url, args.minutes, " ".join(command)), flush=True)
        started = time.time()
        # Its output to files, read at the end: a pipe nobody reads would fill and hold it up.
        output = open(os.path.join(folder, "events.jsonl"), "w+")
        errors = open(os.path.join(folder, "stderr.txt"), "w+")
        recorder = subprocess.Popen(command, stdout=output, stderr=errors, text=True)
        samples = []
        while recorder.poll() is None:
            time.sleep(args.sample)
            sample = memory(recorder.pid)
            if sample is None:
                break
            minute = (time.time() - started) / 60
            samples.append((minute, sample[0], sample[1], sample[2]))
            print("  %5.1f min  RSS %6.1f MiB  peak %6.1f MiB  anonymous %5.1f MiB"
                  % (minute, sample[0] / 1024, sample[1] / 1024, sample[2] / 1024), flush=True)
        recorder.wait()
        wall = time.time() - started
        output.seek(0)
        errors.seek(0)
        out, err = output.read(), errors.read()
    finally:
        ffmpeg.send_signal(signal.SIGKILL)
        server.send_signal(signal.SIGKILL)
        ffmpeg.wait()
        server.wait()

    status = recorder.returncode
    done = [json.loads(line) for line in out.splitlines() if line.startswith("{") and '"done"' in line]
    asset = done[-1] if done else {}
    print("\nrecorded in %.0f s, exit %d, state %s" % (wall, status, asset.get("state")))
    if status != 0:
        print(err[-2000:])
    peak = max(sample[2] for sample in samples) / 1024 if samples else float("nan")
    later = [(minute, rss, anonymous) for minute, rss, _, anonymous in samples if minute >= 2]
    growth = (later[-1][1] - later[0][1]) / 1024 if len(later) >= 2 else 0.0
    anonymous = (later[-1][2] - later[0][2]) / 1024 if len(later) >= 2 else 0.0
    span = later[-1][0] - later[0][0] if len(later) >= 2 else 0.0
    rate = growth / span if span > 0 else 0.0
    frames = None
    playlist = asset.get("playlist")
    if playlist:
        probe = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                "stream=nb_read_frames", "-of", "csv=p=0", playlist], capture_output=True, text=True)
        frames = int(probe.stdout.split()[0]) if probe.returncode == 0 and probe.stdout.split() else None
        with open(os.path.join(os.path.dirname(playlist), "media", "index.m3u8")) as local:
            text = local.read()
        print("local playlist: %d segments, %d gaps, %s" % (text.count("#EXTINF"), text.count("#EXT-X-GAP"),
                                                             "ends with EXT-X-ENDLIST" if text.rstrip().endswith("#EXT-X-ENDLIST") else "NOT ENDED"))
    print("frames ffprobe decodes: %s (the stream makes %d)" % (frames, seconds * 25))
    print("peak RSS %.1f MiB; RSS from minute 2 to the last: %+.1f MiB (anonymous memory %+.1f MiB)" % (peak, growth, anonymous))
    verdicts = [(peak <= 48, "peak RSS %.1f MiB, target <= 48 MiB" % peak),
                (growth <= 1, "RSS grew %+.1f MiB from minute 2 to the end (%+.2f MiB a minute), target: no growth with length (within 1 MiB)"
                 % (growth, rate)),
                (status == 0 and asset.get("state") == "completed", "the recording completed")]
    for ok, text in verdicts:
        print("%s %s" % ("MET " if ok else "MISS", text))
    if not args.keep:
        shutil.rmtree(folder, ignore_errors=True)
    return 0 if all(ok for ok, _ in verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
