"""What the tests share: the nimstream binary they compare the package with
(``$NIMSTREAM``, else the checkout's release build, built here when it is
missing), and helpers that run it.

    pip install ./python && python -m pytest python/tests
"""

import json
import os
import subprocess
from pathlib import Path
from typing import Any, Dict, List

import pytest

ROOT = Path(__file__).resolve().parents[2]

FORMATS = ["bits", "hex", "dec", "unary", "u8", "u16le", "u32le", "u64le", "nimb"]
EXTENSION = {"bits": "bits", "hex": "hex", "dec": "dec", "unary": "unary", "u8": "u8",
             "u16le": "u16", "u32le": "u32", "u64le": "u64", "nimb": "nimb"}


def _binary() -> str:
    named = os.environ.get("NIMSTREAM")
    if named:
        return os.path.abspath(named)
    path = ROOT / "target" / "release" / "nimstream"
    if not path.is_file():
        subprocess.run(["cargo", "build", "--release", "--locked"], cwd=ROOT, check=True)
    return str(path)


class Cli:
    """The nimstream binary."""

    def __init__(self, path: str) -> None:
        self.path = path

    def run(self, *args: Any, stdin: str = "") -> subprocess.CompletedProcess:
        return subprocess.run([self.path] + [str(a) for a in args], input=stdin,
                              capture_output=True, text=True)

    def json(self, *args: Any, stdin: str = "") -> Dict[str, Any]:
        """The one JSON object a successful run prints."""
        done = self.run(*args, stdin=stdin)
        assert done.returncode == 0, done.stderr
        return dict(json.loads(done.stdout))

    def lines(self, *args: Any, stdin: str = "") -> List[Dict[str, Any]]:
        done = self.run(*args, stdin=stdin)
        assert done.returncode == 0, done.stderr
        return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]

    def gen(self, out: Path, fmt: str, *args: Any) -> Path:
        done = self.run("gen", "--format", fmt, "-o", out, *args)
        assert done.returncode == 0, done.stderr
        return out


@pytest.fixture(scope="session")
def cli() -> Cli:
    return Cli(_binary())


def without(report: Dict[str, Any], *keys: str) -> Dict[str, Any]:
    """`report` without `keys` (``"input.path"`` reaches inside)."""
    report = json.loads(json.dumps(report))
    for key in keys:
        inner = report
        *parents, last = key.split(".")
        for parent in parents:
            inner = inner[parent]
        inner.pop(last, None)
    return report
