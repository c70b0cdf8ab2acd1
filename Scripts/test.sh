#!/usr/bin/env bash
# The whole test suite, as CI runs it:
#   1. `swift test`: every test, against the debug build;
#   2. the index-level suites again, on PostgreSQL (CARRYON_TEST_INDEX=postgres);
#   3. the release binary (`swift build -c release --static-swift-stdlib`, what users install),
#      and every command-level end-to-end suite again against it (CARRYON_BINARY points the
#      tests at it). The optimizer exposes faults the debug build hides: a task group's results
#      corrupted in -O only crashed `carryon inspect --sizes` for users while every debug test
#      passed.
# A command-level suite is a file in Tests/EndToEndTests that runs the binary (runCarryon,
# RunningProcess(carryon:), carryonBinary or requireCarryonBinary()); the file and its suite share a name.
# Heavy tests — those that start programs: real players, Chromium, the `carryon` binary, DocC,
# schemathesis — run CARRYON_TEST_HEAVY_SLOTS at once (by default twice the cores), each
# holding its turn to its end; pure tests run in parallel beside them (HeavyWork.swift in
# Tests/CarryonTestSupport). Each run of the tests ends with a line saying how many heavy tests
# ran, and at most how many at once.
set -euo pipefail
cd "$(dirname "$0")/.."

export CARRYON_TEST_HEAVY_SLOTS="${CARRYON_TEST_HEAVY_SLOTS:-$((2 * $(nproc)))}"
echo "test.sh: heavy tests run $CARRYON_TEST_HEAVY_SLOTS at once (CARRYON_TEST_HEAVY_SLOTS; $(nproc) cores)"
swift test

# The index-level suites again on PostgreSQL, the fleet's shared index: every suite in
# Tests/CarryonTests that opens a library through OfflineLibrary(testingAt:) (TestIndex.swift),
# on a PostgreSQL cluster the test process starts, a database per library.
index_suites=$(grep -l 'OfflineLibrary(testingAt' Tests/CarryonTests/*.swift | xargs grep -hoE '^(struct|final class) [A-Za-z0-9_]+' \
    | awk '{print $NF}' | sort -u | paste -sd '|')
echo "test.sh: the index-level suites on PostgreSQL (CARRYON_TEST_INDEX=postgres): $index_suites"
CARRYON_TEST_INDEX=postgres swift test --skip-build --filter "CarryonTests\.($index_suites)\b"

echo "test.sh: building the release binary"
swift build -c release --product carryon --static-swift-stdlib
suites=$(grep -lE 'runCarryon|RunningProcess\(carryon|[cC]arryonBinary' Tests/EndToEndTests/*.swift \
    | xargs -n1 basename | sed 's/\.swift$//' | paste -sd '|')
echo "test.sh: the command-level suites against .build/release/carryon: $suites"
CARRYON_BINARY="$PWD/.build/release/carryon" swift test --skip-build --filter "EndToEndTests\.($suites)\\b"
