"""The Spark job against `nimstream analyze --json`, in local mode
(`local[2]`, one SparkContext for every case), on small generated inputs
of every format, both rules, a game, the second phase, bad input and bad
usage.

    NIMSTREAM=target/release/nimstream python -m unittest contrib/spark/test_nimstream_spark.py

Needs Java (17) and pyspark: without either the tests fail, saying so
(`.ci/run` installs pyspark into target/spark-venv).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import nimstream_spark  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

FORMATS = ["bits", "hex", "dec", "unary", "u8", "u16le", "u32le", "u64le", "nimb"]


def binary():
    """The nimstream binary under test: $NIMSTREAM, else the release build."""
    path = os.environ.get("NIMSTREAM", os.path.join(ROOT, "target", "release", "nimstream"))
    if not os.path.isfile(path):
        raise RuntimeError("no nimstream binary at %s: build it (cargo build --release) "
                           "or set NIMSTREAM" % path)
    return os.path.abspath(path)


def requirements():
    """Fails loudly when Java or pyspark is missing."""
    try:
        subprocess.run(["java", "-version"], capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError) as missing:
        raise RuntimeError("the Spark tests need Java (17): `java -version` failed: %s"
                           % missing)
    try:
        import pyspark  # noqa: F401
    except ImportError as missing:
        raise RuntimeError("the Spark tests need pyspark (pip install pyspark; .ci/run "
                           "installs it into target/spark-venv): %s" % missing)


def without_stats(text):
    report = json.loads(text)
    del report["stats"]
    return report


class SparkJob(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        requirements()
        from pyspark import SparkConf, SparkContext

        cls.nimstream = binary()
        cls.dir = tempfile.mkdtemp(prefix="nimstream-spark-")
        conf = (SparkConf().setMaster("local[2]").setAppName("nimstream-test")
                .set("spark.ui.enabled", "false")
                .set("spark.ui.showConsoleProgress", "false"))
        cls.sc = SparkContext(conf=conf)
        cls.sc.setLogLevel("ERROR")

    @classmethod
    def tearDownClass(cls):
        cls.sc.stop()
        shutil.rmtree(cls.dir)

    def nimstream_run(self, *args, input=None):
        return subprocess.run([self.nimstream] + list(args), capture_output=True, text=True,
                              input=input)

    def generate(self, fmt, *args):
        path = os.path.join(self.dir, "%s-%d.%s" % (fmt, len(os.listdir(self.dir)), fmt))
        done = self.nimstream_run("gen", "--format", fmt, "-o", path, *args)
        self.assertEqual(done.returncode, 0, done.stderr)
        return path

    def job(self, path, ranges, **options):
        return nimstream_spark.run(self.sc, path, ranges=ranges, json_out=True,
                                   nimstream=self.nimstream, **options)

    def assert_same_report(self, path, ranges, fmt="auto", rule="normal", game="nim"):
        whole = self.nimstream_run("analyze", path, "--json", "--format", fmt,
                                   "--rule", rule, "--game", game)
        self.assertEqual(whole.returncode, 0, whole.stderr)
        for count in ranges:
            sharded = self.job(path, count, fmt=fmt, rule=rule, game=game)
            self.assertEqual(without_stats(sharded), without_stats(whole.stdout),
                             "%s cut into %d ranges" % (path, count))

    def test_every_format_under_both_rules(self):
        for fmt in FORMATS:
            bits = "1..5" if fmt == "unary" else "0..8"
            path = self.generate(fmt, "--heaps", "60", "--bits", bits, "--seed", "7")
            self.assert_same_report(path, [1, 3, 8])
            self.assert_same_report(path, [5], rule="misere")

    def test_more_ranges_than_a_merge_takes_reduce_in_a_tree(self):
        path = self.generate("dec", "--heaps", "300", "--bits", "1..90", "--seed", "3")
        self.assert_same_report(path, [40, 300])

    def test_a_game_other_than_nim(self):
        path = self.generate("dec", "--heaps", "50", "--bits", "1..12", "--seed", "5")
        self.assert_same_report(path, [4], game="kayles")

    def test_misere_with_ones_only(self):
        path = self.generate("bits", "--heaps", "40", "--kind", "ones", "--seed", "1")
        self.assert_same_report(path, [3], rule="misere")

    def test_a_msb_far_below_the_longest_heap_takes_the_second_phase(self):
        long_heap = "1" + "0" * 300
        path = os.path.join(self.dir, "second.bits")
        with open(path, "w") as out:
            out.write("101 %s 11\n110 %s\n1\n" % (long_heap, long_heap))
        self.assert_same_report(path, [1, 4])

    def test_bad_input_is_reported_as_analyze_reports_it(self):
        path = os.path.join(self.dir, "bad.dec")
        with open(path, "w") as out:
            out.write("12 34\n56 7x8 9\n")
        whole = self.nimstream_run("analyze", path, "--json")
        with self.assertRaises(nimstream_spark.NimstreamError) as failed:
            self.job(path, 4)
        self.assertEqual(failed.exception.status, whole.returncode)
        self.assertEqual(failed.exception.message, whole.stderr.strip())
        self.assertIn("line 2, column 5", failed.exception.message)

    def test_bad_usage_is_reported_before_any_task(self):
        path = self.generate("dec", "--heaps", "5", "--seed", "2")
        with self.assertRaises(nimstream_spark.NimstreamError) as failed:
            self.job(path, 2, rule="sideways")
        self.assertEqual(failed.exception.status, 2)
        with self.assertRaises(nimstream_spark.NimstreamError) as missing:
            self.job(os.path.join(self.dir, "missing.dec"), 2)
        self.assertEqual(missing.exception.status, 1)
        self.assertIn("missing.dec: No such file or directory", missing.exception.message)

    def test_a_merge_of_part_of_the_file_exits_3_and_the_job_goes_on(self):
        path = self.generate("dec", "--heaps", "40", "--bits", "1..30", "--seed", "4")
        size = os.path.getsize(path)
        first = self.nimstream_run("analyze", path, "--range", "0..%d" % (size // 2),
                                   "--partial").stdout
        done = self.nimstream_run("merge", "-", input=first)
        self.assertEqual(done.returncode, nimstream_spark.NOT_A_REPORT, done.stderr)
        self.assertTrue(done.stderr.startswith("merge: a partial, not a report"), done.stderr)
        # Merges of part of the file inside the tree: the job's report is
        # still the whole analysis's.
        self.assert_same_report(path, [nimstream_spark.FAN_IN + 1])

    def test_the_command_line_prints_only_the_report(self):
        path = self.generate("hex", "--heaps", "30", "--seed", "9")
        whole = self.nimstream_run("analyze", path)
        spark_submit = shutil.which("spark-submit",
                                    path=os.path.dirname(sys.executable) + os.pathsep
                                    + os.environ.get("PATH", ""))
        self.assertIsNotNone(spark_submit, "spark-submit comes with pyspark")
        import pyspark

        env = dict(os.environ, SPARK_HOME=os.path.dirname(pyspark.__file__),
                   PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable)
        done = subprocess.run(
            [spark_submit, "--master", "local[2]", "--conf", "spark.ui.enabled=false",
             os.path.join(ROOT, "contrib", "spark", "nimstream_spark.py"), path,
             "--ranges", "3", "--nimstream", self.nimstream],
            capture_output=True, text=True, env=env)
        self.assertEqual(done.returncode, 0, done.stderr)
        # Spark logs at ERROR from the job's start: no INFO line (its
        # launcher may warn about the machine before the job runs).
        info = [line for line in done.stderr.splitlines() if " INFO " in line]
        self.assertEqual(info, [], done.stderr)
        # Every line but the measured stats, and nothing else on stdout.
        facts = lambda text: [line for line in text.splitlines()
                              if not line.startswith("stats")]
        self.assertEqual(facts(done.stdout), facts(whole.stdout))


if __name__ == "__main__":
    unittest.main()
