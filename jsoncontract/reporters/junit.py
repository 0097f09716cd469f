"""JUnit XML: test suites and cases for CI test tabs (GitLab, Jenkins, Azure, CircleCI).

The renderer is general: it takes :class:`JUnitSuite` values. :func:`suites_from_findings`
builds them from findings (one suite per file, one case per tool, failing when one of its
findings is severe enough); a test runner can build them from its own results. Times are
real: what the run spent on each case.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from xml.sax.saxutils import escape as _escape
from xml.sax.saxutils import quoteattr as _quoteattr

from jsoncontract.model import Finding, Severity
from jsoncontract.project import portable_path, project_root

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
        f'errors="0" skipped="{skipped}" time="{seconds:.6f}">',
    ]
    for suite in suites:
        suite_failures = sum(1 for c in suite.cases if c.failure is not None)
        suite_skipped = sum(1 for c in suite.cases if c.skipped is not None)
        lines.append(
            f'  <testsuite name={quoteattr(suite.name)} tests="{len(suite.cases)}" '
            f'failures="{suite_failures}" errors="0" skipped="{suite_skipped}" '
            f'time="{suite.time:.6f}">'
        )
        for case in suite.cases:
            attributes = f"name={quoteattr(case.name)} classname={quoteattr(case.classname)}"
            if case.file is not None:
                attributes += f" file={quoteattr(case.file)}"
            if case.line is not None:
                attributes += f' line="{case.line}"'
            attributes += f' time="{case.time:.6f}"'
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
    tools_by_file: Mapping[str, Sequence[str]] | None = None,
    fail_on: str = "error",
    root: str | None = None,
    seconds: Mapping[str, Sequence[float]] | None = None,
    file_seconds: Mapping[str, float] | None = None,
) -> list[JUnitSuite]:
    """One suite per file, one case per tool (and one, named after the file, for findings
    about the file itself).

    A case fails when one of its findings is at or above ``fail_on``, and lists all of
    them; otherwise its findings are in its output. Which cases there are, their names and
    their number do not depend on ``fail_on``. ``seconds`` gives each file's tool times, in
    the order of ``tools_by_file``, and ``file_seconds`` each file's whole time.
    """
    try:
        threshold = Severity(fail_on).rank
    except ValueError:  # never
        threshold = len(Severity)
    tools_by_file = tools_by_file or {}
    root = root if root is not None else str(project_root())
    spelt = {f: portable_path(f, root) for f in (*files, *tools_by_file)}
    by_file: dict[str, dict[str, list[Finding]]] = {}
    order: dict[str, list[str]] = {}
    for file in (*files, *tools_by_file):
        by_file.setdefault(spelt[file], {})
        order.setdefault(spelt[file], [])
    for file, tools in tools_by_file.items():
        order[spelt[file]] = list(tools)
    for finding in findings:
        name = portable_path(finding.source.file, root) if finding.source else _NOWHERE
        owners = by_file.setdefault(name, {})
        owners.setdefault(finding.tool or "", []).append(finding)
        listed = order.setdefault(name, [])
        if (finding.tool or "") not in listed:
            listed.append(finding.tool or "")
    times = {spelt.get(f, f): list(v) for f, v in (seconds or {}).items()}
    whole = {spelt.get(f, f): v for f, v in (file_seconds or {}).items()}
    suites: list[JUnitSuite] = []
    for file, owners in by_file.items():
        suite = JUnitSuite(file, time=whole.get(file, 0.0))
        located = file if file != _NOWHERE else None
        named: dict[str, int] = {}
        spent = times.get(file, [])
        for index, tool in enumerate(order.get(file, [])):
            items = owners.pop(tool, []) if tool not in named else []
            named[tool] = named.get(tool, 0) + 1
            name = tool or file
            if named[tool] > 1:
                name = f"{name} #{named[tool]}"
            case = JUnitCase(
                name=name,
                classname=file,
                file=located,
                line=_first_line(items),
                time=spent[index] if index < len(spent) else 0.0,
            )
            lines = [_finding_text(f) for f in items]
            failing = [f for f in items if f.severity.rank >= threshold]
            if failing:
                first = failing[0]
                head = first.message
                if len(failing) > 1:
                    head = f"{first.message} (and {len(failing) - 1} more at or above {fail_on})"
                case.failure = JUnitFailure(
                    head, f"{first.code} {first.severity.value}", "\n".join(lines)
                )
            elif lines:
                case.system_out = "\n".join(lines)
            suite.cases.append(case)
        if not whole:
            suite.time = sum(case.time for case in suite.cases)
        suites.append(suite)
    return suites


def _first_line(findings: Sequence[Finding]) -> int | None:
    """The line of the first finding that has one."""
    for finding in findings:
        if finding.source is not None and finding.source.line is not None:
            return finding.source.line
    return None


def _finding_text(finding: Finding) -> str:
    where = finding.source
    text = f"{where}: {finding.message}" if where else finding.message
    text = f"{finding.severity.value} {finding.code} at {finding.path or '/'}: {text}"
    if finding.hint:
        text += f"\nhint: {finding.hint}"
    return text


__all__ = [
    "JUnitCase",
    "JUnitFailure",
    "JUnitSuite",
    "Severity",
    "render_junit",
    "suites_from_findings",
]
