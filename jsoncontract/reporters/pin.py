"""``pin --check`` reports: the drift findings as text or JSON (``pin`` and ``mcp pin``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import IO, TYPE_CHECKING, Any, Final

import orjson

from jsoncontract.reporters.check_text import LineWriter, Segment
from jsoncontract.reporters.interface import ReportOptions

if TYPE_CHECKING:
    from jsoncontract.model import Finding


def pin_summary(
    findings: Sequence[Finding], *, tools: int, files: int, lock: str
) -> dict[str, Any]:
    """The ``summary`` object: tools and files checked, tools changed, added and removed."""
    return {
        "tools": tools,
        "files": files,
        "changed": len({f.tool for f in findings if f.code.endswith("_changed")}),
        "added": sum(1 for f in findings if f.code == "pin.tool_added"),
        "removed": sum(1 for f in findings if f.code == "pin.tool_removed"),
        "lock": lock,
    }


def write_pin_json(
    findings: Sequence[Finding], summary: dict[str, Any], stream: IO[bytes], options: ReportOptions
) -> None:
    """``{"version": 1, "summary": {...}, "findings": [...]}``."""
    body = {"version": 1, "summary": summary, "findings": [f.to_dict() for f in findings]}
    stream.write(orjson.dumps(body, option=orjson.OPT_APPEND_NEWLINE))


def write_pin_text(
    findings: Sequence[Finding], summary: dict[str, Any], stream: IO[bytes], options: ReportOptions
) -> None:
    """A line per finding (where, code, message) and its hint, then the verdict."""
    out = LineWriter(stream, options)
    for finding in findings:
        where = str(finding.source) if finding.source else "?"
        lines: list[list[Segment]] = [
            [(where, "bold"), (": ", ""), ("error", "bold red"), (" ", ""),
             (finding.code, "bold"), (" ", ""), (finding.message, "")]
        ]  # fmt: skip
        if finding.hint:
            lines.append([("    hint: ", "dim"), (finding.hint, "dim")])
        out.write(lines)
    if findings:
        out.write([[]])
    tools = summary["tools"]
    lock = summary["lock"]
    verdict = (
        f"{summary['changed']} changed, {summary['added']} added, "
        f"{summary['removed']} removed since {lock}"
        if findings
        else f"{tools} tool{'' if tools == 1 else 's'} match{'es' if tools == 1 else ''} {lock}"
    )
    out.write([[(verdict, "bold red" if findings else "bold green")]])
    out.close()


PinWriter = Callable[[Sequence["Finding"], dict[str, Any], IO[bytes], ReportOptions], None]

PIN_REPORTERS: Final[dict[str, PinWriter]] = {"text": write_pin_text, "json": write_pin_json}
