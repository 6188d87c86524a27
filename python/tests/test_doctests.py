"""The docstrings' examples, run as doctests."""

import doctest

import pytest

import nimstream
import nimstream._errors
import nimstream._reports

MODULES = [nimstream, nimstream._errors, nimstream._reports]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_the_examples_in_the_docstrings(module):
    results = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert results.attempted > 0
    assert results.failed == 0
