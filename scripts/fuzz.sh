#!/usr/bin/env bash
# Fuzzes everything that reads untrusted bytes (docs/fuzzing.md).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]     default: 60 s for each target, all targets
#
# Builds `reception-fuzz` in release with libFuzzer (-sanitize=fuzzer) in .build-fuzz, so the
# normal .build is untouched, then runs each target for SECONDS with a seed corpus made from
# the repository's own fixtures (plus /work/shared/corpora and /work/shared/real-souls when
# present, read in place and never committed). An input slower than 1 s is a hang, more
# than 2 GB resident is a leak; either, or a crash, fails the run and leaves the input in
# .build-fuzz/artifacts/. Where -sanitize=fuzzer does not build, the same targets run under
# the seeded random harness instead (no coverage feedback), and the script says so.
#
# Environment: FUZZ_FLAGS adds libFuzzer options (e.g. "-jobs=2" or "-dict=FILE").
set -uo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
shift || true
scratch=.build-fuzz
work="$scratch/work"
mkdir -p "$work" "$scratch/artifacts"

# The lld linker: gold (the default here) fails on libFuzzer's objects with an internal error.
toolchain_bin="$(dirname "$(readlink -f "$(command -v swiftc)")")"
toolset="$work/toolset.json"
if [[ -x "$toolchain_bin/ld.lld" ]]; then
    printf '{ "schemaVersion": "1.0", "linker": { "path": "%s" } }\n' "$toolchain_bin/ld.lld" > "$toolset"
    toolset_flag=(--toolset "$PWD/$toolset")
else
    toolset_flag=()
fi

mode=libfuzzer
echo "== building reception-fuzz with libFuzzer (release, $scratch)"
if ! swift build -c release --product reception-fuzz --scratch-path "$scratch" "${toolset_flag[@]}" \
        -Xswiftc -sanitize=fuzzer -Xswiftc -DRECEPTION_LIBFUZZER > "$work/build.log" 2>&1; then
    tail -20 "$work/build.log"
    echo "== -sanitize=fuzzer does not build here: falling back to the seeded random harness"
    mode=random
    scratch=.build-fuzz-plain
    swift build -c release --product reception-fuzz --scratch-path "$scratch" || exit 1
fi
binary="$scratch/release/reception-fuzz"

if [[ $# -gt 0 ]]; then targets=("$@"); else mapfile -t targets < <("$binary" --list | cut -f1); fi

# Seeds: committed hand-made inputs (Tests/FuzzSeeds/TARGET) plus the repository's fixtures,
# each with the leading selector bytes the target reads first (Sources/reception-fuzz/Targets.swift).
seeds="$work/seeds"
rm -rf "$seeds"
mkdir -p "$seeds"
for target in "${targets[@]}"; do mkdir -p "$seeds/$target"; cp Tests/FuzzSeeds/"$target"/* "$seeds/$target/" 2>/dev/null; done
souls=(Souls/*.md Tests/ReceptionSoulTests/Fixtures/*.md)
if [[ -d /work/shared/real-souls ]]; then
    while IFS= read -r -d '' file; do souls+=("$file"); done < <(find /work/shared/real-souls -name '*.md' -size -64k -print0 | head -z -n 200)
fi
n=0
for file in "${souls[@]}"; do
    n=$((n + 1))
    [[ -d "$seeds/soul" ]] && cp "$file" "$seeds/soul/soul-$n.md"
    [[ -d "$seeds/prose" ]] && { printf '\x00'; sed -n '/^---$/,/^---$/!p' "$file" | head -c 4000; } > "$seeds/prose/soul-body-$n"
done
corpora=(Tests/Corpora/dev.jsonl Tests/Corpora/source/*.jsonl)
if [[ -d /work/shared/corpora ]]; then
    while IFS= read -r -d '' file; do corpora+=("$file"); done < <(find /work/shared/corpora -name '*.jsonl' -print0 | head -z -n 20)
fi
n=0
for file in "${corpora[@]}"; do
    n=$((n + 1))
    [[ -d "$seeds/corpus" ]] && { printf '\x00'; head -n 12 "$file"; } > "$seeds/corpus/jsonl-$n"
    if [[ -d "$seeds/intent" ]]; then
        head -n 30 "$file" | sed -n 's/.*"text": *"\([^"]*\)".*/\1/p' | head -n 10 | while IFS= read -r line; do
            n=$((n + 1)); printf '\x00\x00%s' "$line" > "$seeds/intent/text-$n-$RANDOM"
        done
    fi
done

echo "== $mode fuzzing, ${seconds} s per target: ${targets[*]}"
failures=0
summary="$work/summary.txt"
: > "$summary"
run_target() {
    local target="$1" log="$work/$1.log" corpus="$scratch/corpus/$1"
    mkdir -p "$corpus"
    # SWIFT_BACKTRACE=enable=no: Swift's own crash reporter would otherwise take the signal
    # before libFuzzer writes the crashing input.
    SWIFT_BACKTRACE=enable=no "$binary" "$target" -max_total_time="$seconds" -timeout=1 -rss_limit_mb=2048 \
        -max_len=16384 -print_final_stats=1 -artifact_prefix="$scratch/artifacts/$target-" ${FUZZ_FLAGS:-} \
        "$corpus" "$seeds/$target" > "$log" 2>&1
    local status=$?
    if [[ $mode == libfuzzer ]]; then
        local runs execs cov slowest rss
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
        execs=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
        cov=$(grep -E '^#[0-9]+' "$log" | tail -1 | sed -n 's/.*cov: \([0-9]*\) ft: \([0-9]*\) corp: \([0-9]*\).*/cov \1, ft \2, corpus \3/p')
        slowest=$(sed -n 's/^stat::slowest_unit_time_sec: *//p' "$log" | tail -1)
        rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
        printf '%-14s %s  runs %s, %s exec/s, %s, slowest %s s, peak %s MB\n' "$target" "$([[ $status == 0 ]] && echo ok || echo FAILED)" \
            "${runs:-?}" "${execs:-?}" "${cov:-?}" "${slowest:-?}" "${rss:-?}"
    else
        printf '%-14s %s  %s\n' "$target" "$([[ $status == 0 ]] && echo ok || echo FAILED)" "$(tail -1 "$log")"
    fi >> "$summary"
    if [[ $status != 0 ]]; then
        echo "-- $target failed (exit $status); log: $log"
        grep -E 'ERROR|Fatal error|fuzz property|Test unit written|SUMMARY|SLOW|timeout' "$log" | head -8
    fi
    return $status
}
for target in "${targets[@]}"; do
    echo "-- $target"
    run_target "$target" || failures=$((failures + 1))
done
echo "== results ($mode, ${seconds} s each; logs in $work, new inputs kept in $scratch/corpus)"
cat "$summary"
[[ $failures == 0 ]] || { echo "$failures target(s) failed; crashing inputs in $scratch/artifacts"; exit 1; }
