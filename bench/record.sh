#!/usr/bin/env bash
# A record run (SPEC section 13): GAME (default octal:0.161) to heaps
# 0 … 2^K (default K = 32) under --memory MEMORY (default 256MiB), every
# value proven, with its frequencies at each power of two, under
# `/usr/bin/time -v`; writes the record section of bench/RESULTS.md (the
# command, the time, values a second, peak RSS, the rare values and the
# frequencies of heaps 1 … 2^K in short). At 2^32 it takes about a quarter
# of an hour on this project's machine: it holds the bench lock the whole
# time, and is not niced. A checkpoint is saved every five minutes: after
# an interruption, the same command with RESUME=1 goes on from it.
#
# The frequencies file (every power of two) stays in OUT (default
# /tmp/nimstream-record), out of git.
#
# Usage: bench/record.sh [K] [GAME] [MEMORY]
set -euo pipefail

k=${1:-32}
game=${2:-octal:0.161}
memory=${3:-256MiB}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
results="$repo/bench/RESULTS.md"
# shellcheck source=bench/sections.sh
. "$repo/bench/sections.sh"
out=${OUT:-/tmp/nimstream-record}
mkdir -p "$out"

echo "building nimstream (release)" >&2
(cd "$repo" && cargo build --release --quiet)
ns="${CARGO_TARGET_DIR:-$repo/target}/release/nimstream"

n=$((2 ** k + 1))
resume=()
[ -n "${RESUME:-}" ] && resume=(--resume "$out/record.checkpoint")
command=(grundy "$game" --max-values "$n" --values 0 --memory "$memory"
    --frequencies "$out/frequencies.txt" --checkpoint "$out/record.checkpoint" --json)
echo "== nimstream ${command[*]}" >&2
flock /tmp/nimstream-bench.lock /usr/bin/time -v "$ns" "${command[@]}" "${resume[@]}" \
    >"$out/report.json" 2>"$out/time.txt"

section=$(python3 - "$out" "$k" "$game" "$memory" "$n" "$(git -C "$repo" rev-parse --short HEAD)" <<'EOF'
import json, re, sys
out, k, game, memory, n, commit = sys.argv[1:]
report = json.load(open(f"{out}/report.json"))
timing = open(f"{out}/time.txt").read()
wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", timing).group(1)
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", timing).group(1))
user = float(re.search(r"User time \(seconds\): (\S+)", timing).group(1))
counts = {int(v): c for v, c in report["frequencies"].items()}
rare = report["rare"]
total = sum(counts.values())
rare_values = rare["values"]
common = sorted((v for v in counts if v not in rare_values), key=lambda v: -counts[v])
print("<!-- record: begin (written by bench/record.sh; bench/compare.sh keeps it) -->")
print(f"`nimstream grundy {game} --max-values 2^{k}+1 --memory {memory} --frequencies F --checkpoint C --json`,")
print(f"run by `bench/record.sh {k} {game} {memory}` on nimstream {commit}: heaps 0 … 2^{k}, every value proven.")
print()
print("| values | wall time | values a second | CPU (user) | peak RSS | largest value | rare values | last rare heap | period |")
print("|---|---|---|---|---|---|---|---|---|")
period = "none proven" if report["period"] is None else f"{report['preperiod']:,} / {report['period']:,}"
print(f"| {report['values_computed']:,} | {wall} | {report['values_per_second'] / 1e6:.2f} million | {user:.0f} s | "
      f"{rss / 1024:.0f} MiB | {report['largest_value']} | {len(rare_values)} (mask {rare['mask']}) | "
      f"{rare['last_rare_heap']:,} | {period} |")
print()
print(f"Frequencies of heaps 1 … 2^{k} ({total:,} heaps): the rare values, and the eight most frequent")
print("values. Every value's count at every power of two is in the run's frequencies file.")
print()
print("| rare value | heaps " * 4 + "|")
print("|---|---" * 4 + "|")
for row in range(0, len(rare_values), 4):
    cells = [f"{v} | {counts[v]:,}" for v in rare_values[row:row + 4]]
    cells += ["|"] * (4 - len(cells))
    print("| " + " | ".join(cells) + " |")
print()
print("| value | heaps | share |")
print("|---|---|---|")
for v in common[:8]:
    print(f"| {v} | {counts[v]:,} | {counts[v] / total:.2%} |")
print("<!-- record: end -->")
EOF
)
write_section "$results" record "$section"
echo "wrote the record section of $results" >&2
echo "$section"
