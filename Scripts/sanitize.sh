#!/usr/bin/env bash
# Runs the whole test suite under ThreadSanitizer, then under AddressSanitizer, and fails on any
# report — a data race, a use of freed or out-of-bounds memory — or a test that fails. (Leak
# checking is off, detect_leaks=0: this run is about memory errors, not about memory kept until
# exit.)
#
#   Scripts/sanitize.sh            # both, thread first
#   Scripts/sanitize.sh thread     # one of them
#   Scripts/sanitize.sh address
#
# Each sanitizer builds into a scratch folder of its own (.build/sanitize-thread,
# .build/sanitize-address), so the ordinary debug build is left alone and a second run only
# rebuilds what changed. On 2 cores a clean build takes 6-8 minutes per sanitizer and the suite
# 4-7 minutes after it (see README for the measured figures).
#
# Suppressions live in Scripts/sanitizers/<name>.supp, one narrow entry per false positive of a
# dependency with a comment saying why; an entry for our own code is a bug to fix instead.
set -euo pipefail
cd "$(dirname "$0")/.."

sanitizers=("$@")
[ ${#sanitizers[@]} -gt 0 ] || sanitizers=(thread address)

status=0
for sanitizer in "${sanitizers[@]}"; do
    case "$sanitizer" in
        thread|address) ;;
        *) echo "sanitize.sh: unknown sanitizer '$sanitizer' (thread or address)" >&2; exit 64 ;;
    esac
    scratch=".build/sanitize-$sanitizer"
    log="$scratch/test.log"
    mkdir -p "$scratch"
    suppressions="$PWD/Scripts/sanitizers/$sanitizer.supp"
    # halt_on_error=0 lets one run show every report; the grep below fails the run on any.
    # The children the tests start (the carryon binary) are built with the same sanitizer and
    # inherit these options; their reports go to the same log through log_path.
    export TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1 suppressions=$suppressions log_path=$PWD/$scratch/report"
    export ASAN_OPTIONS="halt_on_error=0 detect_leaks=0 log_path=$PWD/$scratch/report"
    rm -f "$scratch"/report.*
    started=$(date +%s)
    echo "sanitize.sh: swift test --sanitize=$sanitizer (scratch $scratch)"
    set +e
    swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch" >"$scratch/build.log" 2>&1
    built=$?
    if [ "$built" -ne 0 ]; then grep -E "error:" "$scratch/build.log" | head -n 20 >&2; fi
    tail -n 1 "$scratch/build.log"
    run=1
    if [ "$built" -eq 0 ]; then
        # The command tests run the carryon binary built beside them, with the same sanitizer.
        # One test at a time: instrumented code runs several times slower, and in parallel on 2
        # cores the tests' own time limits (60-180 s) ran out (6 of 598 under ASan), hiding
        # whether anything else was wrong.
        CARRYON_BINARY="$PWD/$scratch/debug/carryon" \
            swift test --skip-build --no-parallel --sanitize="$sanitizer" --scratch-path "$scratch" >"$log" 2>&1
        run=$?
    fi
    set -e
    elapsed=$(( $(date +%s) - started ))
    reports=$(cat "$scratch"/report.* 2>/dev/null | grep -cE "^(WARNING: ThreadSanitizer|==[0-9]+==ERROR: AddressSanitizer)" || true)
    tail -n 2 "$log" 2>/dev/null || true
    echo "sanitize.sh: $sanitizer: build exit $built, tests exit $run, $reports report(s), ${elapsed}s"
    if [ "$reports" -gt 0 ]; then
        echo "sanitize.sh: the reports are in $scratch/report.*; the first:" >&2
        cat "$scratch"/report.* | sed -n '1,60p' >&2
    fi
    if [ "$built" -ne 0 ] || [ "$run" -ne 0 ] || [ "$reports" -gt 0 ]; then status=1; fi
done
exit $status
