"""`Game`, `graph`, `Position`, `partial` and `merge` against the CLI's
`grundy --json`, `graph --json`, `updates --moves --json`, `analyze --range
… --partial` and `merge --json` on the same inputs."""

import json
import random

import numpy
import pytest

import nimstream
from conftest import EXTENSION, FORMATS, without

GAMES = ["nim", "kayles", "dawsons-kayles", "dawsons-chess", "sub:1,3,4", "octal:0.16",
         "octal:4.7", "octal:0.4", "sub:2,5,7"]


@pytest.mark.parametrize("name", GAMES)
def test_games_as_grundy_json(cli, name):
    game = nimstream.Game(name)
    # Nim's values are the heaps themselves: no period, 2^16 of them.
    heaps = [0, 1, 70, 71, 12345] + ([] if name == "nim" else [10**40 + 7, 2**200])
    expected = cli.json("grundy", name, "--values", 300, "--json",
                        *[arg for h in heaps for arg in ("--heap", h)])
    assert without(game.to_dict(300, heaps), "seconds", "values_per_second") == without(
        expected, "seconds", "values_per_second")
    assert game.canonical == expected["game"]
    assert game.values_computed == expected["values_computed"]
    period = None if expected["period"] is None else (expected["preperiod"], expected["period"])
    assert game.period() == period
    values = game.values(300)
    assert isinstance(values, numpy.ndarray) and values.dtype == numpy.uint16
    assert values.tolist() == expected["values"]
    for entry in expected["heaps"]:
        assert game.value(int(entry["heap"])) == entry["grundy"]
    assert repr(game) == "Game({!r})".format(expected["game"])


def test_game_values_past_max_values_are_computed_as_the_cli(cli):
    # Too few values for a period: the report shows those computed, as the
    # CLI's does; values(n) computes more, as --max-values n would.
    game = nimstream.Game("octal:0.16", max_values=50)
    assert game.period() is None and game.values_computed == 50
    shown = cli.json("grundy", "octal:0.16", "--max-values", 50, "--values", 400, "--json")
    assert len(shown["values"]) == 50
    assert without(game.to_dict(400), "seconds", "values_per_second") == without(
        shown, "seconds", "values_per_second")
    expected = cli.json("grundy", "octal:0.16", "--max-values", 400, "--values", 400, "--json")
    assert game.values(400).tolist() == expected["values"]
    with pytest.raises(nimstream.UsageError, match="past the"):
        nimstream.Game("octal:0.16", max_values=50).value(10**6)
    with pytest.raises(nimstream.UsageError):
        nimstream.Game("octal:0.8")
    with pytest.raises(ValueError, match="negative"):
        nimstream.Game("kayles").value(-1)
    with pytest.raises(TypeError):
        nimstream.Game("kayles").value(1.5)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["kayles", "dawsons-kayles", "sub:1,3,4", "octal:0.6"])
def test_misere_quotients_are_the_clis_and_decide_sums_as_analyze(cli, name):
    # octal:0.6 proves no period within 40 heaps: its quotient is exact for
    # sums of the heaps computed, and a larger heap is an error.
    max_heap = 40 if name == "octal:0.6" else 4096
    quotient = nimstream.Game(name, max_values=1000).misere(max_heap)
    expected = cli.json("grundy", name, "--rule", "misere", "--max-heap", max_heap, "--json")
    assert without(quotient.to_dict(), "seconds") == without(expected, "seconds")
    assert quotient.elements[0] == "1" and quotient.order == len(quotient.elements)
    rng = random.Random(name)
    top = quotient.heaps_computed if quotient.period is None else 300
    # Each analyze computes the quotient again: few sums where that is slow.
    sums = 20 if quotient.period is not None else 5
    for _ in range(sums):
        heaps = [rng.randrange(top + 1) for _ in range(rng.randrange(6))]
        report = cli.json("analyze", "--game", name, "--rule", "misere", "--format", "dec",
                          "--json", "-", stdin="".join("{}\n".format(h) for h in heaps))
        assert quotient.outcome(heaps) == report["winner"], heaps
    if quotient.period is None:
        with pytest.raises(nimstream.UsageError, match="past the"):
            quotient.element(quotient.heaps_computed + 1)
    else:
        far = 10**30 + 7
        p, q = quotient.preperiod, quotient.period
        assert quotient.element(far) == quotient.element(p + (far - p) % q)
    with pytest.raises(ValueError, match="negative"):
        quotient.element(-1)
    with pytest.raises(nimstream.UsageError):
        nimstream.Game("octal:0.8").misere()


def graph_text(rng, nodes, edges, tokens, acyclic):
    pairs = []
    for _ in range(edges):
        u, v = rng.randrange(nodes), rng.randrange(nodes)
        if acyclic and u <= v:
            u, v = v, u
            if u == v:
                continue
        pairs.append((u, v))
    starts = [rng.randrange(nodes) for _ in range(tokens)]
    lines = ["{} {}".format(nodes, len(pairs))] + ["{} {}".format(u, v) for u, v in pairs]
    return "\n".join(lines + [str(tokens), " ".join(map(str, starts))]) + "\n"


def test_graphs_as_graph_json(cli, tmp_path):
    rng = random.Random(8)
    for case in range(30):
        text = graph_text(rng, rng.randint(1, 40), rng.randint(0, 80), rng.randint(1, 5),
                          acyclic=case % 2 == 0)
        path = tmp_path / "g{}.txt".format(case)
        path.write_text(text)
        expected = without(cli.json("graph", path, "--json"), "stats")
        assert without(nimstream.graph(path).to_dict(), "stats") == expected
        in_memory = nimstream.graph(text.encode(), name=str(path))
        assert without(in_memory.to_dict(), "stats") == expected
        assert in_memory.winner == expected["winner"] and in_memory.values == expected["values"]
        assert in_memory.move == expected["move"] and in_memory.sum == expected["sum"]
        assert (in_memory.nodes, in_memory.edges, in_memory.tokens) == (
            expected["nodes"], expected["edges"], expected["tokens"])
        mine, theirs = tmp_path / "mine.txt", tmp_path / "theirs.txt"
        nimstream.graph(path, values_out=mine)
        cli.json("graph", path, "--json", "--values-out", theirs)
        assert mine.read_text() == theirs.read_text()
    with pytest.raises(nimstream.InputError) as bad:
        nimstream.graph(b"2 1\n0 5\n1\n0\n")
    assert (bad.value.offset, bad.value.line, bad.value.column) == (6, 2, 3)


@pytest.mark.parametrize("fmt", ["dec", "hex", "u64le", "nimb"])
def test_positions_as_updates_json(cli, tmp_path, fmt):
    rng = random.Random(fmt)
    path = cli.gen(tmp_path / "in.{}".format(EXTENSION[fmt]), fmt, "--heaps", 60, "--seed", 4)
    width = 64 if fmt == "u64le" else 200
    updates = [(rng.randrange(60), rng.getrandbits(rng.randint(0, width))) for _ in range(40)]
    stdin = "".join("{} {}\n".format(i, x) for i, x in updates)
    for rule in ["normal", "misere"]:
        expected = cli.lines("updates", path, "--moves", "--json", "--rule", rule, stdin=stdin)
        position = nimstream.Position(path, rule=rule)
        statuses = [position.status()]
        for i, x in updates:
            position.set(i, x)
            statuses.append(position.status())
        assert statuses == expected
        assert position.heaps == 60
        last = expected[-1]
        assert position.winner == last["winner"]
        assert position.nim_sum == int(last["nim_sum"]["dec"])
        assert position.winning_moves == last["winning_moves"]
        assert (position.move is None) == (last["move"] is None)
        if position.move is not None:
            assert position.move.to_dict() == last["move"]


def test_positions_of_ints_bytes_and_arrays(cli, tmp_path):
    heaps = [3, 4, 5, 2**70]
    dec = tmp_path / "in.dec"
    dec.write_text(" ".join(map(str, heaps)) + "\n")
    updates = "0 1\n3 0x12345678901234567890\n"
    expected = [without(s, "move") for s in cli.lines("updates", dec, "--moves", "--json",
                                                      stdin=updates)]
    for source in [heaps, dec.read_bytes()]:
        position = nimstream.Position(source, format=None if source is heaps else "dec")
        statuses = [position.status()]
        position.set(0, 1)
        statuses.append(position.status())
        position.set(3, 0x12345678901234567890)
        statuses.append(position.status())
        assert [without(s, "move") for s in statuses] == expected
    array = numpy.array([3, 4, 5], dtype=numpy.uint16)
    assert nimstream.Position(array).move.heap == 0
    with pytest.raises(nimstream.UsageError, match="out of range|heap"):
        nimstream.Position([1, 2]).set(5, 1)
    with pytest.raises(ValueError):
        nimstream.Position([1, 2]).set(0, -1)
    without_moves = nimstream.Position([3, 4, 5], moves=False)
    assert without_moves.move is None and without_moves.winning_moves is None


@pytest.mark.parametrize("fmt", FORMATS)
def test_partials_and_merge_as_the_cli(cli, tmp_path, fmt):
    path = cli.gen(tmp_path / "in.{}".format(EXTENSION[fmt]), fmt, "--heaps", 80, "--seed", 6)
    size = path.stat().st_size
    cuts = sorted({0, size, *random.Random(fmt).sample(range(size + 1), min(size, 5))})
    ranges = list(zip(cuts, cuts[1:]))
    for rule in ["normal", "misere"]:
        partials = [nimstream.partial(path, a, b, rule=rule) for a, b in ranges]
        for (a, b), mine in zip(ranges, partials):
            theirs = cli.json("analyze", path, "--range", "{}..{}".format(a, b), "--partial",
                              "--rule", rule, "-j", "1")
            assert without(mine.to_dict(), "stats") == without(theirs, "stats")
        report = nimstream.merge(list(reversed(partials)))
        expected = without(cli.json("analyze", path, "--json", "--rule", rule), "stats")
        assert isinstance(report, nimstream.Report)
        assert without(report.to_dict(), "stats") == expected
        # Part of the file: a merged partial.
        if len(partials) > 2:
            part = nimstream.merge(partials[:2])
            assert isinstance(part, nimstream.Partial) and not part.plan
            assert part.range == [ranges[0][0], ranges[1][1]]
            assert without(nimstream.merge([part] + partials[2:]).to_dict(), "stats") == expected


def test_the_second_phase(cli, tmp_path):
    # The msb far below the longest heap: two heaps of 300 bits cancel.
    big = 2**299 + 12345
    path = tmp_path / "in.dec"
    path.write_text("{} 7 {} 5 9\n".format(big, big))
    size = path.stat().st_size
    ranges = [(0, size // 2), (size // 2, size)]
    plan = nimstream.merge([nimstream.partial(path, a, b) for a, b in ranges])
    assert isinstance(plan, nimstream.Partial) and plan.plan
    second = [nimstream.partial(path, a, b, phase2=plan) for a, b in ranges]
    report = nimstream.merge([plan] + second)
    assert without(report.to_dict(), "stats") == without(cli.json("analyze", path, "--json"),
                                                         "stats")
    with pytest.raises(nimstream.InputError, match="not a nimstream partial"):
        nimstream.merge(["{}"])
    with pytest.raises(nimstream.InputError):
        nimstream.merge([json.dumps({"nimstream_partial": 99})])


@pytest.mark.parametrize("fmt", FORMATS)
def test_gen_writes_the_bytes_and_summary_of_the_cli(cli, tmp_path, fmt):
    for options, args in [(dict(heaps=300, seed=4), ["--heaps", 300, "--seed", 4]),
                          (dict(size="20KiB", kind="p-position"),
                           ["--size", "20KiB", "--kind", "p-position"]),
                          (dict(heaps=10, kind="pairs", seed=1), ["--heaps", 10, "--kind",
                                                                  "pairs", "--seed", 1])]:
        mine, theirs = tmp_path / "mine", tmp_path / "theirs"
        summary = nimstream.gen(mine, format=fmt, **options)
        done = cli.run("gen", "--format", fmt, "-o", theirs, "--json", *args)
        assert done.returncode == 0, done.stderr
        assert summary == json.loads(done.stderr)
        assert mine.read_bytes() == theirs.read_bytes()
    bits = "1..3" if fmt == "unary" else 8
    nimstream.gen(tmp_path / "b", format=fmt, heaps=5, bits=bits)
    assert cli.run("gen", "--format", fmt, "-o", tmp_path / "c", "--heaps", 5, "--bits",
                   bits).returncode == 0
    assert (tmp_path / "b").read_bytes() == (tmp_path / "c").read_bytes()
    with pytest.raises(nimstream.UsageError, match="even"):
        nimstream.gen(tmp_path / "d", format=fmt, heaps=3, kind="pairs")
    with pytest.raises(nimstream.UsageError):
        nimstream.gen(tmp_path / "d", format=fmt)


@pytest.mark.parametrize("fmt", FORMATS)
def test_convert_as_the_cli(cli, tmp_path, fmt):
    source = cli.gen(tmp_path / "in.dec", "dec", "--heaps", 50, "--bits", "1..8", "--seed", 2)
    theirs = tmp_path / "theirs.{}".format(EXTENSION[fmt])
    assert cli.run("convert", source, "--to", fmt, "-o", theirs).returncode == 0
    assert nimstream.convert(source, to=fmt) == theirs.read_bytes()
    assert nimstream.convert(source.read_bytes(), format="dec", to=fmt) == theirs.read_bytes()
    mine = tmp_path / "mine"
    assert nimstream.convert(theirs, to="hex", out=mine) is None
    assert cli.run("convert", theirs, "--to", "hex", "-o", tmp_path / "back.hex").returncode == 0
    assert mine.read_bytes() == (tmp_path / "back.hex").read_bytes()
    with pytest.raises(nimstream.InputError, match="does not fit"):
        nimstream.convert(b"70000 1", format="dec", to="u16le")
    with pytest.raises(nimstream.UsageError):
        nimstream.convert(b"1", to="dec")
