"""Reporters: turning results into text, JSON and CI formats.

Lookup is by format name; the CLI offers exactly the keys of each table. The tables are
built on first use, so a command imports only its own reporters (``check`` never pays for
the diff table's imports, and ``--help`` for none).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from importlib import import_module
from typing import TYPE_CHECKING, Any, Final

from jsoncontract.reporters.interface import CheckReporter, ReportOptions

if TYPE_CHECKING:
    from jsoncontract.reporters.diff_interface import DiffReporter, DiffReportOptions
    from jsoncontract.reporters.rules_check import RulesCheckReporter

    CHECK_REPORTERS: Mapping[str, type[CheckReporter]]
    DIFF_REPORTERS: Mapping[str, type[DiffReporter]]
    RULES_CHECK_REPORTERS: Mapping[str, type[RulesCheckReporter]]

#: table name -> {format: "module:class"}
_TABLES: Final = {
    "CHECK_REPORTERS": {
        "text": "check_text:TextCheckReporter",
        "json": "check_json:JsonCheckReporter",
        "jsonl": "check_json:JsonlCheckReporter",
        "github": "check_ci:GithubCheckReporter",
        "sarif": "check_ci:SarifCheckReporter",
        "junit": "check_ci:JUnitCheckReporter",
    },
    "DIFF_REPORTERS": {
        "text": "diff_text:TextDiffReporter",
        "json": "diff_json:JsonDiffReporter",
        "patch": "diff_json:PatchDiffReporter",
    },
    "RULES_CHECK_REPORTERS": {
        "text": "rules_check:TextRulesCheckReporter",
        "json": "rules_check:JsonRulesCheckReporter",
        "sarif": "rules_check:SarifRulesCheckReporter",
        "github": "rules_check:GithubRulesCheckReporter",
    },
}
_LAZY: Final = {"DiffReporter": "diff_interface", "DiffReportOptions": "diff_interface"}


class _Table(Mapping[str, Any]):
    """A format table whose reporter classes are imported when first looked up."""

    def __init__(self, targets: dict[str, str]) -> None:
        self._targets = targets
        self._loaded: dict[str, Any] = {}

    def __getitem__(self, fmt: str) -> Any:
        if fmt not in self._loaded:
            module, _, cls = self._targets[fmt].partition(":")
            self._loaded[fmt] = getattr(import_module(f"{__name__}.{module}"), cls)
        return self._loaded[fmt]

    def __iter__(self) -> Iterator[str]:
        return iter(self._targets)

    def __len__(self) -> int:
        return len(self._targets)


def __getattr__(name: str) -> Any:
    targets = _TABLES.get(name)
    if targets is not None:
        table = _Table(targets)
        globals()[name] = table
        return table
    if name in _LAZY:
        return getattr(import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: ``lint`` formats (the writers live in :mod:`jsoncontract.reporters.lint`).
LINT_FORMATS: Final = ("text", "json", "sarif", "junit", "github")

__all__ = [
    "CHECK_REPORTERS",
    "DIFF_REPORTERS",
    "LINT_FORMATS",
    "RULES_CHECK_REPORTERS",
    "CheckReporter",
    "DiffReportOptions",
    "DiffReporter",
    "ReportOptions",
]
