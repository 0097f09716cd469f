"""What every capture dialect shares: the extraction context and how calls are built.

A capture file holds *documents* (the whole file, one JSONL line, one SSE event). Each
dialect module turns a document into zero or more :class:`~jsoncontract.model.ToolCall`
values; problems with the envelope become findings on the call, never exceptions.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Final

from jsoncontract.model import (
    HOP_OF_DIALECT,
    Anomaly,
    ArgumentsForm,
    Dialect,
    Finding,
    Hop,
    Severity,
    Source,
    Stage,
    ToolCall,
)

if TYPE_CHECKING:
    from collections.abc import Callable

#: Parse codes that anomalies map to (``duplicate_key`` -> ``parse.duplicate_key``).
ANOMALY_CODES: Final = {
    "duplicate_key": "parse.duplicate_key",
    "big_integer": "parse.big_integer",
    "lone_surrogate": "parse.lone_surrogate",
    "invalid_utf8": "parse.invalid_utf8",
    "nan_infinity": "parse.nan_infinity",
}


@dataclass(slots=True)
class DocContext:
    """Where a document came from, and what a trace record or the caller said about it.

    ``line_of`` maps a pointer inside the document to a line of the file (whole JSON
    files); JSONL and SSE documents have one ``line`` for everything in them.
    """

    file: str
    line: int | None = None
    line_of: Callable[[str], int | None] | None = None
    base: str = ""
    anomalies: tuple[Anomaly, ...] = ()
    tool: str | None = None
    call_id: str | None = None
    hop: Hop | None = None
    context: dict[str, Any] | None = None
    top_level: bool = True
    used_anomalies: set[int] = field(default_factory=set)

    def child(self, pointer: str, **changes: Any) -> DocContext:
        """The context of a member of this document."""
        return replace(self, base=self.base + pointer, top_level=False, **changes)

    def source(self, pointer: str = "") -> Source:
        """The source of the node at ``pointer`` (relative to this document)."""
        absolute = self.base + pointer
        line = self.line
        if line is None and self.line_of is not None:
            line = self.line_of(absolute)
        return Source(self.file, line, None, absolute or None)


def envelope(
    code: str,
    message: str,
    hint: str | None = None,
    *,
    severity: Severity = Severity.ERROR,
    path: str = "",
) -> Finding:
    """A finding of the envelope gate (the call's surroundings, not its arguments)."""
    return Finding(
        code=code, severity=severity, message=message, path=path, stage=Stage.ENVELOPE, hint=hint
    )


def make_call(
    ctx: DocContext,
    dialect: Dialect,
    *,
    tool: str | None,
    call_id: Any,
    arguments: Any,
    form: ArgumentsForm,
    node: str,
    args: str | None,
    findings: list[Finding] | None = None,
    meta: dict[str, Any] | None = None,
) -> ToolCall:
    """Build a call, sorting the document's anomalies into argument and envelope ones.

    ``node`` is the pointer of the call object and ``args`` that of its arguments, both
    relative to the document.
    """
    out = list(findings or ())
    anomalies: list[Anomaly] = []
    if ctx.anomalies:
        absolute_args = ctx.base + args if args is not None else None
        absolute_node = ctx.base + node
        for i, anomaly in enumerate(ctx.anomalies):
            where = anomaly.pointer
            if absolute_args is not None and (
                where == absolute_args or where.startswith(absolute_args + "/")
            ):
                anomalies.append(replace(anomaly, pointer=where[len(absolute_args) :]))
                ctx.used_anomalies.add(i)
            elif where == absolute_node or where.startswith(absolute_node + "/"):
                ctx.used_anomalies.add(i)
                out.append(
                    envelope(
                        "envelope." + anomaly.kind,
                        f"in the call envelope: {anomaly.detail}",
                        "fix the producer of this capture; the envelope is ambiguous",
                    )
                )
    hop = ctx.hop or HOP_OF_DIALECT.get(dialect)
    return ToolCall(
        hop=hop,
        dialect=dialect,
        tool=ctx.tool or tool if dialect is Dialect.DOWNSTREAM else tool,
        call_id=_id(call_id) if call_id is not None else ctx.call_id,
        arguments=arguments,
        form=form,
        source=ctx.source(node),
        anomalies=tuple(anomalies),
        load_findings=out,
        context=ctx.context,
        meta=meta,
    )


def problem_call(ctx: DocContext, finding: Finding, *, pointer: str = "") -> ToolCall:
    """A result-only call for a document that holds no usable call (garbage, unknown shape)."""
    return ToolCall(
        hop=ctx.hop,
        dialect=None,
        tool=ctx.tool,
        call_id=ctx.call_id,
        arguments=None,
        form=ArgumentsForm.MISSING,
        source=ctx.source(pointer),
        load_findings=[finding],
        context=ctx.context,
    )


def _id(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


def text(node: dict[str, Any], key: str) -> str | None:
    """A string member, or ``None``."""
    value = node.get(key)
    return value if isinstance(value, str) else None
