"""MCP: JSON-RPC 2.0 ``tools/call`` requests, and the responses that answer them.

``params.arguments`` must be an *object* (or absent, meaning no arguments). A string there
is the classic host fault of forwarding the model's ``arguments`` text without parsing it;
the parse gate names it. Responses are not calls: they are attached to the request with the
same id (``ToolCall.response``) when the request is still known. Tool definitions are
``Tool`` objects ``{name, title, description, inputSchema, outputSchema, annotations}``.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Final

from jsoncontract.capture.base import (
    DocContext,
    call_without_arguments,
    envelope,
    make_call,
    text,
)
from jsoncontract.capture.interface import Handler, ToolLayout
from jsoncontract.model import ArgumentsForm, Dialect, Finding, Hop, ToolCall

#: How many unanswered requests per file are remembered for their responses.
_REMEMBERED: Final = 4096
#: JSON-RPC ids that can be matched (a float, object or array id is reported, never matched).
_ID_TYPES: Final = (str, int)


def _key(value: Any) -> Any:
    return (type(value).__name__, value)


def request(node: dict[str, Any], ctx: DocContext, out: list[ToolCall], pointer: str = "") -> None:
    """A ``tools/call`` request: its call."""
    findings: list[Finding] = []
    if node.get("jsonrpc") != "2.0":
        findings.append(
            envelope(
                "envelope.malformed",
                'the request does not say "jsonrpc": "2.0"',
                path="",
                hint='every MCP message carries "jsonrpc": "2.0"',
            )
        )
    request_id = node.get("id")
    if "id" not in node:
        findings.append(
            envelope(
                "envelope.malformed",
                "tools/call has no id, so it is a notification and will never be answered",
                hint="give every request a unique id",
            )
        )
    elif type(request_id) not in _ID_TYPES:  # null, a bool, a float, an object...
        findings.append(
            envelope(
                "envelope.malformed",
                f"the request id must be a string or an integer, not {request_id!r}",
            )
        )
    params = node.get("params")
    if not isinstance(params, dict):
        findings.append(envelope("envelope.malformed", "tools/call has no params object"))
        out.append(call_without_arguments(ctx, DIALECT, findings, node=pointer, call_id=request_id))
        return
    name = text(params, "name")
    if not name:
        findings.append(envelope("envelope.malformed", "tools/call params has no tool name"))
    meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else None
    if "arguments" in params:
        call = make_call(
            ctx,
            DIALECT,
            tool=name,
            call_id=request_id,
            arguments=params["arguments"],
            form=ArgumentsForm.VALUE,
            node=pointer,
            args=pointer + "/params/arguments",
            findings=findings,
            meta=meta,
        )
    else:  # the specification makes arguments optional: none means an empty object
        call = make_call(
            ctx,
            DIALECT,
            tool=name,
            call_id=request_id,
            arguments={},
            form=ArgumentsForm.VALUE,
            node=pointer,
            args=None,
            findings=findings,
            meta=meta,
        )
    out.append(call)


class McpState:
    """Per-file memory of recent ``tools/call`` requests, to attach their responses."""

    __slots__ = ("_calls",)

    def __init__(self) -> None:
        self._calls: OrderedDict[Any, ToolCall] = OrderedDict()

    def read(self, node: dict[str, Any], ctx: DocContext, out: list[ToolCall]) -> None:
        """One JSON-RPC message: a ``tools/call`` request adds a call to ``out`` (and is
        remembered), a response is attached to the request it answers."""
        method = node.get("method")
        if method is None:
            if "result" in node or "error" in node:
                self.answer(node)
            return
        if method != "tools/call":
            return  # initialize, tools/list, notifications...: not tool calls
        start = len(out)
        request(node, ctx, out)
        if isinstance(node.get("params"), dict):  # one without params is reported, not kept
            self.remember(node.get("id"), out[start])

    def remember(self, request_id: Any, call: ToolCall) -> None:
        """Keep a request until its response arrives (bounded; the oldest is forgotten)."""
        if type(request_id) not in _ID_TYPES:  # null, or an invalid id no response can match
            return
        self._calls[_key(request_id)] = call
        if len(self._calls) > _REMEMBERED:
            self._calls.popitem(last=False)

    def answer(self, message: dict[str, Any]) -> None:
        """Attach a response (``result`` or ``error``) to the request it answers."""
        response_id = message.get("id")
        if type(response_id) not in _ID_TYPES:
            return
        call = self._calls.pop(_key(response_id), None)
        if call is not None:
            call.response = message

    def flush(self, out: list[ToolCall]) -> None:
        """Requests never answered stay as they are: a call needs no response to be checked."""


class Mcp:
    """The Model Context Protocol dialect."""

    name: Final = Dialect.MCP
    hop: Final = Hop.MCP
    mark: Final = "jsonrpc"
    tools: Final = ToolLayout(
        lambda entry: "inputSchema" in entry,
        input=("/inputSchema",),
        output=("/outputSchema",),
        parts=frozenset({"title", "annotations"}),
    )

    def new_state(self) -> McpState:
        """The file's requests waiting for their response."""
        return McpState()

    def whole(self, value: dict[str, Any], state: McpState) -> Handler | None:
        """A JSON-RPC message."""
        return state.read if "jsonrpc" in value else None

    def part(self, value: dict[str, Any], state: McpState) -> Handler | None:
        """A request that lost its ``jsonrpc`` member."""
        return state.read if "method" in value and "params" in value else None


DIALECT: Final = Mcp()
