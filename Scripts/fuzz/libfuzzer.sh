# Shared by Scripts/fuzz-hls.sh and Scripts/fuzz-dash.sh (sourced, not run): the options every
# fuzz script takes, the corpus folder, and running libFuzzer with the verdict printed.

# fuzz_options SCRIPT HELP_LINES ARGS...: sets seconds (default 600), seed (default 1) and keep
# from --seconds, --seed and --keep; --help prints lines 2..HELP_LINES of SCRIPT.
fuzz_options() {
    local script="$1" help_lines="$2"; shift 2
    seconds=600
    seed=1
    keep=""
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --seconds) seconds="${2:?--seconds needs a value}"; shift ;;
            --seed) seed="${2:?--seed needs a value}"; shift ;;
            --keep) keep="${2:?--keep needs a directory}"; shift ;;
            -h|--help) sed -n "2,${help_lines}p" "$script" | sed 's/^# \{0,1\}//'; exit 0 ;;
            *) echo "$(basename "$script"): unknown argument $1" >&2; exit 2 ;;
        esac
        shift
    done
}

# fuzz_corpus NAME: sets corpus to --keep's folder, or to a temporary one removed on exit.
fuzz_corpus() {
    if [[ -n "$keep" ]]; then
        corpus="$keep"
        mkdir -p "$corpus"
    else
        corpus="$(mktemp -d "${TMPDIR:-/tmp}/carryon-$1.XXXXXX")"
        trap 'rm -rf "$corpus"' EXIT
    fi
}

# fuzz_run NAME BINARY SEEDS DICT LOG TIMEOUT ARTIFACT_PREFIX: fuzzes for $seconds with $seed,
# then prints the verdict; exits 1 when libFuzzer found a crash, trap, hang or leak.
fuzz_run() {
    local name="$1" binary="$2" seeds="$3" dict="$4" log="$5" timeout="$6" prefix="$7"
    echo "$name: fuzzing for $seconds s with seed $seed"
    set +e
    "$binary" "$corpus" "$seeds" -seed="$seed" -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=2048 \
        -max_len=65536 -dict="$dict" -artifact_prefix="$prefix" -print_final_stats=1 2> "$log"
    local status=$?
    set -e
    tail -n 15 "$log"
    local runs
    runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo "?")
    if [[ $status -ne 0 ]]; then
        echo "$name: FAILED after $runs inputs (exit $status); the input is in $(dirname "$prefix")/ (see $log)" >&2
        exit 1
    fi
    echo "$name: no crash, trap, hang or leak in $runs inputs over $seconds s (seed $seed)"
}
