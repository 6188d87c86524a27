"""`nimstream.spark`, the Spark job of SPEC section 11 imported from the
package, in local mode against `nimstream analyze --json`. Needs pyspark
and Java: skipped without pyspark unless NIMSTREAM_SPARK_TESTS=1 (as
`.ci/run` sets it), which makes a missing pyspark a failure."""

import json
import os

import pytest

from conftest import EXTENSION, FORMATS, without

if os.environ.get("NIMSTREAM_SPARK_TESTS") != "1":
    pytest.importorskip("pyspark")

import nimstream.spark  # noqa: E402


@pytest.fixture(scope="module")
def sc():
    from pyspark import SparkConf, SparkContext

    conf = (SparkConf().setMaster("local[2]").setAppName("nimstream-pytest")
            .set("spark.ui.enabled", "false").set("spark.ui.showConsoleProgress", "false"))
    context = SparkContext(conf=conf)
    context.setLogLevel("ERROR")
    yield context
    context.stop()


def test_the_job_from_the_package_as_analyze(cli, sc, tmp_path):
    cases = [(fmt, "normal", "nim") for fmt in FORMATS] + [("dec", "misere", "nim"),
                                                           ("hex", "normal", "kayles")]
    for fmt, rule, game in cases:
        bits = ["--bits", "1..5"] if fmt == "unary" else []
        path = cli.gen(tmp_path / "in.{}".format(EXTENSION[fmt]), fmt, "--heaps", 50,
                       "--seed", 3, *bits)
        expected = without(cli.json("analyze", path, "--json", "--rule", rule, "--game", game),
                           "stats")
        text = nimstream.spark.run(sc, str(path), rule=rule, game=game, ranges=4, json_out=True,
                                   nimstream=cli.path)
        assert without(json.loads(text), "stats") == expected, (fmt, rule, game)
    with pytest.raises(nimstream.spark.NimstreamError) as failed:
        nimstream.spark.run(sc, str(path), rule="sideways", nimstream=cli.path)
    assert failed.value.status == 2
