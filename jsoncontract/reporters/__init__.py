"""Reporters: turning results into text, JSON and CI formats.

Lookup is by format name; the CLI offers exactly the keys of each table. The tables are
built on first use, so a command imports only its own reporters (``check`` never pays for
the diff table's imports, and ``--help`` for none).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any, Final

from jsoncontract.reporters.interface import CheckReporter, ReportOptions

if TYPE_CHECKING:
    from jsoncontract.reporters.diff_interface import DiffReporter, DiffReportOptions

    CHECK_REPORTERS: dict[str, type[CheckReporter]]
    DIFF_REPORTERS: dict[str, type[DiffReporter]]

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
}
_LAZY: Final = {"DiffReporter": "diff_interface", "DiffReportOptions": "diff_interface"}


def __getattr__(name: str) -> Any:
    table = _TABLES.get(name)
    if table is not None:
        built = {}
        for fmt, target in table.items():
            module, _, cls = target.partition(":")
            built[fmt] = getattr(import_module(f"{__name__}.{module}"), cls)
        globals()[name] = built
        return built
    if name in _LAZY:
        return getattr(import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: ``lint`` formats (the writers live in :mod:`jsoncontract.reporters.lint`).
LINT_FORMATS: Final = ("text", "json", "sarif", "junit", "github")

__all__ = [
    "CHECK_REPORTERS",
    "DIFF_REPORTERS",
    "LINT_FORMATS",
    "CheckReporter",
    "DiffReportOptions",
    "DiffReporter",
    "ReportOptions",
]
