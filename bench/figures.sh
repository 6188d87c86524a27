#!/usr/bin/env bash
# Regenerates every quoted output and figure of README.md and docs/*.md, in
# one command:
#
# - the quoted outputs (`<!-- output: … -->` blocks: in the README one
#   example a command, in docs/ the formats' errors, the JSON report, the
#   games, misère quotients, sequences, graphs, verify --table), rewritten
#   from what the release binary prints now;
# - the figures (`<!-- figure: … -->` … `<!-- end figure -->`): the
#   complexity run and its plot and CSV in docs/ (`nimstream complexity`,
#   the README), the table of space and time under each budget
#   (bench/space.sh, docs/performance.md), and the speed tables copied
#   from bench/RESULTS.md (docs/performance.md) and
#   bench/spark-results.md (docs/cluster.md).
#
# Both go through tests/readme.rs (README_BLESS=1 README_FIGURES=1), which
# without those variables checks the quoted outputs on every `cargo test`.
# The speed tables have their own scripts, which take longer and write
# bench/RESULTS.md (bench/compare.sh, games.sh, misere.sh, sequences.sh,
# record.sh, stdin.sh, graph.sh, updates.sh, long_decimal.sh, python.sh; spark.sh
# writes bench/spark-results.md): run this after them to copy their tables
# in. bench/misere_table.sh prints docs/misere.md's table of quotients, to
# paste by hand (it takes up to 10 s a game).
#
# Usage: bench/figures.sh          (a few minutes: the log row of the space
#                                   table makes 156,252 passes)
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
README_BLESS=1 README_FIGURES=1 cargo test --release --locked --test readme \
    the_readme_quotes_what_the_binary_prints
git --no-pager diff --stat -- README.md docs/
