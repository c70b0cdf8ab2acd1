#!/usr/bin/env bash
# The MPD reading benchmark: DASHBenchmark (release build) reads a generated 2.1 MB MPD with a
# 10,000-entry SegmentTimeline and a 10,000-entry SegmentList, and works out every segment.
#
#     Benchmarks/dash.sh [--runs N]
#
# Target (issue 12): MPD.read under 20 ms (median). A missed target prints MISSED.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product DASHBenchmark 2>&1 | grep -E "error|Compiling|Build complete" || true
.build/release/DASHBenchmark "$@"
