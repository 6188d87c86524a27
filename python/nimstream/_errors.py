"""The exceptions of nimstream: bad input and bad usage.

Both are `ValueError`s, so ``except ValueError`` catches them; an I/O
failure is the `OSError` of its kind (`FileNotFoundError`, ...), and
Ctrl-C during an analysis is `KeyboardInterrupt`.
"""

from typing import Optional


class Error(Exception):
    """Every error nimstream raises itself."""


class InputError(Error, ValueError):
    """The input is not a valid instance of its format: where it went wrong.

    `path` names the input as given (``<bytes>``, ``<array>``, ``<ints>``
    or the ``name=`` passed for sources in memory), `offset` is the 0-based
    offset of the first wrong byte (for an iterable of ints, the index of
    the wrong heap), `line` and `column` are 1-based for the text formats
    and None otherwise.

    >>> import nimstream
    >>> try:
    ...     nimstream.analyze(b"3 4 x", format="dec")
    ... except nimstream.InputError as error:
    ...     print(error.offset, error.line, error.column)
    4 1 5
    """

    def __init__(self, message: str, path: str, offset: int,
                 line: Optional[int] = None, column: Optional[int] = None) -> None:
        super().__init__(message)
        self.path = path
        self.offset = offset
        self.line = line
        self.column = column


class UsageError(Error, ValueError):
    """The call asks for something impossible: an unknown format, rule or
    game, a budget below 64 bytes, bytes without a format, ...

    >>> import nimstream
    >>> nimstream.analyze([3, 4, 5], rule="sideways")
    Traceback (most recent call last):
    ...
    nimstream._errors.UsageError: unknown rule 'sideways': expected normal or misere
    """
