"""The examples in the library's docstrings run and show what they claim.

Every module of the package is searched; the examples run from the repository root, where
the fixture paths they name resolve.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import jsoncontract

REPO = Path(__file__).resolve().parents[1]
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _modules() -> list[str]:
    found = pkgutil.walk_packages(jsoncontract.__path__, prefix="jsoncontract.")
    return sorted(m.name for m in found if not m.name.endswith(".__main__"))


def _examples(name: str) -> list[doctest.DocTest]:
    module = importlib.import_module(name)
    tests = doctest.DocTestFinder(exclude_empty=True).find(module, name)
    return [t for t in tests if t.examples]


WITH_EXAMPLES = [name for name in _modules() if _examples(name)]


def test_the_modules_with_examples_are_found() -> None:
    # a guard: the test below must not pass by finding nothing
    assert {
        "jsoncontract._spelling",
        "jsoncontract.api",
        "jsoncontract.business",
        "jsoncontract.diff",
        "jsoncontract.diff.compare",
        "jsoncontract.diff.paths",
        "jsoncontract.lint",
        "jsoncontract.model",
        "jsoncontract.pointer",
        "jsoncontract.masking",
        "jsoncontract.suites",
    } <= set(WITH_EXAMPLES)


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_examples(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    report: list[str] = []
    for test in _examples(name):
        runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)
