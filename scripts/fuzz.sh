#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/ and runs each for the given seconds (default 60), one after
# another; prints per target exec/s, coverage and crashes. Usage: scripts/fuzz.sh [seconds] [target...]
# A crash stops its target and is kept in Fuzz/Crashes/<target>/, which the tests replay.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(json z2m-state z2m-devices z2m-groups topic mapping-file request import matter-tlv matter-message matter-certificate matter-interaction matter-bridge)

mkdir -p Fuzz/.work
# One product per target asked for, not the whole package: each executable is some 170 MB.
if ! (cd Fuzz && for target in "${targets[@]}"; do
        swift build -c debug -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library --product "fuzz-$target" || exit 1
    done) > Fuzz/.work/build.log 2>&1; then
    grep -E "error" Fuzz/.work/build.log | head -20 >&2
    echo "fuzz.sh: the fuzz targets did not build; the whole log is Fuzz/.work/build.log" >&2
    exit 1
fi
tail -1 Fuzz/.work/build.log

printf '%-13s %8s %7s %7s %8s %8s  %s\n' target exec/s cov ft corpus crashes log
for target in "${targets[@]}"; do
    work=Fuzz/.work/$target crashes=Fuzz/Crashes/$target log=Fuzz/.work/$target.log
    mkdir -p "$work" "$crashes"
    before=$(ls "$crashes" | wc -l)
    # New inputs go to the work folder; the seeds in Fuzz/Corpus are read, never written.
    status=0
    "Fuzz/.build/debug/fuzz-$target" "$work" "Fuzz/Corpus/$target" -max_total_time="$seconds" -print_final_stats=1 \
        -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$crashes/" >"$log" 2>&1 || status=$?
    last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1)
    cov=$(sed -nE 's/.*cov: ([0-9]+).*/\1/p' <<<"$last")
    ft=$(sed -nE 's/.*ft: ([0-9]+).*/\1/p' <<<"$last")
    corpus=$(sed -nE 's/.*corp: ([0-9]+)\/.*/\1/p' <<<"$last")
    rate=$(sed -nE 's/^stat::average_exec_per_sec: *([0-9]+)/\1/p' "$log")
    found=$(($(ls "$crashes" | wc -l) - before))
    printf '%-13s %8s %7s %7s %8s %8s  %s\n' "$target" "${rate:-?}" "${cov:-?}" "${ft:-?}" "${corpus:-?}" "$found" "$log"
    if [ "$status" -ne 0 ]; then
        grep -m1 -E 'ERROR: |Fatal error|SUMMARY' "$log" | sed 's/^/    /' || true
        grep -E '^artifact_prefix|Test unit written to' "$log" | sed 's/^/    /' || true
    fi
done
