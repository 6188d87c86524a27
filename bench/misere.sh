#!/usr/bin/env bash
# Misère play of heap games (SPEC section 12), measured side by side in one
# run: `analyze --game kayles --rule misere` on the generated files of
# bench/compare.sh (1 GiB by default) against `cat FILE > /dev/null` and
# against `analyze --game kayles` (normal play), in the same hyperfine runs:
#
# - the ratio of cat's time to the whole run's (target ≥ 0.5), which
#   includes computing misère Kayles' quotient (a fixed cost, measured
#   alone by `grundy kayles --rule misere` and shown in its own column);
# - the pass alone: the report's `stats.seconds`, which starts once the
#   quotient is known, against cat's time;
# - peak RSS (`/usr/bin/time -v`; target ≤ 64 MiB beyond the quotient's
#   tables, which are a few KiB for Kayles).
#
# Writes the section between the misere markers of bench/RESULTS.md
# (bench/compare.sh keeps it).
#
# Usage: bench/misere.sh [SIZE]      SIZE defaults to 1GiB (e.g. 256MiB)
# Environment: RUNS (timed runs per command, default 5), BENCH_DIR picks
# where the generated files go (default: a new directory under /tmp).
set -euo pipefail

size=${1:-1GiB}
runs=${RUNS:-5}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
results="$repo/bench/RESULTS.md"
# shellcheck source=bench/sections.sh
. "$repo/bench/sections.sh"

for tool in hyperfine python3; do
    command -v "$tool" >/dev/null || { echo "error: $tool is needed (apt-get install $tool)" >&2; exit 1; }
done

echo "building the release binary" >&2
(cd "$repo" && cargo build --release --quiet)
bin="${CARGO_TARGET_DIR:-$repo/target}/release/nimstream"

work=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/nimstream-misere.XXXXXX")}
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT

peak_rss_kib() { # command words → peak RSS in KiB
    { /usr/bin/time -v "$@" >/dev/null; } 2>&1 | awk -F': ' '/Maximum resident set size/ { print $2 }'
}

# The quotient alone: misère Kayles' Q computed and its period proven.
json="$work/quotient.json"
hyperfine --style basic --warmup 1 --runs "$runs" --export-json "$json" \
    "$bin grundy kayles --rule misere --values 0 --json > /dev/null" >&2
quotient_s=$(median "$json" 0)

bytes=$(python3 -c '
import re, sys
m = re.fullmatch(r"(\d+)\s*(|k|kib|m|mib|g|gib)", sys.argv[1].strip().lower())
unit = {"": 1, "k": 1024, "kib": 1024, "m": 1 << 20, "mib": 1 << 20, "g": 1 << 30, "gib": 1 << 30}[m.group(2)]
print(int(m.group(1)) * unit)' "$size")
quarter_bits=$((bytes / 4))
cases=(
    "u64le|u64|--format u64le --size $bytes --bits 64"
    "bits-many|bits|--format bits --size $bytes --bits 1..4096"
    "bits-four|bits|--format bits --heaps 4 --bits $quarter_bits"
    "unary|unary|--format unary --size $bytes --bits 1..20"
    "hex|hex|--format hex --size $bytes --bits 1..4096"
    "dec-20|dec|--format dec --size $bytes --bits 64"
)
rows=()
for case in "${cases[@]}"; do
    IFS='|' read -r name ext gen_args <<<"$case"
    file="$work/$name.$ext"
    echo "== $name: generating $size" >&2
    # shellcheck disable=SC2086 # gen_args is a list of words
    "$bin" gen $gen_args -o "$file" 2>/dev/null
    at_rest "$file"
    json="$work/$name.json"
    hyperfine --style basic --warmup 1 --runs "$runs" --prepare "cat $file > /dev/null" \
        --export-json "$json" "cat $file > /dev/null" \
        "$bin analyze --game kayles --json $file > /dev/null" \
        "$bin analyze --game kayles --rule misere --json $file > /dev/null" >&2
    cat "$file" >/dev/null
    rss=$(peak_rss_kib "$bin" analyze --game kayles --rule misere --json "$file")
    # The pass alone, as the report measures it: the median of RUNS runs,
    # each report read once the run is over (a reader started beside it
    # would take a core from the pass's threads).
    passes=()
    for _ in $(seq "$runs"); do
        "$bin" analyze --game kayles --rule misere --json "$file" >"$work/pass.json"
        passes+=("$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["stats"]["seconds"])' "$work/pass.json")")
    done
    report=$("$bin" analyze --game kayles --rule misere --json "$file")
    rows+=("$(python3 - "$name" "$(stat -c %s "$file")" "$(median "$json" 0)" "$(median "$json" 1)" \
        "$(median "$json" 2)" "$rss" "$report" "${passes[*]}" <<'EOF'
import json, statistics, sys
name, size, cat_s, normal_s, misere_s, rss, report, passes = sys.argv[1:]
size, cat_s, normal_s, misere_s = int(size), float(cat_s), float(normal_s), float(misere_s)
pass_s = statistics.median(float(p) for p in passes.split())
report = json.loads(report)
rss_mib = int(rss) / 1024
winner = report["winner"]
print(f"| {name} | {size / 2**20:.0f} MiB | {cat_s * 1000:.0f} ms | {normal_s * 1000:.0f} ms | "
      f"{misere_s * 1000:.0f} ms | {cat_s / misere_s:.3f} | {pass_s * 1000:.0f} ms | "
      f"{cat_s / pass_s:.3f} | {rss_mib:.0f} MiB | {report['product']} ({winner}) |")
EOF
)")
    rm -f "$file"
done

section=$(
    echo "<!-- misere: begin (written by bench/misere.sh; bench/compare.sh keeps it) -->"
    echo "## Misère play of heap games (bench/misere.sh)"
    echo
    echo "Written by \`bench/misere.sh $size\` on $(date -u +%Y-%m-%d) (UTC), $runs runs"
    echo "per command after one warm-up, medians from hyperfine."
    echo
    echo "\`analyze --game kayles --rule misere --json FILE\` on the inputs of"
    echo "\`bench/compare.sh\`, in the same hyperfine runs as \`cat FILE > /dev/null\`"
    echo "and \`analyze --game kayles --json FILE\` (normal play). A misère run"
    echo "first computes misère Kayles' quotient and proves its period:"
    echo "$(python3 -c "print(f'{float(\"$quotient_s\") * 1000:.0f}')") ms on its own (\`grundy kayles --rule misere\`, median),"
    echo "a fixed cost in every run. *Pass* is the report's \`stats.seconds\`,"
    echo "which starts once the quotient is known (median of $runs runs); its"
    echo "ratio to cat is the pass's throughput against cat's. Targets: ≥ 0.5"
    echo "of cat's throughput, peak RSS ≤ 64 MiB beyond the quotient's tables."
    echo
    echo "| input | size | cat | analyze (normal) | analyze --rule misere | ratio to cat | pass | pass's ratio to cat | peak RSS | product (winner) |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
    echo
    echo "Machine: $(lscpu | awk -F': +' '/^Model name/ { print $2; exit }'), nproc $(nproc);"
    echo "nimstream $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)."
    echo "<!-- misere: end -->"
)
write_section "$results" misere "$section"
echo "wrote the misere section of $results" >&2
echo "$section"
