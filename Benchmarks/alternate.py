#!/usr/bin/env python3
"""Times two builds of carryon side by side, in turn, on one library.

    Benchmarks/alternate.py --library DIR [--runs 15] BEFORE AFTER -- list --json

Runs `BEFORE args --library DIR` and `AFTER args --library DIR` alternately (output to
/dev/null) and prints each one's median and fastest wall time. On a machine whose speed drifts
from minute to minute (a shared VM), two builds compared in turn see the same drift; two
benchmark runs minutes apart do not.
"""
import argparse
import statistics
import subprocess
import sys
import time


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--library", required=True)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("arguments", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    arguments = [a for a in options.arguments if a != "--"]
    if not arguments:
        sys.exit("alternate.py: give the command's arguments after --, e.g. -- list --json")
    times = {"before": [], "after": []}
    for _ in range(options.runs):
        for name, binary in (("before", options.before), ("after", options.after)):
            start = time.perf_counter()
            result = subprocess.run([binary, *arguments, "--library", options.library],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if result.returncode != 0:
                sys.exit(f"alternate.py: {binary} {' '.join(arguments)} failed ({result.returncode}): {result.stderr[-2000:]}")
            times[name].append((time.perf_counter() - start) * 1000)
    for name, values in times.items():
        print(f"{name:7} {' '.join(arguments)}: median {statistics.median(values):.1f} ms, fastest {min(values):.1f} ms ({options.runs} runs)")


if __name__ == "__main__":
    main()
