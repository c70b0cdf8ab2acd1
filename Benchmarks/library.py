#!/usr/bin/env python3
"""The library benchmark (issue 39): how listing, showing, the API, purge planning and the
daemon's start grow with the number of assets in a library.

    python3 Benchmarks/library.py --carryon .build/release/carryon [--sizes 1000 10000] [--runs 3] [--keep DIR]

One real asset is downloaded with `carryon download` from a generated one-segment HLS stream;
the library is then grown to each size by copying that asset's rows in the index (new ids and
names, the same renditions and resources) and hard-linking its bundle: a library as 10,000
downloads would leave it, made in seconds. The copies go through the index's own tables, so a
schema this script does not know stops it with the table and column named.

For each size it times (median of --runs; peak RSS the largest): the first `list` after the
library grew (every copy's figures computed and kept, once), `list`, `list --json`,
`show ID`, `purge --dry-run`, `storage`, `serve` until it answers (its OpenAPI document), and the
API's `GET /api/assets` (whole), with `?limit=100` (its first page) and a filtered page over
one connection, the web app's first page in Chromium (Tests/Browser/library.py, Playwright: from
navigation to the library's first row; skipped with a note when Playwright or Chromium is
missing), and prints the per-asset cost between the smallest and the largest size. The issue's targets at 10,000 assets
are checked and a missed one prints MISSED; the exit status is non-zero only on errors.
"""
import argparse
import http.client
import json
import os
import random
import shutil
import sqlite3
import statistics
import string
import subprocess
import sys
import tempfile
import time
import urllib.parse

# Issue 39's targets at 10,000 assets, in milliseconds.
TARGETS = {"list": 150, "list --json": 200, "show": 50, "api first page": 50, "web app first page": 1000, "purge --dry-run": 300,
           "serve ready": 1000}
ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"
# The longest an API request is waited for (the asset list grew to minutes at 10,000 assets).
TIMEOUT = 300


def run(command, **kwargs):
    return subprocess.run(command, check=True, capture_output=True, text=True, **kwargs)


def timed(command):
    """Wall milliseconds and peak RSS (KiB) of one run of `command`, its output to /dev/null
    (as hyperfine times commands: what a reader of the output does with it is not counted)."""
    start = time.perf_counter()
    result = subprocess.run(["/usr/bin/time", "-f", "%M", *command], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = (time.perf_counter() - start) * 1000
    if result.returncode != 0:
        sys.exit(f"library.py: {' '.join(command)} failed ({result.returncode}): {result.stderr[-2000:]}")
    return elapsed, int(result.stderr.strip().splitlines()[-1])


def make_stream(folder):
    """A 2-second HLS stream of one segment, made with ffmpeg."""
    os.makedirs(folder, exist_ok=True)
    playlist = os.path.join(folder, "index.m3u8")
    if not os.path.exists(playlist):
        if shutil.which("ffmpeg") is None:
            sys.exit("library.py: ffmpeg is needed to make the test stream (apt-get install ffmpeg)")
        run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y",
             "-f", "lavfi", "-i", "testsrc=size=320x180:rate=25", "-f", "lavfi", "-i", "sine=frequency=440",
             "-t", "2", "-c:v", "libx264", "-g", "50", "-c:a", "aac", "-b:a", "64k",
             "-f", "hls", "-hls_time", "4", "-hls_playlist_type", "vod", playlist])
    return playlist


def new_id(taken):
    while True:
        candidate = "".join(random.choice(ALPHABET) for _ in range(10))
        if candidate not in taken:
            taken.add(candidate)
            return candidate


def grow(library, template, count):
    """Copies asset `template` until the library holds `count` assets."""
    index = sqlite3.connect(os.path.join(library, "index.sqlite"))
    tables = {row[0] for row in index.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    for table in ("asset", "rendition", "resource"):
        if table not in tables:
            sys.exit(f"library.py: the index has no table {table}: the schema changed; update grow()")

    def columns(table):
        return [row[1] for row in index.execute(f"PRAGMA table_info({table})")]

    asset_columns, rendition_columns = columns("asset"), columns("rendition")
    resource_columns = [c for c in columns("resource") if c != "id"]
    for table, needed in (("asset", ["id", "name"]), ("rendition", ["assetId"]), ("resource", ["assetId"])):
        missing = [c for c in needed if c not in columns(table)]
        if missing:
            sys.exit(f"library.py: the index's table {table} has no column {missing[0]}: update grow()")
    taken = {row[0] for row in index.execute("SELECT id FROM asset")}
    have = len(taken)
    if have >= count:
        return
    bundles = os.path.join(library, "bundles")
    source = os.path.join(bundles, template)
    logs = os.path.join(library, "logs", template)

    def select(table, cols, replace):
        return ", ".join(replace.get(c, c) for c in cols)

    with index:
        for number in range(have, count):
            asset = new_id(taken)
            quoted = f"'{asset}'"
            index.execute(
                f"INSERT INTO asset ({', '.join(asset_columns)}) SELECT "
                f"{select('asset', asset_columns, {'id': quoted, 'name': repr(f'asset {number:05d}')})} "
                f"FROM asset WHERE id = ?", (template,))
            index.execute(
                f"INSERT INTO rendition ({', '.join(rendition_columns)}) SELECT "
                f"{select('rendition', rendition_columns, {'assetId': quoted})} FROM rendition WHERE assetId = ?", (template,))
            index.execute(
                f"INSERT INTO resource ({', '.join(resource_columns)}) SELECT "
                f"{select('resource', resource_columns, {'assetId': quoted})} FROM resource WHERE assetId = ?", (template,))
            # The bundle's files and logs hard-linked: sizes and file counts as a copy's, no
            # bytes written.
            target = os.path.join(bundles, asset)
            shutil.copytree(source, target, copy_function=os.link)
            if os.path.isdir(logs):
                shutil.copytree(logs, os.path.join(library, "logs", asset), copy_function=os.link)
            manifest = os.path.join(target, "manifest.json")
            if os.path.exists(manifest):
                # Its own manifest (the id is in it): a copy, not a link.
                with open(manifest) as handle:
                    text = handle.read().replace(template, asset)
                os.unlink(manifest)
                with open(manifest, "w") as handle:
                    handle.write(text)
        if "figuresOf" in asset_columns:
            # No copy inherits the template's listing figures: the first listing computes them,
            # as it does for a library an earlier release wrote.
            index.execute("UPDATE asset SET figuresOf = NULL")
    index.close()


def serve_ready(carryon, library):
    """Milliseconds until `serve` answers (GET /api/openapi.json, a document in the binary),
    its base URL, an open connection to it, and the process."""
    start = time.perf_counter()
    process = subprocess.Popen([carryon, "serve", "--library", library, "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    base = process.stdout.readline().strip()
    if not base.startswith("http"):
        process.kill()
        sys.exit(f"library.py: serve printed no base URL: {base!r} {process.stderr.read()[-2000:]}")
    url = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=TIMEOUT)
    connection.request("GET", url.path.rstrip("/") + "/api/openapi.json")
    response = connection.getresponse()
    response.read()
    elapsed = (time.perf_counter() - start) * 1000
    if response.status != 200:
        process.kill()
        sys.exit(f"library.py: GET /api/openapi.json answered {response.status}")
    return elapsed, base, connection, process


def api_get(connection, path):
    """Wall milliseconds and body size of one GET; infinity when it takes over the timeout."""
    start = time.perf_counter()
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        body = response.read()
    except TimeoutError:
        return float("inf"), 0
    elapsed = (time.perf_counter() - start) * 1000
    if response.status != 200:
        sys.exit(f"library.py: GET {path} answered {response.status}: {body[:300]!r}")
    return elapsed, len(body)


def stop(process):
    """Stops a daemon this script started, whatever went wrong: none is left serving the library."""
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def peak_rss(pid):
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def measure(carryon, library, runs, some_id):
    rows = {}

    def record(name, samples):
        rows[name] = (statistics.median(s[0] for s in samples), max(s[1] for s in samples), samples[0][2] if len(samples[0]) > 2 else None)
        ms, rss, extra = rows[name]
        print(f"   {name:16} {ms:9.1f} ms  peak RSS {rss / 1024:6.1f} MiB" + (f"  {extra:,} bytes" if extra else ""), flush=True)

    # Once: every asset's figures computed and kept (a library grown, or written by an earlier release).
    record("list, first", [timed([carryon, "list", "--library", library])])
    record("list", [timed([carryon, "list", "--library", library]) for _ in range(runs)])
    record("list --json", [timed([carryon, "list", "--json", "--library", library]) for _ in range(runs)])
    record("show", [timed([carryon, "show", some_id, "--library", library]) for _ in range(runs)])
    record("purge --dry-run", [timed([carryon, "purge", "--dry-run", "--library", library]) for _ in range(runs)])
    record("storage", [timed([carryon, "storage", "--library", library]) for _ in range(runs)])
    ready, whole, page, filtered = [], [], [], []
    for _ in range(runs):
        elapsed, base, connection, process = serve_ready(carryon, library)
        try:
            path = urllib.parse.urlsplit(base).path.rstrip("/") + "/api/assets"
            whole_ms, whole_bytes = api_get(connection, path)
            page_ms, page_bytes = api_get(connection, path + "?limit=100")
            filter_ms, filter_bytes = api_get(connection, path + "?limit=100&state=completed&q=asset%200&order=name")
            rss = peak_rss(process.pid)
            ready.append((elapsed, rss))
            whole.append((whole_ms, rss, whole_bytes))
            page.append((page_ms, rss, page_bytes))
            filtered.append((filter_ms, rss, filter_bytes))
        finally:
            stop(process)
    # The web app's first page in Chromium (Playwright), from navigation to the library's first row.
    paints = []
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Browser", "library.py")
    for _ in range(runs):
        _, base, connection, process = serve_ready(carryon, library)
        try:
            shown = subprocess.run([sys.executable, script, base], capture_output=True, text=True, timeout=300)
            if shown.returncode != 0:
                print(f"   web app first page: not measured ({shown.stderr.strip()[:300]})", flush=True)
                break
            paints.append((json.loads(shown.stdout)["firstPaintMs"], peak_rss(process.pid)))
        finally:
            stop(process)
    if paints:
        record("web app first page", paints)
    record("serve ready", ready)
    record("api whole list", whole)
    record("api first page", page)
    record("api filter", filtered)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--carryon", required=True)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep")
    parser.add_argument("--media", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".build", "bench-media", "one-segment"))
    args = parser.parse_args()
    carryon = os.path.abspath(args.carryon)
    work = os.path.abspath(args.keep) if args.keep else tempfile.mkdtemp(prefix="carryon-libbench.")
    os.makedirs(work, exist_ok=True)
    try:
        stream = make_stream(os.path.abspath(args.media))
        library = os.path.join(work, "library")
        shutil.rmtree(library, ignore_errors=True)
        downloaded = run([carryon, "download", stream, "--library", library, "--name", "template"])
        template = downloaded.stdout.strip().splitlines()[-1]
        print(f"== template asset {template} ({stream})", flush=True)
        results = {}
        for size in sorted(args.sizes):
            start = time.perf_counter()
            grow(library, template, size)
            print(f"== {size} assets (grown in {time.perf_counter() - start:.1f} s)", flush=True)
            rows = measure(carryon, library, args.runs, template)
            results[size] = rows
        print("== results")
        sizes = sorted(results)
        header = "  ".join(f"{size:>10,}" for size in sizes)
        print(f"  {'':16}  {header}  per asset (ms)")
        for name in results[sizes[0]]:
            cells = "  ".join(f"{results[size][name][0]:8.1f}ms" for size in sizes)
            slope = ""
            if len(sizes) > 1:
                low, high = sizes[0], sizes[-1]
                slope = f"{(results[high][name][0] - results[low][name][0]) / (high - low):.4f}"
            print(f"  {name:16}  {cells}  {slope}")
        largest = sizes[-1]
        if largest >= 10000:
            met = 0
            for name, target in TARGETS.items():
                ms = results[largest][name][0]
                verdict = "PASS  " if ms <= target else "MISSED"
                met += ms <= target
                print(f"{verdict} {name} at {largest:,} assets: {ms:.1f} ms, target <= {target} ms")
            print(f"{met} of {len(TARGETS)} targets met")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
