"""Containers: file formats that hold capture documents rather than being one.

A Server-Sent Events stream holds one document per ``data:`` event; an HTTP Archive
(``.har``) holds request and response bodies, each a document of its own. In an archive,
each request body is read: a JSON-RPC body is an MCP frame (Streamable HTTP), a request to
a model API is a conversation history, anything else JSON is a downstream body, whose
entry's response (status, body, times) is its result; each response body is read for
provider responses and MCP answers, so one browser or proxy capture holds all three hops.

A Batch file (OpenAI's ``{"custom_id", "body"}`` input lines and ``{"custom_id",
"response": {"status_code", "body"}}`` output lines; Anthropic's ``{"custom_id",
"params"}`` and ``{"custom_id", "result": {"message"}}``) holds a request or a response per
line, each read as the document it wraps.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, Final

from jsoncontract import codes
from jsoncontract._json import NotJSON, load
from jsoncontract.capture.base import envelope, problem_call
from jsoncontract.capture.interface import DocContext
from jsoncontract.model import (
    Anomaly,
    Captured,
    Dialect,
    Finding,
    Hop,
    OfferedTools,
    Severity,
    Stage,
    ToolCall,
    ToolResult,
)

Dispatch = Callable[[Any, DocContext, list[Captured]], None]
"""Reads one document of any dialect (the reader's detection)."""


def har(
    document: Any,
    ctx: DocContext,
    out: list[Captured],
    *,
    dispatch: Dispatch,
    message: Callable[[dict[str, Any]], bool],
    body: Dispatch,
    offered: Callable[[Any], OfferedTools | None] = lambda request: None,
) -> None:
    """Every call in an HTTP Archive (``log.entries[]``).

    ``dispatch`` reads a document in whatever dialect it is, ``message`` tells whether an
    object is a whole message of a known dialect, ``body`` reads a downstream body,
    ``offered`` the tools a request body offers, which the calls of the entry's response
    are given.
    """
    log = document.get("log") if isinstance(document, dict) else None
    entries = log.get("entries") if isinstance(log, dict) else None
    if not isinstance(entries, list):
        out.append(
            problem_call(
                ctx,
                envelope(codes.ENVELOPE_MALFORMED, "the HAR file has no log.entries list"),
            )
        )
        return
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            continue
        request = entry.get("request")
        started = epoch(entry.get("startedDateTime"))
        took: Any = entry.get("time")
        ended = started + took / 1000 if started is not None and _is_number(took) else None
        entry_ctx = ctx.child("", time=ended)
        start = len(out)
        sent: Any = None  # the request body, parsed
        if isinstance(request, dict):
            post = request.get("postData")
            if isinstance(post, dict) and isinstance(post.get("text"), str):
                sent = _har_body(
                    post["text"],
                    post.get("mimeType"),
                    None,
                    entry_ctx.child(f"/log/entries/{i}/request/postData/text", time=started),
                    out,
                    dispatch,
                    message,
                    body,
                    request=True,
                )
        response = entry.get("response")
        bodies = [
            c for c in out[start:] if isinstance(c, ToolCall) and c.dialect == Dialect.DOWNSTREAM
        ]
        if bodies and isinstance(response, dict):
            answer = _har_result(response, entry_ctx.child(f"/log/entries/{i}/response"))
            answer.started = started
            for call in bodies:
                call.result = answer
        content = response.get("content") if isinstance(response, dict) else None
        if isinstance(content, dict) and isinstance(content.get("text"), str):
            _har_body(
                content["text"],
                content.get("mimeType"),
                content.get("encoding"),
                entry_ctx.child(f"/log/entries/{i}/response/content/text", offered=offered(sent)),
                out,
                dispatch,
                message,
                body,
                request=False,
            )


def _har_body(
    raw: str,
    mime: Any,
    encoding: Any,
    ctx: DocContext,
    out: list[Captured],
    dispatch: Dispatch,
    message: Callable[[dict[str, Any]], bool],
    body: Dispatch,
    *,
    request: bool,
) -> Any:
    """Read one body of an entry; returns it parsed (``None``: not one JSON document)."""
    kind = mime.lower() if isinstance(mime, str) else None  # MIME types ignore case
    if kind is not None and "json" not in kind and "event-stream" not in kind:
        return None
    data: str | bytes = raw
    if encoding == "base64":
        try:
            data = base64.b64decode(raw, validate=True)
        except (binascii.Error, ValueError):
            return None
    if kind is not None and "event-stream" in kind:
        events: Iterable[str | bytes]
        if isinstance(data, bytes):  # bytes that are not UTF-8 are kept, to be reported
            events = (
                event.encode("utf-8", "surrogateescape")
                for _, event in sse_events(data.decode("utf-8", "surrogateescape"))
            )
        else:
            events = (event for _, event in sse_events(data))
        for event in events:
            try:
                value, anomalies = load(event)
            except NotJSON:
                continue
            dispatch(value, _inside(ctx, anomalies), out)
        return None
    try:
        value, anomalies = load(data)
    except NotJSON as exc:
        if request and ctx.tool:
            d = exc.diagnosis
            out.append(
                problem_call(
                    ctx,
                    Finding(
                        code=d.code,
                        severity=Severity.ERROR,
                        message=f"the request body is not JSON: {d.message}",
                        stage=Stage.PARSE,
                        hint=d.hint,
                    ),
                )
            )
        return None
    child = _inside(ctx, anomalies)
    if isinstance(value, dict) and message(value):
        dispatch(value, child, out)
    elif request and _is_provider_request(value):
        try:  # a conversation history
            dispatch(value, child, out)
        except Exception:  # a request in no known dialect holds no call
            return value
    elif request:
        body(value, child, out)
    return value


def _har_result(response: dict[str, Any], ctx: DocContext) -> ToolResult:
    """The response of a HAR entry, as the result of the downstream call its request made."""
    status = response.get("status")
    content = response.get("content")
    value: Any = None
    if isinstance(content, dict) and isinstance(content.get("text"), str):
        raw: str | bytes = content["text"]
        if content.get("encoding") == "base64":
            try:
                raw = base64.b64decode(raw, validate=True)
            except (binascii.Error, ValueError):
                raw = content["text"]
        mime = content.get("mimeType")
        value = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        if isinstance(mime, str) and "json" in mime.lower():
            with contextlib.suppress(NotJSON):  # a body that says JSON and is not: its text
                value, _ = load(raw)
    code = status if type(status) is int and status > 0 else None
    return ToolResult(
        Hop.DOWNSTREAM,
        Dialect.DOWNSTREAM,
        None,
        ctx.source(),
        content=value,
        is_error=code >= 400 if code is not None else None,
        status=code,
        ended=ctx.time,
        message=response,
    )


def _is_number(value: Any) -> bool:
    return type(value) in (int, float) and value >= 0


def epoch(value: Any) -> float | None:
    """Seconds since the epoch from an ISO 8601 time (``Z`` or an offset) or a number of
    seconds, milliseconds or nanoseconds (told apart by size); ``None`` when it is neither."""
    if isinstance(value, str):
        text = value.strip()
        if text.isdigit():  # OTLP/JSON writes 64-bit nanoseconds as a string
            return epoch(int(text))
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            return None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        return moment.timestamp()
    if type(value) in (int, float) and value > 0:
        if value > 1e17:  # nanoseconds
            return float(value) / 1e9
        if value > 1e11:  # milliseconds
            return float(value) / 1e3
        return float(value)
    return None


def batch(record: dict[str, Any], ctx: DocContext, out: list[Captured], dispatch: Dispatch) -> bool:
    """A line of a Batch file: the request or response it wraps, read as its dialect; a
    request that failed (errored, expired, canceled, an error response) is said to hold no
    response (``envelope.no_tool_call``). ``False`` when ``record`` is no Batch line."""
    failure = _batch_failure(record)
    if failure is not None:
        out.append(
            problem_call(
                ctx,
                envelope(
                    codes.ENVELOPE_NO_TOOL_CALL,
                    f"the Batch request {record.get('custom_id')!r} holds no response: {failure}",
                    "send the request again, or leave its line out of the capture",
                    severity=Severity.WARNING,
                ),
            )
        )
        return True
    for path in (("body",), ("params",), ("response", "body"), ("result", "message")):
        node: Any = record
        for member in path:
            node = node.get(member) if isinstance(node, dict) else None
        if isinstance(node, dict):
            pointer = "".join("/" + member for member in path)
            dispatch(node, ctx.child(pointer), out)
            return True
    return False


def _batch_failure(record: dict[str, Any]) -> str | None:
    """Why a Batch output line holds no response (Anthropic: a ``result`` that is not
    ``succeeded``; OpenAI: an ``error``, or a response with an HTTP error status), or
    ``None``."""
    result = record.get("result")
    if isinstance(result, dict) and "message" not in result:
        kind = result.get("type")
        if isinstance(kind, str) and kind != "succeeded":
            return f"it {kind}" + _said(result.get("error"))
    response = record.get("response")
    if "response" in record and not isinstance(response, dict):
        return "it failed" + _said(record.get("error"))
    if isinstance(response, dict):
        status = response.get("status_code")
        if type(status) is int and status >= 400:
            body = response.get("body")
            error = body.get("error") if isinstance(body, dict) else None
            return f"it failed with HTTP {status}" + _said(error)
    return None


def _said(error: Any) -> str:
    """`` (type: message)`` of a provider's error object (Anthropic nests one in another)."""
    if isinstance(error, dict) and isinstance(error.get("error"), dict):
        error = error["error"]
    if not isinstance(error, dict):
        return ""
    kind = error.get("type") or error.get("code")
    message = error.get("message")
    said = ": ".join(str(p) for p in (kind, message) if isinstance(p, str) and p)
    return f" ({said})" if said else ""


def _inside(ctx: DocContext, anomalies: tuple[Anomaly, ...]) -> DocContext:
    """The context of a body embedded as text at ``ctx``: its anomalies, located under it."""
    if anomalies:
        anomalies = tuple(replace(a, pointer=ctx.base + a.pointer) for a in anomalies)
    return ctx.child("", anomalies=anomalies)


def _is_provider_request(value: Any) -> bool:
    """A request *to* a model API (messages + tools), which holds no new tool call."""
    return isinstance(value, dict) and (
        "messages" in value or "contents" in value or ("input" in value and "model" in value)
    )


#: SSE lines end at CR, LF or CRLF only: str.splitlines() would also split at U+2028, U+0085
#: and the like, which JSON strings may hold unescaped.
_SSE_LINE_BREAK: Final = re.compile(r"\r\n|\r|\n")


def sse_events(text: str) -> Iterator[tuple[int, str]]:
    """The ``data:`` payloads of a Server-Sent Events stream, with the line each starts on.

    ``[DONE]`` markers, comments and ``event:`` / ``id:`` fields are dropped.
    """
    data: list[str] = []
    start = 0
    for number, line in enumerate(_SSE_LINE_BREAK.split(text), start=1):
        if not line.strip():
            if data:
                joined = "\n".join(data)
                data.clear()
                if joined.strip() != "[DONE]":
                    yield start, joined
            continue
        if line.startswith("data:"):
            if not data:
                start = number
            data.append(line[5:].removeprefix(" "))
    if data:
        joined = "\n".join(data)
        if joined.strip() != "[DONE]":
            yield start, joined
