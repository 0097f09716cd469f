"""OpenAI Responses: ``function_call`` output items, whole or streamed.

A ``function_call`` item carries ``arguments`` as a JSON string, like Chat; streamed, it
arrives as ``response.function_call_arguments.delta`` / ``.done`` events per ``item_id``,
between ``response.output_item.added`` and ``.done``. Tool definitions are flat:
``{"type": "function", name, description, parameters, strict}``.

Results are ``function_call_output`` items ``{call_id, output}`` in the next request's
``input``. A request body's ``input`` list is a conversation history: its ``function_call``
items are the calls (the response's, seen again) and its ``function_call_output`` items
their results; with ``previous_response_id`` the input holds only the results, whose calls
are in the previous response.
"""

from __future__ import annotations

from typing import Any, Final

from jsoncontract import codes
from jsoncontract.capture.base import (
    FUNCTION_INPUT,
    Assembler,
    Pending,
    answered_id,
    envelope,
    key,
    make_call,
    make_result,
    request_tools,
    result_problem,
    string_arguments,
    text,
)
from jsoncontract.capture.interface import DocContext, Handler, LaneCall, Shortcut, ToolLayout
from jsoncontract.model import (
    ArgumentsForm,
    Captured,
    Dialect,
    Finding,
    Hop,
    OfferedTools,
    Severity,
)

#: Stream events that carry the whole response at its end.
_FINAL_EVENTS: Final = ("response.completed", "response.done", "response.incomplete")


def item(node: dict[str, Any], ctx: DocContext, out: list[Captured], pointer: str = "") -> None:
    """A ``function_call`` output item."""
    findings: list[Finding] = []
    name = text(node, "name")
    if not name:
        findings.append(envelope(codes.ENVELOPE_MALFORMED, "the function_call item has no name"))
    call_id = node.get("call_id")
    if call_id is None:
        findings.append(
            envelope(
                codes.ENVELOPE_MISSING_CALL_ID,
                "the function_call item has no call_id, so its output cannot be matched",
                severity=Severity.WARNING,
            )
        )
        call_id = node.get("id")
    arguments, form, args = string_arguments(node, findings, pointer)
    out.append(
        make_call(
            ctx,
            DIALECT,
            tool=name,
            call_id=call_id,
            arguments=arguments,
            form=form,
            node=pointer,
            args=args,
            findings=findings,
        )
    )


def output(node: dict[str, Any], ctx: DocContext, out: list[Captured], pointer: str = "") -> None:
    """A ``function_call_output`` item: a result."""
    call_id, findings = answered_id(
        node, "call_id", "the function_call_output item", "function_call"
    )
    if "output" not in node:
        findings.append(
            result_problem(codes.RESULT_MALFORMED, "the function_call_output item has no output")
        )
    out.append(
        make_result(
            ctx,
            DIALECT,
            call_id=call_id,
            node=pointer,
            content=node.get("output"),
            message=node,
            findings=findings,
        )
    )


def history(node: dict[str, Any], ctx: DocContext, out: list[Captured], pointer: str = "") -> None:
    """A request body: its ``input`` items are a conversation history."""
    items = node.get("input")
    if not isinstance(items, list):
        return
    ctx = ctx.child("", history=True, offered=request_tools(node))
    turn: str | None = None
    for i, entry in enumerate(items):
        if not isinstance(entry, dict):
            continue
        kind = entry.get("type")
        where = f"{pointer}/input/{i}"
        if kind == "function_call":
            # the calls of one turn are consecutive items
            turn = turn or ctx.turn_at(where)
            item(entry, ctx.child("", turn=turn), out, where)
            continue
        turn = None
        if kind == "function_call_output":
            output(entry, ctx, out, where)


class ResponsesStream:
    """Reassembles ``function_call`` items from their stream events, per item id.

    A whole response (or the one a ``response.completed`` event carries) closes the items
    the stream left open and skips those it already produced, so no call is counted twice.

    **Joins** (a :class:`~jsoncontract.capture.interface.JoinableState`). What a part's
    reading asks of the memory it began with is, first, whether an item was produced
    before: every such lookup that misses is followed by the item's production (the lookup
    of an item without an id aside, which no memory holds), and the produced items are all
    remembered, so the items a part produced are exactly those it found unproduced. A
    memory the part joins onto must hold none of them. Second, the streams open at its
    start: there must be none. Third, the response being streamed, which an event read
    before the part's own ``response.created`` takes its turn from (``blind``): the run's
    memory must then be streaming none.
    """

    __slots__ = ("blind", "calls", "emitted", "turn")

    def __init__(self) -> None:
        self.calls = Assembler(
            DIALECT, unit="call", unnamed="the streamed call never named its tool"
        )
        self.emitted: set[Any] = set()
        self.turn: str | None = None  # the id of the response being streamed
        self.blind = False  # an event was read with no response being streamed

    def fresh(self) -> bool:
        """Nothing produced or open, no response being streamed."""
        return not self.emitted and self.turn is None and not self.calls.opened()

    def watch(self, on: bool) -> None:
        """Nothing to switch: what a part asks is noted by what it remembers (see the
        class)."""

    def joins(self, part: ResponsesStream) -> bool:
        """Whether ``part``'s reading would have been the same from this memory."""
        if self.calls.opened() or (part.blind and self.turn is not None):
            return False
        return self.emitted.isdisjoint(part.emitted)

    def absorb(self, part: ResponsesStream) -> None:
        """This memory, continued as ``part``'s reading left its own."""
        self.emitted |= part.emitted
        self.calls = part.calls
        if part.turn is not None:
            self.turn = part.turn

    def feed(self, event: dict[str, Any], ctx: DocContext, out: list[Captured]) -> None:
        """Take one ``response.*`` event; add the call it completes to ``out``."""
        kind = event.get("type")
        calls = self.calls
        if kind in ("response.created", "response.in_progress"):
            started = event.get("response")
            response_id = started.get("id") if isinstance(started, dict) else None
            self.turn = response_id if isinstance(response_id, str) else ctx.turn_at("")
            return
        if ctx.turn is None:
            if self.turn is not None:
                ctx = ctx.child("", turn=self.turn)
            else:
                self.blind = True
        if kind in ("response.output_item.added", "response.output_item.done"):
            node = event.get("item")
            if not isinstance(node, dict) or node.get("type") != "function_call":
                return
            if kind == "response.output_item.added":
                pending = calls.open(key(node.get("id")), ctx)
                pending.call_id = node.get("call_id")
                pending.name = text(node, "name")
            else:
                self.close_item(node, ctx.child("/item"), out)
        elif kind == "response.function_call_arguments.delta":
            pending = calls.open(key(event.get("item_id")), ctx)
            if isinstance(event.get("delta"), str):
                pending.parts.append(event["delta"])
        elif kind == "response.function_call_arguments.done":
            item_id = key(event.get("item_id"))
            pending = calls.pop(item_id) or Pending(ctx)
            pending.name = text(event, "name") or pending.name
            if isinstance(event.get("arguments"), str):
                pending.final = event["arguments"]
            if item_id is None:  # nothing says it was seen before: every one is a call
                calls.close(pending, out)
            elif (item_id, event.get("arguments")) not in self.emitted:
                self.emitted.add((item_id, event.get("arguments")))
                calls.close(pending, out)
        elif kind in _FINAL_EVENTS:
            whole = event.get("response")
            if isinstance(whole, dict):
                self.response(whole, ctx.child("/response"), out)

    def response(self, node: dict[str, Any], ctx: DocContext, out: list[Captured]) -> None:
        """A whole Responses ``response``: its ``function_call`` output items."""
        items = node.get("output")
        if not isinstance(items, list):
            return
        response_id = node.get("id")
        if ctx.turn is None:
            turn = response_id if isinstance(response_id, str) else ctx.turn_at("")
            ctx = ctx.child("", turn=turn)
        for i, entry in enumerate(items):
            if isinstance(entry, dict) and entry.get("type") == "function_call":
                self.close_item(entry, ctx, out, f"/output/{i}")

    def close_item(
        self, node: dict[str, Any], ctx: DocContext, out: list[Captured], pointer: str = ""
    ) -> None:
        """A final ``function_call`` item (``output_item.done``, or a completed response).

        It closes the item the stream opened, checking the fragments against the final
        arguments; an item never seen streaming is read as it is; one already produced is
        skipped (an item is known by its id and its arguments: an id used again with other
        arguments is read, and the ledger tells the calls apart).
        """
        item_id = key(node.get("id"))
        arguments = node.get("arguments")
        seen = (item_id, arguments if isinstance(arguments, str) else None)
        if seen in self.emitted:
            return
        pending = self.calls.pop(item_id)
        if pending is None:
            item(node, ctx, out, pointer)
        else:
            pending.call_id = node.get("call_id", pending.call_id)
            pending.name = text(node, "name") or pending.name
            if isinstance(node.get("arguments"), str):
                pending.final = node["arguments"]
            self.calls.close(pending, out)
        if item_id is not None:
            self.emitted.add(seen)

    def flush(self, out: list[Captured]) -> None:
        """Items whose stream ended before their ``.done`` event."""
        self.calls.flush(out)


# -- the fast lane's shortcut (see :class:`~jsoncontract.capture.interface.Shortcut`) --------


def lane_response(
    node: dict[str, Any], stream: ResponsesStream, file: str, line: int
) -> list[LaneCall] | None:
    """The calls of an ordinary whole ``response``, as :meth:`ResponsesStream.response`
    reads them: no item of it open in a stream or produced before."""
    items = node.get("output")
    if type(items) is not list or stream.calls.opened():
        return None
    response_id = node.get("id")
    turn = response_id if type(response_id) is str else f"{file}:{line}:"
    emitted = stream.emitted
    calls: list[LaneCall] = []
    ids: set[Any] = set()
    for entry in items:
        if type(entry) is not dict or entry.get("type") != "function_call":
            continue
        name = entry.get("name")
        call_id = entry.get("call_id")
        arguments = entry.get("arguments")
        if type(name) is not str or not name or type(call_id) is not str:
            return None
        if type(arguments) is not str:
            return None
        item_id = key(entry.get("id"))
        if item_id is not None:
            if item_id in ids or (item_id, arguments) in emitted:
                return None
            ids.add(item_id)
        calls.append((name, call_id, arguments, _TEXT, turn))
    return calls


def lane_taken(node: dict[str, Any], stream: ResponsesStream) -> None:
    """What :meth:`ResponsesStream.close_item` remembers of the items of a response the
    lane took."""
    emitted = stream.emitted
    for entry in node["output"]:
        if type(entry) is dict and entry.get("type") == "function_call":
            item_id = key(entry.get("id"))
            if item_id is not None:
                emitted.add((item_id, entry["arguments"]))


_TEXT: Final = ArgumentsForm.TEXT


def _is_tool(entry: dict[str, Any]) -> bool:
    return entry.get("type") == "function" and "name" in entry


class OpenAIResponses:
    """The OpenAI Responses dialect."""

    name: Final = Dialect.OPENAI_RESPONSES
    hop: Final = Hop.MODEL
    mark: Final = "object"
    #: members without one of which :meth:`part` takes no object
    claims: Final = frozenset({"type", "output", "input"})
    tools: Final = ToolLayout(
        _is_tool,
        input=tuple("/" + member for member in FUNCTION_INPUT),
        output=("/output_schema",),
        input_required=False,
    )
    #: the fast lane's reading of whole responses
    shortcuts: Final = {ResponsesStream.response: Shortcut(lane_response, lane_taken)}

    def new_state(self) -> ResponsesStream:
        """The file's streamed items, and the ids of those already produced."""
        return ResponsesStream()

    def whole(self, value: dict[str, Any], state: ResponsesStream) -> Handler | None:
        """A whole ``response`` object."""
        return state.response if value.get("object") == "response" else None

    def part(self, value: dict[str, Any], state: ResponsesStream) -> Handler | None:
        """A stream event, a response that lost its ``object``, or one ``function_call``
        item."""
        kind = value.get("type")
        if isinstance(kind, str) and kind.startswith("response."):
            return state.feed
        if isinstance(value.get("output"), list) and "choices" not in value:
            return state.response
        if kind == "function_call":
            return item
        if kind == "function_call_output":
            return output
        if isinstance(value.get("input"), list) and (
            "model" in value or "previous_response_id" in value or "instructions" in value
        ):
            return history
        return None

    def offered(self, value: dict[str, Any]) -> OfferedTools | None:
        """The tools a request body offers (its ``tools``)."""
        return request_tools(value) if "input" in value else None


DIALECT: Final = OpenAIResponses()
