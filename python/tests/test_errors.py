"""Errors as exceptions, against the CLI's error lines and exit statuses;
and the entry points fuzzed from Python with random bytes, arrays and
arguments: every call returns a report or raises one of the package's
exceptions (or the TypeError of a wrong type), never a panic, and on
random bytes it agrees with the CLI on the same bytes."""

import random
import re

import numpy
import pytest

import nimstream
from conftest import EXTENSION, FORMATS, without

ERROR = re.compile(r"^error: (?P<path>.*?): offset (?P<offset>\d+)"
                   r"(?: \(line (?P<line>\d+), column (?P<column>\d+)\))?: ")


def located(stderr):
    match = ERROR.match(stderr)
    assert match, stderr
    return (match["path"], int(match["offset"]),
            None if match["line"] is None else int(match["line"]),
            None if match["column"] is None else int(match["column"]))


def test_input_errors_carry_path_offset_line_and_column(cli, tmp_path):
    cases = [("dec", b"3 4 x\n"), ("bits", b"101\n1 0 2\n"), ("hex", b"0x\n"),
             ("unary", b"11\n1\r1\n"), ("u16le", b"\x01\x02\x03"), ("nimb", b"NIMB\x02"),
             ("nimb", b"NIMB\x01\x00\x00\x00\x05ab"), ("dec", b"1\x0c2")]
    for fmt, data in cases:
        path = tmp_path / "bad.{}".format(EXTENSION[fmt])
        path.write_bytes(data)
        done = cli.run("analyze", path)
        assert done.returncode == 1
        with pytest.raises(nimstream.InputError) as raised:
            nimstream.analyze(path)
        error = raised.value
        assert isinstance(error, ValueError)
        assert (error.path, error.offset, error.line, error.column) == located(done.stderr)
        assert "error: " + str(error) == done.stderr.strip()
        with pytest.raises(nimstream.InputError) as in_memory:
            nimstream.analyze(data, format=fmt, name=str(path))
        assert str(in_memory.value) == str(error)


def test_usage_errors_as_the_cli_exit_status_2(cli, tmp_path):
    path = cli.gen(tmp_path / "in.dec", "dec", "--heaps", 3)
    for options, args in [(dict(rule="sideways"), ["--rule", "sideways"]),
                          (dict(memory=10), ["--memory", "10"]),
                          (dict(memory="lots"), ["--memory", "lots"]),
                          (dict(format="csv"), ["--format", "csv"]),
                          (dict(game="octal:0.9"), ["--game", "octal:0.9"]),
                          (dict(threads=0), ["-j", "0"])]:
        assert cli.run("analyze", path, *args).returncode == 2
        with pytest.raises(nimstream.UsageError):
            nimstream.analyze(path, **options)
    undetected = tmp_path / "in.txt"
    undetected.write_text("3 4 5\n")
    assert cli.run("analyze", undetected).returncode == 2
    with pytest.raises(nimstream.UsageError, match="--format"):
        nimstream.analyze(undetected)
    with pytest.raises(FileNotFoundError, match="missing.dec"):
        nimstream.analyze(tmp_path / "missing.dec")
    with pytest.raises(IsADirectoryError):
        nimstream.analyze(tmp_path)
    with pytest.raises(TypeError, match="iterable of ints"):
        nimstream.analyze(12)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="heap 1 is a str"):
        nimstream.analyze([1, "2"])
    with pytest.raises(nimstream.InputError, match="heap 2 is negative"):
        nimstream.analyze([1, 2, -3])
    with pytest.raises(nimstream.InputError, match="heap 1 is negative"):
        nimstream.analyze([1, -2**100])
    with pytest.raises(ZeroDivisionError):
        nimstream.analyze(1 // (5 - h) for h in range(10))


def test_random_bytes_in_every_format_agree_with_the_cli(cli, tmp_path):
    rng = random.Random(35)
    alphabets = {"bits": b"01 \n", "hex": b"0123456789abcdefABCDEFxX \n\t",
                 "dec": b"0123456789 \n\r", "unary": b"11111\n\r"}
    for case in range(300):
        fmt = FORMATS[case % len(FORMATS)]
        alphabet = alphabets.get(fmt)
        length = rng.choice([0, 1, 2, 7, 8, 9, 17, 64, 300])
        if alphabet is not None and rng.random() < 0.8:
            data = bytes(rng.choice(alphabet) for _ in range(length))
        else:
            data = bytes(rng.getrandbits(8) for _ in range(length))
        if fmt == "nimb" and rng.random() < 0.7:
            data = b"NIMB\x01\x00\x00\x00" + data
        path = tmp_path / "fuzz.{}".format(EXTENSION[fmt])
        path.write_bytes(data)
        rule = rng.choice(["normal", "misere"])
        done = cli.run("analyze", path, "--json", "--rule", rule)
        try:
            report = nimstream.analyze(data, format=fmt, rule=rule, name=str(path))
        except nimstream.InputError as error:
            assert done.returncode == 1, (fmt, data)
            assert done.stderr.strip() == "error: " + str(error)
            continue
        assert done.returncode == 0, (fmt, data, done.stderr)
        import json
        assert without(report.to_dict(), "stats") == without(json.loads(done.stdout), "stats")


def test_random_arrays_and_arguments_never_panic():
    rng = random.Random(36)
    nrng = numpy.random.default_rng(36)
    dtypes = [numpy.uint8, numpy.uint16, numpy.uint32, numpy.uint64, numpy.int8, numpy.int64,
              numpy.float32, numpy.bool_, ">u4", "<u8", ">u8", numpy.complex64, "U3", object]
    values = [None, 0, -1, 1, 2**70, "", "log", "nim", "kayles", "sub:", "octal:0.",
              "misère", "u8", "dec", 1.5, b"x", [], True, "64", "0GiB", "1KiB", "\x00"]
    options = ["format", "rule", "game", "memory", "threads", "inline_bits", "decide",
               "max_values", "no_mmap", "name"]
    for _ in range(400):
        dtype = rng.choice(dtypes)
        shape = rng.choice([(0,), (5,), (3, 4), (64,), (7, 0)])
        raw = nrng.integers(0, 255, size=shape).astype(dtype) if dtype != "U3" else \
            numpy.array(["1"] * int(numpy.prod(shape))).reshape(shape)
        if rng.random() < 0.3 and raw.ndim == 1 and raw.size > 1:
            raw = raw[::2]
        source = rng.choice([raw, raw.tobytes(), list(raw.ravel()) if dtype != object else [],
                             bytearray(raw.tobytes())])
        kwargs = {name: rng.choice(values) for name in rng.sample(options, rng.randint(0, 4))}
        try:
            nimstream.analyze(source, **kwargs)
        except (nimstream.Error, TypeError, OverflowError):
            pass
    for _ in range(200):
        name = rng.choice(["kayles", "sub:1,2", "octal:0.7", "nim", "octal:4.", "sub:0",
                           "octal:0.16", "x", "", "sub:65536", "octal:0." + "7" * 33])
        try:
            game = nimstream.Game(name, max_values=rng.choice([1, 2, 100, 5000]))
            game.values(rng.choice([0, 1, 10, 6000]))
            game.value(rng.choice([0, 3, 2**80, 10**5]))
        except (nimstream.Error, TypeError, OverflowError):
            pass
        data = bytes(rng.choice(b"0123456789 \n-x") for _ in range(rng.randint(0, 40)))
        try:
            nimstream.graph(data)
        except nimstream.Error:
            pass
        try:
            position = nimstream.Position(data, format=rng.choice(["dec", "hex", "u8", "nimb"]))
            position.set(rng.randint(-1, 5), rng.choice([0, 1, 2**65, -1]))
            position.status()
        except (nimstream.Error, TypeError, OverflowError, ValueError):
            pass
