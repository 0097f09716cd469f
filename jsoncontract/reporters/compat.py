"""``compat --format text | json | markdown | sarif | github | junit``: the changes between
two versions of a tool set, by class.

- ``text``: one line per change, ``where: CLASS CODE tool pointer: message``, the worst
  first (cosmetic ones only with ``--verbose``), then the counts;
- ``json``: ``{"version": 1, "summary": {...}, "changes": [...]}`` (see the docs);
- ``markdown``: a changelog for a pull request (the job summary in GitHub Actions): the
  verdict, the counts, then a section per class, the compatible and cosmetic ones folded;
  a changed description with its words struck through and added in bold;
- ``sarif``, ``github``: every change but the cosmetic ones as a finding, breaking ones as
  errors, risky ones as warnings, compatible ones as notes, at the change's place in the
  new version's file (or the tool and pointer, for a lock or a server);
- ``junit``: a case per tool, failing on its worst change at or above ``--fail-on``.
"""

from __future__ import annotations

import io
import re
from typing import TYPE_CHECKING, Final, Never

import orjson

from jsoncontract.compat.model import CLASSES, Change, CompatClass, CompatReport, fails
from jsoncontract.model import Finding
from jsoncontract.reporters.findings import FindingSet
from jsoncontract.reporters.interface import Reporter
from jsoncontract.reporters.markdown import MarkdownDoc, md, table
from jsoncontract.reporters.text import LineWriter, note, plural

if TYPE_CHECKING:
    from jsoncontract.reporters.text import Line

_STYLE: Final = {
    CompatClass.BREAKING: "bold red",
    CompatClass.RISKY: "yellow",
    CompatClass.COMPATIBLE: "green",
    CompatClass.COSMETIC: "dim",
}
_ICON: Final = {
    CompatClass.BREAKING: "🔴",
    CompatClass.RISKY: "🟡",
    CompatClass.COMPATIBLE: "🟢",
    CompatClass.COSMETIC: "⚪",
}
_WORDS: Final = re.compile(r"\[-(.*?)-\]|\{\+(.*?)\+\}")


def verdict(report: CompatReport) -> str:
    """``1 breaking, 2 risky, 3 compatible, 0 cosmetic changes`` (or ``no change``)."""
    if not report.changes:
        return "no change"
    counts = report.counts()
    return ", ".join(f"{counts[c.value]} {c.value}" for c in CLASSES) + (
        " change" if len(report.changes) == 1 else " changes"
    )


def _where(change: Change) -> str:
    return str(change.source) if change.source is not None else change.tool


class TextCompatReporter(Reporter[Never, CompatReport]):
    """One line per change, the worst first, then the counts."""

    def close(self, report: CompatReport) -> None:
        """Write the changes and the verdict."""
        out = LineWriter(self.stream, self.options.color, self.options.width)
        hidden = 0
        for change in report.changes:
            if change.cls is CompatClass.COSMETIC and not self.options.verbose:
                hidden += 1
                continue
            lines: list[Line] = [
                [
                    (f"{_where(change)}: ", ""),
                    (change.cls.value, _STYLE[change.cls]),
                    (f" {change.code} ", "dim"),
                    (f"{change.tool} {change.pointer or '/'}", "bold"),
                    (f": {change.message}", ""),
                ]
            ]
            if change.note:
                lines.append(note("note", change.note))
            out.write(lines)
        if hidden:
            out.write(
                [[(f"{plural(hidden, 'cosmetic change')} not shown (--verbose shows them)", "dim")]]
            )
        failing = fails(report.worst(), self.options.fail_on)
        style = "bold red" if failing else "bold green"
        summary = f"{verdict(report)}: {report.old} -> {report.new}"
        out.write([[], [(summary, style)]])
        out.close()


class JsonCompatReporter(Reporter[Never, CompatReport]):
    """The JSON report."""

    def close(self, report: CompatReport) -> None:
        """Write the report object."""
        self.stream.write(orjson.dumps(report.to_dict(), option=orjson.OPT_APPEND_NEWLINE))


class MarkdownCompatReporter(Reporter[Never, CompatReport]):
    """A changelog for a pull request: the verdict, the counts, then the changes by class
    (compatible and cosmetic ones folded)."""

    def close(self, report: CompatReport) -> None:
        """Write the Markdown, within ``max_bytes`` when set."""
        doc = MarkdownDoc(self.options.max_bytes)
        counts = report.counts()
        worst = report.worst()
        if worst is None:
            head = "no change"
        else:
            head = ", ".join(f"{counts[c.value]} {c.value}" for c in CLASSES if counts[c.value])
        doc.add(f"## {_ICON[worst] if worst else '✅'} Tool contract changes: {head}\n\n")
        read = ""
        if report.usage:
            read = ", usage read from " + plural(sum(report.usage.values()), "captured call")
        doc.add(
            f"{_code(report.old)} → {_code(report.new)}: {plural(report.tools_old, 'tool')} → "
            f"{plural(report.tools_new, 'tool')}{read}\n\n"
        )
        doc.add(
            table([c.value for c in CLASSES], [[counts[c.value] for c in CLASSES]], right=range(4))
            + "\n"
        )
        for cls in CLASSES:
            changes = [c for c in report.changes if c.cls is cls]
            if not changes:
                continue
            folded = cls in (CompatClass.COMPATIBLE, CompatClass.COSMETIC)
            title = f"{_ICON[cls]} {cls.value.capitalize()} ({len(changes)})"
            if folded:
                doc.add(f"<details><summary>{title}</summary>\n\n")
            else:
                doc.add(f"### {title}\n\n")
            shown = changes if not self.options.max_shown else changes[: self.options.max_shown]
            for change in shown:
                if not doc.add(_item(change)):
                    break
            if len(shown) < len(changes):
                doc.add(
                    f"\n_{len(changes) - len(shown)} more not shown (`--format json` "
                    "lists everything)._\n"
                )
            doc.add("\n</details>\n\n" if folded else "\n")
        doc.write(self.stream)


def _item(change: Change) -> str:
    text = f"- **{_code(change.tool)}** {_code(change.pointer or '/')}: "
    if change.code.endswith("description_changed") and (
        isinstance(change.old, str) or isinstance(change.new, str)
    ):
        from jsoncontract.pin import word_diff

        words = word_diff(_masked(change.old), _masked(change.new))
        text += "description changed: " + _md_words(words)
    else:
        text += md(change.message)
    text += f" ({_code(change.code)})"
    if change.note:
        text += f" _{md(change.note)}_"
    return text + "\n"


def _code(text: str) -> str:
    """``text`` as a code span (Markdown is not read inside one; a backtick in the text
    would end it, and is written as a quote)."""
    return "`" + text.replace("`", "'").replace("\n", " ").replace("\r", " ") + "`"


def _masked(value: object) -> str:
    from jsoncontract.masking import masked

    return masked(value) if isinstance(value, str) else ""


def _md_words(diff: str) -> str:
    """``[-old-]`` struck through, ``{+new+}`` in bold, the rest escaped."""
    out = []
    at = 0
    for found in _WORDS.finditer(diff):
        out.append(md(diff[at : found.start()]))
        removed, added = found.group(1), found.group(2)
        out.append(f"~~{md(removed)}~~" if removed is not None else f"**{md(added)}**")
        at = found.end()
    out.append(md(diff[at:]))
    return "".join(out)


# -- the formats made of findings -----------------------------------------------------------


def findings_of(report: CompatReport) -> FindingSet:
    """Every change but the cosmetic ones, as findings with their codes' metadata."""
    from jsoncontract.codes import code_rule

    findings = [
        Finding(
            change.code,
            change.cls.severity,
            f"{change.cls.value}: {change.message}",
            path=change.pointer,
            tool=change.tool,
            source=change.source,
            hint=change.note,
        )
        for change in report.changes
        if change.cls is not CompatClass.COSMETIC
    ]
    rules = {code: code_rule(code) for code in sorted({f.code for f in findings})}
    return FindingSet(findings, rules, command="compat")


class SarifCompatReporter(Reporter[Never, CompatReport]):
    """SARIF 2.1.0: a result per change (cosmetic ones left out)."""

    def close(self, report: CompatReport) -> None:
        """Write the SARIF log."""
        from dataclasses import replace

        from jsoncontract.reporters.sarif import sarif_log

        self.stream.write(sarif_log(replace(findings_of(report), root=self.options.root)))


class GithubCompatReporter(Reporter[Never, CompatReport]):
    """GitHub Actions annotations, one per change (cosmetic ones left out)."""

    def close(self, report: CompatReport) -> None:
        """Write the workflow commands."""
        from jsoncontract.reporters.github import AnnotationWriter, annotations_from_findings

        found = findings_of(report)
        names = {code: meta.name for code, meta in found.rules.items()}
        out = io.BytesIO()
        writer = AnnotationWriter(out, command="compat", max_shown=self.options.max_shown)
        writer.write(annotations_from_findings(found.findings, names, root=self.options.root))
        writer.close()
        self.stream.write(out.getvalue())


class JUnitCompatReporter(Reporter[Never, CompatReport]):
    """JUnit XML: a case per tool of either version, failing on its worst change at or
    above ``--fail-on``."""

    def close(self, report: CompatReport) -> None:
        """Write the XML."""
        from jsoncontract.reporters.junit import JUnitCase, JUnitFailure, JUnitSuite, render_junit

        by_tool: dict[str, list[Change]] = {}
        for change in report.changes:
            by_tool.setdefault(change.tool, []).append(change)
        suite = JUnitSuite(f"{report.old} -> {report.new}")
        for tool in sorted(by_tool.keys() | set(report.unchanged)):
            changes = by_tool.get(tool, [])
            case = JUnitCase(tool, "compat")
            failing = [c for c in changes if fails(c.cls, self.options.fail_on)]
            if failing:
                worst = failing[0]
                case.failure = JUnitFailure(
                    f"{worst.cls.value}: {worst.message}",
                    worst.code,
                    "\n".join(
                        f"{c.cls.value} {c.code} {c.pointer or '/'}: {c.message}" for c in failing
                    ),
                )
            if changes:
                case.system_out = "\n".join(
                    f"{c.cls.value} {c.code} {c.pointer or '/'}: {c.message}" for c in changes
                )
            suite.cases.append(case)
        self.stream.write(render_junit([suite], name="jsoncontract compat").encode())
