# Sourced by the bench scripts. bench/RESULTS.md is bench/compare.sh's
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
