"""OpenTelemetry: spans of the GenAI and MCP semantic conventions, exported as OTLP/JSON.

An OTLP/JSON export is ``{"resourceSpans": [{"resource", "scopeSpans": [{"scope",
"spans": [...]}]}]}`` (the Collector's file exporter and the SDK's OTLP JSON file exporter
write one per line). The SDK's console exporter writes each span as an object of its own
(``{"name", "context": {"trace_id", "span_id"}, "attributes": {...}, ...}``), which is read
too. Attribute names follow the conventions (status "Development"):

- an **execute-tool span** (``gen_ai.operation.name`` = ``execute_tool``) is a model-hop call
  with its result: ``gen_ai.tool.name``, ``gen_ai.tool.call.id`` (the model's call id),
  ``gen_ai.tool.call.arguments`` and ``gen_ai.tool.call.result`` (opt-in: an object or a
  JSON string), ``error.type`` or an error status for a failure, the span's times;
- a **chat span** (any span with ``gen_ai.input.messages`` / ``gen_ai.output.messages``,
  structured or a JSON string): the ``tool_call`` parts of its output messages are the calls
  the model made (one turn per output message), and its input messages are a history
  (``tool_call`` and ``tool_call_response`` parts);
- an **MCP client span** (``mcp.method.name`` = ``tools/call``) is an MCP-hop call:
  ``jsonrpc.request.id``, ``mcp.session.id``, ``mcp.protocol.version``, the arguments and
  result when recorded, ``rpc.response.status_code`` for a JSON-RPC error.

A call seen in a chat span and again in its execute-tool span has the same
``gen_ai.tool.call.id``, and is one call (:mod:`jsoncontract.capture.ledger`): the chat
span gives the arguments as the model wrote them, the execute-tool span the result.

The conventions make ``id`` optional on ``tool_call`` and ``tool_call_response`` parts
(instrumentations of Gemini leave it out). Without ids, a history's results answer the calls
of the assistant message before them, in order; a message an earlier chat span of the file
held at the same place, after the same messages, is read once (each chat span repeats the
conversation before it); and a call a chat span's output holds is one call with the same
call in a later span's history, after the same messages, and with the execute-tool span of
its trace that records the same name and arguments (the first such span for the first such
call): they share a sighting (:class:`~jsoncontract.capture.base.Sightings`). An
execute-tool span without an id that records no arguments is a call of its own. A span
that records no arguments still carries a result: the call is checked on its result alone
(``envelope.arguments_not_recorded``, info). A file whose spans are none of these is
reported (``envelope.no_tool_call``), never passed silently.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
from typing import TYPE_CHECKING, Any, Final

import orjson

from jsoncontract import codes
from jsoncontract.capture.base import (
    Known,
    Sightings,
    envelope,
    history_mark,
    make_call,
    make_result,
    problem_call,
)
from jsoncontract.capture.containers import epoch
from jsoncontract.model import (
    ArgumentsForm,
    Captured,
    Dialect,
    Finding,
    Hop,
    McpSession,
    Severity,
    ToolCall,
    ToolResult,
)

if TYPE_CHECKING:
    from jsoncontract.capture.interface import DocContext, Handler

#: ``status.code`` of a failed span (OTLP/JSON writes the number, some exporters the name).
_ERROR_STATUS: Final = (2, "STATUS_CODE_ERROR", "ERROR")
_CHAT_ATTRIBUTES: Final = ("gen_ai.input.messages", "gen_ai.output.messages")


def attribute_value(value: Any) -> Any:
    """An OTLP ``AnyValue`` as a plain value (``intValue`` is a string in OTLP/JSON)."""
    if not isinstance(value, dict):
        return None
    for kind, raw in value.items():
        if kind == "stringValue" or kind == "boolValue" or kind == "doubleValue":
            return raw
        if kind == "intValue":
            try:
                return int(raw)
            except (TypeError, ValueError):
                return raw
        if kind == "arrayValue":
            values = raw.get("values") if isinstance(raw, dict) else None
            return [attribute_value(v) for v in values] if isinstance(values, list) else []
        if kind == "kvlistValue":
            values = raw.get("values") if isinstance(raw, dict) else None
            return attributes(values) if isinstance(values, list) else {}
        if kind == "bytesValue":
            return raw
    return None


def attributes(entries: Any) -> dict[str, Any]:
    """OTLP ``attributes`` (a list of ``{key, value}``) as a dict; a dict (the console
    exporter's) as it is."""
    if isinstance(entries, dict):
        return entries
    out: dict[str, Any] = {}
    if isinstance(entries, list):
        for entry in entries:
            if isinstance(entry, dict) and isinstance(entry.get("key"), str):
                out[entry["key"]] = attribute_value(entry.get("value"))
    return out


def _hex_id(value: Any) -> str | None:
    """A trace or span id as hex: OTLP/JSON writes hex, protobuf's JSON mapping base64, the
    console exporter ``0x``-prefixed hex."""
    if not isinstance(value, str) or not value:
        return None
    if value.startswith("0x"):
        return value[2:]
    if all(c in "0123456789abcdefABCDEF" for c in value):
        return value.lower()
    try:
        return base64.b64decode(value, validate=True).hex()
    except (binascii.Error, ValueError):
        return value


def _json_value(value: Any) -> Any:
    """A structured attribute, which may be written as a JSON string."""
    if isinstance(value, str) and value[:1] in ("[", "{"):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            return value
    return value


def _span_identity(span: dict[str, Any]) -> bytes | None:
    """What tells a span from another: its trace and span ids and its content (``None``
    without a span id, or too deep to write)."""
    if not _first(span, "spanId", "context"):
        return None
    try:
        data = orjson.dumps(span, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return None
    return hashlib.blake2b(data, digest_size=16).digest()


#: How many calls without ids of chat spans wait for an execute-tool span of their trace.
_EXECUTED: Final = 4096


class OtlpState:
    """What one file's spans have shown: whether any was a GenAI or MCP span; the messages
    of its chat spans' histories, and the calls without ids they made (see the module)."""

    __slots__ = ("executed", "exported", "first", "genai", "known", "sightings", "spans", "times")

    def __init__(self) -> None:
        self.spans = 0
        # the spans read, by trace, span id and content: an exporter that sends a span
        # twice (a retried export) sends one span
        self.exported = Known()
        self.genai = 0
        self.first: DocContext | None = None
        self.known = Known()
        self.sightings = Sightings()
        # (trace, name, arguments, how many before it) of a chat span's call without an id
        # -> its sighting, for the execute-tool span that ran it
        self.executed: dict[tuple[str | None, bytes, int], str] = {}
        self.times: dict[tuple[str | None, bytes], int] = {}  # the counts behind those

    def export(self, node: dict[str, Any], ctx: DocContext, out: list[Captured]) -> None:
        """One OTLP/JSON export: every span of every resource and scope."""
        if self.first is None:
            self.first = ctx
        resources = node.get("resourceSpans")
        if not isinstance(resources, list):
            return
        for i, resource in enumerate(resources):
            scopes = resource.get("scopeSpans") if isinstance(resource, dict) else None
            if scopes is None and isinstance(resource, dict):
                scopes = resource.get("instrumentationLibrarySpans")  # before OTLP 1.0
            if not isinstance(scopes, list):
                continue
            for j, scope in enumerate(scopes):
                spans = scope.get("spans") if isinstance(scope, dict) else None
                if not isinstance(spans, list):
                    continue
                for k, span in enumerate(spans):
                    if isinstance(span, dict):
                        self.span(span, ctx, out, f"/resourceSpans/{i}/scopeSpans/{j}/spans/{k}")

    def console_span(self, node: dict[str, Any], ctx: DocContext, out: list[Captured]) -> None:
        """One span as the SDK's console exporter writes it."""
        if self.first is None:
            self.first = ctx
        self.span(node, ctx, out, "")

    def span(self, span: dict[str, Any], ctx: DocContext, out: list[Captured], at: str) -> None:
        """One span: a call (with its result), the calls of a chat, or nothing. The same
        span exported again (same trace and span id, same content) is read once."""
        identity = _span_identity(span)
        if identity is not None:
            if identity in self.exported:
                return
            self.exported.add(identity)
        self.spans += 1
        attrs = attributes(span.get("attributes"))
        started = epoch(_first(span, "startTimeUnixNano", "start_time"))
        ended = epoch(_first(span, "endTimeUnixNano", "end_time"))
        status = span.get("status")
        failed = attrs.get("error.type") is not None or (
            isinstance(status, dict)
            and (status.get("code") in _ERROR_STATUS or status.get("status_code") in _ERROR_STATUS)
        )
        method = attrs.get("mcp.method.name")
        operation = attrs.get("gen_ai.operation.name")
        span_ctx = ctx.child("", time=started)
        if method == "tools/call":
            self.genai += 1
            self._tool_span(span, attrs, span_ctx, out, at, Hop.MCP, failed, ended)
        elif method is not None:
            self.genai += 1  # initialize, tools/list...: MCP, no call
        elif operation == "execute_tool":
            self.genai += 1
            self._tool_span(span, attrs, span_ctx, out, at, Hop.MODEL, failed, ended)
        elif any(name in attrs for name in _CHAT_ATTRIBUTES):
            self.genai += 1
            self._chat_span(span, attrs, span_ctx, out, at)
        elif operation is not None:
            self.genai += 1  # a GenAI span without tool traffic (embeddings, an agent...)

    def _tool_span(
        self,
        span: dict[str, Any],
        attrs: dict[str, Any],
        ctx: DocContext,
        out: list[Captured],
        at: str,
        hop: Hop,
        failed: bool,
        ended: float | None,
    ) -> None:
        findings: list[Finding] = []
        name = attrs.get("gen_ai.tool.name")
        if not isinstance(name, str) or not name:
            findings.append(
                envelope(codes.ENVELOPE_MALFORMED, "the span names no gen_ai.tool.name")
            )
            name = None
        if hop is Hop.MCP:
            call_id = attrs.get("jsonrpc.request.id")
        else:
            call_id = attrs.get("gen_ai.tool.call.id")
        ctx = ctx.child("", hop=hop)
        arguments = attrs.get("gen_ai.tool.call.arguments")
        if arguments is None:
            findings.append(
                envelope(
                    codes.ENVELOPE_ARGUMENTS_NOT_RECORDED,
                    "the span does not record the call's arguments; only its result is checked",
                    "record them with gen_ai.tool.call.arguments (opt-in in the conventions)",
                    severity=Severity.INFO,
                )
            )
            form = ArgumentsForm.UNRECORDED
        else:
            form = ArgumentsForm.TEXT if isinstance(arguments, str) else ArgumentsForm.VALUE
        call = make_call(
            ctx,
            DIALECT,
            tool=name,
            call_id=call_id,
            arguments=arguments,
            form=form,
            node=at,
            args=None,
            findings=findings,
        )
        session: McpSession | None = None
        if hop is Hop.MCP:
            session_id = attrs.get("mcp.session.id")
            trace_id = _hex_id(_first(span, "traceId", "context"))
            version = attrs.get("mcp.protocol.version")
            session = McpSession(
                f"{ctx.file}#{session_id or trace_id or 'session'}",
                protocol_version=version if isinstance(version, str) else None,
            )
            call.session = session
        if hop is Hop.MODEL and call_id is None and form is not ArgumentsForm.UNRECORDED:
            key = self._execution(span, call, executed=True)
            if key is not None:
                call.sighting = self.executed.pop(key, None)
        rpc_status = attrs.get("rpc.response.status_code")
        code = rpc_status if type(rpc_status) is int else None
        if code is None and isinstance(rpc_status, str):
            try:
                code = int(rpc_status)
            except ValueError:
                code = None
        result = make_result(
            ctx.child("", time=ended),
            DIALECT,
            call_id=call_id,
            node=at,
            content=_json_value(attrs.get("gen_ai.tool.call.result")),
            is_error=failed,
            error={"code": code, "message": str(attrs.get("error.type") or "")}
            if code is not None
            else None,
            status=code,
            tool=name,
            message=span,
            session=session,
        )
        result.started = ctx.time
        call.result = result
        out.append(call)

    def _chat_span(
        self,
        span: dict[str, Any],
        attrs: dict[str, Any],
        ctx: DocContext,
        out: list[Captured],
        at: str,
    ) -> None:
        span_id = _hex_id(_first(span, "spanId", "context")) or ctx.turn_at(at)
        history = _json_value(attrs.get("gen_ai.input.messages"))
        mark = b""
        if isinstance(history, list):
            past = ctx.child("", history=True)
            unanswered: list[ToolCall] = []  # calls without ids, answered in order
            for i, message in enumerate(history):
                if not isinstance(message, dict):
                    continue
                before = mark
                mark = history_mark(mark, message.get("role"), message.get("parts"))
                if mark in self.known:
                    continue
                self.known.add(mark)
                start = len(out)
                self._message(message, past.child("", turn=f"{span_id}/in/{i}"), out, at)
                if len(out) > start:
                    unanswered = self._answered(out, start, before, unanswered)
        output = _json_value(attrs.get("gen_ai.output.messages"))
        if isinstance(output, list):
            counts: dict[bytes, int] = {}
            for i, message in enumerate(output):
                if not isinstance(message, dict):
                    continue
                start = len(out)
                self._message(message, ctx.child("", turn=f"{span_id}/out/{i}"), out, at)
                calls = [c for c in out[start:] if type(c) is ToolCall and c.call_id is None]
                if calls:
                    self.sightings.give(mark, calls, counts)
                    for call in calls:
                        key = self._execution(span, call, executed=False)
                        if key is not None and call.sighting is not None:
                            self.executed[key] = call.sighting
                            if len(self.executed) > _EXECUTED:
                                del self.executed[next(iter(self.executed))]

    def _answered(
        self, out: list[Captured], start: int, before: bytes, unanswered: list[ToolCall]
    ) -> list[ToolCall]:
        """One history message read into ``out[start:]``: its calls without ids wait for
        their results (and are the calls a chat span's output made, when their sightings
        say so); its results without ids answer the calls waiting, in order. Returns the
        calls still waiting."""
        calls = [c for c in out[start:] if type(c) is ToolCall and c.call_id is None]
        if calls:
            self.sightings.match(before, calls)
            unanswered = calls
        kept = out[:start]
        for item in out[start:]:
            if type(item) is ToolResult and item.call_id is None and unanswered:
                unanswered.pop(0).result = item
                continue
            kept.append(item)
        out[:] = kept
        return unanswered

    def _execution(
        self, span: dict[str, Any], call: ToolCall, *, executed: bool
    ) -> tuple[str | None, bytes, int] | None:
        """The key an execute-tool span without an id and the chat span's call it ran share:
        the trace, the name and arguments, and how many such calls (or spans) came before
        it in the trace."""
        arguments = call.arguments
        if isinstance(arguments, str):  # a JSON text on one side, an object on the other
            with contextlib.suppress(orjson.JSONDecodeError):
                arguments = orjson.loads(arguments)
        try:
            what = orjson.dumps([call.tool, arguments], option=orjson.OPT_SORT_KEYS)
        except TypeError:
            return None
        trace = _hex_id(_first(span, "traceId", "context"))
        counted = (trace, what + (b"\x01" if executed else b"\x00"))
        seen = self.times.get(counted, 0)
        self.times[counted] = seen + 1
        if len(self.times) > 4 * _EXECUTED:
            del self.times[next(iter(self.times))]
        return (trace, what, seen)

    def _message(
        self, message: dict[str, Any], ctx: DocContext, out: list[Captured], at: str
    ) -> None:
        """A GenAI message ``{role, parts}``: ``tool_call`` and ``tool_call_response`` parts."""
        parts = message.get("parts")
        if not isinstance(parts, list):
            return
        for part in parts:
            if not isinstance(part, dict):
                continue
            kind = part.get("type")
            if kind == "tool_call":
                arguments = part.get("arguments")
                findings: list[Finding] = []
                name = part.get("name")
                if not isinstance(name, str) or not name:
                    findings.append(
                        envelope(codes.ENVELOPE_MALFORMED, "the tool_call part has no name")
                    )
                if "arguments" not in part:
                    form = ArgumentsForm.UNRECORDED
                else:
                    form = ArgumentsForm.TEXT if isinstance(arguments, str) else ArgumentsForm.VALUE
                out.append(
                    make_call(
                        ctx.child("", hop=Hop.MODEL),
                        DIALECT,
                        tool=name if isinstance(name, str) else None,
                        call_id=part.get("id"),
                        arguments=arguments,
                        form=form,
                        node=at,
                        args=None,
                        findings=findings,
                    )
                )
            elif kind == "tool_call_response":
                out.append(
                    make_result(
                        ctx.child("", hop=Hop.MODEL),
                        DIALECT,
                        call_id=part.get("id"),
                        node=at,
                        content=part.get("response"),
                        message=part,
                    )
                )

    def flush(self, out: list[Captured]) -> None:
        """A file of spans none of which was a GenAI or MCP span is said to be one."""
        if self.spans and not self.genai and self.first is not None:
            out.append(
                problem_call(
                    self.first,
                    envelope(
                        codes.ENVELOPE_NO_TOOL_CALL,
                        f"the OpenTelemetry export holds {self.spans} spans, none of them a GenAI "
                        "or MCP span (gen_ai.operation.name, mcp.method.name)",
                        "export the spans of the agent's GenAI instrumentation, with the "
                        "opt-in gen_ai.tool.call.arguments and gen_ai.tool.call.result",
                        severity=Severity.WARNING,
                    ),
                )
            )
        self.spans = self.genai = 0
        self.first = None


def _first(span: dict[str, Any], otlp: str, console: str) -> Any:
    """A member as OTLP/JSON names it, else as the console exporter does (ids inside
    ``context``)."""
    if otlp in span:
        return span[otlp]
    value = span.get(console)
    if console == "context" and isinstance(value, dict):
        return value.get("trace_id" if otlp == "traceId" else "span_id")
    return value


class Otlp:
    """The OpenTelemetry dialect: GenAI and MCP spans in OTLP/JSON."""

    name: Final = Dialect.OTLP
    hop: Final = Hop.MODEL
    mark: Final = "resourceSpans"
    #: members without one of which :meth:`part` takes no object
    claims: Final = frozenset({"context"})
    tools: Final = None

    def new_state(self) -> OtlpState:
        """The file's count of spans, GenAI or not."""
        return OtlpState()

    def whole(self, value: dict[str, Any], state: OtlpState) -> Handler | None:
        """An OTLP/JSON export."""
        return state.export if isinstance(value["resourceSpans"], list) else None

    def part(self, value: dict[str, Any], state: OtlpState) -> Handler | None:
        """A span as the SDK's console exporter writes it."""
        context = value.get("context")
        if isinstance(context, dict) and "span_id" in context and "attributes" in value:
            return state.console_span
        return None


DIALECT: Final = Otlp()
