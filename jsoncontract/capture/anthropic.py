"""Anthropic Messages: ``tool_use`` blocks, whole or streamed.

``tool_use.input`` is already an object. Streamed, the input arrives as ``input_json_delta``
``partial_json`` fragments between ``content_block_start`` and ``content_block_stop``; the
fragments form a JSON *text*, so a streamed call goes through the parse gate like OpenAI's.
Tool definitions are ``{name, description, input_schema, strict}``.
"""

from __future__ import annotations

from typing import Any, Final

from jsoncontract.capture.base import (
    Assembler,
    DocContext,
    Pending,
    call_without_arguments,
    envelope,
    key,
    make_call,
    text,
)
from jsoncontract.capture.interface import Handler, ToolLayout
from jsoncontract.model import ArgumentsForm, Dialect, Finding, Hop, Severity, ToolCall

#: A tuple, not a set: a malformed "type" (an object, an array) must compare, not hash.
TOOL_BLOCKS: Final = ("tool_use", "mcp_tool_use")
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


def tool_use(node: dict[str, Any], ctx: DocContext, out: list[ToolCall], pointer: str = "") -> None:
    """One ``tool_use`` block: ``{type, id, name, input}``."""
    findings: list[Finding] = []
    name = text(node, "name")
    if not name:
        findings.append(envelope("envelope.malformed", "the tool_use block has no name"))
    if "id" not in node:
        findings.append(
            envelope(
                "envelope.missing_call_id",
                "the tool_use block has no id, so no tool_result can answer it",
                severity=Severity.WARNING,
            )
        )
    if "input" not in node:
        findings.append(envelope("envelope.malformed", "the tool_use block has no input"))
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


def message(node: dict[str, Any], ctx: DocContext, out: list[ToolCall], pointer: str = "") -> None:
    """A Message (or any object with a ``content`` block list)."""
    content = node.get("content")
    if not isinstance(content, list):
        return
    for i, block in enumerate(content):
        if isinstance(block, dict) and block.get("type") in TOOL_BLOCKS:
            tool_use(block, ctx, out, f"{pointer}/content/{i}")


class AnthropicStream:
    """Reassembles streamed ``tool_use`` blocks by content block index.

    Events carry no message id after ``message_start``, so one stream at a time is followed
    per file; a new ``message_start`` closes whatever the previous message left open.
    """

    __slots__ = ("calls",)

    def __init__(self) -> None:
        self.calls = Assembler(
            DIALECT, unit="tool_use block", unnamed="the streamed tool_use has no name"
        )

    def feed(self, event: dict[str, Any], ctx: DocContext, out: list[ToolCall]) -> None:
        """Take one event; add the call a ``content_block_stop`` completes to ``out``."""
        kind = event.get("type")
        calls = self.calls
        if kind == "message_start":
            calls.flush(out)
        elif kind == "content_block_start":
            block = event.get("content_block")
            if isinstance(block, dict) and block.get("type") in TOOL_BLOCKS:
                opened = Pending(
                    ctx, block.get("id"), text(block, "name"), initial=block.get("input")
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

    def flush(self, out: list[ToolCall]) -> None:
        """Blocks whose stream ended before their ``content_block_stop``."""
        self.calls.flush(out)


class Anthropic:
    """The Anthropic Messages dialect."""

    name: Final = Dialect.ANTHROPIC
    hop: Final = Hop.MODEL
    mark: Final = "type"
    tools: Final = ToolLayout(
        lambda entry: "input_schema" in entry,
        input=("/input_schema",),
    )

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
        if value.get("role") == "assistant" and isinstance(value.get("content"), list):
            return message
        return None


DIALECT: Final = Anthropic()
