#!/usr/bin/env bash
# The Spark job (contrib/spark/nimstream_spark.py) against `analyze -j 2`
# on one file, in local mode on this machine (SPEC section 11;
# docs/cluster.md reads its figures):
#
#   bench/spark.sh [SIZE] [PARTIALS]     (defaults 1GiB, 10000)
#
# - analyze -j 2 --json on a cached `dec` file of SIZE (random 1..64-bit
#   heaps): the median of 3 runs;
# - the Spark job in local[2] with 1, 2 and 8 ranges, in one running
#   SparkContext (the median of 3 jobs each), and the engine's costs: the
#   SparkContext's start-up, and the fixed cost of a job (the same job on
#   a 1-byte file);
# - `nimstream merge` of PARTIALS first-phase partials (one-byte ranges of
#   a file of small heaps): the merge's cost per range.
#
# Every figure comes from this one run; compare them as ratios. It needs
# target/release/nimstream and target/spark-venv (as .ci/run makes them).
# Writes bench/spark-results.md (or $OUT) and prints it.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${1:-1GiB}
PARTIALS=${2:-10000}
OUT=${OUT:-bench/spark-results.md}
BIN=$PWD/target/release/nimstream
PY=$PWD/target/spark-venv/bin/python
[ -x "$BIN" ] || { echo "build first: cargo build --release" >&2; exit 2; }
[ -x "$PY" ] || { echo "make target/spark-venv first (see .ci/run)" >&2; exit 2; }
WORK=$(mktemp -d /tmp/nimstream-spark-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

"$BIN" gen --format dec --size "$SIZE" --bits 1..64 --seed 1 -o "$WORK/big.dec" 2>/dev/null
printf '7\n' > "$WORK/one.dec"
cat "$WORK/big.dec" > /dev/null

seconds() { # the wall-clock seconds of a command, its output dropped
    local start end
    start=$(date +%s.%N)
    "$@" > /dev/null
    end=$(date +%s.%N)
    echo "$end - $start" | bc
}
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

analyze=$(for _ in 1 2 3; do seconds "$BIN" analyze "$WORK/big.dec" -j 2 --json; done | median)

# The merge of PARTIALS partials of one-byte ranges (each a small nim-sum).
"$BIN" gen --format dec --heaps "$PARTIALS" --bits 1..8 --seed 2 -o "$WORK/small.dec" 2>/dev/null
small=$(stat -c %s "$WORK/small.dec")
count=$((small < PARTIALS ? small : PARTIALS))
seq 0 $((count - 1)) \
    | xargs -P 2 -I{} sh -c "'$BIN' analyze '$WORK/small.dec' --range {}..\$(({} + 1)) --partial > '$WORK/p.{}'"
cat $(ls "$WORK"/p.* | sort -t. -k2 -n) > "$WORK/partials.jsonl"
merged=$(wc -l < "$WORK/partials.jsonl")
merge=$(for _ in 1 2 3; do seconds "$BIN" merge "$WORK/partials.jsonl"; done | median)

NIMSTREAM=$BIN BIG=$WORK/big.dec ONE=$WORK/one.dec "$PY" - > "$WORK/spark.txt" 2>/dev/null <<'EOF'
import os, statistics, sys, time
sys.path.insert(0, "contrib/spark")
import nimstream_spark
from pyspark import SparkConf, SparkContext

started = time.perf_counter()
sc = SparkContext(conf=SparkConf().setMaster("local[2]").setAppName("bench")
                  .set("spark.ui.enabled", "false")
                  .set("spark.ui.showConsoleProgress", "false"))
sc.setLogLevel("ERROR")
startup = time.perf_counter() - started

def job(path, ranges):
    times = []
    for _ in range(3):
        t = time.perf_counter()
        nimstream_spark.run(sc, path, ranges=ranges, json_out=True,
                            nimstream=os.environ["NIMSTREAM"])
        times.append(time.perf_counter() - t)
    return statistics.median(times)

job(os.environ["ONE"], 1)  # warm the Python workers
print("startup", startup)
print("fixed", job(os.environ["ONE"], 1))
for ranges in (1, 2, 8):
    print("ranges%d" % ranges, job(os.environ["BIG"], ranges))
sc.stop()
EOF
get() { awk -v k="$1" '$1 == k {printf "%.3f", $2}' "$WORK/spark.txt"; }
ratio() { echo "scale=2; $1 / $2" | bc; }
analyze=$(printf '%.3f' "$analyze")
merge=$(printf '%.4f' "$merge")

{
    echo "# The Spark job against analyze -j 2 ($(date -u +%Y-%m-%d), $(nproc) cores)"
    echo
    echo "Input: \`nimstream gen --format dec --size $SIZE --bits 1..64 --seed 1\`, cached."
    echo "pyspark $("$PY" -c 'import pyspark; print(pyspark.__version__)'), $(java -version 2>&1 | head -1), local[2]."
    echo
    echo "| run | seconds | / analyze -j 2 |"
    echo "|---|---|---|"
    echo "| analyze -j 2 --json | $analyze | 1.00 |"
    for n in 1 2 8; do
        echo "| Spark job, $n range(s) | $(get ranges$n) | $(ratio "$(get ranges$n)" "$analyze") |"
    done
    echo
    echo "| engine cost | seconds |"
    echo "|---|---|"
    echo "| SparkContext start-up (JVM, local[2]) | $(get startup) |"
    echo "| fixed cost of a job (a 1-byte file) | $(get fixed) |"
    echo "| Spark job, 2 ranges, minus analyze -j 2 | $(echo "$(get ranges2) - $analyze" | bc) |"
    echo
    echo "merge of $merged partials: $merge s, $(echo "scale=2; 1000000 * $merge / $merged" | bc) µs a range."
} | tee "$OUT"
