"""Anthropic captures: Messages with ``tool_use`` blocks, whole or streamed.

``tool_use.input`` is already an object. Streamed, the input arrives as ``input_json_delta``
``partial_json`` fragments between ``content_block_start`` and ``content_block_stop``; the
fragments form a JSON *text*, so a streamed call goes through the parse gate like OpenAI's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from jsoncontract.capture.base import (
    DocContext,
    call_without_arguments,
    envelope,
    key,
    make_call,
    text,
)
from jsoncontract.model import ArgumentsForm, Dialect, Finding, Severity, ToolCall

_ANTHROPIC = Dialect.ANTHROPIC
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


def tool_use(node: dict[str, Any], ctx: DocContext, pointer: str, out: list[ToolCall]) -> None:
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
                ctx, _ANTHROPIC, findings, node=pointer, tool=name, call_id=node.get("id")
            )
        )
        return
    out.append(
        make_call(
            ctx,
            _ANTHROPIC,
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
            tool_use(block, ctx, f"{pointer}/content/{i}", out)


@dataclass(slots=True)
class _Block:
    ctx: DocContext
    call_id: Any
    name: str | None
    start_input: Any
    parts: list[str] = field(default_factory=list)


class AnthropicStream:
    """Reassembles streamed ``tool_use`` blocks by content block index.

    Events carry no message id after ``message_start``, so one stream at a time is followed
    per file; a new ``message_start`` closes whatever the previous message left open.
    """

    def __init__(self) -> None:
        self._open: dict[Any, _Block] = {}

    def feed(self, event: dict[str, Any], ctx: DocContext, out: list[ToolCall]) -> None:
        """Take one event; add the call a ``content_block_stop`` completes to ``out``."""
        kind = event.get("type")
        if kind == "message_start":
            self.flush(out)
        elif kind == "content_block_start":
            block = event.get("content_block")
            if isinstance(block, dict) and block.get("type") in TOOL_BLOCKS:
                index = key(event.get("index"))
                unfinished = self._open.get(index)
                if unfinished is not None:  # its stop never came: it ends here, reported
                    out.append(_assembled(unfinished, complete=False))
                self._open[index] = _Block(
                    ctx, block.get("id"), text(block, "name"), block.get("input")
                )
        elif kind == "content_block_delta":
            delta = event.get("delta")
            pending = self._open.get(key(event.get("index")))
            if (
                pending is not None
                and isinstance(delta, dict)
                and delta.get("type") == "input_json_delta"
                and isinstance(delta.get("partial_json"), str)
            ):
                pending.parts.append(delta["partial_json"])
        elif kind == "content_block_stop":
            pending = self._open.pop(key(event.get("index")), None)
            if pending is not None:
                out.append(_assembled(pending, complete=True))
        elif kind == "message_stop":
            self.flush(out)

    def flush(self, out: list[ToolCall]) -> None:
        """Blocks whose stream ended before their ``content_block_stop``."""
        out.extend(_assembled(block, complete=False) for block in self._open.values())
        self._open.clear()


def _assembled(block: _Block, *, complete: bool) -> ToolCall:
    findings: list[Finding] = []
    if not complete:
        findings.append(
            envelope(
                "envelope.incomplete_stream",
                "the stream ended before this tool_use block was finished",
                "the capture was cut off, or the connection dropped mid-call",
                severity=Severity.WARNING,
            )
        )
    if not block.name:
        findings.append(envelope("envelope.malformed", "the streamed tool_use has no name"))
    if block.parts:
        arguments: Any = "".join(block.parts)
        form = ArgumentsForm.TEXT
    else:  # no deltas: the input given at content_block_start stands ({} for no arguments)
        arguments = block.start_input if block.start_input is not None else {}
        form = ArgumentsForm.VALUE
    return make_call(
        block.ctx,
        _ANTHROPIC,
        tool=block.name,
        call_id=block.call_id,
        arguments=arguments,
        form=form,
        node="",
        args=None,
        findings=findings,
    )
