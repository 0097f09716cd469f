"""JUnit XML: test suites and cases for CI test tabs (GitLab, Jenkins, Azure, CircleCI).

The renderer is general: it takes :class:`JUnitSuite` values. :func:`suites_from_findings`
builds them from findings (one suite per file, one case per tool, each failing finding a
case of its own); a test runner can build them from its own results.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from xml.sax.saxutils import escape as _escape
from xml.sax.saxutils import quoteattr as _quoteattr

from jsoncontract.model import Finding, Severity
from jsoncontract.reporters.findings import portable_path

#: Characters XML 1.0 cannot carry at all (control characters, lone surrogates).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_text(text: str) -> str:
    """``text`` with the characters XML cannot carry written as ``\\xNN``."""
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def quoteattr(text: str) -> str:
    """An XML attribute value, quoted and escaped."""
    return _quoteattr(_xml_text(text))


def escape(text: str) -> str:
    """XML character data, escaped."""
    return _escape(_xml_text(text))


_NOWHERE = "(no file)"


@dataclass(frozen=True, slots=True)
class JUnitFailure:
    """Why a case failed: a one-line message, a type (the code), and details."""

    message: str
    type: str
    text: str = ""


@dataclass(slots=True)
class JUnitCase:
    """One test case; it passes when it has no failure and is not skipped."""

    name: str
    classname: str
    failure: JUnitFailure | None = None
    skipped: str | None = None
    time: float = 0.0
    file: str | None = None
    line: int | None = None
    system_out: str | None = None


@dataclass(slots=True)
class JUnitSuite:
    """A named group of cases (a file, a tool, a fixture suite)."""

    name: str
    cases: list[JUnitCase] = field(default_factory=list)
    time: float = 0.0


def render_junit(suites: Sequence[JUnitSuite], *, name: str = "jsoncontract") -> str:
    """JUnit XML for ``suites``, with totals on ``<testsuites>`` and every ``<testsuite>``."""
    total = sum(len(s.cases) for s in suites)
    failures = sum(1 for s in suites for c in s.cases if c.failure is not None)
    skipped = sum(1 for s in suites for c in s.cases if c.skipped is not None)
    seconds = sum(s.time for s in suites)
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<testsuites name={quoteattr(name)} tests="{total}" failures="{failures}" '
        f'errors="0" skipped="{skipped}" time="{seconds:.3f}">',
    ]
    for suite in suites:
        suite_failures = sum(1 for c in suite.cases if c.failure is not None)
        suite_skipped = sum(1 for c in suite.cases if c.skipped is not None)
        lines.append(
            f'  <testsuite name={quoteattr(suite.name)} tests="{len(suite.cases)}" '
            f'failures="{suite_failures}" errors="0" skipped="{suite_skipped}" '
            f'time="{suite.time:.3f}">'
        )
        for case in suite.cases:
            attributes = f"name={quoteattr(case.name)} classname={quoteattr(case.classname)}"
            if case.file is not None:
                attributes += f" file={quoteattr(case.file)}"
            if case.line is not None:
                attributes += f' line="{case.line}"'
            attributes += f' time="{case.time:.3f}"'
            inner: list[str] = []
            if case.failure is not None:
                failure = case.failure
                inner.append(
                    f"      <failure message={quoteattr(failure.message)} "
                    f"type={quoteattr(failure.type)}>{escape(failure.text)}</failure>"
                )
            if case.skipped is not None:
                inner.append(f"      <skipped message={quoteattr(case.skipped)}/>")
            if case.system_out:
                inner.append(f"      <system-out>{escape(case.system_out)}</system-out>")
            if inner:
                lines.append(f"    <testcase {attributes}>")
                lines.extend(inner)
                lines.append("    </testcase>")
            else:
                lines.append(f"    <testcase {attributes}/>")
        lines.append("  </testsuite>")
    lines.append("</testsuites>")
    return "\n".join(lines) + "\n"


def suites_from_findings(
    findings: Iterable[Finding],
    *,
    files: Sequence[str] = (),
    tools_by_file: dict[str, list[str]] | None = None,
    fail_on: str = "error",
) -> list[JUnitSuite]:
    """One suite per file; findings at or above ``fail_on`` become failing cases, the rest
    are reported on passing cases; every tool without failures is a passing case."""
    try:
        threshold = Severity(fail_on).rank
    except ValueError:  # never
        threshold = len(Severity)
    by_file: dict[str, list[Finding]] = {portable_path(f): [] for f in files}
    for finding in findings:
        name = portable_path(finding.source.file) if finding.source else _NOWHERE
        by_file.setdefault(name, []).append(finding)
    suites: list[JUnitSuite] = []
    known_tools = {portable_path(k): v for k, v in (tools_by_file or {}).items()}
    for file, items in by_file.items():
        suite = JUnitSuite(file)
        failing_tools: set[str] = set()
        notes: dict[str, list[str]] = {}
        for finding in items:
            where = finding.source
            text = f"{where}: {finding.message}" if where else finding.message
            if finding.hint:
                text += f"\nhint: {finding.hint}"
            if finding.severity.rank >= threshold:
                failing_tools.add(finding.tool or "")
                suite.cases.append(
                    JUnitCase(
                        name=f"{finding.tool or file}: {finding.code} at {finding.path or '/'}",
                        classname=file,
                        failure=JUnitFailure(
                            finding.message, f"{finding.code} {finding.severity.value}", text
                        ),
                        file=file if file != _NOWHERE else None,
                        line=where.line if where else None,
                    )
                )
            else:
                notes.setdefault(finding.tool or "", []).append(
                    f"{finding.severity.value} {finding.code}: {text}"
                )
        for tool in known_tools.get(file, sorted({f.tool or "" for f in items})):
            if tool in failing_tools:
                continue
            suite.cases.append(
                JUnitCase(
                    name=tool or file,
                    classname=file,
                    file=file if file != _NOWHERE else None,
                    system_out="\n".join(notes.get(tool, [])) or None,
                )
            )
        suites.append(suite)
    return suites


__all__ = [
    "JUnitCase",
    "JUnitFailure",
    "JUnitSuite",
    "Severity",
    "render_junit",
    "suites_from_findings",
]
