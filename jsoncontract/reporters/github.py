"""GitHub Actions workflow commands: ``::error file=…,line=…,col=…,title=…::message``.

Annotations must be one line each, so newlines in messages become ``%0A`` (and ``%`` and
``\\r`` are escaped as well); property values additionally escape ``:`` and ``,``, which
would otherwise end them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from jsoncontract.model import Finding, Severity
from jsoncontract.reporters.findings import portable_path

LEVELS: Final = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


@dataclass(frozen=True, slots=True)
class Annotation:
    """One workflow annotation."""

    level: str
    message: str
    file: str | None = None
    line: int | None = None
    col: int | None = None
    title: str | None = None


def escape_data(text: str) -> str:
    """Escape a message (the part after ``::``)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a property value (``file=``, ``title=``...)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(annotations: Iterable[Annotation]) -> str:
    """One workflow command per annotation."""
    lines = []
    for item in annotations:
        properties = []
        if item.file is not None:
            properties.append(f"file={escape_property(item.file)}")
        if item.line is not None:
            properties.append(f"line={item.line}")
        if item.col is not None:
            properties.append(f"col={item.col}")
        if item.title is not None:
            properties.append(f"title={escape_property(item.title)}")
        head = f"::{item.level} {','.join(properties)}" if properties else f"::{item.level}"
        lines.append(f"{head}::{escape_data(item.message)}")
    return "".join(line + "\n" for line in lines)


def annotations_from_findings(
    findings: Sequence[Finding], names: dict[str, str] | None = None
) -> list[Annotation]:
    """An annotation per finding; the title is the code and, when known, its name."""
    out = []
    for finding in findings:
        source = finding.source
        title = finding.code
        if names and finding.code in names:
            title += f" {names[finding.code]}"
        message = finding.message
        if finding.tool:
            message = f"[{finding.tool}] {message}"
        if finding.hint:
            message += f"\nhint: {finding.hint}"
        out.append(
            Annotation(
                level=LEVELS[finding.severity],
                message=message,
                file=portable_path(source.file) if source else None,
                line=source.line if source else None,
                col=source.column if source else None,
                title=title,
            )
        )
    return out
