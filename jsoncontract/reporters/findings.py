"""What the finding renderers (SARIF, JUnit, GitHub) take: findings plus rule metadata.

They are shared by every command that reports findings: a renderer receives
:class:`~jsoncontract.model.Finding` values (their :class:`~jsoncontract.model.Source` is
where a finding is), a table of :class:`RuleMeta` by code, and returns text. Nothing here
knows where findings come from: each command's CI module (``check_ci``, ``lint_ci``,
``suite_ci``) turns its results into a :class:`FindingSet`, so a format made of findings is
one renderer of a :class:`FindingSet` plus one small class per command.

:func:`portable_path` is the one place a report spells a file for CI, and
:func:`fingerprint` the one identity of a finding across runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import PurePath
from typing import Any, Final

from jsoncontract._json import printable
from jsoncontract._version import __version__
from jsoncontract.model import Finding, Severity

PROJECT_URL: Final = "https://github.com/jsoncontract/jsoncontract"


@dataclass(frozen=True, slots=True)
class RuleMeta:
    """What a report says about a rule (or a finding code) besides its findings.

    ``help_markdown`` is the full documentation; ``security_severity`` (0 to 10) marks
    security rules for code-scanning dashboards.
    """

    code: str
    name: str
    summary: str
    severity: Severity = Severity.WARNING
    help_markdown: str = ""
    help_uri: str | None = None
    tags: tuple[str, ...] = ()
    security_severity: float | None = None


@dataclass(frozen=True, slots=True)
class ToolInfo:
    """The program that produced the report."""

    name: str = "jsoncontract"
    version: str = __version__
    uri: str = PROJECT_URL


def portable_path(path: str) -> str:
    """A file path with forward slashes and without a leading ``./``: how every CI format
    spells a file (SARIF, JUnit, annotations)."""
    text = PurePath(path).as_posix()
    return text[2:] if text.startswith("./") else text


def fingerprint(finding: Finding) -> str:
    """A stable identity of a finding: its code, file, tool and JSON Pointer. It changes
    when any of them does and survives line moves (SARIF's partial fingerprint)."""
    import hashlib  # here: most commands that import this module never hash a finding

    source = finding.source
    parts = (
        finding.code,
        portable_path(source.file) if source else "",
        finding.tool or "",
        finding.path,
    )
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class FindingSet:
    """A command's results as the formats made of findings take them.

    ``findings`` in report order; ``rules`` the metadata of the codes the report describes,
    in the order a driver lists them; ``suppressed`` findings silenced by configuration,
    with the stated reason.
    """

    findings: Sequence[Finding]
    rules: Mapping[str, RuleMeta]
    suppressed: Sequence[tuple[Finding, str]] = ()


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
