#!/usr/bin/env bash
# The Python package (SPEC section 14) against the CLI, side by side in one
# run (bench/python_bench.py says how): `nimstream.analyze(a)` on a uint64
# numpy array of SIZE read in place against `nimstream analyze FILE --json`
# on the same bytes in a cached file, with peak RSS; and `analyze(heaps)`
# on INTS Python ints of 64 to 4,096 bits against
# `functools.reduce(operator.xor, heaps)`; and the time `pip wheel ./python`
# takes from scratch (target: under 3 minutes). The package is installed
# from python/ into target/py-venv (as .ci/run does).
#
# Writes the section between the python markers of bench/RESULTS.md.
#
# Usage: bench/python.sh [SIZE]      SIZE defaults to 1GiB
# Environment: RUNS (rounds, default 7), INTS (default 10000000; 0 skips
# the ints), INT_RUNS (default 3), BENCH_DIR (where the file goes; default
# a new directory under /tmp, removed at the end).
set -euo pipefail

size=${1:-1GiB}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/sections.sh
. "$repo/bench/sections.sh"
cd "$repo"

cargo build --release --locked --quiet
binary="$repo/target/release/nimstream"
venv="$repo/target/py-venv"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check numpy
"$venv/bin/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps ./python

dir=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/nimstream-python-bench.XXXXXX")}
[ -n "${BENCH_DIR:-}" ] || trap 'rm -rf "$dir"' EXIT

# The wheel from scratch: pip wheel ./python with a cargo target of its own
# (maturin fetched by pip's isolated build, the crate and its dependencies
# compiled in the wheel's release profile).
build_load=$(cut -d' ' -f1 /proc/loadavg)
build=$( { /usr/bin/time -f "%e %U %S" env CARGO_TARGET_DIR="$dir/wheel-target" \
    "$venv/bin/pip" wheel --quiet --disable-pip-version-check --no-deps ./python \
    -w "$dir/wheel" >/dev/null; } 2>&1 | tail -1)
read -r build_wall build_user build_sys <<<"$build"
rm -rf "$dir/wheel-target"
build_line=$(python3 -c "import sys; w, u, s = map(float, sys.argv[1:4]); print('| {:.0f} s | {:.0f} s | {} | < 180 s | {} |'.format(w, u + s, sys.argv[4], 'yes' if w < 180 else 'no'))" \
    "$build_wall" "$build_user" "$build_sys" "$build_load")
file="$dir/heaps.u64"
"$binary" gen --format u64le --size "$size" --seed 35 -o "$file" 2>/dev/null

load=$(cut -d' ' -f1 /proc/loadavg)
figures=$(flock /tmp/nimstream-bench.lock "$venv/bin/python" bench/python_bench.py \
    "$binary" "$file" "$size")

section="<!-- python: begin (written by bench/python.sh) -->
## The Python package (bench/python.sh)

Written by \`bench/python.sh $size\` on $(date -u +%Y-%m-%d) (UTC), commit
$(git rev-parse --short HEAD), $(nproc) cores, Python $("$venv/bin/python" -c 'import sys; print(sys.version.split()[0])'),
numpy $("$venv/bin/python" -c 'import numpy; print(numpy.__version__)'), load average $load at the start
(the machine is shared).

### The wheel, built from scratch

| wall | CPU (user + system) | load average at the start | target | target met |
|---|---|---|---|---|
$build_line

$figures

Where the time of the ints goes (perf on 10^6 such ints). Exact ints are
read in place (\`python/src/digits.rs\`: CPython's 30-bit digits written
into the record four at a time), so the calling thread no longer calls
\`int.bit_length\` and \`int.to_bytes\` (about 390 ns an int before): it
writes an int's record in 110 to 150 ns (timed on a loaded machine with a
build whose worker drained the batches unread), a third of it in the
repacking, a tenth in the list iterator's first touch of each int. The
worker is the limit. It analyses the records as one stream, as the CLI's
\`analyze - < FILE\` does (the table above): read once, a stream must
count the holders of every bit position, since the move's
\`winning_moves\` counts the heaps holding the nim-sum's msb, known only
at the end; \`BitCounts::flush\` and \`BitCounts::add\`
(\`src/analysis/nim/bit_counts.rs\`) take about half of its time, the
nim-sum (\`HeapValue::xor_window\`) an eighth, the \`nimb\` records'
parsing and the copy out of the batches a tenth. A file is read again for
the msb's holders and skips those counts (the file columns), yet on one
thread it too takes longer than \`reduce\`. Meeting the target needs the
crate's analysis of such records (\`src/\`) faster than \`reduce\` on one
core, the other being the encoder's: the stream's, or a file-like pass
over a source read twice (a list), which the crate's stream API does not
offer.
<!-- python: end -->"
write_section "$repo/bench/RESULTS.md" python "$section"
echo "$figures"
