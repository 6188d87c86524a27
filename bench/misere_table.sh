#!/usr/bin/env bash
# docs/misere.md's table of misère quotients: `grundy G --rule misere --json`
# for the named games and every octal game of 2 code digits (0.d1d2 and
# 4.d1d2, d2 ≠ 0; 0.d1 and 4.d1 for one digit), each with a time limit.
# Usage: bench/misere_table.sh [seconds a game, default 10] > table.md
set -u
limit=${1:-10}
bin=${NIMSTREAM:-target/release/nimstream}
games="kayles dawsons-kayles sub:1,3,4 octal:0.75 octal:4.7"
for lead in 0 4; do
    for d1 in 0 1 2 3 4 5 6 7; do
        [ "$d1" != 0 ] && games="$games octal:$lead.$d1"
        for d2 in 1 2 3 4 5 6 7; do games="$games octal:$lead.$d1$d2"; done
    done
done
echo "| game | order | preperiod | period | heaps_computed | seconds | stopped because |"
echo "|---|---|---|---|---|---|---|"
json=$(mktemp)
trap 'rm -f "$json"' EXIT
for game in $games; do
    if ! timeout "$limit" "$bin" grundy "$game" --rule misere --json >"$json" 2>&1; then
        echo "| $game | | | | | > $limit | not finished within $limit s |"
        continue
    fi
    human=$(timeout "$limit" "$bin" grundy "$game" --rule misere --values 0 | sed -n 3p)
    python3 - "$game" "$json" "$human" <<'PY'
import json, sys
game, out, human = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3]
p = out["pretending"]
why = "period proven" if p["period"] is not None else human.split("(", 1)[-1].rstrip(")")
print(f"| {game} | {out['order']} | {p['preperiod'] if p['preperiod'] is not None else '—'} | "
      f"{p['period'] if p['period'] is not None else '—'} | {out['heaps_computed']} | "
      f"{out['seconds']:.3f} | {why} |")
PY
done
