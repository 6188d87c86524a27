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

How the list of ints is read (\`src/analysis/nim/held.rs\`,
\`python/src/sources.rs\`): in place, twice, with the GIL held. The first
pass XORs each int's 30-bit digits (\`python/src/digits.rs\` finds them
in the object) into a nim-sum kept in the same digits, so no int is
repacked, and surveys the heaps; the second looks for the holders of the
nim-sum's msb at one digit of the ints long enough to have it. Both walk
the list's items in place and fetch the ints ahead of their reading
(an int's head, then its digits), since each int is an object of its own
and its head a cache miss: without that the walk waited on memory for
most of its time (perf). \`reduce\` reads the same digits and writes a
new int of up to 4,096 bits at every step. An iterator of the same ints
(a generator, \`iter(list)\`) is read once, so it is streamed as \`nimb\`
records to a worker that must count the holders of every bit position
(the msb is known only at the end): the column \`analyze(iter(heaps))\`,
about as fast as the CLI reading the same records from standard input.
<!-- python: end -->"
write_section "$repo/bench/RESULTS.md" python "$section"
echo "$figures"
