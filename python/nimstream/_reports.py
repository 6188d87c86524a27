"""The reports, read from the JSON the crate writes (the CLI's ``--json``),
so that ``to_dict()`` is that JSON by construction: `Report` (``analyze``
and ``merge``), its `Move`, `GraphReport` (``graph``), `Partial` (a
range's share of a sharded run) and `Quotient` (a game's misère quotient).

Values of any size are Python ints; a value longer than ``inline_bits``
is None (its bit length stays in ``to_dict()``).
"""

import copy
import html
import json
from typing import Any, Dict, List, Optional

from ._errors import UsageError


def _int(value: Any) -> Optional[int]:
    """A JSON integer that may be null."""
    return None if value is None else int(value)


def _number(value: Optional[Dict[str, Any]]) -> Optional[int]:
    """The int of a value object ``{"bit_length", "hex", "dec"}``."""
    if value is None or value.get("hex") is None:
        return None
    return int(value["hex"], 16)


class Move:
    """A winning move: take `take` tokens from heap `heap` (its first byte
    at `offset`, on `line` for the text formats), leaving the heaps of
    `leave` (non-empty, smaller first: for Nim the heap's new value, or
    nothing when it is taken whole).

    For Nim, `from_` and `to` are the heap's value before and after; for
    another game, `from_grundy` and `to_grundy` are the Grundy values of
    the heap and of what is left.
    """

    __slots__ = ("_data",)

    def __init__(self, data: Dict[str, Any]) -> None:
        self._data = data

    @property
    def heap(self) -> int:
        return int(self._data["heap"])

    @property
    def offset(self) -> Optional[int]:
        return _int(self._data["offset"])

    @property
    def line(self) -> Optional[int]:
        return _int(self._data["line"])

    @property
    def from_(self) -> Optional[int]:
        """The heap's value before the move (``getattr(move, "from")`` too)."""
        return _number(self._data["from"])

    def __getattr__(self, name: str) -> Any:
        if name == "from":
            return self.from_
        raise AttributeError(name)

    @property
    def to(self) -> Optional[int]:
        return _number(self._data.get("to"))

    @property
    def take(self) -> Optional[int]:
        if "take" in self._data:
            return int(self._data["take"])
        return _number(self._data["remove"])

    @property
    def leave(self) -> List[Optional[int]]:
        if "leave" in self._data:
            return [_number(part) for part in self._data["leave"]]
        to = self._data["to"]
        return [] if to["bit_length"] == 0 else [_number(to)]

    @property
    def from_grundy(self) -> Optional[int]:
        return _int(self._data.get("from_grundy"))

    @property
    def to_grundy(self) -> Optional[int]:
        return _int(self._data.get("to_grundy"))

    def to_dict(self) -> Dict[str, Any]:
        """The move as the JSON report has it."""
        return copy.deepcopy(self._data)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Move) and other._data == self._data

    def __repr__(self) -> str:
        leave = ", ".join(_short(v) for v in self.leave)
        return "Move(heap={}, take={}, leave=[{}])".format(self.heap, _short(self.take), leave)


def _short(value: Optional[int]) -> str:
    """An int for a repr: in full up to 40 digits, else by its bit length."""
    if value is None:
        return "None"
    text = str(value) if value < 10**40 else "<{} bits>".format(value.bit_length())
    return text


class Report:
    """The report of an analysis: the fields of ``nimstream analyze --json``
    as attributes, values as Python ints.

    >>> import nimstream
    >>> report = nimstream.analyze([3, 4, 5])
    >>> report.winner, report.nim_sum, report.move.heap, report.move.take
    ('first', 2, 0, 2)
    >>> report
    Report(winner='first', heaps=3, nim_sum=2, move=Move(heap=0, take=2, leave=[1]))
    """

    __slots__ = ("_data",)

    def __init__(self, data: Dict[str, Any]) -> None:
        self._data = data

    @classmethod
    def from_json(cls, text: str) -> "Report":
        """The report of one line of ``analyze --json`` (or ``merge --json``)."""
        return cls(json.loads(text))

    def to_dict(self) -> Dict[str, Any]:
        """The report as ``nimstream analyze --json`` prints it."""
        return copy.deepcopy(self._data)

    def to_json(self) -> str:
        """The report as one line of JSON."""
        return json.dumps(self._data, separators=(",", ":"))

    @property
    def schema(self) -> int:
        return int(self._data["schema"])

    @property
    def input(self) -> Dict[str, Any]:
        """``{"path", "format", "bytes"}``: what was read."""
        return dict(self._data["input"])

    @property
    def rule(self) -> str:
        return str(self._data["rule"])

    @property
    def game(self) -> str:
        return str(self._data["game"])

    @property
    def heaps(self) -> int:
        return int(self._data["heaps"])

    @property
    def nonzero_heaps(self) -> int:
        return int(self._data["nonzero_heaps"])

    @property
    def ones(self) -> int:
        return int(self._data["ones"])

    @property
    def big(self) -> int:
        return int(self._data["big"])

    @property
    def max_bit_length(self) -> int:
        return int(self._data["max_bit_length"])

    @property
    def nim_sum(self) -> Optional[int]:
        """The XOR of the heaps (None for a game other than Nim, with
        ``decide=True`` when not reached, or past ``inline_bits``)."""
        return _number(self._data["nim_sum"])

    @property
    def nim_sum_bit_length(self) -> Optional[int]:
        value = self._data["nim_sum"]
        return None if value is None else int(value["bit_length"])

    @property
    def msb(self) -> Optional[int]:
        return _int(self._data["msb"])

    @property
    def winner(self) -> str:
        """``"first"`` (the player to move) or ``"second"``."""
        return str(self._data["winner"])

    @property
    def winning_moves(self) -> Optional[int]:
        return _int(self._data["winning_moves"])

    @property
    def move(self) -> Optional[Move]:
        data = self._data["move"]
        return None if data is None else Move(data)

    @property
    def grundy(self) -> Optional[Dict[str, Any]]:
        """``{"preperiod", "period", "values_computed"}`` for a game other
        than Nim, else None."""
        value = self._data.get("grundy")
        return None if value is None else dict(value)

    @property
    def grundy_sum(self) -> Optional[int]:
        return _int(self._data.get("grundy_sum"))

    @property
    def stats(self) -> Dict[str, Any]:
        """What the analysis cost, measured: passes, bytes scanned, working
        memory, threads, seconds."""
        return dict(self._data["stats"])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Report) and other._data == self._data

    def __repr__(self) -> str:
        parts = ["winner={!r}".format(self.winner), "heaps={}".format(self.heaps)]
        if self.game != "nim":
            parts.insert(0, "game={!r}".format(self.game))
            parts.append("grundy_sum={}".format(self.grundy_sum))
        elif self._data["nim_sum"] is not None:
            bits = self.nim_sum_bit_length
            parts.append("nim_sum={}".format(_short(self.nim_sum) if self.nim_sum is not None
                                             else "<{} bits>".format(bits)))
        if self.rule != "normal":
            parts.insert(0, "rule={!r}".format(self.rule))
        parts.append("move={!r}".format(self.move))
        return "Report({})".format(", ".join(parts))

    def _repr_html_(self) -> str:
        """The report as a table, for Jupyter."""
        rows = [
            ("input", "{} ({}, {} bytes)".format(self.input["path"], self.input["format"],
                                                 self.input["bytes"])),
            ("game", self.game), ("rule", self.rule),
            ("heaps", "{} ({} non-zero, {} ones, {} of 2 or more)".format(
                self.heaps, self.nonzero_heaps, self.ones, self.big)),
            ("longest heap", "{} bits".format(self.max_bit_length)),
        ]
        if self.game == "nim":
            rows.append(("nim-sum", _value_html(self._data["nim_sum"])))
        else:
            rows.append(("Grundy sum", str(self.grundy_sum)))
        rows.append(("winner", "the {} player".format(self.winner)))
        move = self.move
        rows.append(("move", "none" if move is None else
                     "take {} from heap {}, leaving {}".format(
                         _short(move.take), move.heap,
                         ", ".join(_short(v) for v in move.leave) or "nothing")))
        body = "".join("<tr><th style='text-align:left'>{}</th><td style='text-align:left'>{}"
                       "</td></tr>".format(html.escape(k), html.escape(v)) for k, v in rows)
        return "<table><caption>nimstream report</caption>{}</table>".format(body)


def _value_html(value: Optional[Dict[str, Any]]) -> str:
    if value is None:
        return "unknown"
    number = _number(value)
    return "<{} bits>".format(value["bit_length"]) if number is None else _short(number)


class GraphReport:
    """The report of ``nimstream graph --json``: `nodes`, `edges`,
    `tokens`, `values` (one per token: an int, or ``{"infinite": [K]}``),
    `sum`, `winner` (``"first"``, ``"second"`` or ``"draw"``), `move`
    (``{"token", "from", "to"}`` or None).

    >>> import nimstream
    >>> report = nimstream.graph(b"3 2\\n0 1\\n1 2\\n1\\n0\\n")
    >>> report.values, report.winner, report.move
    ([0], 'second', None)
    """

    __slots__ = ("_data",)

    def __init__(self, data: Dict[str, Any]) -> None:
        self._data = data

    def to_dict(self) -> Dict[str, Any]:
        """The report as ``nimstream graph --json`` prints it."""
        return copy.deepcopy(self._data)

    @property
    def nodes(self) -> int:
        return int(self._data["nodes"])

    @property
    def edges(self) -> int:
        return int(self._data["edges"])

    @property
    def tokens(self) -> int:
        return int(self._data["tokens"])

    @property
    def values(self) -> List[Any]:
        return copy.deepcopy(self._data["values"])

    @property
    def sum(self) -> Optional[int]:
        return _int(self._data["sum"])

    @property
    def winner(self) -> str:
        return str(self._data["winner"])

    @property
    def move(self) -> Optional[Dict[str, int]]:
        move = self._data["move"]
        return None if move is None else dict(move)

    def __repr__(self) -> str:
        return "GraphReport(nodes={}, tokens={}, winner={!r}, move={!r})".format(
            self.nodes, self.tokens, self.winner, self.move)


class Partial:
    """A range's partial summary in a sharded run (``analyze --range …
    --partial``), or the merge of adjacent ones; merge them with
    `nimstream.merge`."""

    __slots__ = ("_text", "_plan")

    def __init__(self, text: str, plan: bool = False) -> None:
        self._text = text.strip()
        self._plan = plan

    @property
    def plan(self) -> bool:
        """Whether `merge` returned this as the plan of the second phase."""
        return self._plan

    def to_json(self) -> str:
        """The partial as one line of JSON, as the CLI prints it."""
        return self._text

    def to_dict(self) -> Dict[str, Any]:
        return dict(json.loads(self._text))

    @property
    def range(self) -> List[int]:
        return list(self.to_dict()["range"])

    @property
    def heaps(self) -> int:
        return int(self.to_dict()["heaps"])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Partial) and other.to_dict() == self.to_dict()

    def __repr__(self) -> str:
        data = self.to_dict()
        return "Partial(range={}, heaps={}, kind={!r})".format(data["range"], data["heaps"],
                                                                data.get("kind"))


class Quotient:
    """A heap game's misère quotient, as ``nimstream grundy GAME --rule
    misere --json`` prints it: the commutative monoid of the game's
    positions up to misère indistinguishability (Plambeck–Siegel), its
    `elements` (words in the generators), `product` table, `p_portion`
    (the elements whose positions the player to move loses), the
    pretending function Φ with its `preperiod` and `period` (None when
    none was proven) and the monoid's `presentation`.

    ``outcome(heaps)`` multiplies the heaps' elements and looks the product
    up in the P-portion: who wins the misère sum of those heaps.

    >>> import nimstream
    >>> q = nimstream.Game("kayles").misere()
    >>> q.order, q.preperiod, q.period
    (40, 71, 12)
    >>> q.outcome([1]), q.outcome([1, 1]), q.outcome([4, 4])
    ('second', 'first', 'first')
    """

    __slots__ = ("_data",)

    def __init__(self, data: Dict[str, Any]) -> None:
        self._data = data

    def to_dict(self) -> Dict[str, Any]:
        """The quotient as ``nimstream grundy GAME --rule misere --json``
        prints it."""
        return copy.deepcopy(self._data)

    @property
    def game(self) -> str:
        return str(self._data["game"])

    @property
    def order(self) -> int:
        return int(self._data["order"])

    @property
    def elements(self) -> List[str]:
        return list(self._data["elements"])

    @property
    def product(self) -> List[List[int]]:
        return copy.deepcopy(self._data["product"])

    @property
    def p_portion(self) -> List[int]:
        return list(self._data["p_portion"])

    @property
    def preperiod(self) -> Optional[int]:
        return _int(self._data["pretending"]["preperiod"])

    @property
    def period(self) -> Optional[int]:
        return _int(self._data["pretending"]["period"])

    @property
    def presentation(self) -> str:
        return str(self._data["presentation"])

    @property
    def heaps_computed(self) -> int:
        """The heaps whose elements were computed; without a period the
        quotient is exact for sums of heaps up to this size."""
        return int(self._data["heaps_computed"])

    def element(self, heap: int) -> int:
        """Φ(heap), the index in `elements` of a heap of that size (past
        the heaps computed, by the proven period)."""
        if isinstance(heap, bool) or not isinstance(heap, int):
            raise TypeError("a heap is an int, not {}".format(type(heap).__name__))
        if heap < 0:
            raise ValueError("a heap is not negative: {}".format(heap))
        values = self._data["pretending"]["values"]
        if heap < len(values):
            return int(values[heap])
        preperiod, period = self.preperiod, self.period
        if preperiod is None or period is None:
            raise UsageError("heap {} lies past the {} heaps the quotient of {} is exact for"
                             .format(heap, len(values) - 1, self.game))
        return int(values[preperiod + (heap - preperiod) % period])

    def outcome(self, heaps: List[int]) -> str:
        """``"first"`` when the player to move wins the misère sum of
        `heaps`, else ``"second"``."""
        product = self._data["product"]
        element = 0
        for heap in heaps:
            element = product[element][self.element(heap)]
        return "second" if element in self._data["p_portion"] else "first"

    def __repr__(self) -> str:
        period = ("no period proven" if self.period is None
                  else "preperiod {}, period {}".format(self.preperiod, self.period))
        return "Quotient({!r}: order {}, {})".format(self.game, self.order, period)
