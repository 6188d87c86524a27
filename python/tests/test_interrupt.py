"""Long analyses release the GIL and stop on Ctrl-C (`KeyboardInterrupt`)
within a second: measured in a child interpreter sent SIGINT while it
analyzes a source that never ends, or one heap of 2^23 bits in a uint8
array under a 64-byte budget (a pass per 512 bits: minutes of work), or a game's value sequence with
no period (which the crate cannot stop: the call returns, the work ends in
the background)."""

import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy

import nimstream

CHILD = textwrap.dedent("""
    import sys, time, numpy, nimstream
    kind = sys.argv[1]
    if kind == "ints":
        def forever():
            while True:
                yield 2**100 + 3
        source, options = forever(), {}
    else:
        source = numpy.frombuffer(b"1" * (1 << 23) + b"\\n", numpy.uint8)
        options = {"format": "bits", "memory": 64, "threads": 1}
        if kind == "path":
            source = sys.argv[2]
            with open(source, "wb") as out:
                out.write(b"1" * (1 << 23) + b"\\n")
    print("started", flush=True)
    try:
        if kind == "game":
            # No period within 2^24 values: half a minute of work.
            nimstream.Game("octal:0.161")
        else:
            nimstream.analyze(source, **options)
        print("finished", flush=True)
    except KeyboardInterrupt:
        print("interrupted %.3f" % time.monotonic(), flush=True)
""")


def interrupt_after(kind, seconds, *args):
    """Starts a child analyzing `kind`, sends it SIGINT after `seconds`;
    returns its output lines and how long after the signal it answered."""
    child = subprocess.Popen([sys.executable, "-c", CHILD, kind, *map(str, args)],
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "started"
    time.sleep(seconds)
    sent = time.monotonic()
    child.send_signal(signal.SIGINT)
    out, _ = child.communicate(timeout=30)
    line = out.strip()
    answered = float(line.split()[1]) - sent if line.startswith("interrupted") else None
    return line, answered


def test_ctrl_c_stops_an_endless_stream_of_ints():
    line, answered = interrupt_after("ints", 1.0)
    assert line.startswith("interrupted"), line
    assert answered < 1.0, answered


def test_ctrl_c_stops_windowed_passes_over_an_array():
    line, answered = interrupt_after("array", 0.5)
    assert line.startswith("interrupted"), line
    assert answered < 1.0, answered


def test_ctrl_c_stops_windowed_passes_over_a_file(tmp_path):
    line, answered = interrupt_after("path", 0.5, tmp_path / "long.bits")
    assert line.startswith("interrupted"), line
    assert answered < 1.0, answered


def test_ctrl_c_returns_from_a_long_value_sequence():
    line, answered = interrupt_after("game", 1.0)
    assert line.startswith("interrupted"), line
    assert answered < 1.0, answered


def test_an_analysis_releases_the_gil():
    # One heap of 2^22 bits under a 64-byte budget: 8,192 passes.
    array = numpy.frombuffer(b"1" * (1 << 22) + b"\n", numpy.uint8)
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.001)

    counter = threading.Thread(target=count)
    counter.start()
    started = time.monotonic()
    before = len(ticks)
    report = nimstream.analyze(array, format="bits", memory=64, threads=1)
    elapsed = time.monotonic() - started
    during = len(ticks) - before
    stop.set()
    counter.join()
    assert report.max_bit_length == 1 << 22
    # The other thread ran throughout: about one tick a millisecond.
    assert elapsed > 0.05 and during > elapsed * 1000 / 4, (elapsed, during)
