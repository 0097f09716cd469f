"""The shape of the command line: thin command modules that share one helper module.

A command module defines its typer command and nothing another command needs: no command
module imports another (what two commands share lives in ``jsoncontract.cli.options``), and
only ``jsoncontract._gc`` tunes the garbage collector and only ``jsoncontract.settings``
resolves the ``--fail-on`` threshold.
"""

from __future__ import annotations

import ast
import inspect
from dataclasses import dataclass
from pathlib import Path

import pytest

from jsoncontract.cli.options import grouped

PACKAGE = Path(__file__).resolve().parents[2] / "jsoncontract"


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports, at any depth of its code."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
    return out


def test_one_module_tunes_the_garbage_collector() -> None:
    tuning = sorted(
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if "gc" in imported_modules(path)
    )
    assert tuning == ["_gc.py"]


def _string_constants(path: Path) -> set[str]:
    return {
        node.value
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }


def test_one_place_resolves_the_threshold() -> None:
    """``--fail-on``, else the config's ``fail_on``: only ``jsoncontract.settings`` reads it."""
    reading = sorted(
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if "fail_on" in _string_constants(path)
    )
    assert reading == ["settings.py"]


@dataclass(frozen=True)
class Pair:
    """An option group of two."""

    first: int = 1
    second: str = "b"


def test_an_option_group_is_spread_where_it_stands_and_built_for_the_command() -> None:
    seen: list[Pair] = []

    def command(before: int = 0, *, pair: Pair, after: bool = False) -> int:
        seen.append(pair)
        return before

    spread = grouped(command)
    assert list(inspect.signature(spread).parameters) == ["before", "first", "second", "after"]
    assert spread(5, first=2, second="c", after=True) == 5
    assert seen == [Pair(2, "c")]

    def clash(*, first: int = 0, pair: Pair) -> int:
        return first

    with pytest.raises(TypeError, match="repeats a parameter name"):
        grouped(clash)
