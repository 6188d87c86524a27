# Sourced by the bench scripts: the sections of bench/RESULTS.md, and the
# timing helpers the scripts share (at_rest, median, interleaved).
#
# bench/RESULTS.md is bench/compare.sh's
# report followed by sections other scripts write, each between
# `<!-- NAME: begin … -->` and `<!-- NAME: end -->`: a script rewrites its
# own section (write_section), and compare.sh keeps them all (kept_sections).

# write_section RESULTS NAME TEXT: TEXT (with its markers) in place of the
# section NAME of RESULTS, or after the rest when there is none yet.
write_section() {
    python3 - "$1" "$2" "$3" <<'PY'
import re, sys
path, name, section = sys.argv[1:]
try:
    text = open(path).read()
except FileNotFoundError:
    text = ""
pattern = re.compile(r"<!-- %s: begin.*?<!-- %s: end -->\n?" % (re.escape(name), re.escape(name)), re.S)
if pattern.search(text):
    text = pattern.sub(lambda _: section + "\n", text)
else:
    text = text.rstrip("\n") + "\n\n" + section + "\n"
open(path, "w").write(text)
PY
}

# kept_sections RESULTS: every section of RESULTS, a blank line between.
kept_sections() {
    [ -f "$1" ] || return 0
    awk '/^<!-- [a-z0-9-]+: begin/ { on = 1; if (n++) print "" }
         on { print }
         /^<!-- [a-z0-9-]+: end -->/ { on = 0 }' "$1"
}

# Writes FILEs out and drops their pages from the page cache, so that the
# next read (the first `cat`) brings each back by the kernel's read-ahead,
# as it brings back a file at rest. A file just written keeps the pages its
# writer's small writes made: on an Intel Xeon (kernel 6.18, ext4) a GiB
# written through a pipe took `analyze -j 1` 76 ms of system time to read,
# and 4 ms once brought back by read-ahead (large folios: fewer faults
# and TLB misses), against 40 ms for a `cp` of it (user time 226 ms
# against the copy's 248, in the same runs), while cat's time barely
# moved. Files of one comparison (the mixed file and its parts, written
# by different tools) must come back the same way.
at_rest() { # FILE...
    sync "$@"
    local file
    for file in "$@"; do
        dd if="$file" iflag=nocache count=0 status=none
    done
}

median() { # hyperfine JSON, command index → median seconds
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]["median"])' "$1" "$2"
}

# Runs commands in turn: one run of each per round, each round in an order
# of its own, the rounds after WARMUP rounds that are not counted, with
# `cat FILE > /dev/null` before every run, so that the page cache holds the file and a drift of this
# shared machine's speed weighs on every command alike (hyperfine alone
# runs all of one command's runs, then the next's). Writes JSON in
# hyperfine's shape: results[i] has the command, its times and median.
interleaved() { # JSON ROUNDS WARMUP FILE COMMAND...
    local json=$1 rounds=$2 warmup=$3 file=$4
    shift 4
    local round parts=() order=()
    for ((round = 0; round < warmup + rounds; round++)); do
        local part="$json.round$round"
        # Each round in its own order (the same for every run of the
        # script), so that no command always follows the same one: what a
        # command leaves behind (a peer's gigabyte of freed memory, a hot
        # core) would otherwise weigh on its successor in every round.
        # (Indices are shuffled: a command may span lines.)
        local commands=("$@") at
        order=()
        for at in $(seq 0 $(($# - 1)) | shuf --random-source=<(yes "$round")); do
            order+=("${commands[at]}")
        done
        hyperfine --style basic --runs 1 --prepare "cat $file > /dev/null" \
            --export-json "$part" "${order[@]}" >&2
        if [ "$round" -ge "$warmup" ]; then parts+=("$part"); fi
    done
    python3 - "$json" "$#" "$@" "${parts[@]}" <<'EOF'
import json, statistics, sys
out, count = sys.argv[1], int(sys.argv[2])
commands, parts = sys.argv[3:3 + count], sys.argv[3 + count:]
rounds = [{r["command"]: r["times"][0] for r in json.load(open(part))["results"]}
          for part in parts]
# In the order the commands were given, whatever order each round ran.
results = []
for command in commands:
    times = [of_round[command] for of_round in rounds]
    results.append({"command": command, "times": times,
                    "median": statistics.median(times)})
json.dump({"results": results}, open(out, "w"), indent=1)
EOF
    rm -f "${parts[@]}"
}
