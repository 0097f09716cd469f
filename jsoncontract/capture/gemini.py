"""Gemini: ``candidates[].content.parts[].functionCall {id?, name, args}``.

Gemini streams whole parts (each chunk is a complete ``GenerateContentResponse``), so no
reassembly is needed. Both the REST spelling (``functionCall``) and the Python SDK's
(``function_call``) are read. A call without ``args`` means no arguments. Tool definitions
are ``{"functionDeclarations": [{name, description, parameters | parametersJsonSchema}]}``;
``parameters`` and ``response`` are written in the OpenAPI 3.0 subset.

Results are ``functionResponse`` parts ``{id?, name, response}`` in the content after the
call (``response`` holds ``output`` or ``error``: an ``error`` member marks a failure). A
request body's ``contents`` is a conversation history; a ``functionResponse`` without an id
answers the call of the same name in the model content before it, in order.

A call without an id made by a response that follows a request in the same file, and seen
again in a later request's history right after that request's contents, is one call: both
get the same sighting (:class:`~jsoncontract.capture.base.Sightings`), which the ledger pairs
as it pairs call ids. So a gateway log (each request, then its response) counts each call
once, with its result. A response without a request before it, a history that does not
continue the request the response followed, a candidate the history did not keep, and the
same call made after the same history again (a conversation repeated in the file) are calls
of their own.
"""

from __future__ import annotations

from typing import Any, Final

from jsoncontract import codes
from jsoncontract.capture.base import (
    Known,
    Sightings,
    envelope,
    history_mark,
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
    ToolCall,
    ToolResult,
)

#: Members of a Gemini ``Tool`` that enable a provider-hosted tool (no client-side schema).
HOSTED_TOOLS: Final = frozenset(
    {
        "googleSearch",
        "google_search",
        "googleSearchRetrieval",
        "google_search_retrieval",
        "enterpriseWebSearch",
        "enterprise_web_search",
        "codeExecution",
        "code_execution",
        "urlContext",
        "url_context",
        "retrieval",
        "fileSearch",
        "file_search",
        "googleMaps",
        "google_maps",
        "computerUse",
        "computer_use",
    }
)
_INPUT: Final = ("parametersJsonSchema", "parameters_json_schema", "parameters")


def function_call(
    node: dict[str, Any], ctx: DocContext, out: list[Captured], pointer: str = ""
) -> None:
    """One ``functionCall`` object."""
    findings: list[Finding] = []
    name = text(node, "name")
    if not name:
        findings.append(envelope(codes.ENVELOPE_MALFORMED, "the functionCall has no name"))
    if "args" in node:
        arguments: Any = node["args"]
        args: str | None = pointer + "/args"
    else:
        arguments, args = {}, None
    out.append(
        make_call(
            ctx,
            DIALECT,
            tool=name,
            call_id=node.get("id"),
            arguments=arguments,
            form=ArgumentsForm.VALUE,
            node=pointer,
            args=args,
            findings=findings,
        )
    )


def part(node: dict[str, Any], ctx: DocContext, out: list[Captured], pointer: str = "") -> None:
    """A content part: ``functionCall`` parts hold calls, ``functionResponse`` results."""
    for member in ("functionCall", "function_call"):
        call = node.get(member)
        if isinstance(call, dict):
            function_call(call, ctx, out, f"{pointer}/{member}")
    for member in ("functionResponse", "function_response"):
        answer = node.get(member)
        if isinstance(answer, dict):
            function_response(answer, ctx, out, f"{pointer}/{member}")


def function_response(
    node: dict[str, Any], ctx: DocContext, out: list[Captured], pointer: str = ""
) -> None:
    """One ``functionResponse``: a result."""
    findings = []
    body = node.get("response")
    if not isinstance(body, dict):
        findings.append(
            result_problem(
                codes.RESULT_MALFORMED,
                "functionResponse.response must be an object",
                'put the output under "output" and failures under "error"',
            )
        )
    out.append(
        make_result(
            ctx,
            DIALECT,
            call_id=node.get("id"),
            node=pointer,
            content=body,
            is_error=("error" in body) if isinstance(body, dict) else None,
            tool=text(node, "name"),
            message=node,
            findings=findings,
        )
    )


def history(
    node: dict[str, Any],
    ctx: DocContext,
    out: list[Captured],
    pointer: str = "",
    known: Known | None = None,
    sightings: Sightings | None = None,
) -> bytes:
    """A request body: its ``contents`` are a conversation history. A content an earlier
    request of the file held at the same place, after the same contents (``known``), is
    skipped: each request repeats the history before it, and Gemini's calls need not carry
    ids to tell them by. A call without an id a response was seen making gets its sighting
    (``sightings``). Returns the mark of the last content."""
    contents = node.get("contents")
    if not isinstance(contents, list):
        return b""
    ctx = ctx.child("", history=True, offered=request_tools(node))
    unanswered: list[ToolCall] = []  # calls without an id, answered by name in order
    mark = b""
    for i, entry in enumerate(contents):
        if not isinstance(entry, dict):
            continue
        before = mark
        if known is not None:
            mark = history_mark(mark, entry.get("role"), entry.get("parts"))
            if mark in known:
                continue
            known.add(mark)
        where = f"{pointer}/contents/{i}"
        start = len(out)
        content(entry, ctx.child("", turn=ctx.turn_at(where)), out, where)
        if entry.get("role") == "model":
            unanswered = [c for c in out[start:] if isinstance(c, ToolCall) and c.call_id is None]
            if sightings is not None and known is not None:
                sightings.match(before, unanswered)
            continue
        kept = out[:start]
        for item in out[start:]:
            if isinstance(item, ToolResult) and item.call_id is None:
                match = next((c for c in unanswered if c.tool == item.tool), None)
                if match is not None:
                    unanswered.remove(match)
                    match.result = item
                    continue
            kept.append(item)
        out[:] = kept
    return mark


class GeminiState:
    """The contents with function parts a file's requests have held, and the calls without
    ids the responses after the latest request made."""

    __slots__ = ("counts", "known", "last", "sightings")

    def __init__(self) -> None:
        self.known = Known()
        self.last: bytes | None = None  # the mark of the latest request's last content
        self.counts: dict[bytes, int] = {}  # the calls made since, by name and arguments
        self.sightings = Sightings()

    def history(self, node: dict[str, Any], ctx: DocContext, out: list[Captured]) -> None:
        """A request body, read for the contents the file's earlier requests did not hold."""
        self.last = history(node, ctx, out, known=self.known, sightings=self.sightings)
        self.counts.clear()

    def response(self, node: dict[str, Any], ctx: DocContext, out: list[Captured]) -> None:
        """A response after a request: its calls without ids get their sightings."""
        start = len(out)
        response(node, ctx, out)
        if self.last is not None:
            calls = [c for c in out[start:] if type(c) is ToolCall and c.call_id is None]
            self.sightings.give(self.last, calls, self.counts)

    def flush(self, out: list[Captured]) -> None:
        """Nothing is left unfinished."""


def content(node: dict[str, Any], ctx: DocContext, out: list[Captured], pointer: str = "") -> None:
    """A ``Content`` object: ``{role, parts}``."""
    parts = node.get("parts")
    if isinstance(parts, list):
        for i, item in enumerate(parts):
            if isinstance(item, dict):
                part(item, ctx, out, f"{pointer}/parts/{i}")


def response(node: dict[str, Any], ctx: DocContext, out: list[Captured], pointer: str = "") -> None:
    """A ``GenerateContentResponse`` (or one streamed chunk of it)."""
    candidates = node.get("candidates")
    if not isinstance(candidates, list):
        return
    response_id = node.get("responseId")
    outer = ctx.turn
    for i, candidate in enumerate(candidates):
        if isinstance(candidate, dict) and isinstance(candidate.get("content"), dict):
            where = f"{pointer}/candidates/{i}/content"
            # set on the context while the candidate is read, then restored
            ctx.turn = f"{response_id}/{i}" if isinstance(response_id, str) else ctx.turn_at(where)
            content(candidate["content"], ctx, out, where)
    ctx.turn = outer


def lane_response(node: dict[str, Any], _: Any, file: str, line: int) -> list[LaneCall] | None:
    """The calls of an ordinary ``GenerateContentResponse`` (no request read before it in
    the file), as :func:`response` reads them: ``functionCall`` parts with an id, a name and
    ``args``, among parts that hold no call or result (text)."""
    candidates = node.get("candidates")
    if type(candidates) is not list:
        return None
    response_id = node.get("responseId")
    calls: list[LaneCall] = []
    for i, candidate in enumerate(candidates):
        if type(candidate) is not dict:
            continue
        found = candidate.get("content")
        if type(found) is not dict:
            continue
        parts = found.get("parts")
        if type(parts) is not list:
            continue
        turn = (
            f"{response_id}/{i}"
            if type(response_id) is str
            else f"{file}:{line}:/candidates/{i}/content"
        )
        for item in parts:
            if type(item) is not dict:
                continue
            if "function_call" in item or "functionResponse" in item or "function_response" in item:
                return None
            call = item.get("functionCall")
            if call is None:
                continue
            if type(call) is not dict or "args" not in call:
                return None
            name = call.get("name")
            call_id = call.get("id")
            if type(name) is not str or not name or type(call_id) is not str:
                return None
            calls.append((name, call_id, call["args"], _VALUE, turn))
    return calls


_VALUE: Final = ArgumentsForm.VALUE


def _is_tool(entry: dict[str, Any]) -> bool:
    return any(member in entry for member in _INPUT)


class Gemini:
    """The Gemini dialect (``generateContent`` and its SDKs)."""

    name: Final = Dialect.GEMINI
    hop: Final = Hop.MODEL
    mark: Final = "candidates"
    #: members without one of which :meth:`part` takes no object
    claims: Final = frozenset(
        {
            "contents",
            "parts",
            "functionResponse",
            "function_response",
            "function_call",
            "functionCall",
            "name",
        }
    )
    tools: Final = ToolLayout(
        _is_tool,
        input=tuple("/" + member for member in _INPUT),
        # ``output_schema`` is the convention some catalogs add to every dialect
        output=("/output_schema", "/responseJsonSchema", "/response_json_schema", "/response"),
        openapi=frozenset({"/parameters", "/response"}),
        input_required=False,
        lists=("functionDeclarations", "function_declarations"),
        hosted=HOSTED_TOOLS,
    )
    #: the fast lane's reading of responses
    shortcuts: Final = {response: Shortcut(lane_response)}

    def new_state(self) -> GeminiState:
        """Gemini streams whole parts; the file's requests are remembered, to read a
        repeated history once."""
        return GeminiState()

    def whole(self, value: dict[str, Any], state: GeminiState) -> Handler | None:
        """A whole ``GenerateContentResponse`` (or one streamed chunk of it)."""
        if not isinstance(value["candidates"], list):
            return None
        return response if state.last is None else state.response

    def part(self, value: dict[str, Any], state: GeminiState) -> Handler | None:
        """A request body, a ``Content``, a part, or a bare function call."""
        if isinstance(value.get("contents"), list):
            return state.history
        if isinstance(value.get("parts"), list):
            return content
        if isinstance(value.get("functionResponse"), dict) or isinstance(
            value.get("function_response"), dict
        ):
            return part
        # the SDK's function_call (no "arguments": that is OpenAI's legacy member)
        call = value.get("function_call")
        if isinstance(value.get("functionCall"), dict) or (
            isinstance(call, dict) and "arguments" not in call
        ):
            return part
        if isinstance(value.get("name"), str) and "args" in value:
            return function_call
        return None

    def offered(self, value: dict[str, Any]) -> OfferedTools | None:
        """The tools a request body offers (its ``tools``: ``functionDeclarations``
        lists, and hosted tools that declare none)."""
        return request_tools(value) if "contents" in value else None


DIALECT: Final = Gemini()
