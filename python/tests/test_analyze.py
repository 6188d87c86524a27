"""`nimstream.analyze` against `nimstream analyze --json` on the same
instances: every format and source (a path, bytes, numpy arrays, Python
ints), both rules, heap games, and every option of the command."""

import os
import random
from pathlib import Path

import numpy
import pytest

import nimstream
from conftest import EXTENSION, FORMATS, without


def cli_report(cli, path, *args):
    return without(cli.json("analyze", path, "--json", "-j", "2", *args), "stats")


def package_report(source, **options):
    return without(nimstream.analyze(source, threads=2, **options).to_dict(), "stats")


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("rule", ["normal", "misere"])
def test_a_path_of_every_format_as_the_cli(cli, tmp_path, fmt, rule):
    for seed, bits in enumerate(["1..64", "100..300", "1..3"]):
        if fmt in ("unary",) and bits != "1..3":
            continue
        args = [] if fmt.startswith("u") and fmt != "unary" else ["--bits", bits]
        path = cli.gen(tmp_path / "in{}.{}".format(seed, EXTENSION[fmt]), fmt,
                       "--heaps", 200, "--seed", seed, *args)
        assert package_report(path, rule=rule) == cli_report(cli, path, "--rule", rule)
        # The same bytes in memory, in place.
        data = path.read_bytes()
        assert without(package_report(data, format=fmt, rule=rule), "input.path") == without(
            cli_report(cli, path, "--rule", rule), "input.path")


@pytest.mark.parametrize("kind", ["p-position", "pairs", "ones", "random"])
def test_losing_and_winning_positions(cli, tmp_path, kind):
    path = cli.gen(tmp_path / "in.hex", "hex", "--heaps", 100, "--kind", kind, "--seed", 3,
                   "--bits", "1..500")
    for rule in ["normal", "misere"]:
        assert package_report(str(path), rule=rule) == cli_report(cli, path, "--rule", rule)


@pytest.mark.parametrize("game", ["kayles", "dawsons-kayles", "sub:1,3,4", "octal:0.16",
                                  "octal:4.7"])
def test_heap_games_as_the_cli(cli, tmp_path, game):
    path = cli.gen(tmp_path / "in.dec", "dec", "--heaps", 150, "--bits", "1..90", "--seed", 5)
    assert package_report(path, game=game) == cli_report(cli, path, "--game", game)
    ints = [int(token) for token in path.read_text().split()]
    nimb = tmp_path / "in.nimb"
    assert cli.run("convert", path, "--to", "nimb", "-o", nimb).returncode == 0
    assert without(package_report(ints, game=game), "input.path") == without(
        cli_report(cli, nimb, "--game", game), "input.path")


def test_every_option_of_the_cli(cli, tmp_path):
    path = cli.gen(tmp_path / "in.bits", "bits", "--heaps", 300, "--bits", "1..5000", "--seed", 9)
    cases = [
        (dict(memory="log"), ["--memory", "log"]),
        (dict(memory=64), ["--memory", "64"]),
        (dict(memory="4KiB"), ["--memory", "4KiB"]),
        (dict(decide=True), ["--decide"]),
        (dict(inline_bits=8), ["--inline-bits", "8"]),
        (dict(no_mmap=True), ["--no-mmap"]),
        (dict(format="bits"), ["--format", "bits"]),
        (dict(game="sub:1,2", max_values=100), ["--game", "sub:1,2", "--max-values", "100"]),
    ]
    for options, args in cases:
        assert package_report(path, **options) == cli_report(cli, path, *args), options
    # The value files, byte for byte.
    mine, theirs = tmp_path / "mine", tmp_path / "theirs"
    mine.mkdir()
    theirs.mkdir()
    nimstream.analyze(path, nim_sum_out=mine / "sum", move_out=mine / "move")
    cli.json("analyze", path, "--json", "--nim-sum-out", theirs / "sum",
             "--move-out", theirs / "move")
    for name in ["sum", "move"]:
        assert (mine / name).read_bytes() == (theirs / name).read_bytes()


@pytest.mark.parametrize("dtype,fmt", [(numpy.uint8, "u8"), (numpy.uint16, "u16le"),
                                       (numpy.uint32, "u32le"), (numpy.uint64, "u64le")])
def test_numpy_arrays_in_place_as_the_cli_on_their_bytes(cli, tmp_path, dtype, fmt):
    rng = numpy.random.default_rng(11)
    high = numpy.iinfo(dtype).max
    for n in [0, 1, 7, 1000, 100_003]:
        array = rng.integers(0, high, size=n, dtype=dtype, endpoint=True)
        path = tmp_path / "a.{}".format(EXTENSION[fmt])
        array.tofile(path)
        for rule in ["normal", "misere"]:
            expected = without(cli_report(cli, path, "--rule", rule), "input.path")
            report = nimstream.analyze(array, rule=rule, threads=2)
            assert report.input["path"] == "<array>"
            assert without(report.to_dict(), "stats", "input.path") == expected
            # A strided view and a big-endian copy are read as their values.
            doubled = numpy.repeat(array, 2)[::2]
            assert without(package_report(doubled, rule=rule), "input.path") == expected
            swapped = array.astype(array.dtype.newbyteorder(">"))
            assert without(package_report(swapped, rule=rule), "input.path") == expected


def test_arrays_of_other_dtypes_are_refused(cli):
    for array in [numpy.arange(5, dtype=numpy.int64), numpy.ones(3, dtype=float),
                  numpy.ones(3, dtype=bool), numpy.array(["3"])]:
        with pytest.raises(nimstream.UsageError, match="cannot be heaps"):
            nimstream.analyze(array)


def test_a_uint8_array_or_bytearray_of_text_in_its_format(cli, tmp_path):
    path = cli.gen(tmp_path / "in.dec", "dec", "--heaps", 100, "--seed", 2)
    data = path.read_bytes()
    expected = without(cli_report(cli, path), "input.path")
    for source in [numpy.frombuffer(data, numpy.uint8), bytearray(data), memoryview(data)]:
        assert without(package_report(source, format="dec"), "input.path") == expected
    with pytest.raises(nimstream.UsageError, match="format"):
        nimstream.analyze(bytearray(data))
    with pytest.raises(nimstream.UsageError, match="format"):
        nimstream.analyze(data)


def test_python_ints_of_any_size_as_the_cli_on_their_nimb(cli, tmp_path):
    rng = random.Random(4)
    cases = [
        [],
        [0, 0],
        [1, 1, 1],
        [3, 4, 5],
        [2**64 - 1, 2**63, 2**64, 2**64 + 1],
        [rng.getrandbits(rng.randint(0, 5000)) for _ in range(500)],
        [rng.getrandbits(rng.randint(60, 70)) for _ in range(2000)],
        [1] * 9 + [2**100],
    ]
    for heaps in cases:
        dec = tmp_path / "in.dec"
        dec.write_text(" ".join(map(str, heaps)) + "\n")
        nimb = tmp_path / "in.nimb"
        assert cli.run("convert", dec, "--to", "nimb", "-o", nimb).returncode == 0
        for rule in ["normal", "misere"]:
            expected = without(cli_report(cli, nimb, "--rule", rule), "input.path")
            for source in [heaps, iter(heaps), tuple(heaps), (h for h in heaps)]:
                report = nimstream.analyze(source, rule=rule)
                assert without(report.to_dict(), "stats", "input.path") == expected
            assert report.input["path"] == "<ints>"
    # numpy integers and bools are ints through __index__.
    assert nimstream.analyze([numpy.uint64(3), numpy.int8(4), True]).nim_sum == 3 ^ 4 ^ 1


def test_report_attributes_are_the_json_fields(cli, tmp_path):
    heaps = [2**300 + 12345, 2**299, 7, 1, 0]
    report = nimstream.analyze(heaps)
    data = report.to_dict()
    xor = 0
    for h in heaps:
        xor ^= h
    assert report.nim_sum == xor == int(data["nim_sum"]["dec"])
    assert (report.heaps, report.nonzero_heaps, report.ones, report.big) == (5, 4, 1, 3)
    assert report.max_bit_length == 301 and report.msb == xor.bit_length() - 1
    move = report.move
    assert move.heap == 0 and move.from_ == heaps[0] and move.to == heaps[0] ^ xor
    assert getattr(move, "from") == heaps[0]
    assert move.take == heaps[0] - (heaps[0] ^ xor) and move.leave == [heaps[0] ^ xor]
    assert report.winning_moves == data["winning_moves"] and report.winner == "first"
    assert report.schema == 1 and report.rule == "normal" and report.game == "nim"
    assert report.stats["threads"] >= 1
    assert "nim_sum=" in repr(report) and "Move(heap=0" in repr(report)
    assert "<table>" in report._repr_html_() and "the first player" in report._repr_html_()
    # Past inline_bits a value is None, its bit length kept.
    wide = nimstream.analyze(heaps, inline_bits=64)
    assert wide.nim_sum is None and wide.nim_sum_bit_length == xor.bit_length()
    assert "<301 bits>" in repr(wide) or "bits>" in repr(wide)
    game = nimstream.analyze([3, 4, 5], game="kayles")
    assert (game.grundy_sum, game.move.take, len(game.move.leave)) == (6, 1, 2)
    assert game.move.from_grundy == 4 and game.move.to_grundy == 2
    assert game.grundy == {"preperiod": 71, "period": 12, "values_computed": game.grundy[
        "values_computed"]}
    assert nimstream.analyze([3, 4, 5], rule="misère").rule == "misere"
    assert nimstream.Report.from_json(report.to_json()) == report


def test_standard_input_and_pathlike(cli, tmp_path):
    path = cli.gen(tmp_path / "in.hex", "hex", "--heaps", 50, "--seed", 1)
    assert package_report(Path(path)) == cli_report(cli, path)
    assert package_report(os.fsencode(str(path)).decode()) == cli_report(cli, path)
