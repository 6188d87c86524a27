#!/usr/bin/env bash
# Standard input against files: `cat FILE | nimstream analyze --format F -`
# against `nimstream analyze FILE` and `cat FILE > /dev/null`, on the
# shapes users pipe: gen's defaults of every text format (short tokens),
# long hex and nimb heaps (64 to 4,096 bits) and u64le. A stream is read
# once, on one thread, and counts the holders of every bit position (a
# file's pass counts only the top ones and reads again when it must), so
# its cost is its own. BASELINE=PATH runs a previous build's standard
# input side by side in the same rounds.
#
# The commands run in turn (bench/sections.sh's interleaved: each round in
# an order of its own, after `cat FILE > /dev/null`); times are medians.
# Writes the stdin section of bench/RESULTS.md.
#
# Usage: bench/stdin.sh [SIZE]      SIZE defaults to 256MiB
# Environment: RUNS (default 5), BASELINE, BENCH_DIR (default a new
# directory under /tmp, removed at the end).
set -euo pipefail

size=${1:-256MiB}
runs=${RUNS:-5}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/sections.sh
. "$repo/bench/sections.sh"
cd "$repo"
cargo build --release --locked --quiet
bin="$repo/target/release/nimstream"
baseline=${BASELINE:-}
dir=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/nimstream-stdin-bench.XXXXXX")}
[ -n "${BENCH_DIR:-}" ] || trap 'rm -rf "$dir"' EXIT

# name format gen-arguments
shapes=(
    "hex-short hex --bits 1..64"
    "dec-short dec --bits 1..64"
    "bits-short bits --bits 1..64"
    "unary-short unary --bits 1..10"
    "u64le u64le --bits 1..64"
    "hex-long hex --bits 64..4096"
    "nimb-long nimb --bits 64..4096"
)

rows=()
for shape in "${shapes[@]}"; do
    read -r name format gen_args <<<"$shape"
    file="$dir/$name.$format"
    # shellcheck disable=SC2086 # gen's arguments are words
    "$bin" gen --format "$format" --size "$size" $gen_args --seed 7 -o "$file" 2>/dev/null
    commands=("cat $file > /dev/null" "$bin analyze --json $file > /dev/null"
        "cat $file | $bin analyze --json --format $format - > /dev/null")
    [ -n "$baseline" ] && commands+=("cat $file | $baseline analyze --json --format $format - > /dev/null")
    same=$(python3 - "$bin" "$file" "$format" "$baseline" <<'EOF'
import json, subprocess, sys
binary, path, fmt, baseline = sys.argv[1:]
def report(command, stdin=None):
    out = subprocess.run(command, stdin=stdin, capture_output=True, check=True).stdout
    data = json.loads(out)
    data.pop("stats"), data.pop("input")
    return data
from_file = report([binary, "analyze", "--json", path])
with open(path, "rb") as f:
    piped = report([binary, "analyze", "--json", "--format", fmt, "-"], stdin=f)
same = from_file == piped
if baseline:
    with open(path, "rb") as f:
        same = same and report([baseline, "analyze", "--json", "--format", fmt, "-"], stdin=f) == piped
print("yes" if same else "**no**")
EOF
)
    json="$dir/$name.json"
    interleaved "$json" "$runs" 1 "$file" "${commands[@]}" 2>/dev/null
    medians=()
    for at in $(seq 0 $((${#commands[@]} - 1))); do medians+=("$(median "$json" "$at")"); done
    rows+=("$(python3 - "$name" "$(stat -c %s "$file")" "${medians[@]}" <<'EOF'
import sys
name, size = sys.argv[1], int(sys.argv[2])
med = [float(m) for m in sys.argv[3:]]
cat, from_file, piped = med[:3]
cells = [name, f"{size / 2**20:.0f} MiB", f"{cat * 1000:.0f} ms", f"{from_file * 1000:.0f} ms",
         f"{piped * 1000:.0f} ms", f"{size / piped / 1e9:.2f} GB/s", f"{cat / piped:.3f}",
         f"{from_file / piped:.3f}"]
if len(med) > 3:
    cells += [f"{med[3] * 1000:.0f} ms", f"{piped / med[3]:.3f}"]
print("| " + " | ".join(cells))
EOF
) | $same |")
    rm -f "$file" "$json"
done

header="| input | size | cat | analyze FILE | cat FILE \\| analyze - | throughput | ratio to cat | file over stdin |"
rule="|---|---|---|---|---|---|---|---|"
if [ -n "$baseline" ]; then
    header+=" baseline stdin | stdin over baseline |"
    rule+="---|---|"
fi
header+=" same report |"
rule+="---|"

section="<!-- stdin: begin (written by bench/stdin.sh) -->
## Standard input (bench/stdin.sh)

Written by \`bench/stdin.sh $size\` on $(date -u +%Y-%m-%d) (UTC), commit
$(git rev-parse --short HEAD), $(nproc) cores, load average $(cut -d' ' -f1 /proc/loadavg) at the end${baseline:+, BASELINE=$("$baseline" --version 2>/dev/null | head -1)}.
Medians of $runs rounds, each in an order of its own after a warm-up,
\`cat FILE > /dev/null\` before every run. The ratio to cat is cat's time
over the pipe's; \"file over stdin\" is the file's time over the pipe's
(the file is read on two threads, the pipe on one); \"same report\" compares
the JSON reports but for their stats and input.

$header
$rule
$(printf '%s\n' "${rows[@]}")
<!-- stdin: end -->"
write_section "$repo/bench/RESULTS.md" stdin "$section"
echo "$section"
