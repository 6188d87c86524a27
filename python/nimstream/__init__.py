"""nimstream: decide and solve Nim and other heap games on instances of any
size, in one streaming pass and bounded memory, from Python.

A thin layer over the nimstream crate (the engine of the ``nimstream``
command): every computation runs in the crate, with the GIL released, and
its reports are the command's ``--json`` (``Report.to_dict()``).

>>> import nimstream, numpy
>>> nimstream.analyze([3, 4, 5]).winner
'first'
>>> report = nimstream.analyze(numpy.array([1, 2, 3], dtype=numpy.uint64))
>>> report.winner, report.move
('second', None)
>>> nimstream.Game("kayles").period()
(71, 12)

The entry points:

- `analyze`: a path, bytes, a numpy array (read in place) or an iterable
  of Python ints of any size, under Nim or any heap game, normal or misère
  play; returns a `Report`.
- `Game`: a heap game's Grundy values (numpy out), its proven period, the
  value of a heap of any size.
- `graph`: tokens on a game graph, cycles included.
- `Position`: a position that takes updates (``set(i, x)``), with its
  winner and winning move after each.
- `partial` and `merge`: sharded runs, a byte range at a time; the Spark
  job built on them is `nimstream.spark`.
- `gen` and `convert`: random instances in any format, and an instance
  in another format, as ``nimstream gen`` and ``nimstream convert``.

Errors are `InputError` (bad input: path, offset, line, column) and
`UsageError` (bad arguments), both `ValueError`; Ctrl-C stops a long
analysis with `KeyboardInterrupt`.
"""

import json
import os
from typing import Any, Dict, Iterable, Optional, Sequence, Tuple, Union

import numpy

from . import _native
from ._errors import Error, InputError, UsageError
from ._reports import GraphReport, Move, Partial, Quotient, Report, _int, _number

__all__ = [
    "analyze", "Report", "Move", "Game", "Quotient", "graph", "GraphReport", "Position",
    "partial", "merge", "Partial", "gen", "convert", "Error", "InputError", "UsageError",
    "DEFAULT_MAX_VALUES", "DEFAULT_MAX_HEAP",
]

__version__ = "0.1.0"

#: The default of ``max_values``: values of a game's sequence computed at
#: most, looking for its period (2^24).
DEFAULT_MAX_VALUES: int = _native.DEFAULT_MAX_VALUES

#: The default of ``max_heap``: heaps a misère quotient is computed for at
#: most, looking for the period of its pretending function.
DEFAULT_MAX_HEAP: int = _native.DEFAULT_MAX_HEAP

PathType = Union[str, "os.PathLike[str]"]
Source = Union[PathType, bytes, bytearray, memoryview, numpy.ndarray, Iterable[int]]


def _path(path: PathType) -> str:
    return os.fsdecode(os.fspath(path))


def _maybe_path(path: Optional[PathType]) -> Optional[str]:
    return None if path is None else _path(path)


def _in_place(array: numpy.ndarray) -> numpy.ndarray:
    """The array as the crate reads it: C-contiguous in this machine's byte
    order. An array that already is (the usual case) is not copied."""
    native = array.dtype.newbyteorder("=")
    if array.flags.c_contiguous and array.dtype == native:
        return array
    return numpy.ascontiguousarray(array, dtype=native)


def analyze(
    source: Source,
    *,
    format: Optional[str] = None,
    rule: str = "normal",
    game: str = "nim",
    memory: Union[int, str, None] = None,
    threads: Optional[int] = None,
    inline_bits: int = 4096,
    decide: bool = False,
    max_values: Optional[int] = None,
    nim_sum_out: Optional[PathType] = None,
    move_out: Optional[PathType] = None,
    no_mmap: bool = False,
    name: Optional[str] = None,
) -> Report:
    """Analyzes an instance: who wins, and the winning move.

    `source` is one of:

    - a path (``str`` or ``os.PathLike``; ``"-"`` is standard input), in
      `format` or the format its extension or magic names;
    - ``bytes`` (read in place), ``bytearray`` or ``memoryview`` (read in
      place through numpy), in `format`, which is then needed;
    - a numpy array of ``uint8``, ``uint16``, ``uint32`` or ``uint64``, read
      in place as ``u8``, ``u16le``, ``u32le`` or ``u64le`` (a ``uint8``
      array may hold any format's bytes: give `format`). An array that is
      not C-contiguous or not in this machine's byte order is copied first.
      The array is read without the GIL: do not write to it from another
      thread during the call;
    - non-negative Python ints of any size (or objects with ``__index__``,
      such as numpy integers): a list or tuple is read in place (twice,
      with the GIL held; it must not change meanwhile), any other iterable
      is streamed, never held whole.

    The options are those of ``nimstream analyze``: `rule` ``"normal"`` or
    ``"misere"``; `game` ``"nim"``, ``"sub:1,3,4"``, ``"octal:0.77"``,
    ``"kayles"``, ...; `memory` the working-memory budget (bytes, or
    ``"64MiB"``, ``"log"``); `threads` (default: every core); `inline_bits`;
    `decide` (stop once the winner is known); `max_values`; `nim_sum_out`
    and `move_out` (files that get the nim-sum and the move's target as
    ``bits`` text); `no_mmap`. `name` names a source in memory in the
    report and in errors.

    >>> report = analyze([3, 4, 5])
    >>> report.nim_sum, report.winner, report.move.heap, report.move.leave
    (2, 'first', 0, [1])
    >>> analyze(b"11 101 110\\n", format="bits").winner
    'second'
    >>> analyze([1, 1, 1], rule="misere").winner
    'second'
    >>> analyze([2**200 + 5, 2**200], game="nim").nim_sum
    5
    >>> analyze([3, 4, 5], game="kayles").grundy_sum
    6
    """
    settings = _native.Settings(
        format=format, rule=rule, game=game, memory=memory, threads=threads,
        inline_bits=inline_bits, decide=decide, max_values=max_values,
        nim_sum_out=_maybe_path(nim_sum_out), move_out=_maybe_path(move_out), no_mmap=no_mmap,
        name=name)
    if isinstance(source, (str, os.PathLike)):
        text = _native.analyze_path(_path(source), settings)
    elif isinstance(source, bytes):
        text = _native.analyze_bytes(source, settings)
    elif isinstance(source, (bytearray, memoryview)):
        if format is None:
            raise UsageError("analyzing a {} needs format= (bits, hex, dec, unary, u8, u16le, "
                             "u32le, u64le or nimb)".format(type(source).__name__))
        text = _native.analyze_array(numpy.frombuffer(source, numpy.uint8), settings)
    elif isinstance(source, numpy.ndarray):
        text = _native.analyze_array(_in_place(source), settings)
    else:
        text = _native.analyze_ints(source, settings)
    return Report.from_json(text)


class Game:
    """A heap game (``"nim"``, ``"sub:S"``, ``"octal:D"``, ``"kayles"``,
    ``"dawsons-kayles"``, ``"dawsons-chess"``) and its Grundy value
    sequence, computed until a period is proven or `max_values` values
    exist (as ``nimstream grundy``).

    >>> kayles = Game("kayles")
    >>> kayles.canonical, kayles.period()
    ('octal:0.77', (71, 12))
    >>> kayles.values(12)
    array([0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6], dtype=uint16)
    >>> kayles.value(10**30)
    1
    >>> Game("sub:4,1,3").canonical
    'sub:1,3,4'
    """

    __slots__ = ("_native",)

    def __init__(self, name: str, *, max_values: int = DEFAULT_MAX_VALUES) -> None:
        self._native = _native.Game(name, max_values=max_values)

    @property
    def canonical(self) -> str:
        """The canonical game string (aliases resolved, sets sorted)."""
        return str(self._native.canonical)

    @property
    def values_computed(self) -> int:
        """How many values were computed."""
        return int(self._native.values_computed)

    def period(self) -> Optional[Tuple[int, int]]:
        """(preperiod, period), the least period proven and its least
        preperiod; None when none was proven within the values computed."""
        return self._native.period()

    def values(self, n: int) -> numpy.ndarray:
        """g(0), ..., g(n - 1) as a numpy array of uint16. With no period
        proven, values past those computed are computed now, as
        ``grundy --max-values n`` would (the CLI's ``--values`` shows at most
        ``--max-values``)."""
        return self._native.values(n)

    def value(self, h: int) -> int:
        """g(h) for a heap of any size (past the values computed, by the
        proven period)."""
        return int(self._native.value(h))

    def misere(self, max_heap: int = DEFAULT_MAX_HEAP) -> Quotient:
        """The game's misère quotient, ``nimstream grundy GAME --rule misere
        --max-heap MAX_HEAP --json``: heaps are added until the pretending
        function's period is proven or `max_heap` is passed."""
        return Quotient(json.loads(self._native.misere_json(max_heap)))

    def to_dict(self, values: int = 120, heaps: Sequence[int] = ()) -> Dict[str, Any]:
        """``nimstream grundy GAME --values VALUES --heap H... --json``."""
        return dict(json.loads(self._native.grundy_json(values, list(heaps))))

    def __repr__(self) -> str:
        return "Game({!r})".format(self.canonical)


def graph(source: Union[PathType, bytes, bytearray], *,
          values_out: Optional[PathType] = None, name: str = "<graph>") -> GraphReport:
    """Decides a sum of tokens on a game graph (``nimstream graph``): `source`
    is the graph's file, or its text as bytes (``n m``, m edges ``u v``,
    ``k``, k start nodes). `values_out` gets every node's value, one a line.

    >>> report = graph(b"2 2\\n0 1\\n1 0\\n1\\n0\\n")
    >>> report.values, report.winner
    ([{'infinite': []}], 'draw')
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        text = _native.graph_bytes(bytes(source), name, _maybe_path(values_out))
    else:
        text = _native.graph_path(_path(source), _maybe_path(values_out))
    return GraphReport(json.loads(text))


class Position:
    """A position that takes updates (``nimstream updates``): read once,
    then heaps set to new values with ``set(i, x)``; the winner, the
    nim-sum and (with `moves`) the winning move after each.

    `heaps`: an iterable of ints, a path, bytes in `format`, or a numpy array
    (copied: the position keeps its own instance; a path is read where it
    lies and must not change).

    >>> position = Position([3, 4, 5])
    >>> position.winner, position.nim_sum, position.move.heap
    ('first', 2, 0)
    >>> position.set(0, 1)
    >>> position.winner, position.move
    ('second', None)
    >>> position.set(2, 2**100)
    >>> position.nim_sum == 1 ^ 4 ^ 2**100
    True
    """

    __slots__ = ("_native", "_status")

    def __init__(self, heaps: Source, *, format: Optional[str] = None,
                 rule: str = "normal", moves: bool = True, inline_bits: int = 4096,
                 threads: Optional[int] = None, name: Optional[str] = None) -> None:
        common: Dict[str, Any] = dict(rule=rule, moves=moves, inline_bits=inline_bits,
                                      threads=threads, name=name)
        if isinstance(heaps, (str, os.PathLike)):
            self._native = _native.Position(path=_path(heaps), format=format, **common)
        elif isinstance(heaps, (bytes, bytearray, memoryview)):
            self._native = _native.Position(data=bytes(heaps), format=format, **common)
        elif isinstance(heaps, numpy.ndarray):
            implied = {1: "u8", 2: "u16le", 4: "u32le", 8: "u64le"}.get(heaps.dtype.itemsize)
            if heaps.dtype.kind != "u" or implied is None:
                raise UsageError("arrays of {} cannot be heaps: expected uint8, uint16, uint32 "
                                 "or uint64".format(heaps.dtype))
            data = _in_place(heaps).astype(heaps.dtype.newbyteorder("<"), copy=False).tobytes()
            self._native = _native.Position(data=data, format=format or implied, **common)
        else:
            self._native = _native.Position(heaps=heaps, format=format, **common)
        self._status: Optional[Dict[str, Any]] = None

    def set(self, i: int, x: int) -> None:
        """Sets heap `i` (0-based) to `x` (a non-negative int of any size)."""
        self._native.set(i, x)
        self._status = None

    def status(self) -> Dict[str, Any]:
        """The line ``nimstream updates --json`` prints now: ``update``,
        ``heap``, ``winner``, ``nim_sum``, ``winning_moves``, ``move``."""
        if self._status is None:
            self._status = json.loads(self._native.status_json())
        return dict(self._status)

    @property
    def heaps(self) -> int:
        """How many heaps the position has."""
        return int(self._native.heaps)

    @property
    def winner(self) -> str:
        return str(self.status()["winner"])

    @property
    def nim_sum(self) -> Optional[int]:
        return _number(self.status()["nim_sum"])

    @property
    def winning_moves(self) -> Optional[int]:
        return _int(self.status()["winning_moves"])

    @property
    def move(self) -> Optional[Move]:
        move = self.status()["move"]
        return None if move is None else Move(move)

    def __repr__(self) -> str:
        return "Position(heaps={}, winner={!r})".format(self.heaps, self.winner)


def partial(path: PathType, start: Union[int, Tuple[int, int], range],
            end: Optional[int] = None, *, format: Optional[str] = None,
            rule: str = "normal", game: str = "nim", memory: Union[int, str, None] = None,
            threads: Optional[int] = 1, max_values: Optional[int] = None,
            no_mmap: bool = False, phase2: Optional[Partial] = None) -> Partial:
    """The partial summary of the heaps whose first byte lies in bytes
    [`start`, `end`) of the file at `path` (``nimstream analyze PATH --range
    START..END --partial``; the range may also be given as one
    ``(start, end)`` or ``range(start, end)``); with `phase2`, the plan `merge` returned, the
    range's share of the second phase.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "heaps.dec")
    >>> with open(path, "w") as f:
    ...     _ = f.write("3 4 5\\n")
    >>> first, second = partial(path, 0, 3), partial(path, range(3, 6))
    >>> merge([second, first]).move.heap
    0
    """
    if isinstance(start, range):
        first, end = start.start, start.stop
    elif isinstance(start, tuple):
        first, end = start
    elif end is None:
        raise UsageError("partial needs the range's end: partial(path, start, end)")
    else:
        first = start
    settings = _native.Settings(format=format, rule=rule, game=game, memory=memory,
                                threads=threads, max_values=max_values, no_mmap=no_mmap)
    plan = None if phase2 is None else phase2.to_json()
    return Partial(_native.partial(_path(path), first, end, settings, plan))


def merge(partials: Iterable[Union[Partial, str]], *, inline_bits: int = 4096,
          memory: Union[int, str, None] = None, no_mmap: bool = False
          ) -> Union[Report, Partial]:
    """Merges partials of one file, in any order (``nimstream merge``): the
    `Report` when they cover the whole file; otherwise their merged
    `Partial` (its ``plan`` is True when it is the plan of the second phase:
    pass it as ``phase2=`` to `partial` for every range, then merge the plan
    with those partials). Partials may be `Partial` objects or their JSON
    lines.
    """
    texts = [p.to_json() if isinstance(p, Partial) else str(p) for p in partials]
    settings = _native.Settings(inline_bits=inline_bits, memory=memory, no_mmap=no_mmap)
    kind, text = _native.merge(texts, settings)
    if kind == "report":
        return Report.from_json(text)
    return Partial(text, plan=(kind == "second_phase"))



def gen(out: PathType, *, format: str, heaps: Optional[int] = None,
        size: Union[int, str, None] = None, bits: Union[int, str, None] = None,
        kind: str = "random", seed: int = 0) -> Dict[str, Any]:
    """Writes an instance to `out` (whole or not at all), as ``nimstream gen
    --format FORMAT -o OUT``: `heaps` heaps, or heaps until about `size`
    bytes (``"64MiB"``); `bits` each heap's bit length (``64`` or
    ``"1..4096"``); `kind` ``"random"``, ``"p-position"``, ``"pairs"`` or
    ``"ones"``; the same `seed` gives the same bytes. Returns the summary
    ``gen --json`` prints: ``heaps``, ``bytes``, ``nim_sum_bit_length``,
    ``nim_sum_sha256``.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "heaps.u64")
    >>> gen(path, format="u64le", heaps=1000, kind="p-position")["bytes"]
    8000
    >>> analyze(numpy.fromfile(path, dtype=numpy.uint64)).winner
    'second'
    """
    return dict(json.loads(_native.generate(_path(out), format, heaps, size, bits, kind, seed)))


def convert(source: Union[PathType, bytes, bytearray], *, to: str,
            format: Optional[str] = None, out: Optional[PathType] = None,
            name: str = "<bytes>") -> Optional[bytes]:
    """The heaps of `source` (a path, or bytes in `format`) in format `to`,
    as ``nimstream convert``: written to `out` (whole or not at all), or
    returned as bytes when `out` is None.

    >>> convert(b"3 4 5", format="dec", to="bits")
    b'11\\n100\\n101\\n'
    >>> numpy.frombuffer(convert(b"0x10 7", format="hex", to="u16le"), numpy.uint16)
    array([16,  7], dtype=uint16)
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        return _native.convert(to, data=bytes(source), from_=format, out=_maybe_path(out),
                               name=name)
    return _native.convert(to, path=_path(source), from_=format, out=_maybe_path(out))
