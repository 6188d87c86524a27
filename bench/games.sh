#!/usr/bin/env bash
# Heap games beyond Nim (SPEC section 8), measured side by side in one run:
#
# 1. the value sequence: `nimstream grundy GAME` against `ogsolve GAME -m rc2
#    -n N` (a GPL Rust peer, installed with `cargo install ogsolve` when
#    missing; run, never copied), on octal:0.16 (preperiod 105,351, period
#    149,459: about 510,000 values) and the classic games;
# 2. `analyze --game kayles` on generated files (1 GiB by default; the
#    shapes of bench/compare.sh, long and short) against
#    `cat FILE > /dev/null` and `analyze` under Nim, from the same runs: the
#    ratio to cat (target ≥ 0.5) and peak RSS (target ≤ 64 MiB beyond the
#    value table).
#
# Writes the section between the games markers of bench/RESULTS.md
# (bench/compare.sh keeps it).
#
# Usage: bench/games.sh [SIZE]      SIZE defaults to 1GiB (e.g. 256MiB)
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
if ! command -v ogsolve >/dev/null; then
    echo "installing ogsolve (the peer) with cargo install" >&2
    cargo install --quiet ogsolve
fi

echo "building the release binary" >&2
(cd "$repo" && cargo build --release --quiet)
bin="${CARGO_TARGET_DIR:-$repo/target}/release/nimstream"

work=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/nimstream-games.XXXXXX")}
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT

peak_rss_kib() { # command words → peak RSS in KiB
    { /usr/bin/time -v "$@" >/dev/null; } 2>&1 | awk -F': ' '/Maximum resident set size/ { print $2 }'
}

# 1. Value sequences. game (nimstream) | code (ogsolve) | last heap
sequence_rows=()
for spec in "octal:0.16|0.16|520000" "kayles|0.77|1000" "dawsons-kayles|0.07|1000" \
    "octal:0.4|0.4|1000"; do
    IFS='|' read -r game code last <<<"$spec"
    echo "== grundy $game" >&2
    json="$work/grundy.json"
    hyperfine --style basic --warmup 1 --runs "$runs" --export-json "$json" \
        "$bin grundy $game --values 0 --json > /dev/null" \
        "ogsolve $code -m rc2 -n $last > /dev/null" >&2
    ours=$("$bin" grundy "$game" --values 0 --json)
    theirs=$(ogsolve "$code" -m rc2 -n "$last" | awk '/found period/ { print $5, $8 }')
    rss=$(peak_rss_kib "$bin" grundy "$game" --values 0)
    sequence_rows+=("$(python3 - "$game" "$code" "$last" "$(median "$json" 0)" "$(median "$json" 1)" "$ours" "$theirs" "$rss" <<'EOF'
import json, sys
game, code, last, ns, og, ours, theirs, rss = sys.argv[1:]
ours = json.loads(ours)
ns, og = float(ns), float(og)
period = f"{ours['preperiod']:,} / {ours['period']:,}" if ours["period"] else "none proven"
peer = " / ".join(f"{int(x.rstrip(',')):,}" for x in reversed(theirs.split())) if theirs else "none found"
print(f"| {game} | {period} | {ours['values_computed']:,} | {ns * 1000:.1f} ms | "
      f"`ogsolve {code} -m rc2 -n {last}`: {peer} | {og * 1000:.1f} ms | {ns / og:.2f} | "
      f"{int(rss) / 1024:.1f} MiB |")
EOF
)")
done

# 2. analyze --game kayles against cat and against Nim.
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
    "bits-short|bits|--format bits --size $bytes --bits 1..64"
    "unary-short|unary|--format unary --size $bytes --bits 1..10"
    "hex-short|hex|--format hex --size $bytes --bits 1..64"
    "dec-short|dec|--format dec --size $bytes --bits 1..64"
)
analyze_rows=()
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
        "$bin analyze --json $file > /dev/null" \
        "$bin analyze --game kayles --json $file > /dev/null" >&2
    cat "$file" >/dev/null
    rss=$(peak_rss_kib "$bin" analyze --game kayles --json "$file")
    report=$("$bin" analyze --game kayles --json "$file")
    analyze_rows+=("$(python3 - "$name" "$(stat -c %s "$file")" "$(median "$json" 0)" "$(median "$json" 1)" "$(median "$json" 2)" "$rss" "$report" <<'EOF'
import json, sys
name, size, cat_s, nim_s, game_s, rss, report = sys.argv[1:]
size, cat_s, nim_s, game_s = int(size), float(cat_s), float(nim_s), float(game_s)
report = json.loads(report)
rss_mib = int(rss) / 1024
met = "yes" if cat_s / game_s >= 0.5 and rss_mib <= 64 else "no"
print(f"| {name} | {size / 2**20:.0f} MiB | {cat_s * 1000:.0f} ms | {nim_s * 1000:.0f} ms | "
      f"{game_s * 1000:.0f} ms | {cat_s / game_s:.3f} | {game_s / nim_s:.2f} | {rss_mib:.0f} MiB | "
      f"{report['grundy_sum']} | {met} |")
EOF
)")
    rm -f "$file"
done

section=$(
    echo "<!-- games: begin (written by bench/games.sh; bench/compare.sh keeps it) -->"
    echo "## Heap games (bench/games.sh)"
    echo
    echo "Written by \`bench/games.sh $size\` on $(date -u +%Y-%m-%d) (UTC), $runs runs"
    echo "per command after one warm-up, medians from hyperfine."
    echo
    echo "Value sequences: \`nimstream grundy GAME --values 0 --json\` against"
    echo "\`ogsolve\` ($(ogsolve --version 2>/dev/null || echo ogsolve)), both proving the period; the ratio"
    echo "is nimstream's time over ogsolve's (below 1: faster). Peak RSS is"
    echo "\`/usr/bin/time -v\` of nimstream."
    echo
    echo "| game | preperiod / period | values computed | nimstream | peer and its answer | peer time | ratio | peak RSS |"
    echo "|---|---|---|---|---|---|---|---|"
    printf '%s\n' "${sequence_rows[@]}"
    echo
    echo "\`analyze --game kayles --json FILE\` on the inputs of \`bench/compare.sh\`,"
    echo "in the same hyperfine runs as \`cat FILE > /dev/null\` and \`analyze --json"
    echo "FILE\` (Nim). Targets: ≥ 0.5 of cat's throughput, peak RSS ≤ 64 MiB."
    echo
    echo "| input | size | cat | analyze (Nim) | analyze --game kayles | ratio to cat | time over Nim's | peak RSS | grundy sum | target met |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    printf '%s\n' "${analyze_rows[@]}"
    echo
    echo "Machine: $(lscpu | awk -F': +' '/^Model name/ { print $2; exit }'), nproc $(nproc);"
    echo "nimstream $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)."
    echo "<!-- games: end -->"
)
write_section "$results" games "$section"
echo "wrote the games section of $results" >&2
echo "$section"
