"""Anthropic Messages: ``tool_use`` blocks, whole or streamed.

``tool_use.input`` is already an object. Streamed, the input arrives as ``input_json_delta``
``partial_json`` fragments between ``content_block_start`` and ``content_block_stop``; the
fragments form a JSON *text*, so a streamed call goes through the parse gate like OpenAI's.
Tool definitions are ``{name, description, input_schema, strict}``.

Results are ``tool_result`` blocks ``{tool_use_id, content, is_error}`` in the user message
after the call. A request body's ``messages`` is a conversation history: the ``tool_use``
blocks of each assistant message (one turn) and the ``tool_result`` blocks that answer them.
"""

from __future__ import annotations

from typing import Any, Final

from jsoncontract import codes
from jsoncontract.capture.base import (
    Assembler,
    Pending,
    answered_id,
    anthropic_history,
    call_without_arguments,
    envelope,
    key,
    make_call,
    make_result,
    request_tools,
    result_problem,
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

#: A tuple, not a set: a malformed "type" (an object, an array) must compare, not hash.
TOOL_BLOCKS: Final = ("tool_use", "mcp_tool_use")
RESULT_BLOCKS: Final = ("tool_result", "mcp_tool_result")
STREAM_EVENTS: Final = frozenset(
    {
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
    }
)


def tool_use(node: dict[str, Any], ctx: DocContext, out: list[Captured], pointer: str = "") -> None:
    """One ``tool_use`` block: ``{type, id, name, input}``."""
    findings: list[Finding] = []
    name = text(node, "name")
    if not name:
        findings.append(envelope(codes.ENVELOPE_MALFORMED, "the tool_use block has no name"))
    if "id" not in node:
        findings.append(
            envelope(
                codes.ENVELOPE_MISSING_CALL_ID,
                "the tool_use block has no id, so no tool_result can answer it",
                severity=Severity.WARNING,
            )
        )
    if "input" not in node:
        findings.append(envelope(codes.ENVELOPE_MALFORMED, "the tool_use block has no input"))
        out.append(
            call_without_arguments(
                ctx, DIALECT, findings, node=pointer, tool=name, call_id=node.get("id")
            )
        )
        return
    out.append(
        make_call(
            ctx,
            DIALECT,
            tool=name,
            call_id=node.get("id"),
            arguments=node["input"],
            form=ArgumentsForm.VALUE,
            node=pointer,
            args=pointer + "/input",
            findings=findings,
        )
    )


def message(node: dict[str, Any], ctx: DocContext, out: list[Captured], pointer: str = "") -> None:
    """A Message (or any object with a ``content`` block list): its ``tool_use`` blocks,
    and its ``tool_result`` blocks (a user message of a history)."""
    content = node.get("content")
    if not isinstance(content, list):
        return
    outer = ctx.turn
    if outer is None:  # set on the context while the message is read, then restored
        message_id = node.get("id")
        ctx.turn = message_id if isinstance(message_id, str) else ctx.turn_at(pointer)
    for i, block in enumerate(content):
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind in TOOL_BLOCKS:
            tool_use(block, ctx, out, f"{pointer}/content/{i}")
        elif kind in RESULT_BLOCKS:
            tool_result(block, ctx, out, f"{pointer}/content/{i}")
    ctx.turn = outer


def tool_result(
    node: dict[str, Any], ctx: DocContext, out: list[Captured], pointer: str = ""
) -> None:
    """One ``tool_result`` block: ``{tool_use_id, content?, is_error?}``."""
    call_id, findings = answered_id(node, "tool_use_id", "the tool_result block", "tool_use")
    flag = node.get("is_error")
    if flag is not None and type(flag) is not bool:
        findings.append(
            result_problem(codes.RESULT_MALFORMED, f"is_error must be true or false, not {flag!r}")
        )
    out.append(
        make_result(
            ctx,
            DIALECT,
            call_id=call_id,
            node=pointer,
            content=node.get("content"),
            is_error=flag if type(flag) is bool else None,
            message=node,
            findings=findings,
        )
    )


def history(node: dict[str, Any], ctx: DocContext, out: list[Captured], pointer: str = "") -> None:
    """A request body: its ``messages`` are a conversation history."""
    messages = node.get("messages")
    if not isinstance(messages, list):
        return
    ctx = ctx.child("", history=True, offered=request_tools(node))
    for i, entry in enumerate(messages):
        if isinstance(entry, dict):
            where = f"{pointer}/messages/{i}"
            message(entry, ctx.child("", turn=ctx.turn_at(where)), out, where)


class AnthropicStream:
    """Reassembles streamed ``tool_use`` blocks by content block index.

    Events carry no message id after ``message_start``, so one stream at a time is followed
    per file; a new ``message_start`` closes whatever the previous message left open.
    """

    __slots__ = ("calls", "turn")

    def __init__(self) -> None:
        self.calls = Assembler(
            DIALECT, unit="tool_use block", unnamed="the streamed tool_use has no name"
        )
        self.turn: str | None = None

    def feed(self, event: dict[str, Any], ctx: DocContext, out: list[Captured]) -> None:
        """Take one event; add the call a ``content_block_stop`` completes to ``out``."""
        kind = event.get("type")
        calls = self.calls
        if kind == "message_start":
            calls.flush(out)
            start = event.get("message")
            message_id = start.get("id") if isinstance(start, dict) else None
            self.turn = message_id if isinstance(message_id, str) else ctx.turn_at("")
        elif kind == "content_block_start":
            block = event.get("content_block")
            if isinstance(block, dict) and block.get("type") in TOOL_BLOCKS:
                opened = Pending(
                    ctx if self.turn is None else ctx.child("", turn=self.turn),
                    block.get("id"),
                    text(block, "name"),
                    initial=block.get("input"),
                )
                calls.start(key(event.get("index")), opened, out)
        elif kind == "content_block_delta":
            delta = event.get("delta")
            pending = calls.get(key(event.get("index")))
            if (
                pending is not None
                and isinstance(delta, dict)
                and delta.get("type") == "input_json_delta"
                and isinstance(delta.get("partial_json"), str)
            ):
                pending.parts.append(delta["partial_json"])
        elif kind == "content_block_stop":
            pending = calls.pop(key(event.get("index")))
            if pending is not None:
                calls.close(pending, out)
        elif kind == "message_stop":
            calls.flush(out)

    def flush(self, out: list[Captured]) -> None:
        """Blocks whose stream ended before their ``content_block_stop``."""
        self.calls.flush(out)


def lane_message(node: dict[str, Any], _: Any, file: str, line: int) -> list[LaneCall] | None:
    """The calls of an ordinary Message, as :func:`message` reads them: ``tool_use`` blocks
    with an id, a name and an input, among blocks that hold no call or result (text,
    thinking)."""
    content = node.get("content")
    if type(content) is not list:
        return None
    message_id = node.get("id")
    turn = message_id if type(message_id) is str else f"{file}:{line}:"
    calls: list[LaneCall] = []
    for block in content:
        if type(block) is not dict:
            continue
        kind = block.get("type")
        if kind == "tool_use":
            name = block.get("name")
            call_id = block.get("id")
            if type(name) is not str or not name or type(call_id) is not str:
                return None
            if "input" not in block:
                return None
            calls.append((name, call_id, block["input"], _VALUE, turn))
        elif kind in TOOL_BLOCKS or kind in RESULT_BLOCKS:
            return None
    return calls


_VALUE: Final = ArgumentsForm.VALUE


class Anthropic:
    """The Anthropic Messages dialect."""

    name: Final = Dialect.ANTHROPIC
    hop: Final = Hop.MODEL
    mark: Final = "type"
    #: members without one of which :meth:`part` takes no object
    claims: Final = frozenset({"type", "role", "messages"})
    tools: Final = ToolLayout(
        lambda entry: "input_schema" in entry,
        input=("/input_schema",),
    )
    #: the fast lane's reading of Messages
    shortcuts: Final = {message: Shortcut(lane_message)}

    def new_state(self) -> AnthropicStream:
        """The file's open ``tool_use`` blocks."""
        return AnthropicStream()

    def whole(self, value: dict[str, Any], state: AnthropicStream) -> Handler | None:
        """A whole Message."""
        if value.get("type") == "message" and isinstance(value.get("content"), list):
            return message
        return None

    def part(self, value: dict[str, Any], state: AnthropicStream) -> Handler | None:
        """A stream event, one ``tool_use`` block, or an assistant turn with content
        blocks."""
        kind = value.get("type")
        if type(kind) is str and kind in STREAM_EVENTS:
            return state.feed
        if kind in TOOL_BLOCKS:
            return tool_use
        if kind in RESULT_BLOCKS:
            return tool_result
        if value.get("role") in ("assistant", "user") and isinstance(value.get("content"), list):
            return message
        if isinstance(value.get("messages"), list) and anthropic_history(value):
            return history
        return None

    def offered(self, value: dict[str, Any]) -> OfferedTools | None:
        """The tools a request body offers (its ``tools``: custom tools and hosted ones)."""
        if isinstance(value.get("messages"), list) and anthropic_history(value):
            return request_tools(value)
        return None


DIALECT: Final = Anthropic()
