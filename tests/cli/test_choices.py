"""One list per table: the dialects ``--dialect`` forces and the case kinds ``--kind``
chooses are those of the library's tables (the capture registry, the generator's kinds),
and so are the config schema's values and the lists the documents print."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jsoncontract.capture.registry import DIALECTS
from jsoncontract.cli.app import build
from jsoncontract.config import config_schema
from jsoncontract.suites.kinds import DERIVED_KINDS, CaseKind

REPO = Path(__file__).resolve().parents[2]


def cli_choices(command: str, option: str) -> list[str]:
    """The choices of ``command OPTION``, from the real command line."""
    click_command: Any = build([command])
    [param] = [p for p in click_command.commands[command].params if option in p.opts]
    return [str(c) for c in param.type.choices]


def dialects() -> list[str]:
    return DIALECTS.names()


def kinds() -> list[str]:
    return [kind.value for kind in DERIVED_KINDS]


def _backticked(pattern: str, file: str) -> Callable[[], list[str]]:
    def read() -> list[str]:
        found = re.search(pattern, (REPO / file).read_text(), re.DOTALL)
        assert found, f"{file} no longer has the list ({pattern})"
        return re.findall(r"`([a-z-]+)`", found.group(1))

    return read


def _quoted(pattern: str, file: str) -> Callable[[], list[str]]:
    def read() -> list[str]:
        found = re.search(pattern, (REPO / file).read_text())
        assert found, f"{file} no longer has the list ({pattern})"
        return re.findall(r'"([a-z-]+)"', found.group(1))

    return read


def _table_rows(file: str, heading: str) -> Callable[[], list[str]]:
    def read() -> list[str]:
        text = (REPO / file).read_text()
        table = text[text.index(heading) :]
        return re.findall(r"^\| `([a-z-]+)` \|", table[: table.index("\n\n")], re.MULTILINE)

    return read


#: (what, the table's list, where else it is listed, that list)
LISTS: list[tuple[str, Callable[[], list[str]], str, Callable[[], list[str]]]] = [
    ("dialects", dialects, "check --dialect", lambda: cli_choices("check", "--dialect")[1:]),
    ("dialects", dialects, "diff --dialect", lambda: cli_choices("diff", "--dialect")[1:]),
    (
        "dialects",
        dialects,
        "config [check] dialect",
        lambda: config_schema()["properties"]["check"]["properties"]["dialect"]["enum"][1:],
    ),
    (
        "dialects",
        dialects,
        "docs/commands/check.md",
        _backticked(r"\| `--dialect D` \| (.*?) \|\n", "docs/commands/check.md"),
    ),
    ("kinds", kinds, "fixtures --kind", lambda: cli_choices("fixtures", "--kind")),
    (
        "kinds",
        kinds,
        "config [fixtures] kinds",
        lambda: config_schema()["properties"]["fixtures"]["properties"]["kinds"]["items"]["enum"],
    ),
    ("kinds", kinds, "docs/suites.md config", _quoted(r"\nkinds = \[(.*?)\]\n", "docs/suites.md")),
    (
        "kinds",
        lambda: [k.value for k in CaseKind],
        "docs/suites.md kinds table",
        _table_rows("docs/suites.md", "| kind | cases | expectation |"),
    ),
]


@pytest.mark.parametrize(
    ("what", "table", "where", "listed"), LISTS, ids=[f"{w}: {p}" for w, _, p, _ in LISTS]
)
def test_one_list(
    what: str, table: Callable[[], list[str]], where: str, listed: Callable[[], list[str]]
) -> None:
    assert listed() == table(), f"{where} does not list the {what} of the table"


def test_auto_comes_first() -> None:
    assert cli_choices("check", "--dialect")[0] == "auto"
    assert config_schema()["properties"]["check"]["properties"]["dialect"]["enum"][0] == "auto"
