"""What the finding renderers (SARIF, JUnit, GitHub) take: findings plus rule metadata.

They are shared by every command that reports findings: a renderer receives
:class:`~jsoncontract.model.Finding` values (their :class:`~jsoncontract.model.Source` is
where a finding is), a table of :class:`RuleMeta` by code, and returns text. Nothing here
knows where findings come from: each command's CI module (``check_ci``, ``lint_ci``,
``suite_ci``, ``diff_ci``) turns its results into a :class:`FindingSet`, so a format made of
findings is one renderer of a :class:`FindingSet` plus one small class per command.

How a report spells a file for CI, and a finding's identity across runs, are
:mod:`jsoncontract.project`'s; what a report says about a code is
:class:`~jsoncontract.codes.RuleMeta`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

from jsoncontract._json import printable
from jsoncontract._version import __version__
from jsoncontract.codes import PROJECT_URL
from jsoncontract.model import Finding, Severity

if TYPE_CHECKING:
    from jsoncontract.codes import RuleMeta


@dataclass(frozen=True, slots=True)
class ToolInfo:
    """The program that produced the report."""

    name: str = "jsoncontract"
    version: str = __version__
    uri: str = PROJECT_URL


@dataclass(frozen=True, slots=True)
class FindingSet:
    """A command's results as the formats made of findings take them.

    ``findings`` in report order; ``rules`` the metadata of the codes the report describes,
    in the order a driver lists them; ``suppressed`` findings silenced by configuration,
    with the stated reason. A finding's ``baseline`` says whether it was already in the
    baseline the run was compared with.
    """

    findings: Sequence[Finding]
    rules: Mapping[str, RuleMeta]
    suppressed: Sequence[tuple[Finding, str]] = ()
    #: the directory paths are written relative to (``None``: the project root)
    root: str | None = None
    #: the command that found them (``check``, ``lint``...): SARIF's analysis category
    command: str | None = None
    #: findings not in ``findings``, dropped to keep a huge report within its limits
    left_out: int = 0


class KeptFindings:
    """The findings of a streamed run, as many of each severity as a report can hold: the
    rest are counted, so memory stays bounded however many calls fail.

    Arguments:
        limit: findings kept per severity (a SARIF run holds 25,000 at most).
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._kept: dict[Severity, list[tuple[int, Finding]]] = {s: [] for s in Severity}
        self._seen = 0
        self.left_out = 0

    def add(self, finding: Finding) -> None:
        """Keep a finding, or count it."""
        self._seen += 1
        kept = self._kept[finding.severity]
        if len(kept) < self.limit:
            kept.append((self._seen, finding))
        else:
            self.left_out += 1

    def findings(self) -> list[Finding]:
        """The kept findings, in the order they were added."""
        merged = sorted((item for kept in self._kept.values() for item in kept), key=_first)
        return [finding for _, finding in merged]


def _first(item: tuple[int, Finding]) -> int:
    return item[0]


def printable_finding(finding: Finding) -> Finding:
    """The finding with its texts spelt out where they hold lone surrogates (a capture's
    invalid UTF-8 in a tool name, key or file name: see :func:`printable`)."""
    changes: dict[str, Any] = {
        f.name: printable(value)
        for f in fields(finding)
        if type(value := getattr(finding, f.name)) is str  # not the enums (severity...)
    }
    if finding.source is not None:
        changes["source"] = replace(finding.source, file=printable(finding.source.file))
    return replace(finding, **changes)
