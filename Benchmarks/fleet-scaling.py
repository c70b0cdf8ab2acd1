#!/usr/bin/env python3
"""The fleet's scaling (issue 33): throughput with 1, 2 and 3 workers, and a queue of 1,000 assets
claimed with none run twice.

Run by Benchmarks/fleet-scaling.sh, which builds the release binary.

Throughput: `carryon origin --bandwidth KBPS` serves TITLES copies of the sample's 270p rendition
(three segments, 345 KB) and caps each connection, as a CDN edge caps a client's. For 1, 2 and 3
workers in turn, on a database and library of their own: the titles are enqueued, the workers
(`carryon worker --tasks 2`) start together, and the clock runs until psql finds every title
complete. Throughput is the bytes of the titles over that time; the speedup is against one worker.

Claims: QUEUE assets (one small title each) are enqueued and three workers (`--tasks 8`, no cap)
drain them. Every asset must be complete, claimed once (its epoch is 1: a second claim raises it),
and finished once in the workers' `--json` events.
"""
import argparse
import concurrent.futures
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

from pgcluster import Cluster


def run(command, **kwargs):
    return subprocess.run(command, check=True, capture_output=True, text=True, **kwargs)


class Origin:
    def __init__(self, carryon: str, folder: pathlib.Path, bandwidth: int | None):
        command = [carryon, "origin", str(folder)] + (["--bandwidth", str(bandwidth)] if bandwidth else [])
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.base = self.process.stdout.readline().strip()
        if not self.base.startswith("http://127.0.0.1:"):
            sys.exit(f"fleet-scaling: the origin did not start ({self.base!r})")

    def stop(self):
        self.process.terminate()
        self.process.wait()


def enqueue(carryon: str, urls: list[str], library: pathlib.Path, index: str) -> list[str]:
    def one(url):
        return run([carryon, "enqueue", url, "--library", str(library), "--index", index]).stdout.strip()
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        return list(pool.map(one, urls))


def start_workers(carryon: str, count: int, tasks: int, library: pathlib.Path, index: str, logs: pathlib.Path):
    workers = []
    for number in range(count):
        output = open(logs / f"worker{number}.jsonl", "w")
        workers.append((subprocess.Popen([carryon, "worker", "--name", f"w{number}", "--tasks", str(tasks), "--json",
                                          "--library", str(library), "--index", index],
                                         stdout=output, stderr=subprocess.DEVNULL), output))
    return workers


def stop_workers(workers):
    for process, _ in workers:
        process.terminate()
    for process, output in workers:
        if process.wait(timeout=60) != 0:
            sys.exit(f"fleet-scaling: a worker exited {process.returncode} on SIGTERM")
        output.close()


def wait_complete(cluster: Cluster, database: str, count: int, limit: float) -> float:
    start = time.perf_counter()
    while time.perf_counter() - start < limit:
        done = int(cluster.query(database, "SELECT count(*) FROM asset WHERE state = 'completed'").strip())
        if done == count:
            return time.perf_counter() - start
        time.sleep(0.2)
    sys.exit(f"fleet-scaling: {count} titles not complete within {limit:.0f} s")


def throughput(arguments, cluster: Cluster, work: pathlib.Path):
    media = work / "titles"
    for title in range(arguments.titles):
        shutil.copytree(arguments.media, media / f"t{title}")
    title_bytes = sum(path.stat().st_size for path in pathlib.Path(arguments.media).glob("*.ts"))
    origin = Origin(arguments.carryon, media, arguments.bandwidth)
    try:
        results = {}
        for workers in (1, 2, 3):
            index = cluster.database(tcp=True)
            database = cluster.name
            library = work / f"library-{workers}"
            enqueue(arguments.carryon, [f"{origin.base}/t{title}/index.m3u8" for title in range(arguments.titles)], library, index)
            logs = work / f"logs-{workers}"
            logs.mkdir()
            started = start_workers(arguments.carryon, workers, 2, library, index, logs)
            elapsed = wait_complete(cluster, database, arguments.titles, 600)
            stop_workers(started)
            results[workers] = elapsed
            shutil.rmtree(library, ignore_errors=True)
        print(f"{arguments.titles} titles of {title_bytes / 1e3:.0f} KB, each connection capped at {arguments.bandwidth} kbit/s; "
              f"workers with --tasks 2")
        print("| workers | time | throughput | speedup |")
        print("| --- | --- | --- | --- |")
        for workers, elapsed in results.items():
            rate = arguments.titles * title_bytes / elapsed
            print(f"| {workers} | {elapsed:.1f} s | {rate / 1e6 * 8:.2f} Mbit/s | {results[1] / elapsed:.2f}x |")
        return results[1] / results[3]
    finally:
        origin.stop()


def claims(arguments, cluster: Cluster, work: pathlib.Path):
    media = work / "small"
    media.mkdir()
    segment = sorted(pathlib.Path(arguments.media).glob("*.ts"))[0]
    shutil.copy(segment, media / "s0.ts")
    (media / "index.m3u8").write_text("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\ns0.ts\n#EXT-X-ENDLIST\n")
    origin = Origin(arguments.carryon, media, None)
    try:
        index = cluster.database(tcp=True)
        database = cluster.name
        library = work / "library-queue"
        start = time.perf_counter()
        ids = enqueue(arguments.carryon, [f"{origin.base}/index.m3u8"] * arguments.queue, library, index)
        queued = time.perf_counter() - start
        logs = work / "logs-queue"
        logs.mkdir()
        started = start_workers(arguments.carryon, 3, 8, library, index, logs)
        elapsed = wait_complete(cluster, database, arguments.queue, 1200)
        stop_workers(started)
        epochs = cluster.query(database, "SELECT epoch, count(*) FROM asset GROUP BY epoch ORDER BY epoch").split()
        finished = []
        for log in logs.glob("*.jsonl"):
            for line in log.read_text().splitlines():
                try:
                    event = json.loads(line)
                except ValueError:
                    continue
                if event.get("event") == "finished":
                    finished.append(event["id"])
        twice = len(finished) - len(set(finished))
        print(f"{arguments.queue} assets enqueued in {queued:.1f} s (4 at a time), drained by 3 workers (--tasks 8) in {elapsed:.1f} s")
        print(f"claims by epoch (epoch|assets): {', '.join(epochs)}; finished events: {len(finished)}, "
              f"distinct {len(set(finished))}, twice {twice}; every queued id finished: {set(finished) == set(ids)}")
        return epochs == [f"1|{arguments.queue}"] and twice == 0 and set(finished) == set(ids)
    finally:
        origin.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--carryon", required=True)
    parser.add_argument("--media", required=True)
    parser.add_argument("--titles", type=int, default=24)
    parser.add_argument("--bandwidth", type=int, default=400)
    parser.add_argument("--queue", type=int, default=1000)
    arguments = parser.parse_args()
    work = pathlib.Path(tempfile.mkdtemp(prefix="carryon-fleet-scaling-"))
    os.chmod(work, 0o755)
    cluster = None
    try:
        cluster = Cluster(work)
        speedup = throughput(arguments, cluster, work)
        print()
        once = claims(arguments, cluster, work)
        print()
        print(f"speedup at 3 workers: {speedup:.2f}x (target 2.5x): {'met' if speedup >= 2.5 else 'NOT met'}; "
              f"every queued asset claimed and finished once: {'yes' if once else 'NO'}")
        if speedup < 2.5 or not once:
            sys.exit(1)
    finally:
        if cluster:
            cluster.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
