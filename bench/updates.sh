#!/usr/bin/env bash
# Live updates (SPEC section 10), measured side by side in one run:
#
# 1. seed 003's second program (`../shared/peers/seed003_updates.cpp`, built
#    here with g++ -O2) against `nimstream updates` on the same generated
#    instance: HEAPS 64-bit heaps and UPDATES updates to random heaps with
#    random 64-bit values. The peer reads one stream (`n q`, the heaps, then
#    the 1-based updates); nimstream reads FILE (the same heaps, dec) and
#    `--updates UFILE` (the same updates, 0-based). Both print the winner
#    after each update (nimstream also the nim-sum); their winners are
#    checked equal. Runs alternate, RUNS of each; medians; peak RSS from
#    /usr/bin/time. Target: nimstream at least as fast as the peer.
# 2. a `bits` file of LONG_SIZE of 65,536-bit heaps, with `cat FILE`, one
#    `analyze`, and `updates` under 0 and LONG_UPDATES updates of 65,536-bit
#    values: the updates cost the initial pass plus a small time each (an
#    update reads one heap, and the heaps between it and its sample, never
#    the file), shown by the time per update and the minor page faults
#    (FILE's pages the updates touched, 4 KiB each) against a pass.
#
# Writes the section between the updates markers of bench/RESULTS.md
# (bench/compare.sh keeps it).
#
# Usage: bench/updates.sh [HEAPS [UPDATES [LONG_SIZE]]]
#        defaults 10000000 1000000 1GiB; a trial: bench/updates.sh 1000000 100000 128MiB
# Environment: RUNS (runs per command, default 5), LONG_UPDATES (default
# 1000), PEER_SOURCE (the seed's program), BENCH_DIR (where the generated
# files go; default a new directory under /tmp, removed at the end).
set -euo pipefail

heaps=${1:-10000000}
updates=${2:-1000000}
long_size=${3:-1GiB}
runs=${RUNS:-5}
long_updates=${LONG_UPDATES:-1000}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
results="$repo/bench/RESULTS.md"
# shellcheck source=bench/sections.sh
. "$repo/bench/sections.sh"
peer_source=${PEER_SOURCE:-$repo/../shared/peers/seed003_updates.cpp}

for tool in g++ python3 /usr/bin/time; do
    command -v "$tool" >/dev/null || { echo "error: $tool is needed" >&2; exit 1; }
done
[ -f "$peer_source" ] || { echo "error: the seed's program is not at $peer_source (set PEER_SOURCE)" >&2; exit 1; }

echo "building the release binary and the peer" >&2
(cd "$repo" && cargo build --release --quiet)
bin="${CARGO_TARGET_DIR:-$repo/target}/release/nimstream"
work=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/nimstream-updates.XXXXXX")}
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
g++ -O2 -o "$work/seed003" "$peer_source"

# Writes COUNT update lines `i x` (0-based i < N, x of BITS random bits, in
# decimal, or hex when HEX is 1) to PATH, the same for the same SEED.
write_updates() { # N COUNT BITS HEX SEED PATH
    python3 - "$@" <<'EOF'
import random, sys
n, count, bits, hexadecimal, seed, path = sys.argv[1:]
n, count, bits = int(n), int(count), int(bits)
rng = random.Random(int(seed))
with open(path, "w") as out:
    for _ in range(count):
        x = rng.getrandbits(bits)
        out.write(f"{rng.randrange(n)} {'0x%x' % x if hexadecimal == '1' else x}\n")
EOF
}

# Runs each command RUNS times, alternating, each under /usr/bin/time;
# prints one JSON object: per command, the wall times, peak RSS (KiB) and
# minor faults of every run.
alternate() { # name=command ... (stdin and stdout inside the command)
    python3 - "$runs" "$@" <<'EOF'
import json, subprocess, sys, time
runs, commands = int(sys.argv[1]), [c.split("=", 1) for c in sys.argv[2:]]
out = {name: {"seconds": [], "rss_kib": [], "minor_faults": []} for name, _ in commands}
for _ in range(runs):
    for name, command in commands:
        start = time.perf_counter()
        done = subprocess.run(["/usr/bin/time", "-f", "%M %R", "bash", "-c", command],
                              stderr=subprocess.PIPE, text=True, check=True)
        out[name]["seconds"].append(time.perf_counter() - start)
        rss, faults = done.stderr.strip().splitlines()[-1].split()
        out[name]["rss_kib"].append(int(rss))
        out[name]["minor_faults"].append(int(faults))
print(json.dumps(out))
EOF
}

# 1. The seed's program against nimstream.
echo "== $heaps heaps, $updates updates: generating" >&2
"$bin" gen --format dec --heaps "$heaps" --bits 64 --seed 1 -o "$work/heaps.dec" 2>/dev/null
write_updates "$heaps" "$updates" 64 0 3 "$work/updates.txt"
{
    echo "$heaps $updates"
    cat "$work/heaps.dec"
    awk '{ print $1 + 1 " " $2 }' "$work/updates.txt"
} >"$work/peer.txt"
echo "== checking that the winners agree" >&2
"$work/seed003" <"$work/peer.txt" | tr 'A-Z' 'a-z' >"$work/peer.out"
"$bin" updates "$work/heaps.dec" --updates "$work/updates.txt" | awk 'NR > 1 { print $6 }' >"$work/ours.out"
cmp -s "$work/peer.out" "$work/ours.out" || { echo "error: the winners differ" >&2; exit 1; }
echo "== timing, $runs runs each, alternating" >&2
cat "$work/heaps.dec" "$work/peer.txt" >/dev/null
seed_json=$(alternate \
    "seed=$work/seed003 < $work/peer.txt > /dev/null" \
    "nimstream=$bin updates $work/heaps.dec --updates $work/updates.txt > /dev/null" \
    "initial=$bin updates $work/heaps.dec --updates /dev/null > /dev/null")
dec_bytes=$(stat -c %s "$work/heaps.dec")
rm -f "$work/heaps.dec" "$work/peer.txt" "$work/updates.txt" "$work/peer.out" "$work/ours.out"

# 2. Long heaps: the updates against a pass.
echo "== $long_size of 65,536-bit heaps: generating" >&2
"$bin" gen --format bits --size "$long_size" --bits 65536 --seed 2 -o "$work/long.bits" 2>/dev/null
long_heaps=$("$bin" analyze --json "$work/long.bits" | python3 -c 'import json, sys; print(json.load(sys.stdin)["heaps"])')
write_updates "$long_heaps" "$long_updates" 65536 1 4 "$work/long-updates.txt"
cat "$work/long.bits" >/dev/null
long_json=$(alternate \
    "cat=cat $work/long.bits > /dev/null" \
    "analyze=$bin analyze $work/long.bits > /dev/null" \
    "none=$bin updates $work/long.bits --updates /dev/null > /dev/null" \
    "updates=$bin updates $work/long.bits --updates $work/long-updates.txt > /dev/null")
long_bytes=$(stat -c %s "$work/long.bits")
update_bytes=$(stat -c %s "$work/long-updates.txt")

section=$(python3 - "$seed_json" "$long_json" "$heaps" "$updates" "$dec_bytes" "$long_heaps" \
    "$long_updates" "$long_bytes" "$update_bytes" "$runs" "$long_size" <<'EOF'
import json, statistics, sys
seed, long, heaps, updates, dec_bytes, long_heaps, long_updates, long_bytes, update_bytes, runs, size = sys.argv[1:]
seed, long = json.loads(seed), json.loads(long)
heaps, updates, long_heaps, long_updates = int(heaps), int(updates), int(long_heaps), int(long_updates)
med = lambda runs: statistics.median(runs)
mib = lambda kib: f"{max(kib) / 1024:.0f} MiB"
s, n, i = (seed[k] for k in ("seed", "nimstream", "initial"))
ratio = med(n["seconds"]) / med(s["seconds"])
per_update_us = (med(n["seconds"]) - med(i["seconds"])) / updates * 1e6
print(f"""<!-- updates: begin (written by bench/updates.sh; bench/compare.sh keeps it) -->
## Live updates (bench/updates.sh)

Written by `bench/updates.sh {heaps} {updates} {size}` ({runs} runs per command,
alternating; medians; peak RSS is the largest of `/usr/bin/time`'s).

The live-updates program of the competitive-programming notes (`g++ -O2`) against `nimstream updates`, on
{heaps:,} random 64-bit heaps ({int(dec_bytes) / 2**20:.0f} MiB of `dec`) and {updates:,} updates to
random heaps with random 64-bit values. The peer reads `n q`, the heaps
and the 1-based updates on standard input; nimstream reads FILE and
`--updates UFILE` (0-based), and prints the nim-sum too. Their winners
were checked equal, line by line. Target: nimstream's time ≤ the peer's.

| command | time | ratio to the peer | peak RSS |
|---|---|---|---|
| the notes' updates program | {med(s["seconds"]):.3f} s | 1 | {mib(s["rss_kib"])} |
| `nimstream updates FILE --updates UFILE` | {med(n["seconds"]):.3f} s | {ratio:.2f} | {mib(n["rss_kib"])} |
| the same with no updates (the initial pass) | {med(i["seconds"]):.3f} s | {med(i["seconds"]) / med(s["seconds"]):.2f} | {mib(i["rss_kib"])} |

Target met: {"yes" if ratio <= 1 else "no"}. An update costs nimstream {per_update_us:.2f} µs on
average (its time less the initial pass's, over the updates). Its peak RSS
counts the pages of FILE the updates read, which stay mapped (clean pages
of the page cache): releasing them as it goes would cost a page fault per
update.""")
c, a, z, u = (long[k] for k in ("cat", "analyze", "none", "updates"))
per = (med(u["seconds"]) - med(z["seconds"])) / long_updates
faults = (med(u["minor_faults"]) - med(z["minor_faults"])) / long_updates
print(f"""
Long heaps: a `bits` file of {int(long_bytes) / 2**20:.0f} MiB, {long_heaps:,} heaps of 65,536 bits,
and {long_updates:,} updates of 65,536-bit values ({int(update_bytes) / 2**20:.0f} MiB of `0x` hex).

| command | time | minor page faults | peak RSS |
|---|---|---|---|
| `cat FILE` | {med(c["seconds"]):.3f} s | {med(c["minor_faults"]):,.0f} | {mib(c["rss_kib"])} |
| `nimstream analyze FILE` | {med(a["seconds"]):.3f} s | {med(a["minor_faults"]):,.0f} | {mib(a["rss_kib"])} |
| `nimstream updates FILE`, no updates | {med(z["seconds"]):.3f} s | {med(z["minor_faults"]):,.0f} | {mib(z["rss_kib"])} |
| `nimstream updates FILE`, {long_updates:,} updates | {med(u["seconds"]):.3f} s | {med(u["minor_faults"]):,.0f} | {mib(u["rss_kib"])} |

An update costs {per * 1e6:.0f} µs, {per / med(a["seconds"]):.4f} of a pass (`analyze`), and
{faults:.0f} minor page faults (each maps up to 16 pages: of FILE where the
update reads the heap and those between it and its sample, or of memory
for the new value); a pass reads all {int(long_bytes) / 4096:,.0f} pages of FILE. Peak RSS holds
the updated heaps, which nimstream keeps (FILE is never written).
<!-- updates: end -->""")
EOF
)
write_section "$results" updates "$section"
echo "wrote the updates section of $results" >&2
echo "$section"
