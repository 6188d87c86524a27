#!/usr/bin/env bash
# Value sequences past memory (SPEC section 13), side by side in one run:
# `nimstream grundy` against the two open solvers of octal games,
#
# - Rogalski's `octal` (MIT; its source is in ../shared/peers/octal-rogalski,
#   built here into the work folder, run, never copied): with
#   `--features nimber_u8` for games whose values stay below 256, and
#   `nimber_u16` for 0.034, whose values pass 255;
# - `ogsolve -m rc2` (installed with `cargo install` into the work folder
#   when it is not on PATH);
#
# on octal:0.161, octal:0.034 and octal:0.16, computing heaps 0 … 2^K for
# each K asked (2^K + 1 values: the frequencies of heaps 1 … 2^K are then
# whole). nimstream runs under `--memory 64MiB` (it keeps a prefix and the
# last values past about 3 million), with `--frequencies`; 0.16 ends at its
# period, proven at 509,622 values, where the peers go on to 2^K.
#
# Reported per run: wall time, values a second, peak RSS (`/usr/bin/time
# -v`). Agreement: nimstream's frequencies at the largest 2^k both reach
# against Rogalski's (which count heap 0 too); the last value against
# ogsolve's `nimber of`; and, at the smallest K, every value against
# `ogsolve -p` (an untimed run of each).
#
# Every timed run takes /tmp/nimstream-bench.lock. Writes the section
# between the sequences markers of bench/RESULTS.md.
#
# Usage: bench/sequences.sh [K...]     K defaults to "24 26"
# Environment: BENCH_DIR picks the work folder (default: a new one under
# /tmp, removed at the end).
set -euo pipefail

exponents=("$@")
[ ${#exponents[@]} -gt 0 ] || exponents=(24 26)
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
results="$repo/bench/RESULTS.md"
peer_source=${PEER_SOURCE:-$repo/../shared/peers/octal-rogalski}
# shellcheck source=bench/sections.sh
. "$repo/bench/sections.sh"
lock=/tmp/nimstream-bench.lock

for tool in python3 /usr/bin/time flock; do
    command -v "$tool" >/dev/null || { echo "error: $tool is needed" >&2; exit 1; }
done
[ -d "$peer_source/src" ] || { echo "error: $peer_source holds no source" >&2; exit 1; }

work=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/nimstream-sequences.XXXXXX")}
mkdir -p "$work"
[ -n "${BENCH_DIR:-}" ] || trap 'rm -rf "$work"' EXIT

echo "building nimstream (release)" >&2
(cd "$repo" && cargo build --release --quiet)
ns="${CARGO_TARGET_DIR:-$repo/target}/release/nimstream"

echo "building Rogalski's octal (u8 and u16 nimbers) into $work" >&2
for bits in u8 u16; do
    rm -rf "$work/octal-$bits"
    cp -r "$peer_source" "$work/octal-$bits"
    (cd "$work/octal-$bits" && CARGO_TARGET_DIR="$work/octal-$bits/target" \
        cargo build --release --quiet --features "nimber_$bits")
done

if command -v ogsolve >/dev/null; then
    og=$(command -v ogsolve)
else
    echo "installing ogsolve into $work/ogsolve" >&2
    cargo install --quiet --root "$work/ogsolve" ogsolve
    og="$work/ogsolve/bin/ogsolve"
fi

# timed OUT ERR COMMAND...: runs COMMAND under the lock and /usr/bin/time -v,
# standard output to OUT, the time's report to ERR; prints "seconds rss_kib".
timed() {
    local out=$1 err=$2
    shift 2
    flock "$lock" /usr/bin/time -v "$@" >"$out" 2>"$err" || true
    python3 - "$err" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", text).group(1)
seconds = 0.0
for part in wall.split(":"):
    seconds = seconds * 60 + float(part)
rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1)
print(seconds, rss)
EOF
}

rows=()
for k in "${exponents[@]}"; do
    n=$((2 ** k + 1))
    for code in 0.161 0.034 0.16; do
        bits=u8
        [ "$code" = 0.034 ] && bits=u16
        tag="$code-$k"
        echo "== octal:$code, heaps 0 … 2^$k" >&2
        read -r ns_s ns_rss < <(timed "$work/$tag.ns.json" "$work/$tag.ns.time" \
            "$ns" grundy "octal:$code" --max-values "$n" --values 0 --memory 64MiB \
            --frequencies "$work/$tag.ns.freq" --heap $((n - 1)) --json)
        read -r rog_s rog_rss < <(timed "$work/$tag.rog.out" "$work/$tag.rog.time" \
            "$work/octal-$bits/target/release/octal" "$code" "$n")
        read -r og_s og_rss < <(timed "$work/$tag.og.out" "$work/$tag.og.time" \
            "$og" "$code" -m rc2 -n $((n - 1)))
        all_values=""
        if [ "$k" = "${exponents[0]}" ]; then
            echo "   every value against ogsolve -p (untimed)" >&2
            "$ns" grundy "octal:$code" --max-values "$n" --values 0 --memory 64MiB \
                --values-out "$work/$tag.ns.u16" >/dev/null 2>&1 || true
            "$og" "$code" -m rc2 -n $((n - 1)) -p >"$work/$tag.og.values"
            all_values="$work/$tag"
        fi
        rows+=("$(python3 - "$code" "$k" "$n" "$work/$tag" "$ns_s" "$ns_rss" "$rog_s" "$rog_rss" \
            "$og_s" "$og_rss" "$all_values" <<'EOF'
import array, json, re, sys
code, k, n, base, ns_s, ns_rss, rog_s, rog_rss, og_s, og_rss, all_values = sys.argv[1:]
k, n = int(k), int(n)
ns_s, rog_s, og_s = float(ns_s), float(rog_s), float(og_s)
try:
    report = json.load(open(base + ".ns.json"))
except ValueError:
    # A stop: the error names the heap.
    stop = [l for l in open(base + ".ns.time") if l.startswith("error:")]
    print(f"| octal:{code} | 2^{k} | {stop[0].strip() if stop else 'no report'} |")
    sys.exit(0)
computed = report["values_computed"]

def frequencies_ns(power):
    """nimstream's counts of heaps 1 … 2^power, plus heap 0 (value 0)."""
    counts, current = {}, None
    for line in open(base + ".ns.freq"):
        if line.startswith("# heaps 2^"):
            current = int(line.split("^")[1])
        elif current == power:
            value, count = map(int, line.split())
            counts[value] = count
    counts[0] = counts.get(0, 0) + 1
    return counts

def frequencies_rog():
    """Rogalski's last counts (heaps 0 … 2^power) and that power."""
    text = open(base + ".rog.out").read()
    found = list(re.finditer(r"^(\d+) freqs after [^\n]*\n(\[.*?^\])", text, re.S | re.M))
    blocks = {int(m.group(1)).bit_length() - 1: m.group(2) for m in found}
    return {p: {e["nimber"]: e["frequency"] for e in json.loads(b) if e["frequency"]}
            for p, b in blocks.items()}

rog = frequencies_rog()
ours_powers = {int(l.split("^")[1]) for l in open(base + ".ns.freq") if l.startswith("# heaps")}
common = sorted(set(rog) & ours_powers)
if common:
    power = common[-1]
    agree_rog = "yes, 2^%d" % power if frequencies_ns(power) == rog[power] else "NO, 2^%d" % power
else:
    agree_rog = "no common power"

og_text = open(base + ".og.out").read()
og_last = re.search(r"nimber of (\d+): (\d+)", og_text)
ours_last = report["heaps"][0]["grundy"]
agree_og = "NO: ogsolve printed no last value"
if og_last:
    agree_og = "g(2^%d)" % k if int(og_last.group(2)) == ours_last else "NO: g(2^%d)" % k
if all_values:
    ours = array.array("H")
    with open(all_values + ".ns.u16", "rb") as f:
        ours.frombytes(f.read())
    line = next(l for l in open(all_values + ".og.values") if "nimbers:" in l)
    theirs = line.split("nimbers:")[1].split()
    upto = min(len(ours), len(theirs))
    same = all(int(theirs[i]) == ours[i] for i in range(upto))
    agree_og += (", all %s values" % f"{upto:,}") if same else ", values NO"

def rate(values, seconds):
    return values / seconds / 1e6 if seconds > 0 else float("nan")

ns_rate = rate(computed, ns_s)
rog_rate = rate(n, rog_s)
og_rate = rate(n, og_s)
print(f"| octal:{code} | 2^{k} | {computed:,} | {ns_s:.2f} s | {ns_rate:.2f} | {int(ns_rss)/1024:.0f} MiB | "
      f"{rog_s:.2f} s | {rog_rate:.2f} | {int(rog_rss)/1024:.0f} MiB | "
      f"{og_s:.2f} s | {og_rate:.2f} | {int(og_rss)/1024:.0f} MiB | "
      f"{rog_s / ns_s:.1f} | {og_s / ns_s:.1f} | {agree_rog} | {agree_og} |")
EOF
)")
        rm -f "$work/$tag".*
    done
done

section=$(
    echo "<!-- sequences: begin (written by bench/sequences.sh; bench/compare.sh keeps it) -->"
    echo "## Value sequences past memory (bench/sequences.sh)"
    echo
    echo "Written by \`bench/sequences.sh ${exponents[*]}\` on $(date -u +%Y-%m-%d) (UTC): heaps 0 … 2^K of each"
    echo "game by \`nimstream grundy octal:G --max-values 2^K+1 --memory 64MiB --frequencies F --json\`,"
    echo "Rogalski's \`octal G 2^K+1\` (built with \`--features nimber_u8\`, \`nimber_u16\` for 0.034) and"
    echo "\`ogsolve G -m rc2 -n 2^K\` ($("$og" --version 2>/dev/null || echo ogsolve)), one run each under"
    echo "\`/usr/bin/time -v\`: wall time, millions of values a second, peak RSS. 0.16's period is proven"
    echo "at 509,622 values, where nimstream stops and answers every heap through the period; its peers go"
    echo "on. The ratios are each peer's wall time over nimstream's for the same heaps 0 … 2^K (for 0.161"
    echo "and 0.034, the ratio of values a second). Agreement: the frequencies at the last 2^k both print (Rogalski's count"
    echo "heap 0 too); g(2^K) against ogsolve's (nimstream's through the period for 0.16); every value"
    echo "nimstream computed against \`ogsolve -p\` at 2^${exponents[0]}."
    echo
    echo "| game | heaps to | nimstream values | nimstream | M values/s | peak RSS | octal (Rogalski) | M values/s | peak RSS | ogsolve | M values/s | peak RSS | × octal | × ogsolve | frequencies agree | values agree |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
    echo
    echo "Machine: $(lscpu | awk -F': +' '/^Model name/ { print $2; exit }'), nproc $(nproc);"
    echo "nimstream $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)."
    echo "<!-- sequences: end -->"
)
write_section "$results" sequences "$section"
echo "wrote the sequences section of $results" >&2
echo "$section"
