#!/usr/bin/env bash
# Long decimal heaps (issue 17): `nimstream analyze` on a file holding one
# decimal heap of 1, 3 and 9 million digits, side by side with GMP's
# conversion of the same digits (gmpy2's `mpz(text, 10)`, installed into a
# virtual environment under target/ when missing), medians of RUNS runs.
# Reports each time, nimstream's over GMP's, the growth exponent between
# sizes (target ≤ 1.6) and peak RSS; writes the section between the
# long-decimal markers of bench/RESULTS.md (bench/compare.sh keeps it).
#
# Usage: bench/long_decimal.sh          Environment: RUNS (default 5).
set -euo pipefail

runs=${RUNS:-5}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
results="$repo/bench/RESULTS.md"
# shellcheck source=bench/sections.sh
. "$repo/bench/sections.sh"
venv="$repo/target/gmp-venv"

(cd "$repo" && cargo build --release --quiet)
bin="${CARGO_TARGET_DIR:-$repo/target}/release/nimstream"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check gmpy2
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/nimstream-long-decimal.XXXXXX")
trap 'rm -rf "$work"' EXIT

rows=$("$venv/bin/python" - "$bin" "$work" "$runs" <<'PY'
import math, random, re, statistics, subprocess, sys, time
import gmpy2

binary, work, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
random.seed(5)
previous = None
for digits in (1_000_000, 3_000_000, 9_000_000):
    path = f"{work}/heap-{digits}.dec"
    text = "7" + "".join(random.choices("0123456789", k=digits - 1))
    with open(path, "w") as out:
        out.write(text + "\n")
    ours, peer = [], []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([binary, "analyze", "--json", path], check=True, stdout=subprocess.DEVNULL)
        ours.append(time.perf_counter() - started)
        started = time.perf_counter()
        value = gmpy2.mpz(text, 10)
        peer.append(time.perf_counter() - started)
    timing = subprocess.run(["/usr/bin/time", "-v", binary, "analyze", "--json", path],
                            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", timing.stderr).group(1))
    ours, peer = statistics.median(ours), statistics.median(peer)
    growth = "–" if previous is None else f"{math.log(ours / previous) / math.log(3):.2f}"
    previous = ours
    print(f"| {digits:,} | {value.bit_length():,} | {ours:.3f} s | {peer:.3f} s | "
          f"{ours / peer:.1f} | {growth} | {rss / 1024:.0f} MiB |")
PY
)

section=$(cat <<EOF_SECTION
<!-- long-decimal: begin (written by bench/long_decimal.sh; bench/compare.sh keeps it) -->
## Long decimal heaps (bench/long_decimal.sh)

Written by \`bench/long_decimal.sh\` on $(date -u +%Y-%m-%d) (UTC), medians of $runs runs.
\`nimstream analyze --json FILE\` on a file of one decimal heap (the whole
run: reading, converting, the report) against GMP's conversion alone of
the same digits (\`gmpy2.mpz(text, 10)\`, gmpy2 $("$venv/bin/python" -c 'import gmpy2; print(gmpy2.version())')).
Targets: within 5x of GMP at 9,000,000 digits, growth exponent ≤ 1.6.

| digits | bits | nimstream | GMP | ratio | growth exponent (from the row above) | peak RSS |
|---|---|---|---|---|---|---|
$rows

Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), nproc $(nproc);
nimstream $(cd "$repo" && git rev-parse --short HEAD).
<!-- long-decimal: end -->
EOF_SECTION
)

write_section "$results" long-decimal "$section"
echo "$section"
