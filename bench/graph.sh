#!/usr/bin/env bash
# Game graphs (SPEC section 9), side by side with seed 003's fourth program
# (../shared/peers/seed003_graph.cpp: reads with `cin >>`, recursive DFS
# with mex; compiled here with `g++ -O2`, run with `ulimit -s unlimited`
# since it recurses as deep as the longest path) on the same input:
#
# 1. a random DAG of NODES nodes and 5·NODES edges (10^7 and 5·10^7 by
#    default), 1000 tokens: each side runs RUNS times, alternating,
#    under /usr/bin/time -v; medians of the wall-clock times, their ratio,
#    peak RSS, and both answers, which must agree. Targets: nimstream at
#    least 3x faster, peak RSS at most 16 bytes per node and edge;
# 2. a random graph with cycles of NODES/10 nodes and 5·NODES/10 edges:
#    nimstream's time and memory (medians of RUNS), and what the peer,
#    which assumes a DAG, answers there.
#
# Inputs come from `cargo run --release --example graph_gen` (deterministic
# for the seed). Writes the section between the graph markers of
# bench/RESULTS.md (bench/compare.sh keeps it).
#
# Usage: bench/graph.sh [NODES]      NODES defaults to 10000000
# Environment: RUNS (runs per side, default 5), BENCH_DIR (where the
# inputs go; default a new directory under /tmp, removed at the end),
# PEER_SOURCE (the peer's C++ source).
set -euo pipefail

nodes=${1:-10000000}
runs=${RUNS:-5}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
results="$repo/bench/RESULTS.md"
# shellcheck source=bench/sections.sh
. "$repo/bench/sections.sh"
peer_source=${PEER_SOURCE:-$repo/../shared/peers/seed003_graph.cpp}
edges=$((5 * nodes))
cyclic_nodes=$((nodes / 10))
cyclic_edges=$((5 * cyclic_nodes))
tokens=1000

for tool in g++ python3; do
    command -v "$tool" >/dev/null || { echo "error: $tool is needed" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "error: /usr/bin/time is needed (apt-get install time)" >&2; exit 1; }
[ -f "$peer_source" ] || { echo "error: no peer source at $peer_source (set PEER_SOURCE)" >&2; exit 1; }

echo "building the release binary and the generator" >&2
(cd "$repo" && cargo build --release --quiet --bin nimstream --example graph_gen)
target_dir=${CARGO_TARGET_DIR:-$repo/target}
bin="$target_dir/release/nimstream"
gen="$target_dir/release/examples/graph_gen"

work=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/nimstream-graph.XXXXXX")}
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
echo "building the peer with g++ -O2" >&2
g++ -O2 -o "$work/peer" "$peer_source"

dag="$work/dag.txt"
cyclic="$work/cyclic.txt"
echo "generating a DAG of $nodes nodes and $edges edges" >&2
"$gen" dag "$nodes" "$edges" "$tokens" 1 "$dag"
echo "generating a graph with cycles of $cyclic_nodes nodes and $cyclic_edges edges" >&2
"$gen" cyclic "$cyclic_nodes" "$cyclic_edges" "$tokens" 2 "$cyclic"

# Runs a command under /usr/bin/time -v; prints "seconds peak_kib", the
# command's standard output going to $work/out.
timed() {
    /usr/bin/time -v "$@" >"$work/out" 2>"$work/time" || {
        cat "$work/time" >&2
        return 1
    }
    python3 - "$work/time" <<'EOF'
import sys
text = open(sys.argv[1]).read()
fields = dict(line.strip().rsplit(": ", 1) for line in text.splitlines() if ": " in line)
clock = fields["Elapsed (wall clock) time (h:mm:ss or m:ss)"].split(":")
seconds = sum(float(part) * 60 ** i for i, part in enumerate(reversed(clock)))
print(seconds, fields["Maximum resident set size (kbytes)"])
EOF
}

# The peer on an input, its stack unlimited: a command line for timed.
peer=(bash -c 'ulimit -s unlimited && exec "$0" < "$1"' "$work/peer")

winner_of() { # nimstream's JSON report → its winner
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["winner"])' "$1"
}

# 1. The DAG, alternating the two sides.
ours=()
theirs=()
for run in $(seq "$runs"); do
    echo "== run $run of $runs: nimstream graph, then the peer" >&2
    ours+=("$(timed "$bin" graph --json "$dag")")
    cp "$work/out" "$work/ours.json"
    theirs+=("$(timed "${peer[@]}" "$dag")")
    cp "$work/out" "$work/theirs.txt"
done
our_answer=$(winner_of "$work/ours.json")
their_answer=$(tr -d '[:space:]' <"$work/theirs.txt" | tr '[:upper:]' '[:lower:]')
if [ "$our_answer" != "$their_answer" ]; then
    echo "error: nimstream says $our_answer, the peer says $their_answer" >&2
    exit 1
fi

# 2. The graph with cycles.
cyclic_runs=()
for run in $(seq "$runs"); do
    echo "== run $run of $runs: nimstream graph on the graph with cycles" >&2
    cyclic_runs+=("$(timed "$bin" graph --json "$cyclic")")
done
cp "$work/out" "$work/cyclic.json"
peer_on_cycles=$("${peer[@]}" "$cyclic" | tr -d '[:space:]')

row=$(python3 - "$nodes" "$edges" "$(stat -c %s "$dag")" "$our_answer" "$work/ours.json" \
    "${ours[*]}" "${theirs[*]}" <<'EOF'
import json, statistics, sys
nodes, edges, size, answer, report, ours, theirs = sys.argv[1:]
nodes, edges, size = int(nodes), int(edges), int(size)
pairs = lambda text: [tuple(map(float, text.split()[i:i + 2])) for i in range(0, len(text.split()), 2)]
ours, theirs = pairs(ours), pairs(theirs)
ns, peer = statistics.median(s for s, _ in ours), statistics.median(s for s, _ in theirs)
ns_rss, peer_rss = max(k for _, k in ours) * 1024, max(k for _, k in theirs) * 1024
per = ns_rss / (nodes + edges)
stats = json.load(open(report))["stats"]
met = "yes" if peer / ns >= 3 and per <= 16 else "no"
print(f"| random DAG | {nodes:,} | {edges:,} | {size / 2**20:.0f} MiB | {ns:.2f} s "
      f"(read {stats['read_seconds']:.2f}, solve {stats['solve_seconds']:.2f}) | {peer:.2f} s | "
      f"{peer / ns:.1f}x | {ns_rss / 2**20:.0f} MiB ({per:.1f} B) | {peer_rss / 2**20:.0f} MiB | "
      f"{answer} / {answer} | {met} |")
EOF
)
cyclic_row=$(python3 - "$cyclic_nodes" "$cyclic_edges" "$(stat -c %s "$cyclic")" "$work/cyclic.json" \
    "${cyclic_runs[*]}" "$peer_on_cycles" <<'EOF'
import json, statistics, sys
nodes, edges, size, report, runs, peer_answer = sys.argv[1:]
nodes, edges, size = int(nodes), int(edges), int(size)
values = list(map(float, runs.split()))
seconds, rss = statistics.median(values[0::2]), max(values[1::2]) * 1024
report = json.load(open(report))
stats = report["stats"]
print(f"| random, with cycles | {nodes:,} | {edges:,} | {size / 2**20:.0f} MiB | {seconds:.2f} s "
      f"(read {stats['read_seconds']:.2f}, solve {stats['solve_seconds']:.2f}) | "
      f"{nodes - stats['acyclic_nodes']:,} reach a cycle, {stats['rounds']} rounds | "
      f"{rss / 2**20:.0f} MiB ({rss / (nodes + edges):.1f} B) | {report['winner']} | "
      f"{peer_answer.lower()} |")
EOF
)

section=$(
    echo "<!-- graph: begin (written by bench/graph.sh; bench/compare.sh keeps it) -->"
    echo "## Game graphs (bench/graph.sh)"
    echo
    echo "Written by \`bench/graph.sh $nodes\` on $(date -u +%Y-%m-%d) (UTC). \`nimstream graph"
    echo "--json FILE\` against the game-graph program of the competitive-programming notes (\`g++ -O2\`, run with \`ulimit -s"
    echo "unlimited\`), $runs runs each, alternating, medians of the wall-clock times of"
    echo "\`/usr/bin/time -v\`; peak RSS is the largest of the runs, and B is bytes per"
    echo "node and edge. Inputs from \`examples/graph_gen.rs\` ($tokens tokens, seeds 1 and 2)."
    echo "Targets: at least 3x faster than the peer, peak RSS at most 16 B."
    echo
    echo "| input | nodes | edges | size | nimstream | peer | speed-up | nimstream peak RSS | peer peak RSS | answers | targets met |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|"
    echo "$row"
    echo
    echo "With cycles the peer's answer is not a result (it assumes a DAG and"
    echo "gives a node on the search's path the value 0); nimstream computes the"
    echo "generalized Sprague–Grundy function:"
    echo
    echo "| input | nodes | edges | size | nimstream | cyclic part | peak RSS | winner | the peer says |"
    echo "|---|---|---|---|---|---|---|---|---|"
    echo "$cyclic_row"
    echo
    echo "Machine: $(lscpu | awk -F': +' '/^Model name/ { print $2; exit }'), nproc $(nproc),"
    echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end; $(g++ --version | head -1);"
    echo "nimstream $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)."
    echo "<!-- graph: end -->"
)
write_section "$results" graph "$section"
echo "wrote the graph section of $results" >&2
echo "$section"
