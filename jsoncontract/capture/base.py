"""What every capture dialect shares: the extraction context, how calls are built, and the
assembler that puts streamed calls together.

A capture file holds *documents* (the whole file, one JSONL line, one SSE event). Each
dialect module turns a document into zero or more :class:`~jsoncontract.model.ToolCall`
values; problems with the envelope become findings on the call, never exceptions.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Final

import orjson

from jsoncontract import codes
from jsoncontract._json import dumps
from jsoncontract.model import (
    Anomaly,
    ArgumentsForm,
    Captured,
    Finding,
    McpSession,
    OfferedTools,
    Severity,
    Stage,
    ToolCall,
    ToolResult,
    offered_tools,
)

if TYPE_CHECKING:
    from jsoncontract.capture.interface import CaptureDialect, DocContext

_UNHASHABLE: Final = (dict, list)
_NO_VALUE_RESULT: Final[Any] = object()


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
        codes.ANOMALY_CODES[anomaly.kind][1],
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
    dialect: CaptureDialect,
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
        ctx.hop or dialect.hop,
        dialect.name,
        tool,
        call_id if type(call_id) is str else ctx.call_id if call_id is None else id_text(call_id),
        arguments,
        form,
        ctx.source(node),
        tuple(anomalies) if anomalies else (),
        out,
        ctx.context,
        meta,
        None,
        ctx.turn,
        None,
        ctx.time,
        None,
        ctx.offered,
    )


def request_tools(node: dict[str, Any], *members: str) -> OfferedTools | None:
    """The tools a request body offers the model: the first of its ``members`` (``tools``
    unless named) that is a list, as one shared :class:`~jsoncontract.model.OfferedTools`;
    ``None`` when it has none, or an empty list (which providers refuse, and logs write for
    "no tools": it records nothing offered)."""
    for member in members or ("tools",):
        found = node.get(member)
        if type(found) is list and found:
            return offered_tools(found)
    return None


def make_result(
    ctx: DocContext,
    dialect: CaptureDialect,
    *,
    call_id: Any,
    node: str,
    content: Any = None,
    structured: Any = _NO_VALUE_RESULT,
    is_error: bool | None = None,
    error: dict[str, Any] | None = None,
    status: int | None = None,
    tool: str | None = None,
    message: Any = None,
    findings: list[Finding] | None = None,
    session: McpSession | None = None,
) -> ToolResult:
    """Build a result read at ``node`` (a pointer relative to the document); ``call_id`` is
    the id of the call it answers as the wire has it (``None``: paired by position)."""
    present = structured is not _NO_VALUE_RESULT
    return ToolResult(
        ctx.hop or dialect.hop,
        dialect.name,
        None if call_id is None else id_text(call_id),
        ctx.source(node),
        content,
        structured if present else None,
        present,
        is_error,
        error,
        status,
        tool,
        None,
        ctx.time,
        message,
        ctx.history,
        session,
        findings if findings is not None else [],
    )


def result_problem(code: str, message: str, hint: str | None = None) -> Finding:
    """A finding about a result's envelope, found while reading it (stage ``result``),
    reported under ``code`` (a ``result.*`` code of :mod:`jsoncontract.codes`)."""
    return Finding(
        code=code,
        severity=Severity.ERROR,
        message=message,
        stage=Stage.RESULT,
        hint=hint,
    )


def answered_id(
    node: dict[str, Any], member: str, what: str, call: str
) -> tuple[str | None, list[Finding]]:
    """The id of the call a result names in ``member`` (``tool_call_id``, ``call_id``...),
    with a finding when it names none: ``what`` names the result, ``call`` the call."""
    value = node.get(member)
    if isinstance(value, str):
        return value, []
    return None, [
        result_problem(
            codes.RESULT_MALFORMED,
            f"{what} has no {member}, so it answers no {call}",
            f"set {member} to the id of the {call} it answers",
        )
    ]


def call_without_arguments(
    ctx: DocContext,
    dialect: CaptureDialect,
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


_NO_VALUE: Final[Any] = object()


class Known:
    """Ids a file's conversation histories have already shown, so that a history repeated
    in the next request (with a few messages more) is read for its new messages only.

    Bounded: two generations of ``size`` ids each; an id forgotten is read again, and the
    ledger then recognises the call it names.
    """

    __slots__ = ("_newer", "_older", "size", "turns")

    def __init__(self, size: int = 16384) -> None:
        self.size = size
        self._newer: set[Any] = set()
        self._older: set[Any] = set()
        #: how many times the older generation was forgotten (while it stays the same, an
        #: id known stays known)
        self.turns = 0

    def __contains__(self, item: Any) -> bool:
        return item in self._newer or item in self._older

    def add(self, item: Any) -> None:
        """Remember ``item``."""
        self._newer.add(item)
        if len(self._newer) > self.size:
            self._older, self._newer = self._newer, set()
            self.turns += 1


def history_mark(previous: bytes, role: Any, parts: Any) -> bytes:
    """The mark of a message at its place in a history: a hash of the message and of the
    mark of the messages before it, so that the same message later is another mark."""
    try:
        data = orjson.dumps([role, parts], option=orjson.OPT_SORT_KEYS)
    except TypeError:  # deeper than orjson writes: a mark of its own
        data = repr(id(parts)).encode()
    return hashlib.blake2b(previous + data, digest_size=16).digest()


class Sightings:
    """Keys that tell one call without an id seen in several places from other calls.

    A model's call is made after a history (the mark of its messages, :func:`history_mark`):
    the call a response or a chat span's output holds, and the same call in the assistant
    message of a later history that follows the same messages, are one call. Both get the
    same :attr:`~jsoncontract.model.ToolCall.sighting`: the history's mark, the call's name
    and arguments, and how many times the same call was made after that history before it.
    The ledger pairs sightings as it pairs call ids. The same call made after the same
    history again (a conversation repeated in the file) gets a sighting of its own, which
    no history matches. Bounded: the oldest sightings are forgotten first.
    """

    __slots__ = ("expected", "issued", "size")

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self.expected: dict[str, None] = {}  # given to a model's calls, not seen again yet
        # how many times each sighting was given; kept longer than the ledger remembers
        # call keys (:data:`~jsoncontract.capture.ledger.REMEMBERED`, twice)
        self.issued: dict[str, int] = {}

    def give(self, after: bytes, calls: list[ToolCall], counts: dict[bytes, int]) -> None:
        """The calls without ids a model made after the history of mark ``after`` (``counts``
        carries over the calls of one response, or one chat span, given in parts)."""
        expected, issued = self.expected, self.issued
        for call in calls:
            key = sighting(after, call, counts)
            if key is None:
                continue
            times = issued.get(key, 0)
            issued[key] = times + 1
            if len(issued) > 8 * self.size:
                del issued[next(iter(issued))]
            if times:
                call.sighting = f"{key}/{times}"
                continue
            call.sighting = key
            expected[key] = None
            if len(expected) > self.size:
                del expected[next(iter(expected))]

    def match(self, before: bytes, calls: list[ToolCall]) -> None:
        """The calls without ids of an assistant message of a history, after the messages of
        mark ``before``: those a model was seen making get their sightings."""
        expected = self.expected
        if not expected:
            return
        counts: dict[bytes, int] = {}
        for call in calls:
            key = sighting(before, call, counts)
            if key is not None and key in expected:
                del expected[key]
                call.sighting = key


def sighting(after: bytes, call: ToolCall, counts: dict[bytes, int]) -> str | None:
    """The sighting of a call without an id made after the history of mark ``after``: its
    name and arguments, and how many times the same call was made there before it
    (``counts``, updated); ``None`` for arguments too deep to write."""
    try:
        what = orjson.dumps([call.tool, call.arguments], option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return None
    seen = counts.get(what, 0)
    counts[what] = seen + 1
    digest = hashlib.blake2b(after + what + seen.to_bytes(8, "little"), digest_size=16)
    return "\x00sighting/" + digest.hexdigest()


@dataclass(slots=True)
class Pending:
    """A streamed call being put together.

    ``parts`` are the argument text fragments in arrival order; ``final`` is the whole
    arguments text when the stream repeats it at the end (OpenAI Responses); ``initial`` is
    an arguments value given whole when the call opened (Anthropic ``input``), which stands
    when no fragment follows.
    """

    ctx: DocContext
    call_id: Any = None
    name: str | None = None
    parts: list[str] = field(default_factory=list)
    final: str | None = None
    initial: Any = _NO_VALUE


class Assembler:
    """The streamed calls of one dialect in one file, by a key the dialect chooses.

    A dialect's stream reader opens a :class:`Pending` per call (by index, item id...),
    adds fragments to it, and closes it when its stream says the call is complete; the
    end of the file closes the rest as incomplete. A closed call goes through
    :func:`make_call` like any other, with findings for a stream that was cut off, that
    never named its tool, or whose fragments contradict its final arguments.

    Arguments:
        dialect: the dialect the calls are in.
        unit: how messages name one call of the dialect (``call``, ``tool_use block``).
        unnamed: the message for a call whose stream never named its tool.
    """

    __slots__ = ("_open", "dialect", "unit", "unnamed")

    def __init__(self, dialect: CaptureDialect, *, unit: str, unnamed: str) -> None:
        self.dialect = dialect
        self.unit = unit
        self.unnamed = unnamed
        self._open: dict[Any, Pending] = {}

    def open(self, key: Any, ctx: DocContext) -> Pending:
        """The call open under ``key``, opened now (at ``ctx``) if there is none."""
        pending = self._open.get(key)
        if pending is None:
            pending = self._open[key] = Pending(ctx)
        return pending

    def start(self, key: Any, pending: Pending, out: list[Captured]) -> None:
        """Open ``pending`` under ``key``; a call still open there ends here, incomplete."""
        unfinished = self._open.get(key)
        if unfinished is not None:
            out.append(self.assembled(unfinished, complete=False))
        self._open[key] = pending

    def get(self, key: Any) -> Pending | None:
        """The call open under ``key``, if any."""
        return self._open.get(key)

    def pop(self, key: Any) -> Pending | None:
        """Take the call open under ``key`` out of the open ones (``None``: none is)."""
        return self._open.pop(key, None)

    def opened(self) -> list[Any]:
        """The keys of the open calls, oldest first (a copy: closing while iterating is safe)."""
        return list(self._open)

    def close(self, pending: Pending, out: list[Captured]) -> None:
        """A call whose stream is complete: add it to ``out``."""
        out.append(self.assembled(pending, complete=True))

    def flush(self, out: list[Captured]) -> None:
        """Calls whose stream ended before they were complete (possibly cut off)."""
        out.extend(self.assembled(pending, complete=False) for pending in self._open.values())
        self._open.clear()

    def assembled(self, pending: Pending, *, complete: bool) -> ToolCall:
        """The call ``pending`` holds, with what is wrong with its stream."""
        findings: list[Finding] = []
        form = ArgumentsForm.TEXT
        if pending.final is not None:
            arguments: Any = pending.final
            if pending.parts and "".join(pending.parts) != pending.final:
                findings.append(
                    envelope(
                        codes.ENVELOPE_STREAM_MISMATCH,
                        "the streamed argument fragments do not add up to the final arguments",
                        "events were lost or reordered; the final arguments are checked",
                        severity=Severity.WARNING,
                    )
                )
        elif pending.parts or pending.initial is _NO_VALUE:
            arguments = "".join(pending.parts)
        else:  # no fragments: the value given at the start stands ({} for no arguments)
            arguments = pending.initial if pending.initial is not None else {}
            form = ArgumentsForm.VALUE
        if not complete:
            findings.append(
                envelope(
                    codes.ENVELOPE_INCOMPLETE_STREAM,
                    f"the stream ended before this {self.unit} was finished",
                    "the capture was cut off, or the connection dropped mid-call",
                    severity=Severity.WARNING,
                )
            )
        if not pending.name:
            findings.append(envelope(codes.ENVELOPE_MALFORMED, self.unnamed))
        return make_call(
            pending.ctx,
            self.dialect,
            tool=pending.name,
            call_id=pending.call_id,
            arguments=arguments,
            form=form,
            node="",
            args=None,
            findings=findings,
        )


#: Where an OpenAI function keeps its input schema (shared with the Responses API, whose
#: functions have the same members; ``parametersJsonSchema`` as Gemini spells it is read too).
FUNCTION_INPUT: Final = ("parametersJsonSchema", "parameters_json_schema", "parameters")


def string_arguments(
    node: dict[str, Any], findings: list[Finding], pointer: str
) -> tuple[Any, ArgumentsForm, str | None]:
    """The ``arguments`` member of an OpenAI function call: a JSON string, as OpenAI sends.

    Returns the arguments, their form and their pointer (``None`` when missing).
    """
    if "arguments" not in node:
        findings.append(
            envelope(
                codes.ENVELOPE_MALFORMED,
                "the function call has no arguments member",
                'OpenAI always sends arguments as a JSON string, "{}" when empty',
            )
        )
        return None, ArgumentsForm.MISSING, None
    value = node["arguments"]
    if isinstance(value, str):
        return value, ArgumentsForm.TEXT, pointer + "/arguments"
    findings.append(
        envelope(
            codes.ENVELOPE_ARGUMENTS_NOT_STRING,
            "arguments should be a JSON-encoded string in this dialect, not a parsed value",
            "a proxy or SDK decoded the arguments before logging; the value is checked as is",
            severity=Severity.WARNING,
        )
    )
    return value, ArgumentsForm.VALUE, pointer + "/arguments"


#: Content blocks only Anthropic's messages hold.
_ANTHROPIC_BLOCKS: Final = ("tool_use", "tool_result", "mcp_tool_use", "mcp_tool_result")


def anthropic_history(body: dict[str, Any]) -> bool:
    """Whether a request body's ``messages`` are Anthropic's: a content block of its own,
    or the top-level ``system`` and ``max_tokens`` with no OpenAI tool message."""
    messages = body["messages"]
    for entry in messages:
        if not isinstance(entry, dict):
            continue
        if "tool_calls" in entry or entry.get("role") in ("tool", "function", "system"):
            return False
        content = entry.get("content")
        if isinstance(content, list) and any(
            isinstance(block, dict) and block.get("type") in _ANTHROPIC_BLOCKS for block in content
        ):
            return True
    return "max_tokens" in body and "system" in body


def function_calls(
    node: dict[str, Any],
    ctx: DocContext,
    out: list[Captured],
    pointer: str,
    dialect: CaptureDialect,
    *,
    member: str = "tool_calls",
    ids: bool = True,
) -> int:
    """The ``tool_calls`` of an assistant message in the function-call shape several
    providers share with OpenAI (``{"id", "type": "function", "function": {"name",
    "arguments"}}``): ``arguments`` a JSON string as sent, or an object the provider decoded
    (its ``DECODED`` form, with no warning: that is how such a dialect writes it). ``ids``:
    whether the dialect gives calls ids (one without is then warned of). Returns how many
    entries the list has (``-1``: the member is not a list)."""
    entries = node.get(member)
    if not isinstance(entries, list):
        return -1
    for i, entry in enumerate(entries):
        where = f"{pointer}/{member}/{i}"
        findings: list[Finding] = []
        function = entry.get("function") if isinstance(entry, dict) else None
        if not isinstance(function, dict):
            findings.append(envelope(codes.ENVELOPE_MALFORMED, "the tool call has no function"))
            out.append(call_without_arguments(ctx, dialect, findings, node=where))
            continue
        assert isinstance(entry, dict)
        name = text(function, "name")
        if not name:
            findings.append(envelope(codes.ENVELOPE_MALFORMED, "the function call has no name"))
        if ids and "id" not in entry:
            findings.append(
                envelope(
                    codes.ENVELOPE_MISSING_CALL_ID,
                    "the tool call has no id, so its result cannot be matched to it",
                    severity=Severity.WARNING,
                )
            )
        raw = function.get("arguments", _NO_VALUE)
        if raw is _NO_VALUE:
            findings.append(
                envelope(codes.ENVELOPE_MALFORMED, "the function call has no arguments")
            )
            arguments, form, args = None, ArgumentsForm.MISSING, None
        elif type(raw) is str:
            arguments, form, args = raw, ArgumentsForm.TEXT, where + "/function/arguments"
        else:
            arguments, form, args = raw, ArgumentsForm.DECODED, where + "/function/arguments"
        out.append(
            make_call(
                ctx,
                dialect,
                tool=name,
                call_id=entry.get("id"),
                arguments=arguments,
                form=form,
                node=where,
                args=args,
                findings=findings,
            )
        )
    return len(entries)


def not_read(ctx: DocContext, dialect: CaptureDialect, what: str, pointer: str = "") -> ToolCall:
    """A document that carries ``dialect``'s own marks but whose calls cannot be read
    (``what`` says what is wrong): an error on the document, never a silent pass."""
    return problem_call(
        ctx,
        envelope(
            codes.ENVELOPE_NOT_READ,
            f"this looks like {dialect.name} ({what}), but no tool call can be read from it",
            f"check that the capture is a whole {dialect.name} document as its SDK writes it, "
            f"or read it as another dialect with --dialect",
        ),
        pointer=pointer,
    )
