"""Python ints read in place (``python/src/digits.rs``) against the
``int.to_bytes`` path they replace and against the CLI's ``--json`` on the
same heaps: every size class of CPython's 30-bit digits, ints mixed with
numpy integers and int subclasses (which take the ``to_bytes`` path),
negative ints and non-ints, and random lists of ints and junk.

The ``to_bytes`` path runs in a child interpreter with
``NIMSTREAM_INTS=bytes``, which the module reads once, at first use."""

import json
import os
import random
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any, Dict, List

import numpy

import nimstream
from nimstream import _native
from conftest import without

HERE = Path(__file__).resolve().parent


class MyInt(int):
    """An int subclass: not an exact int, so never read in place."""


def size_classes(rng: random.Random) -> List[List[int]]:
    """Heaps of every size class of 30-bit digits, one list a class."""
    boundaries = [2**(30 * k) + d for k in range(1, 12) for d in (-1, 0, 1)]
    return [
        [0, 0, 0],
        [rng.getrandbits(30) for _ in range(200)],
        [rng.randint(2**30, 2**63 - 1) for _ in range(200)],
        [rng.randint(2**63, 2**64 - 1) for _ in range(200)],
        [rng.getrandbits(rng.randint(65, 5000)) for _ in range(300)],
        [rng.getrandbits(rng.randint(90_000, 100_000)) for _ in range(5)],
        boundaries,
        [2**60, 2**60 - 1, 2**64, 2**64 - 1, 2**63, 2**90, 2**120 - 1, 1],
        [2**100_000, 2**99_990 + 1, 3],
    ]


def outcome(heaps: Any, rule: str = "normal") -> Dict[str, Any]:
    """What `analyze(heaps)` gives: the report (stats aside) or the
    exception's type, message and location."""
    try:
        return without(nimstream.analyze(heaps, rule=rule).to_dict(), "stats")
    except nimstream.InputError as error:
        return {"error": "InputError", "message": str(error), "path": error.path,
                "offset": error.offset}
    except (TypeError, ValueError, OverflowError) as error:
        return {"error": type(error).__name__, "message": str(error)}


def junk_cases(seed: int) -> List[List[Any]]:
    """Random lists of ints of random sizes (some negative) mixed with
    numpy integers, subclasses, bools and junk, the same for a seed in any
    interpreter."""
    rng = random.Random(seed)
    junk = [1.5, "7", None, b"\x01", [3], numpy.float64(2.0), object]
    cases = []
    for _ in range(60):
        heaps: List[Any] = []
        for _ in range(rng.randint(0, 40)):
            bits = rng.choice([0, 1, 29, 30, 31, 59, 60, 61, 63, 64, 65, 200, 3000])
            value = rng.getrandbits(bits) if bits else 0
            roll = rng.random()
            if roll < 0.03:
                heaps.append(-value - 1)
            elif roll < 0.05:
                heaps.append(rng.choice(junk))
            elif roll < 0.10:
                heaps.append(MyInt(value))
            elif roll < 0.13:
                heaps.append(numpy.uint64(value & (2**64 - 1)))
            elif roll < 0.15:
                heaps.append(bool(value & 1))
            else:
                heaps.append(value)
        cases.append(heaps)
    return cases


def outcomes(seed: int) -> List[Dict[str, Any]]:
    """The outcomes of the size classes and the junk cases of `seed`."""
    rng = random.Random(seed)
    cases: List[List[Any]] = size_classes(rng) + junk_cases(seed)
    return [outcome(heaps, rule) for heaps in cases for rule in ("normal", "misere")]


def by_to_bytes(seed: int) -> List[Dict[str, Any]]:
    """`outcomes(seed)` in a child interpreter that takes every int through
    ``int.to_bytes``."""
    script = ("import json, sys; sys.path.insert(0, {!r}); import test_ints; "
              "from nimstream import _native; assert _native.int_path() == 'bytes'; "
              "print(json.dumps(test_ints.outcomes({})))").format(str(HERE), seed)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=dict(os.environ, NIMSTREAM_INTS="bytes"), check=True)
    return list(json.loads(done.stdout))


def test_exact_ints_and_list_items_are_read_in_place_on_cpython():
    readable = (sys.implementation.name == "cpython" and (3, 9) <= sys.version_info[:2] <= (3, 14)
                and sys.int_info.bits_per_digit == 30 and sys.maxsize == 2**63 - 1
                and sys.byteorder == "little"
                and not sysconfig.get_config_var("Py_GIL_DISABLED"))
    assert _native.int_path() == ("digits" if readable else "bytes")
    assert _native.items_path() == ("items" if readable else "iterator")


def test_in_place_and_to_bytes_agree_on_every_size_class_and_junk():
    for seed in (1, 2):
        assert outcomes(seed) == by_to_bytes(seed)


def test_every_size_class_as_the_cli_on_its_nimb(cli, tmp_path):
    for heaps in size_classes(random.Random(3)):
        text = tmp_path / "in.hex"  # hex: str() refuses ints of over 4,300 digits
        text.write_text(" ".join(format(heap, "x") for heap in heaps) + "\n")
        nimb = tmp_path / "in.nimb"
        assert cli.run("convert", text, "--to", "nimb", "-o", nimb).returncode == 0
        expected = without(cli.json("analyze", nimb, "--json"), "stats", "input.path")
        assert without(nimstream.analyze(heaps).to_dict(), "stats", "input.path") == expected
        # The records written are the CLI's own: the same bytes scanned.
        assert nimstream.analyze(heaps).input["bytes"] == nimb.stat().st_size


def test_numpy_integers_and_int_subclasses_mixed_with_ints():
    rng = random.Random(4)
    plain = [rng.getrandbits(rng.choice([1, 30, 64, 300])) for _ in range(400)]
    mixed: List[Any] = []
    for i, value in enumerate(plain):
        kind = i % 4
        if kind == 1 and value < 2**64:
            mixed.append(numpy.uint64(value))
        elif kind == 2:
            mixed.append(MyInt(value))
        else:
            mixed.append(value)
    mixed += [True, False, numpy.int8(5), MyInt(2**200)]
    plain += [1, 0, 5, 2**200]
    assert outcome(mixed) == outcome(plain)
    assert nimstream.Position(mixed).status() == nimstream.Position(plain).status()


def test_negative_ints_are_input_errors_at_their_index():
    for heaps, index in [([1, 2**100, -5], 2), ([-1], 0), ([2**70, -2**4000 - 1, 3], 1),
                         ([0, MyInt(-3)], 1), ([1, numpy.int64(-2)], 1)]:
        got = outcome(heaps)
        assert got["error"] == "InputError" and got["offset"] == index, got
        assert got["path"] == "<ints>"
        assert "heap {} is negative".format(index) in got["message"]
    position = nimstream.Position([1, 2, 3])
    try:
        position.set(0, -2**100)
        raise AssertionError("a negative update was taken")
    except ValueError as error:
        assert "negative" in str(error)


def test_non_ints_are_type_errors_naming_the_heap():
    for heaps, index, kind in [([1, 2.5], 1, "float"), ([2**80, "3"], 1, "str"),
                               ([None], 0, "NoneType")]:
        got = outcome(heaps)
        assert got == {"error": "TypeError",
                       "message": "heap {} is a {}, not an int".format(index, kind)}, got


def test_position_updates_read_ints_in_place():
    rng = random.Random(5)
    heaps = [rng.getrandbits(rng.randint(0, 500)) for _ in range(50)]
    position = nimstream.Position(heaps)
    for _ in range(40):
        i, x = rng.randrange(len(heaps)), rng.getrandbits(rng.choice([0, 30, 60, 64, 65, 400]))
        heaps[i] = x
        position.set(i, x)
        assert position.nim_sum == nimstream.analyze(heaps).nim_sum


def test_lists_tuples_and_streams_of_ints_agree():
    # A list or tuple is read in place twice (the crate's analyze_held);
    # any other iterable, and every game but Nim, is streamed as records.
    rng = random.Random(6)
    for heaps in size_classes(rng) + junk_cases(7)[:30]:
        for rule in ("normal", "misere"):
            listed = outcome(heaps, rule)
            assert outcome(tuple(heaps), rule) == listed
            assert outcome(iter(heaps), rule) == listed
            assert outcome(x for x in heaps) == outcome(heaps)


def test_decide_and_inline_bits_on_a_list_as_on_a_stream():
    rng = random.Random(8)
    for heaps in size_classes(rng):
        for options in ({"decide": True}, {"inline_bits": 70}, {"decide": True, "rule": "misere"}):
            listed = without(nimstream.analyze(heaps, **options).to_dict(), "stats")
            assert without(nimstream.analyze(iter(heaps), **options).to_dict(), "stats") == listed


class Growing:
    """A heap whose `__index__` appends a long int to the list it is in:
    the list a pass reads is not the one the pass before read."""

    def __init__(self, heaps: List[Any]) -> None:
        self.heaps = heaps

    def __index__(self) -> int:
        self.heaps.append(2**100)
        return 5


def test_a_list_changed_under_the_analysis_is_an_error_not_an_answer():
    heaps: List[Any] = [3]
    heaps.append(Growing(heaps))
    try:
        nimstream.analyze(heaps)
        raise AssertionError("an answer for a list that changed")
    except nimstream.UsageError as error:
        assert "changed between the two passes" in str(error)
