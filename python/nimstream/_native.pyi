"""Type stubs of the native module (``python/src``); the package's own
modules wrap it and are typed in place."""

from typing import Any, List, Optional, Tuple, Union, final

import numpy
import numpy.typing

__all__ = [
    "DEFAULT_MAX_HEAP", "DEFAULT_MAX_VALUES", "Game", "Position", "Settings", "analyze_array", "analyze_bytes",
    "convert",
    "analyze_ints", "analyze_path", "generate", "graph_bytes", "graph_path", "int_path", "items_path",
    "merge",
    "partial",
]

DEFAULT_MAX_HEAP: int
DEFAULT_MAX_VALUES: int

@final
class Settings:
    def __new__(
        cls,
        *,
        format: Optional[str] = None,
        rule: str = "normal",
        game: str = "nim",
        memory: Union[int, str, None] = None,
        threads: Optional[int] = None,
        inline_bits: int = 4096,
        decide: bool = False,
        max_values: Optional[int] = None,
        nim_sum_out: Optional[str] = None,
        move_out: Optional[str] = None,
        no_mmap: bool = False,
        name: Optional[str] = None,
    ) -> "Settings": ...

@final
class Game:
    def __new__(cls, name: str, *, max_values: int = ...) -> "Game": ...
    @property
    def canonical(self) -> str: ...
    @property
    def values_computed(self) -> int: ...
    def period(self) -> Optional[Tuple[int, int]]: ...
    def values(self, n: int) -> numpy.typing.NDArray[numpy.uint16]: ...
    def value(self, h: int) -> int: ...
    def grundy_json(self, values: int = 120, heaps: List[int] = ...) -> str: ...
    def misere_json(self, max_heap: int = ...) -> str: ...

@final
class Position:
    def __new__(
        cls,
        *,
        path: Optional[str] = None,
        data: Optional[bytes] = None,
        heaps: Any = None,
        format: Optional[str] = None,
        rule: str = "normal",
        moves: bool = True,
        inline_bits: int = 4096,
        threads: Optional[int] = None,
        name: Optional[str] = None,
    ) -> "Position": ...
    def set(self, i: int, x: int) -> None: ...
    @property
    def heaps(self) -> int: ...
    def status_json(self) -> str: ...

def analyze_path(path: str, settings: Settings) -> str: ...
def analyze_bytes(data: bytes, settings: Settings) -> str: ...
def analyze_array(array: numpy.ndarray, settings: Settings) -> str: ...
def analyze_ints(heaps: Any, settings: Settings) -> str: ...
def int_path() -> str: ...
def items_path() -> str: ...
def graph_path(path: str, values_out: Optional[str] = None) -> str: ...
def graph_bytes(data: bytes, name: str, values_out: Optional[str] = None) -> str: ...
def partial(path: str, start: int, end: int, settings: Settings,
            phase2: Optional[str] = None) -> str: ...
def merge(partials: List[str], settings: Settings) -> Tuple[str, str]: ...
def generate(out: str, format: str, heaps: Optional[int] = None,
             size: Union[int, str, None] = None, bits: Union[int, str, None] = None,
             kind: str = "random", seed: int = 0) -> str: ...
def convert(to: str, path: Optional[str] = None, data: Optional[bytes] = None,
            from_: Optional[str] = None, out: Optional[str] = None,
            name: str = "<bytes>") -> Optional[bytes]: ...
