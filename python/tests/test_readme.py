"""The ``>>>`` examples of the repository's README and of docs/python.md,
run as doctests: the Python the documents show is what the package prints."""

import doctest
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["README.md", "docs/python.md"]


def examples(text):
    """The bodies of the ``python`` fenced blocks of `text` that hold ``>>>``."""
    blocks = re.findall(r"^```python\n(.*?)^```", text, re.M | re.S)
    return [block for block in blocks if ">>> " in block]


@pytest.mark.parametrize("page", PAGES)
def test_the_examples_of_the_page(page):
    text = (ROOT / page).read_text(encoding="utf-8")
    blocks = examples(text)
    assert blocks, "{} shows no >>> example".format(page)
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for number, block in enumerate(blocks):
        runner.run(parser.get_doctest(block, {}, "{}[{}]".format(page, number), page, 0))
    results = runner.summarize(verbose=False)
    assert results.attempted > 0
    assert results.failed == 0


def test_a_wrong_example_fails():
    runner = doctest.DocTestRunner()
    test = doctest.DocTestParser().get_doctest(">>> 1 + 1\n3\n", {}, "wrong", "wrong", 0)
    runner.run(test, out=lambda _: None)
    assert runner.summarize(verbose=False).failed == 1
