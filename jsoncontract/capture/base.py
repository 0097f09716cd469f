"""What every capture dialect shares: the extraction context and how calls are built.

A capture file holds *documents* (the whole file, one JSONL line, one SSE event). Each
dialect module turns a document into zero or more :class:`~jsoncontract.model.ToolCall`
values; problems with the envelope become findings on the call, never exceptions.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final

from jsoncontract._json import dumps
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

_UNHASHABLE: Final = (dict, list)
#: Parse codes that anomalies map to (``duplicate_key`` -> ``parse.duplicate_key``).
ANOMALY_CODES: Final = {
    "duplicate_key": "parse.duplicate_key",
    "big_integer": "parse.big_integer",
    "lone_surrogate": "parse.lone_surrogate",
    "invalid_utf8": "parse.invalid_utf8",
    "nan_infinity": "parse.nan_infinity",
}


class DocContext:
    """Where a document came from, and what a trace record or the caller said about it.

    ``line_of`` maps a pointer inside the document to a line of the file (whole JSON
    files); JSONL and SSE documents have one ``line`` for everything in them. One is made
    per JSONL line, so it is a plain slotted class.
    """

    __slots__ = (
        "anomalies",
        "base",
        "call_id",
        "context",
        "file",
        "hop",
        "line",
        "line_of",
        "tool",
    )

    def __init__(
        self,
        file: str,
        line: int | None = None,
        line_of: Callable[[str], int | None] | None = None,
        anomalies: tuple[Anomaly, ...] = (),
        tool: str | None = None,
    ) -> None:
        self.file = file
        self.line = line
        self.line_of = line_of
        self.anomalies = anomalies
        self.tool = tool
        self.base = ""
        self.call_id: str | None = None
        self.hop: Hop | None = None
        self.context: dict[str, Any] | None = None

    def child(self, pointer: str, **changes: Any) -> DocContext:
        """The context of a member of this document (``changes`` override attributes)."""
        new = DocContext(self.file, self.line, self.line_of, self.anomalies, self.tool)
        new.base = self.base + pointer
        new.call_id = self.call_id
        new.hop = self.hop
        new.context = self.context
        for key, value in changes.items():
            setattr(new, key, value)
        return new

    def source(self, pointer: str = "") -> Source:
        """The source of the node at ``pointer`` (relative to this document)."""
        if self.line is not None:  # one line holds the whole document
            return Source(self.file, self.line)
        absolute = self.base + pointer
        line = self.line_of(absolute) if self.line_of is not None else None
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


def envelope_anomaly(anomaly: Anomaly, where: str = "in the call envelope") -> Finding:
    """An anomaly (duplicate key...) outside the arguments, as an envelope finding."""
    return envelope(
        "envelope." + anomaly.kind,
        f"{where}: {anomaly.detail}",
        "fix the producer of this capture; the envelope is ambiguous",
    )


def key(value: Any) -> Any:
    """A JSON value usable as a dict key: an object or array (malformed ids, indexes) as its
    JSON text, anything else as it is."""
    return dumps(value) if type(value) in _UNHASHABLE else value


def id_text(value: Any) -> str:
    """A call id as text: strings as they are, anything else as its JSON (``true``, ``1.5``)."""
    if type(value) is str:
        return value
    return str(value) if type(value) is int else dumps(value).decode()


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
    out = findings if findings is not None else []
    anomalies: list[Anomaly] = []
    if ctx.anomalies:
        absolute_args = ctx.base + args if args is not None else None
        absolute_node = ctx.base + node
        for anomaly in ctx.anomalies:
            where = anomaly.pointer
            if absolute_args is not None and (
                where == absolute_args or where.startswith(absolute_args + "/")
            ):
                anomalies.append(replace(anomaly, pointer=where[len(absolute_args) :]))
            elif (
                where == absolute_node
                or where.startswith(absolute_node + "/")
                or absolute_node.startswith(where + "/")  # e.g. tool_calls given twice
            ):
                out.append(envelope_anomaly(anomaly))
    return ToolCall(
        ctx.hop or HOP_OF_DIALECT[dialect],
        dialect,
        (ctx.tool or tool) if dialect is Dialect.DOWNSTREAM else tool,
        call_id if type(call_id) is str else ctx.call_id if call_id is None else id_text(call_id),
        arguments,
        form,
        ctx.source(node),
        tuple(anomalies) if anomalies else (),
        out,
        ctx.context,
        meta,
    )


def call_without_arguments(
    ctx: DocContext,
    dialect: Dialect,
    findings: list[Finding],
    *,
    node: str,
    tool: str | None = None,
    call_id: Any = None,
) -> ToolCall:
    """A call too malformed to have arguments; ``findings`` say what is wrong with it."""
    return make_call(
        ctx,
        dialect,
        tool=tool,
        call_id=call_id,
        arguments=None,
        form=ArgumentsForm.MISSING,
        node=node,
        args=None,
        findings=findings,
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


def text(node: dict[str, Any], key: str) -> str | None:
    """A string member, or ``None``."""
    value = node.get(key)
    return value if isinstance(value, str) else None
