"""GitHub Actions workflow commands: ``::error file=…,line=…,col=…,title=…::message``.

Annotations must be one line each, so newlines in messages become ``%0A`` (and ``%`` and
``\\r`` are escaped as well); property values additionally escape ``:`` and ``,``, which
would otherwise end them. Files are written relative to the project root, where GitHub
looks for them.

GitHub shows at most 10 error, 10 warning and 10 notice annotations per step, and 50 per
job (actions/toolkit, "Problem Matchers": limitations). :class:`AnnotationWriter` keeps a
report within that: the first 10 errors, 10 warnings and 9 notices become annotations, the
findings after them are written as plain log lines (``file:line: level code: message``, at
most ``--max-shown`` of them), and a last notice says how many findings were not annotated
and where to see them all.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import IO, Final

from jsoncontract.model import Finding, Severity
from jsoncontract.project import portable_path, project_root

LEVELS: Final = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
#: Annotations of each level GitHub shows in one step; one notice is kept for the last word.
PER_STEP: Final = {"error": 10, "warning": 10, "notice": 9}


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
    """Escape a message (the part after ``::``); other control characters (NUL, a
    terminal's escape sequences) are written as ``\\xNN``, never raw."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return _CONTROLS.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


#: Control characters but line breaks (which GitHub's commands escape themselves).
_CONTROLS: Final = re.compile(r"[\x00-\x09\x0b\x0c\x0e-\x1f\x7f-\x9f]")


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


def plain_line(item: Annotation) -> str:
    """An annotation as an ordinary log line (``file:line:col: level title: message``),
    for what is past GitHub's limit: one line, control characters escaped."""
    where = item.file or ""
    if item.file is not None and item.line is not None:
        where += f":{item.line}"
        if item.col is not None:
            where += f":{item.col}"
    head = f"{where}: {item.level}" if where else item.level
    if item.title:
        head += f" {item.title}"
    text = f"{head}: {item.message}".replace("\r", "\\r").replace("\n", " | ")
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text) + "\n"


def annotations_from_findings(
    findings: Sequence[Finding],
    names: dict[str, str] | None = None,
    *,
    root: str | None = None,
) -> list[Annotation]:
    """An annotation per finding; the title is the code and, when known, its name."""
    base = root if root is not None else str(project_root())
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
                file=portable_path(source.file, base) if source else None,
                line=source.line if source else None,
                col=source.column if source else None,
                title=title,
            )
        )
    return out


class AnnotationWriter:
    """Writes annotations within GitHub's limits per step (see the module's docstring).

    Arguments:
        stream: where to write.
        command: the command, named in the closing notice.
        max_shown: findings past the limit written as plain lines (0: all).
    """

    def __init__(self, stream: IO[bytes], *, command: str, max_shown: int = 50) -> None:
        self.stream = stream
        self.command = command
        self.max_shown = max_shown
        self.used = dict.fromkeys(PER_STEP, 0)
        self.plain = 0
        self.unshown = 0

    def write(self, annotations: Iterable[Annotation]) -> None:
        """Annotate while the level has room; past it, plain lines, then only a count."""
        out: list[str] = []
        used = self.used
        for item in annotations:
            if used.get(item.level, 0) < PER_STEP.get(item.level, 10):
                used[item.level] = used.get(item.level, 0) + 1
                out.append(render_github([item]))
            elif not self.max_shown or self.plain < self.max_shown:
                self.plain += 1
                out.append(plain_line(item))
            else:
                self.unshown += 1
        if out:
            self.stream.write("".join(out).encode("utf-8", "backslashreplace"))

    def close(self, *, everything: str = "--format json") -> None:
        """The closing notice, when some findings were not annotated."""
        left = self.plain + self.unshown
        if not left:
            return
        shown = f"; {self.plain:,} of them are listed above as plain lines" if self.plain else ""
        more = f"; {self.unshown:,} are not shown (--max-shown 0 shows all)" if self.unshown else ""
        text = (
            f"{left:,} more {'finding is' if left == 1 else 'findings are'} not annotated: "
            "GitHub shows 10 error, 10 warning and 10 notice annotations per step"
            f"{shown}{more}. {everything} lists every finding."
        )
        title = f"jsoncontract {self.command}"
        self.stream.write(render_github([Annotation("notice", text, title=title)]).encode())


__all__ = [
    "LEVELS",
    "PER_STEP",
    "Annotation",
    "AnnotationWriter",
    "annotations_from_findings",
    "escape_data",
    "escape_property",
    "plain_line",
    "render_github",
]
