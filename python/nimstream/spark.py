"""Run `nimstream analyze` on Apache Spark: byte ranges as tasks, the
nimstream binary as the worker, a tree reduction of the partial summaries
(SPEC section 11; the protocol is documented in docs/cluster.md and in
the crate's `sharded` module).

    spark-submit [--files /path/to/nimstream] nimstream_spark.py FILE \
        [--format F] [--rule R] [--game G] [--ranges N] [--json] \
        [--nimstream PATH]

FILE must be at the same path on the driver and on every executor (a
shared file system). The binary is `--nimstream PATH`: an absolute path
present on every node, or the name of a file shipped with `--files`
(found with SparkFiles), or a command on the executors' PATH (the
default, `nimstream`). Standard output carries only the report, exactly
as `nimstream analyze` prints it; Spark's own logging stays on standard
error, at level ERROR. Exit status: 0, or nimstream's (1 bad input, 2 bad
usage).

Nothing here computes: the job cuts the file into N byte ranges, runs
`nimstream analyze FILE --range START..END --partial` on each (one task
a range), merges the partials with `nimstream merge` on the executors, in
groups of at most FAN_IN, level by level, and the last group on the
driver, which prints the report. When that merge answers with the plan
of the second phase (rare: the nim-sum's msb far below the longest heap),
each range runs `--phase2` and the same reduction follows.

Importable: `run(spark_context, path, ...)` returns the report's text.
Installed with the Python package it is `nimstream.spark`
(``from nimstream import spark``); `contrib/spark/nimstream_spark.py` is a
link to this file, for `spark-submit` without the package.
"""

import argparse
import os
import subprocess
import sys
from typing import Any, Iterable, List, Optional, Sequence, Tuple

#: One range per this many bytes by default.
DEFAULT_RANGE_BYTES = 256 << 20

#: Partials merged by one `nimstream merge` in the tree reduction.
FAN_IN = 16


class NimstreamError(Exception):
    """nimstream exited with an error: its status and its message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def resolve_binary(nimstream: str) -> str:
    """The binary on this node: an absolute path, a file shipped with
    --files, or a command on the PATH."""
    if os.path.isabs(nimstream):
        return nimstream
    try:
        from pyspark import SparkFiles  # type: ignore[import-not-found, unused-ignore]

        shipped = SparkFiles.get(os.path.basename(nimstream))
    except Exception:  # not in a Spark task, or nothing shipped
        shipped = None
    if shipped and os.path.isfile(shipped):
        if not os.access(shipped, os.X_OK):
            os.chmod(shipped, 0o755)
        return shipped
    return nimstream


def call(nimstream: str, args: List[str], stdin_text: Optional[str] = None) -> str:
    """Runs nimstream with `args`; its standard output, or NimstreamError."""
    done = subprocess.run(
        [resolve_binary(nimstream)] + args,
        input=stdin_text,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        message = done.stderr.strip() or "nimstream exited with %d" % done.returncode
        raise NimstreamError(done.returncode, message)
    return done.stdout


def cut(size: int, count: int) -> List[Tuple[int, int]]:
    """`count` adjacent byte ranges covering `size` bytes."""
    count = max(1, count)
    return [(size * k // count, size * (k + 1) // count) for k in range(count)]


def default_ranges(size: int) -> int:
    """One range per DEFAULT_RANGE_BYTES, at least one."""
    return max(1, -(-size // DEFAULT_RANGE_BYTES))


def tree_merge(keyed: Any, nimstream: str, count: int) -> List[str]:
    """Merges (index, partial) pairs on the executors, FAN_IN at a time,
    until at most FAN_IN are left; returns them, in file order."""
    while count > FAN_IN:
        count = -(-count // FAN_IN)
        keyed = (
            keyed.map(lambda kv: (kv[0] // FAN_IN, (kv[0], kv[1])))
            .groupByKey(count)
            .map(lambda kv: (kv[0], merge_group(nimstream, kv[1])))
        )
    return [partial for _, partial in sorted(keyed.collect())]


def merge_group(nimstream: str, group: Iterable[Tuple[int, str]]) -> str:
    """One `nimstream merge -` over a group of (index, partial) pairs."""
    lines = "".join(partial for _, partial in sorted(group))
    return call(nimstream, ["merge", "-"], lines)


#: The SparkContexts this module was shipped to (its functions run in
#: the executors' Python workers).
_SHIPPED: "set[int]" = set()


def ship_module(sc: Any) -> None:
    """Makes this module's functions reach the executors' Python workers:
    they are pickled by value, so that the workers need only the binary,
    not this file or the package (a script's functions, `__main__`'s,
    always are)."""
    if id(sc) in _SHIPPED:
        return
    if __name__ != "__main__":
        from pyspark import cloudpickle  # type: ignore[import-not-found, unused-ignore]

        cloudpickle.register_pickle_by_value(  # type: ignore[no-untyped-call, unused-ignore]
            sys.modules[__name__])
    _SHIPPED.add(id(sc))


def run(sc: Any, path: str, fmt: str = "auto", rule: str = "normal", game: str = "nim",
        ranges: Optional[int] = None, json_out: bool = False,
        nimstream: str = "nimstream") -> str:
    """Analyzes `path` on the SparkContext `sc`; returns the report's text,
    as `nimstream analyze` prints it. Raises NimstreamError on bad input
    or usage. The report names the file by its absolute path, the one
    every node opens."""
    ship_module(sc)
    path = os.path.abspath(path) if not os.path.isabs(path) else path
    size = os.path.getsize(path)
    count = ranges or default_ranges(size)
    common = ["--format", fmt, "--rule", rule, "--game", game, "-j", "1"]
    # Bad usage (a format, rule or game nimstream refuses, a file it cannot
    # open) shows here, on the driver, with nimstream's own message: an
    # empty range reads nothing.
    call(nimstream, ["analyze", path, "--range", "0..0", "--partial"] + common)

    def analyze(index_range: Tuple[int, Tuple[int, int]], extra: Sequence[str] = (),
                stdin_text: Optional[str] = None) -> Tuple[int, str]:
        index, (start, end) = index_range
        args = ["analyze", path, "--range", "%d..%d" % (start, end), "--partial"]
        return index, call(nimstream, args + common + list(extra), stdin_text)

    tasks = sc.parallelize(list(enumerate(cut(size, count))), count)
    first = tree_merge(tasks.map(analyze), nimstream, count)
    flags = ["--json"] if json_out else []
    answer = call(nimstream, ["merge", "-"] + flags, "".join(first))
    if not answer.startswith('{"nimstream_partial"'):
        return answer
    plan = answer
    second = tasks.map(lambda kr: analyze(kr, ["--phase2", "-"], plan))
    holders = tree_merge(second, nimstream, count)
    return call(nimstream, ["merge", "-"] + flags, plan + "".join(holders))


def arguments(argv: Optional[List[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="nimstream_spark.py",
        description="nimstream analyze on Apache Spark: ranges as tasks, "
        "the nimstream binary as the worker.",
    )
    parser.add_argument("file", help="the instance, at the same path on every node")
    parser.add_argument("--format", default="auto")
    parser.add_argument("--rule", default="normal")
    parser.add_argument("--game", default="nim")
    parser.add_argument("--ranges", type=int, default=None,
                        help="byte ranges (tasks); default one per 256 MiB")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--nimstream", default="nimstream",
                        help="the binary: an absolute path on every node, a file "
                        "shipped with --files, or a command on the PATH")
    return parser.parse_args(argv)


def main(argv: Optional[List[str]] = None) -> int:
    args = arguments(argv)
    from pyspark import SparkConf, SparkContext  # type: ignore[import-not-found, unused-ignore]

    conf = (SparkConf().setAppName("nimstream")
            .setIfMissing("spark.ui.showConsoleProgress", "false"))
    sc = SparkContext(conf=conf)
    sc.setLogLevel("ERROR")
    try:
        report = run(sc, args.file, args.format, args.rule, args.game,
                     args.ranges, args.json, args.nimstream)
    except NimstreamError as failed:
        print(failed.message, file=sys.stderr)
        return failed.status
    finally:
        sc.stop()
    sys.stdout.write(report)
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
