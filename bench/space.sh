#!/usr/bin/env bash
# Space and time under each memory budget, as docs/performance.md's "Space
# and time" section shows them: prints a markdown table (README_FIGURES runs it
# through tests/readme.rs; `bench/figures.sh` regenerates every figure).
#
# The instance: a `bits` file of four heaps (10,000,000 bits, 9,999,000 bits
# and two small ones, 20 MB), cached, analyzed under `--memory` 1GiB, 100KiB,
# 64KiB, 64 and log; then the adversarial stream 1, 2, 4, …, 2^4095 in hex
# on standard input under log (every heap the first holder of a bit).
# Each row: passes, bytes scanned and working memory from the JSON report
# (counted, not estimated), wall time, and peak RSS from /usr/bin/time -v.
#
# Usage: bench/space.sh            (needs the release binary on PATH or
#                                   NIMSTREAM=path/to/nimstream)
set -euo pipefail

bin=${NIMSTREAM:-nimstream}
work=$(mktemp -d "${TMPDIR:-/tmp}/nimstream-space.XXXXXX")
trap 'rm -rf "$work"' EXIT

python3 - "$work/four.bits" <<'PY'
import random, sys
rng = random.Random(7)
with open(sys.argv[1], "w") as out:
    for bits in (10_000_000, 9_999_000, 40, 3):
        out.write("1" + "".join(rng.choice("01") for _ in range(bits - 1)) + "\n")
PY
python3 - "$work/powers.hex" <<'PY'
import sys
with open(sys.argv[1], "w") as out:
    for k in range(4096):
        out.write("1248"[k % 4] + "0" * (k // 4) + "\n")
PY

# One row: label, then the command's words (its JSON report on stdout).
row() {
    local label=$1
    shift
    local json="$work/report.json" timing="$work/time.txt"
    /usr/bin/time -v "$@" > "$json" 2> "$timing"
    python3 - "$label" "$json" "$timing" <<'PY'
import json, re, sys
label, report, timing = sys.argv[1], json.load(open(sys.argv[2])), open(sys.argv[3]).read()
stats = report["stats"]
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", timing).group(1)) * 1024
def size(n):
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"
print(f"| {label} | {stats['passes']:,} | {size(stats['bytes_scanned'])} | "
      f"{stats['working_memory_bytes']:,} bytes | {stats['seconds']:.3f} s | {size(rss)} |")
PY
}

echo "| input, \`--memory\` | passes | bytes scanned | working memory | time | peak RSS |"
echo "|---|---|---|---|---|---|"
for memory in 1GiB 100KiB 64KiB 64 log; do
    row "four long heaps, \`$memory\`" "$bin" analyze --json --memory "$memory" "$work/four.bits"
done
row "the adversarial stream on stdin, \`log\`" sh -c "'$bin' analyze - --format hex --memory log --json < '$work/powers.hex'"
