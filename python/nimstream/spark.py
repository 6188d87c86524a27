"""Run `nimstream analyze` on Apache Spark: byte ranges as tasks, the
nimstream binary as the worker, a tree reduction of the partial summaries
(the protocol is documented in docs/cluster.md and in the crate's
`sharded` module).

    spark-submit [--files /path/to/nimstream] nimstream_spark.py FILE \
        [--format F] [--rule R] [--game G] [--ranges N] [--json] \
        [--nimstream PATH]

FILE must be at the same path on the driver and on every executor (a
shared file system). The binary is `--nimstream PATH`: an absolute path
present on every node, or the name of a file shipped with `--files`
(found with SparkFiles), or a command on the executors' PATH (the
default, `nimstream`). Standard output carries only the report, exactly
as `nimstream analyze` prints it; Spark's own logging stays on standard
error, at level ERROR from the job's start (see `quiet_spark`). Exit
status: 0, or nimstream's (1 bad input, 2 bad usage).

Nothing here computes: the job cuts the file into N byte ranges, runs
`nimstream analyze FILE --range START..END --partial` on each (one task
a range), merges the partials with `nimstream merge` on the executors, in
groups of at most FAN_IN, level by level, and the last group on the
driver, which prints the report. A merge of some of the ranges prints
their partial with exit status 3 (NOT_A_REPORT); when the last merge
answers so, its partial is the plan of the second phase (rare: the
nim-sum's msb far below the longest heap), each range runs `--phase2` and
the same reduction follows.

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

#: The exit status of a `nimstream merge` that printed a partial (of part
#: of the file, or the plan of the second phase), not a report.
NOT_A_REPORT = 3


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


def call(nimstream: str, args: List[str], stdin_text: Optional[str] = None,
         also_fine: Tuple[int, ...] = ()) -> Tuple[str, int]:
    """Runs nimstream with `args`; its standard output and exit status, or
    NimstreamError for a status other than 0 and those in `also_fine`."""
    done = subprocess.run(
        [resolve_binary(nimstream)] + args,
        input=stdin_text,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0 and done.returncode not in also_fine:
        message = done.stderr.strip() or "nimstream exited with %d" % done.returncode
        raise NimstreamError(done.returncode, message)
    return done.stdout, done.returncode


def analyze_call(nimstream: str, args: List[str], stdin_text: Optional[str] = None) -> str:
    """`nimstream analyze`: its standard output, or NimstreamError."""
    return call(nimstream, args, stdin_text)[0]


def merge_call(nimstream: str, args: List[str], stdin_text: str) -> Tuple[str, bool]:
    """`nimstream merge`: its standard output, and whether it is the report
    (exit status 0) rather than a partial (NOT_A_REPORT: part of the file,
    or the plan of the second phase)."""
    out, status = call(nimstream, ["merge"] + args, stdin_text, (NOT_A_REPORT,))
    return out, status == 0


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
    return merge_call(nimstream, ["-"], lines)[0]


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
    common = ["--format", fmt, "--rule", rule, "--game", game, "-j", "1"]
    # Bad usage (a format, rule or game nimstream refuses, a file it cannot
    # open) shows here, on the driver, with nimstream's own message: an
    # empty range reads nothing.
    analyze_call(nimstream, ["analyze", path, "--range", "0..0", "--partial"] + common)
    size = os.path.getsize(path)
    count = ranges or default_ranges(size)

    def analyze(index_range: Tuple[int, Tuple[int, int]], extra: Sequence[str] = (),
                stdin_text: Optional[str] = None) -> Tuple[int, str]:
        index, (start, end) = index_range
        args = ["analyze", path, "--range", "%d..%d" % (start, end), "--partial"]
        return index, analyze_call(nimstream, args + common + list(extra), stdin_text)

    tasks = sc.parallelize(list(enumerate(cut(size, count))), count)
    first = tree_merge(tasks.map(analyze), nimstream, count)
    flags = ["--json"] if json_out else []
    answer, is_report = merge_call(nimstream, ["-"] + flags, "".join(first))
    if is_report:
        return answer
    plan = answer
    second = tasks.map(lambda kr: analyze(kr, ["--phase2", "-"], plan))
    holders = tree_merge(second, nimstream, count)
    report, is_report = merge_call(nimstream, ["-"] + flags, plan + "".join(holders))
    if not is_report:
        raise NimstreamError(NOT_A_REPORT, "the merge of the second phase gave no report")
    return report


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


def quiet_spark(conf: Any) -> None:
    """Spark logs at level ERROR from the job's start: `spark.log.level`
    sets it once the SparkContext has started, and until then log4j's root
    level is FATAL, so that the context's own start (some 40 INFO lines)
    prints nothing. (Not ERROR: Spark takes a root logger at ERROR under
    log4j's built-in configuration for no configuration at all, and loads
    its defaults, at INFO.) spark-submit's launcher may warn before the job
    runs (a host name that resolves to a loopback address: set
    SPARK_LOCAL_IP)."""
    from pyspark import SparkContext  # type: ignore[import-not-found, unused-ignore]

    conf.set("spark.log.level", "ERROR")
    SparkContext._ensure_initialized(conf=conf)
    jvm = SparkContext._jvm
    assert jvm is not None, "the gateway to the JVM is up after _ensure_initialized"
    log4j = jvm.org.apache.logging.log4j
    log4j.core.config.Configurator.setRootLevel(log4j.Level.FATAL)


def main(argv: Optional[List[str]] = None) -> int:
    args = arguments(argv)
    from pyspark import SparkConf, SparkContext  # type: ignore[import-not-found, unused-ignore]

    conf = (SparkConf().setAppName("nimstream")
            .setIfMissing("spark.ui.showConsoleProgress", "false"))
    quiet_spark(conf)
    sc = SparkContext(conf=conf)
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
