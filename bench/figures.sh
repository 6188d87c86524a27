#!/usr/bin/env bash
# Regenerates every figure the README and docs/ quote, in one command:
#
# - the quoted outputs (`<!-- output: … -->` blocks: the set-up example, the
#   error, the JSON report, Kayles, grundy, gen, verify, play), rewritten
#   from what the release binary prints now;
# - the figures (`<!-- figure: … -->` … `<!-- end figure -->`): the table of
#   space and time under each budget (bench/space.sh), the complexity run
#   and its plot and CSV in docs/ (`nimstream complexity`).
#
# Both go through tests/readme.rs (README_BLESS=1 README_FIGURES=1), which
# without those variables checks the quoted outputs on every `cargo test`.
# The speed tables have their own scripts, which take longer and write
# bench/RESULTS.md: bench/compare.sh, bench/games.sh.
#
# Usage: bench/figures.sh          (a few minutes: the log row of the space
#                                   table makes 156,252 passes)
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
README_BLESS=1 README_FIGURES=1 cargo test --release --locked --test readme \
    the_readme_quotes_what_the_binary_prints
git --no-pager diff --stat -- README.md docs/
