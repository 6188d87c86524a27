#!/usr/bin/env bash
# Times the release binary on generated files against `cat FILE > /dev/null`
# (and the peers a user would reach for, where installed: Python's
# int(..., 2/16) XOR for bits and hex, numpy's bitwise_xor.reduce over a
# memmap for u64le), with all cores and with `-j 1`, and writes
# bench/RESULTS.md: medians, throughput, the ratio to cat from the same run,
# peak RSS, and the machine. The inputs are the long shapes (heaps of up to
# 4,096 bits, 20-digit decimals, four huge heaps) and the short ones `gen`
# writes by default (`--bits 1..64`, `1..10` for unary), hex of up to 128
# bits (`u128` written out: half its tokens 17-32 digits), and a mixed hex
# file (runs of 64 short tokens, each followed by a long one) timed beside
# its two parts (its short tokens and its long ones, each a file).
#
# Usage: bench/compare.sh [SIZE]      SIZE defaults to 1GiB (e.g. 256MiB)
# Environment: RUNS (timed runs per command, default 5), KEEP_DATA=1 keeps
# the generated files, BENCH_DIR picks where they go (default: a new
# directory under ${TMPDIR:-/tmp}). BASELINE=PATH names a previous build
# of nimstream to run side by side in the same runs: its time, the ratio of
# the two, its peak RSS, and the working memory of both under small
# budgets (`--memory log`, `--memory 64KiB`, standard input) on 16 MiB
# inputs of every format. LOG_RUNS (default 1) times `analyze --memory log`
# on each input but the four long heaps (a 64-bit window over a nim-sum of
# 2^28 bits would be millions of passes): the time of one pass against
# cat's. LONG_DECIMAL=0 skips bench/long_decimal.sh (9,000,000-digit heaps
# against GMP), which otherwise runs last and writes its own section.
set -euo pipefail

size=${1:-1GiB}
runs=${RUNS:-5}
log_runs=${LOG_RUNS:-1}
keep=${KEEP_DATA:-0}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
results="$repo/bench/RESULTS.md"
# shellcheck source=bench/sections.sh
. "$repo/bench/sections.sh"

need_tool() {
    local tool=$1 package=$2
    command -v "$tool" >/dev/null 2>&1 && return
    echo "installing $package (for $tool)" >&2
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq "$package" >/dev/null
}
need_tool hyperfine hyperfine
need_tool python3 python3
[ -x /usr/bin/time ] || need_tool /usr/bin/time time

echo "building the release binary" >&2
(cd "$repo" && cargo build --release --quiet)
target_dir=${CARGO_TARGET_DIR:-$repo/target}
bin="$target_dir/release/nimstream"
baseline=${BASELINE:-}
if [ -n "$baseline" ] && [ ! -x "$baseline" ]; then
    echo "error: BASELINE=$baseline is not an executable" >&2
    exit 1
fi

bytes=$(python3 - "$size" <<'EOF'
import re, sys
m = re.fullmatch(r"(\d+)\s*(|b|k|kib|m|mib|g|gib)", sys.argv[1].strip().lower())
if not m:
    sys.exit(f"bad size {sys.argv[1]!r}: expected e.g. 1GiB or 256MiB")
unit = {"": 1, "b": 1, "k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20,
        "g": 1 << 30, "gib": 1 << 30}[m.group(2)]
print(int(m.group(1)) * unit)
EOF
)
work=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/nimstream-bench.XXXXXX")}
mkdir -p "$work"
if [ "$keep" != 1 ]; then
    trap 'rm -rf "$work"' EXIT
fi
free_kib=$(df -Pk "$work" | awk 'NR == 2 { print $4 }')
if [ $((free_kib * 1024)) -lt $((bytes * (keep == 1 ? 7 : 2))) ]; then
    echo "error: $work has $((free_kib / 1024)) MiB free; the inputs of $size need more" >&2
    exit 1
fi

# name | gen arguments | target ratio to cat | peer: int base, numpy, or -
quarter_bits=$((bytes / 4))
cases=(
    "u64le|--format u64le --size $bytes --bits 64|1.3|numpy"
    "bits-many|--format bits --size $bytes --bits 1..4096|1.0|2"
    "bits-four|--format bits --heaps 4 --bits $quarter_bits|0.9|2"
    "unary|--format unary --size $bytes --bits 1..20|1.0|-"
    "hex|--format hex --size $bytes --bits 1..4096|0.9|16"
    "dec-20|--format dec --size $bytes --bits 64|0.5|-"
    "bits-short|--format bits --size $bytes --bits 1..64|1.0|-"
    "unary-short|--format unary --size $bytes --bits 1..10|1.0|-"
    "hex-short|--format hex --size $bytes --bits 1..64|0.5|-"
    "dec-short|--format dec --size $bytes --bits 1..64|0.5|-"
    "hex-u128|--format hex --size $bytes --bits 1..128|0.5|-"
)

# The peer: Python big integers, XOR of int(token, base) over all tokens.
peer_script='import sys
x = 0
for t in open(sys.argv[1], "rb").read().split():
    x ^= int(t, int(sys.argv[2]))
print(x.bit_length())'

# The numpy peer: XOR-reduce of the file mapped as little-endian u64.
numpy_script='import sys, numpy
a = numpy.memmap(sys.argv[1], dtype="<u8", mode="r")
print(int(numpy.bitwise_xor.reduce(a)).bit_length())'
have_numpy=0
python3 -c 'import numpy' 2>/dev/null && have_numpy=1

# Peak RSS in KiB of one `analyze --json FILE` by the binary $1.
peak_rss_kib() {
    { /usr/bin/time -v "$1" analyze --json "$2" >/dev/null; } 2>&1 |
        awk -F': ' '/Maximum resident set size/ { print $2 }'
}

# The target of one pass of `--memory log`, as a ratio to cat.
log_pass_target=0.5
# Peak RSS of the one pass, at most (MiB).
rss_target=64

rows=()
log_rows=()
details=()
sides=()
for case in "${cases[@]}"; do
    IFS='|' read -r name gen_args target peer <<<"$case"
    file="$work/$name.${name%%-*}"
    case $name in
        u64le) file="$work/$name.u64" ;;
    esac
    echo "== $name: generating $size" >&2
    # shellcheck disable=SC2086 # gen_args is a list of words
    gen_summary=$("$bin" gen $gen_args --json -o "$file" 2>&1 >/dev/null)
    # Write the new file out now, so that its writeback does not run
    # (and take a core) while it is timed, and drop its pages, so that the
    # first cat brings it back as a file at rest (at_rest,
    # bench/sections.sh).
    at_rest "$file"
    file_bytes=$(stat -c %s "$file")
    expected_bits=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["nim_sum_bit_length"])' "$gen_summary")

    # The page cache drops idle pages after about a minute: read the file
    # right before every timed run.
    commands=("cat $file > /dev/null" "$bin analyze --json $file > /dev/null"
        "$bin analyze -j 1 --json $file > /dev/null")
    if [ -n "$baseline" ]; then
        commands+=("$baseline analyze --json $file > /dev/null")
    fi
    peer_name=""
    case $peer in
        numpy)
            if [ "$have_numpy" = 1 ]; then
                commands+=("python3 -c '$numpy_script' $file > /dev/null")
                peer_name="numpy"
            fi
            ;;
        -) ;;
        *)
            commands+=("python3 -c '$peer_script' $file $peer > /dev/null")
            peer_name="int()"
            ;;
    esac
    json="$work/$name.hyperfine.json"
    interleaved "$json" "$runs" 1 "$file" "${commands[@]}"

    cat "$file" >/dev/null
    report=$("$bin" analyze --json "$file")
    found_bits=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["nim_sum"]["bit_length"])' "$report")
    if [ "$found_bits" != "$expected_bits" ]; then
        echo "error: $name: nimstream found a nim-sum of $found_bits bits, gen wrote $expected_bits" >&2
        exit 1
    fi
    cat "$file" >/dev/null
    rss_kib=$(peak_rss_kib "$bin" "$file")

    if [ "$name" != bits-four ]; then
        log_json="$work/$name.log.hyperfine.json"
        interleaved "$log_json" "$log_runs" 0 "$file" "cat $file > /dev/null" \
            "$bin analyze --memory log --json $file > /dev/null"
        cat "$file" >/dev/null
        # The passes, and how many times they read the file: a pass that
        # stops early (the first holder found) reads only part of it.
        log_stats=$("$bin" analyze --memory log --json "$file" |
            python3 -c 'import json,sys; s = json.load(sys.stdin)["stats"]; print(s["passes"], s["bytes_scanned"])')
        # shellcheck disable=SC2086 # two numbers
        log_rows+=("$(python3 - "$name" "$(median "$log_json" 0)" "$(median "$log_json" 1)" $log_stats "$(stat -c %s "$file")" "$log_pass_target" <<'EOF'
import sys
name, cat_s, log_s = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
passes, scanned, size, target = int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), float(sys.argv[7])
reads = scanned / size
ratio = cat_s * reads / log_s
met = "yes" if ratio >= target else "no"
print(f"| {name} | {passes} | {reads:.2f} | {log_s:.2f} s | {log_s / reads * 1000:.0f} ms | {cat_s * 1000:.0f} ms "
      f"| {ratio:.3f} | ≥ {target} | {met} |")
EOF
)")
    fi

    cat_s=$(median "$json" 0)
    ns_s=$(median "$json" 1)
    ns1_s=$(median "$json" 2)
    next=3
    if [ -n "$baseline" ]; then
        base_s=$(median "$json" 3)
        next=4
        cat "$file" >/dev/null
        base_rss_kib=$(peak_rss_kib "$baseline" "$file")
        sides+=("$(python3 - "$name" "$ns_s" "$base_s" "$rss_kib" "$base_rss_kib" <<'EOF'
import sys
name, ns_s, base_s, rss, base_rss = sys.argv[1], *map(float, sys.argv[2:])
print(f"| {name} | {base_s * 1000:.0f} ms | {ns_s * 1000:.0f} ms | {ns_s / base_s:.3f} "
      f"| {base_rss / 1024:.0f} MiB | {rss / 1024:.0f} MiB |")
EOF
)")
    fi
    peer_cell="–"
    if [ -n "$peer_name" ]; then
        peer_s=$(median "$json" "$next")
        peer_cell=$(python3 -c 'import sys; s=float(sys.argv[1]); print(f"{sys.argv[2]} {s:.2f} s")' "$peer_s" "$peer_name")
    fi
    rows+=("$(python3 - "$name" "$file_bytes" "$cat_s" "$ns_s" "$ns1_s" "$target" "$rss_kib" "$peer_cell" "$rss_target" <<'EOF'
import sys
name, size, cat_s, ns_s, ns1_s, target, rss_kib, peer, rss_target = sys.argv[1:]
size, cat_s, ns_s, ns1_s, target = int(size), float(cat_s), float(ns_s), float(ns1_s), float(target)
ratio = cat_s / ns_s
rss = int(rss_kib) / 1024
met = "yes" if ratio >= target and rss <= int(rss_target) else "no"
print(f"| {name} | {size / 2**20:.0f} MiB | {cat_s * 1000:.0f} ms | {ns_s * 1000:.0f} ms "
      f"| {size / ns_s / 1e9:.2f} GB/s | {ratio:.3f} | ≥ {target} | {ns1_s * 1000:.0f} ms "
      f"| {rss:.0f} MiB | {peer} | {met} |")
EOF
)")
    details+=("- \`$name\`: \`nimstream gen $gen_args\` → $gen_summary; analyze found a nim-sum of $found_bits bits")
    [ "$keep" = 1 ] || rm -f "$file"
done

# The mixed file: runs of 64 short hex tokens (--bits 1..64), each followed
# by a long one (--bits 1..4096), cut at SIZE; its parts are its short
# tokens (16 digits at most) and its long ones, each a file of its own.
# Timed in the same rounds, with cat before each run.
echo "== hex-mixed: generating $size and its parts" >&2
sources=$((bytes * 3 / 5))
"$bin" gen --format hex --size "$sources" --bits 1..64 -o "$work/mixed-short.src" 2>/dev/null
"$bin" gen --format hex --size "$sources" --bits 1..4096 -o "$work/mixed-long.src" 2>/dev/null
mixed="$work/hex-mixed.hex"
short_part="$work/mixed-part-short.hex"
long_part="$work/mixed-part-long.hex"
# 64 dashes: paste reads 64 lines of its standard input for each line of the
# long file; it is cut off (SIGPIPE) once head has SIZE bytes.
# shellcheck disable=SC2046 # the dashes are words
{ paste -d '\n' $(printf -- '- %.0s' $(seq 64)) "$work/mixed-long.src" <"$work/mixed-short.src" ||
    true; } | head -c "$bytes" >"$mixed"
rm -f "$work/mixed-short.src" "$work/mixed-long.src"
awk -v short="$short_part" -v long="$long_part" \
    'length($0) > 16 { print > long; next } { print > short }' "$mixed"
at_rest "$mixed" "$short_part" "$long_part"
mixed_json="$work/mixed.hyperfine.json"
interleaved "$mixed_json" "$runs" 1 "$mixed" "cat $mixed > /dev/null" \
    "$bin analyze --json $mixed > /dev/null" \
    "cat $short_part > /dev/null; $bin analyze --json $short_part > /dev/null" \
    "cat $long_part > /dev/null; $bin analyze --json $long_part > /dev/null" \
    "cat $short_part > /dev/null" "cat $long_part > /dev/null"
mixed_row=$(python3 - "$(stat -c %s "$mixed")" "$(stat -c %s "$short_part")" \
    "$(stat -c %s "$long_part")" "$(median "$mixed_json" 0)" "$(median "$mixed_json" 1)" \
    "$(median "$mixed_json" 2)" "$(median "$mixed_json" 3)" "$(median "$mixed_json" 4)" \
    "$(median "$mixed_json" 5)" <<'EOF'
import sys
size, short_size, long_size = map(int, sys.argv[1:4])
cat_s, mixed_s, short_run, long_run, short_cat, long_cat = map(float, sys.argv[4:10])
# Each part's command ran its cat first: its cat's median is taken off.
short_s, long_s = short_run - short_cat, long_run - long_cat
parts = short_s + long_s
met = "yes" if mixed_s <= parts else "no"
print(f"| {size / 2**20:.0f} MiB | {cat_s * 1000:.0f} ms | {mixed_s * 1000:.0f} ms | {cat_s / mixed_s:.3f} "
      f"| {short_size / 2**20:.0f} MiB: {short_s * 1000:.0f} ms | {long_size / 2**20:.0f} MiB: {long_s * 1000:.0f} ms "
      f"| {parts * 1000:.0f} ms | {mixed_s / parts:.3f} | {met} |")
EOF
)
mixed_lines=$(wc -l <"$mixed")
[ "$keep" = 1 ] || rm -f "$mixed" "$short_part" "$long_part"

# Working memory under small budgets, both builds, on small inputs of every
# format (one pass per window: a 1 GiB file would take minutes).
memory_rows=()
if [ -n "$baseline" ]; then
    small=$((16 << 20))
    for spec in "bits|--bits 1..256" "hex|--bits 1..256" "dec|--bits 1..256" \
        "unary|--bits 1..20" "u64le|--bits 64" "nimb|--bits 1..256" \
        "bits|--bits 1..64" "hex|--bits 1..64" "dec|--bits 1..64" "unary|--bits 1..10"; do
        IFS='|' read -r format bits <<<"$spec"
        file="$work/small.$format"
        # shellcheck disable=SC2086 # bits is a list of words
        "$bin" gen --format "$format" --size "$small" $bits -o "$file" 2>/dev/null
        for memory in log 64KiB stdin-log; do
            memory_rows+=("$(python3 - "$format" "$memory" "$baseline" "$bin" "$file" "$bits" <<'EOF'
import json, subprocess, sys
fmt, memory, old, new, path, bits = sys.argv[1:]
def run(binary):
    args = [binary, "analyze", "--json", "--memory", memory.removeprefix("stdin-")]
    if memory.startswith("stdin"):
        with open(path, "rb") as data:
            out = subprocess.run([*args, "--format", fmt, "-"], stdin=data,
                                 capture_output=True, check=True).stdout
    else:
        out = subprocess.run([*args, path], capture_output=True, check=True).stdout
    report = json.loads(out)
    report["input"].pop("path")
    return report, report.pop("stats")
(old_report, old_stats), (new_report, new_stats) = run(old), run(new)
same = "yes" if old_report == new_report else "**no**"
shown = "log, standard input" if memory == "stdin-log" else memory
print(f"| {fmt}, {bits} | {shown} | {old_stats['working_memory_bytes']} | {new_stats['working_memory_bytes']} "
      f"| {old_stats['passes']} | {new_stats['passes']} | {same} |")
EOF
)")
        done
        rm -f "$file"
    done
fi

cpu=$(lscpu | awk -F': +' '/^Model name/ { print $2; exit }')
# The sections the other bench scripts write are kept as they are.
kept=$(kept_sections "$results")
{
    echo "# nimstream against cat"
    echo
    echo "Written by \`bench/compare.sh $size\` on $(date -u +%Y-%m-%d) (UTC)."
    echo "Each command ran $runs times after one warm-up round, the commands in"
    echo "turn (one run of each per round, so that a drift of the machine's speed"
    echo "weighs on all alike; each round in an order of its own, so that no"
    echo "command always follows the same one), with \`cat FILE > /dev/null\` before every run so"
    echo "the file is in the page cache (each file, once made, is dropped from the"
    echo "cache, so that the first cat brings it back by read-ahead, as a file at"
    echo "rest comes back); times are medians of hyperfine's runs."
    echo "The ratio is nimstream's throughput over cat's (cat's median time over"
    echo "nimstream's) from the same rounds. Peak RSS is"
    echo "\`/usr/bin/time -v\` of one \`nimstream analyze --json FILE\`; a target is"
    echo "met when the ratio is at least the target and peak RSS at most $rss_target MiB."
    echo
    echo "| input | size | cat | nimstream | nimstream throughput | ratio to cat | target | nimstream -j 1 | peak RSS | peer | target met |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
    echo
    echo "## A mixed file and its parts"
    echo
    echo "\`hex-mixed\`: runs of 64 tokens of \`gen --format hex --bits 1..64\`, each"
    echo "followed by one of \`gen --format hex --bits 1..4096\` (\`paste\`, $mixed_lines lines),"
    echo "cut at $size; its parts are its tokens of at most 16 digits and its"
    echo "longer ones, each a file. \`nimstream analyze --json\` on each, in the same"
    echo "rounds ($runs after a warm-up; a part's time is its command's less its"
    echo "own cat's median). Target: the mixed file no slower than its parts."
    echo
    echo "| mixed | cat | nimstream | ratio to cat | short part | long part | parts together | mixed over parts | target met |"
    echo "|---|---|---|---|---|---|---|---|---|"
    echo "$mixed_row"
    echo
    echo "## One pass of \`--memory log\`"
    echo
    echo "\`nimstream analyze --memory log --json FILE\` on the same files (up to"
    echo "two threads, each with a window of 64 bits of the nim-sum per pass, reading"
    echo "half of the file through its map with the pages released behind),"
    echo "median of $log_runs run(s),"
    echo "each in turn with a timed \`cat FILE > /dev/null\` (and after an untimed"
    echo "one). The ratio is that of one read of the file to cat's: cat's median"
    echo "time in those rounds times the file's reads"
    echo "(bytes scanned over its size: a pass that stops early, at the first"
    echo "holder of the msb, reads only part of it), over the whole run's time."
    echo "The four long heaps are left out: their nim-sum, a quarter of the file's"
    echo "bits long, would take millions of 64-bit windows."
    echo
    echo "| input | passes | file reads | time | per file read | cat | ratio of a read to cat | target | target met |"
    echo "|---|---|---|---|---|---|---|---|---|"
    printf '%s\n' "${log_rows[@]}"
    if [ -n "$baseline" ]; then
        echo
        echo "## Against the baseline, side by side"
        echo
        echo "The baseline ($("$baseline" --version)) ran in the same rounds, in"
        echo "turn with this build; the ratio is this build's median time over"
        echo "the baseline's (below 1: faster)."
        echo
        echo "| input | baseline | this build | ratio | baseline peak RSS | peak RSS |"
        echo "|---|---|---|---|---|---|"
        printf '%s\n' "${sides[@]}"
        echo
        echo "Working memory (\`stats.working_memory_bytes\`) under small budgets, on"
        echo "16 MiB inputs made by \`nimstream gen --size 16MiB\`, and whether the"
        echo "two reports are the same (stats aside):"
        echo
        echo "| format, gen | --memory | baseline bytes | bytes | baseline passes | passes | same report |"
        echo "|---|---|---|---|---|---|---|"
        printf '%s\n' "${memory_rows[@]}"
    fi
    echo
    echo "## Machine and tools"
    echo
    echo "- CPU: $cpu; nproc: $(nproc); memory: $(free -g | awk '/^Mem:/ { print $2 }') GiB"
    echo "- kernel: $(uname -r)"
    echo "- nimstream: $("$bin" --version) (commit $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)); $(rustc --version)"
    echo "- $(hyperfine --version); $(python3 --version)$( [ "$have_numpy" = 1 ] && python3 -c 'import numpy; print("; numpy", numpy.__version__)')"
    echo
    echo "## Inputs and answers"
    echo
    printf '%s\n' "${details[@]}"
    if [ -n "$kept" ]; then
        echo
        echo "$kept"
    fi
} >"$results"
echo "wrote $results" >&2
if [ "${LONG_DECIMAL:-1}" != 0 ]; then
    echo "== long decimals (bench/long_decimal.sh)" >&2
    RUNS=$runs "$repo/bench/long_decimal.sh" >&2
fi
cat "$results"
