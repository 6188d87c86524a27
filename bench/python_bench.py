"""The Python package's figures (bench/python.sh runs this in the
package's virtual environment and writes them into bench/RESULTS.md):

1. `nimstream.analyze(a)` on a uint64 numpy array of SIZE bytes, read in
   place, against `nimstream analyze FILE --json` on the same bytes in a
   cached file, side by side: RUNS rounds, each running both in an order
   of its own after a `cat FILE > /dev/null`; medians; the ratio is the
   CLI's median time over the package's (target: at least 0.9). Peak RSS:
   the CLI's from `/usr/bin/time -v`; the package's growth during the call
   (VmHWM after it, reset before by /proc/self/clear_refs, less VmRSS
   before), against the CLI's whole peak (target: no more).
2. `nimstream.analyze(heaps)` on INTS Python ints of 64 to 4,096 bits
   (uniform bit lengths, top bit set) against
   `functools.reduce(operator.xor, heaps)`, which gives the nim-sum only;
   medians of INT_RUNS; the ratio is reduce's time over analyze's (target:
   at least 1). A list is read in place, twice (the crate's
   `analyze_held`). Beside it, the same ints as an iterator
   (`analyze(iter(heaps))`, streamed as `nimb` records to a worker), and
   the CLI on the same heaps' `nimb` records in a cached file: read as a
   stream (`analyze - --format nimb < FILE`), as the iterator's worker
   reads them, and as a file on one thread and on all (`-j 1`, default).

Usage: python bench/python_bench.py BINARY FILE SIZE_LABEL  (prints markdown)
"""

import functools
import json
import operator
import os
import random
import re
import statistics
import subprocess
import sys
import time

import numpy

import nimstream

RUNS = int(os.environ.get("RUNS", "7"))
INTS = int(os.environ.get("INTS", "10000000"))
INT_RUNS = int(os.environ.get("INT_RUNS", "3"))


def status_kib(field):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def timed(run):
    started = time.perf_counter()
    result = run()
    return time.perf_counter() - started, result


def cli_peak_rss_kib(binary, path):
    done = subprocess.run(["/usr/bin/time", "-v", binary, "analyze", path, "--json"],
                          capture_output=True, text=True, check=True)
    return int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr).group(1))


def array_figures(binary, path, label):
    array = numpy.fromfile(path, dtype=numpy.uint64)
    cli_times, package_times = [], []
    cli_report = package_report = None
    for round_ in range(RUNS + 1):
        subprocess.run(["cat", path], stdout=subprocess.DEVNULL, check=True)
        runs = [("cli", lambda: subprocess.run([binary, "analyze", path, "--json"],
                                               capture_output=True, text=True, check=True)),
                ("package", lambda: nimstream.analyze(array))]
        if round_ % 2:
            runs.reverse()
        for name, run in runs:
            seconds, result = timed(run)
            if round_ == 0:
                continue  # the warm-up round
            if name == "cli":
                cli_times.append(seconds)
                cli_report = result.stdout
            else:
                package_times.append(seconds)
                package_report = result
    expected = json.loads(cli_report)
    for report in (expected,):
        del report["stats"], report["input"]["path"]
    mine = package_report.to_dict()
    del mine["stats"], mine["input"]["path"]
    assert mine == expected, "the package and the CLI disagree"
    # Peak RSS: the package's growth during one call.
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")
    before = status_kib("VmRSS")
    nimstream.analyze(array)
    growth = status_kib("VmHWM") - before
    cli_peak = cli_peak_rss_kib(binary, path)
    cli_median, package_median = statistics.median(cli_times), statistics.median(package_times)
    ratio = cli_median / package_median
    gib = array.nbytes / (1 << 30)
    lines = [
        "| source | size | CLI (`analyze FILE --json`) | package (`analyze(a)`) | package "
        "throughput | ratio | target | CLI peak RSS | package RSS growth | target met |",
        "|---|---|---|---|---|---|---|---|---|---|",
        "| uint64 array / u64le file | {} | {:.0f} ms | {:.0f} ms | {:.2f} GB/s | {:.3f} | "
        "≥ 0.9 | {:.1f} MiB | {:.1f} MiB | {} |".format(
            label, cli_median * 1e3, package_median * 1e3, array.nbytes / package_median / 1e9,
            ratio, cli_peak / 1024, growth / 1024,
            "yes" if ratio >= 0.9 and growth <= cli_peak else "no"),
        "",
        "Runs: CLI {} ms; package {} ms ({:.2f} GiB, {} heaps, {} threads).".format(
            ", ".join("{:.0f}".format(t * 1e3) for t in cli_times),
            ", ".join("{:.0f}".format(t * 1e3) for t in package_times), gib, array.size,
            package_report.stats["threads"]),
    ]
    del array
    return lines


def leb128(number):
    out = bytearray()
    while True:
        low, number = number & 0x7F, number >> 7
        if number == 0:
            out.append(low)
            return bytes(out)
        out.append(low | 0x80)


def write_nimb(heaps, path):
    """`heaps` as a nimb file: the records `analyze(heaps)` streams."""
    with open(path, "wb") as out:
        out.write(b"NIMB\x01\x00\x00\x00")
        for heap in heaps:
            data = heap.to_bytes((heap.bit_length() + 7) // 8, "little")
            out.write(leb128(len(data)))
            out.write(data)


def cli_on_records(binary, heaps, directory, nim_sum):
    """Medians of INT_RUNS runs of the CLI on the heaps' nimb records: as a
    stream from standard input, as a file on one thread, on all."""
    path = os.path.join(directory, "ints.nimb")
    write_nimb(heaps, path)
    runs = {"stream": ([binary, "analyze", "-", "--format", "nimb", "--json"], path),
            "file -j 1": ([binary, "analyze", path, "--json", "-j", "1"], None),
            "file": ([binary, "analyze", path, "--json"], None)}
    times = {name: [] for name in runs}
    try:
        for _ in range(INT_RUNS):
            subprocess.run(["cat", path], stdout=subprocess.DEVNULL, check=True)
            for name, (command, stdin) in runs.items():
                with open(stdin or os.devnull, "rb") as source:
                    seconds, done = timed(lambda: subprocess.run(
                        command, stdin=source, capture_output=True, text=True, check=True))
                assert int(json.loads(done.stdout)["nim_sum"]["hex"], 16) == nim_sum, name
                times[name].append(seconds)
        size = os.path.getsize(path)
    finally:
        os.remove(path)
    return {name: statistics.median(t) for name, t in times.items()}, size


def int_figures(binary, directory):
    rng = random.Random(35)
    heaps = []
    for _ in range(INTS):
        bits = rng.randint(64, 4096)
        heaps.append(rng.getrandbits(bits) | (1 << (bits - 1)))
    total_bits = sum(h.bit_length() for h in heaps)
    reduce_times, analyze_times, iterator_times = [], [], []
    for round_ in range(INT_RUNS):
        runs = [("reduce", lambda: functools.reduce(operator.xor, heaps)),
                ("analyze", lambda: nimstream.analyze(heaps)),
                ("iterator", lambda: nimstream.analyze(iter(heaps)))]
        if round_ % 2:
            runs.reverse()
        for name, run in runs:
            seconds, result = timed(run)
            if name == "reduce":
                reduce_times.append(seconds)
                nim_sum = result
            elif name == "analyze":
                analyze_times.append(seconds)
                report = result
            else:
                iterator_times.append(seconds)
                streamed = result
    assert report.nim_sum == nim_sum and report.move is not None
    assert streamed.to_dict()["move"] == report.to_dict()["move"]
    reduce_median, analyze_median = statistics.median(reduce_times), statistics.median(
        analyze_times)
    ratio = reduce_median / analyze_median
    cli, size = cli_on_records(binary, heaps, directory, nim_sum)
    return [
        "| source | heaps | bits | `reduce(xor, heaps)` | `analyze(heaps)` | per heap | ratio | "
        "target | target met |",
        "|---|---|---|---|---|---|---|---|---|",
        "| list of ints | {:,} | {:,} (64–4,096 each) | {:.2f} s | {:.2f} s | {:.0f} ns "
        "against {:.0f} ns | {:.3f} | ≥ 1 | {} |".format(
            INTS, total_bits, reduce_median, analyze_median, analyze_median / INTS * 1e9,
            reduce_median / INTS * 1e9, ratio, "yes" if ratio >= 1 else "no"),
        "",
        "Runs: reduce {} s; analyze {} s. The report's nim-sum equals reduce's, and it "
        "names the move (heap {}).".format(
            ", ".join("{:.2f}".format(t) for t in reduce_times),
            ", ".join("{:.2f}".format(t) for t in analyze_times), report.move.heap),
        "",
        "The CLI on the same heaps' nimb records ({:.2f} GB, a cached file; medians of {}):"
        .format(size / 1e9, INT_RUNS),
        "",
        "| source | `analyze(heaps)`, a list | `analyze(iter(heaps))` | CLI, stream "
        "(`analyze - < FILE`) | CLI, file `-j 1` | CLI, file ({} threads) |".format(
            os.cpu_count()),
        "|---|---|---|---|---|---|",
        "| nimb records of the ints | {:.2f} s | {:.2f} s | {:.2f} s | {:.2f} s | {:.2f} s |"
        .format(analyze_median, statistics.median(iterator_times), cli["stream"],
                cli["file -j 1"], cli["file"]),
    ]


def main():
    binary, path, label = sys.argv[1:4]
    out = ["### A uint64 numpy array in place against the CLI on the same bytes", ""]
    out += array_figures(binary, path, label)
    if INTS > 0:
        out += ["", "### Python ints against `functools.reduce(operator.xor, heaps)`", ""]
        out += int_figures(binary, os.path.dirname(os.path.abspath(path)))
    print("\n".join(out))


if __name__ == "__main__":
    main()
