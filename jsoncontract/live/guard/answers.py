"""The answers the guard sends in the server's place, each in the form the protocol version
prescribes, each saying what the model can act on.

**Invalid arguments.** MCP 2025-06-18 lists "invalid arguments" among the protocol errors a
server answers with a JSON-RPC error (``-32602``, Invalid params; specification, Server
Features, Tools, "Error Handling"). SEP-1303 ("Input Validation Errors as Tool Execution
Errors") moved them in 2025-11-25: from that version on they are tool execution errors, a
result with ``isError: true`` that the client hands to the model so that it can correct the
call, and the 2026-07-28 schema keeps that (its ``CallToolResult`` also requires
``resultType``). :func:`refusal` answers a call that broke its contract in the form of the
negotiated version (:data:`~jsoncontract.pipeline.answers.TOOL_ERROR_SINCE`, the same
boundary ``check`` judges servers by). A call refused by a business rule, an idempotency
conflict or the retry budget is no malformed request but a refused operation: it is a tool
execution error in every version. A call of a tool that does not exist (or that the guard
hides) is a protocol error in every version, ``-32602`` as the specification's example.

**What the model reads.** A refusal's text is one JSON object, the ``ok``/``error`` result
contract ``check`` asks tools for: ``{"ok": false, "error": {"code", "message",
"findings", "next"}}``. ``code`` is the stable code of the first finding; each finding
gives the JSON Pointer, the code, the message and the hint as ``check`` words them, and,
for ``enum`` and ``const``, the ``allowed`` values; ``next`` says what to do (fix and call
again, or stop and ask the user). A JSON-RPC error carries the same object in ``data``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Final

import orjson

from jsoncontract import codes
from jsoncontract.model import Stage
from jsoncontract.pipeline.answers import (
    HANDSHAKE_VERSIONS,
    INVALID_PARAMS,
    MODERN_VERSIONS,
    TOOL_ERROR_SINCE,
    version_at_least,
)
from jsoncontract.pointer import ABSENT, get

if TYPE_CHECKING:
    from jsoncontract.model import Finding

__all__ = [
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "PARSE_ERROR",
    "complete",
    "error_object",
    "finding_entry",
    "protocol_error",
    "refusal",
    "response",
    "stop_note",
    "tool_error",
    "tool_errors",
    "unknown_tool",
    "with_id",
    "with_stop",
]

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
INTERNAL_ERROR: Final = -32603
#: The version assumed for a session whose version the guard never saw (the latest one the
#: handshake negotiates).
DEFAULT_VERSION: Final = HANDSHAKE_VERSIONS[-1]
#: Findings an answer lists, and allowed values it quotes, at most.
SHOWN: Final = 8
ALLOWED: Final = 50
#: The stages whose failures are invalid arguments (answered per version).
_INVALID_ARGUMENTS: Final = frozenset({Stage.ENVELOPE, Stage.PARSE, Stage.SCHEMA})

FIX: Final = "fix the arguments named above and call {tool} again"
STOP: Final = (
    "stop retrying this call: it failed {count} times with the same arguments; tell the user "
    "what failed and ask how to go on"
)


def tool_errors(version: str | None) -> bool:
    """Whether ``version`` answers invalid arguments with an ``isError`` result (else with
    JSON-RPC error -32602)."""
    return version_at_least(version or DEFAULT_VERSION, TOOL_ERROR_SINCE)


def finding_entry(finding: Finding, schema: Any = None) -> dict[str, Any]:
    """One finding as an answer lists it: where, which rule, what, what to do, and the
    allowed values of an ``enum`` or ``const`` (read from ``schema`` at the finding's
    schema path)."""
    entry: dict[str, Any] = {"path": finding.path, "code": finding.code, "message": finding.message}
    allowed = _allowed(finding, schema)
    if allowed is not None:
        entry["allowed"] = allowed
    if finding.hint:
        entry["hint"] = finding.hint
    return entry


def _allowed(finding: Finding, schema: Any) -> list[Any] | None:
    if finding.keyword not in ("enum", "const") or not finding.schema_path or schema is None:
        return None
    node = get(schema, finding.schema_path.removeprefix("#"))
    if node is ABSENT:
        return None
    if finding.keyword == "const":
        return [node]
    return list(node[:ALLOWED]) if isinstance(node, list) else None


def error_object(
    tool: str,
    findings: Sequence[Finding],
    *,
    schema: Any = None,
    message: str | None = None,
    next_step: str | None = None,
    code: str | None = None,
) -> dict[str, Any]:
    """The ``error`` member of a refusal (see the module)."""
    first = findings[0] if findings else None
    chosen = code or (first.code if first is not None else codes.ENVELOPE_MALFORMED)
    if message is None:
        stage = first.stage if first is not None else None
        what = (
            {
                Stage.ENVELOPE: "the call is malformed",
                Stage.PARSE: "its arguments are not a JSON object",
                Stage.SCHEMA: "its arguments break the tool's input schema",
                Stage.BUSINESS: "its arguments break a business rule",
            }.get(stage, "it breaks the tool's contract")
            if stage is not None
            else "it was refused"
        )
        message = f"{tool} was not called: {what}"
        if first is not None:
            where = f"{first.path}: " if first.path else ""
            message += f" ({where}{first.message})"
    error: dict[str, Any] = {"code": chosen, "message": message}
    if findings:
        error["findings"] = [finding_entry(f, schema) for f in findings[:SHOWN]]
        if len(findings) > SHOWN:
            error["more"] = len(findings) - SHOWN
    error["next"] = next_step or FIX.format(tool=tool)
    return error


def tool_error(request_id: Any, error: dict[str, Any], version: str | None) -> dict[str, Any]:
    """A JSON-RPC response holding a ``tools/call`` result with ``isError: true`` whose text
    is ``{"ok": false, "error": error}``."""
    text = orjson.dumps({"ok": False, "error": error}).decode()
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": True}
    return response(request_id, complete(result, version))


def protocol_error(request_id: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    """A JSON-RPC error response."""
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def response(request_id: Any, result: dict[str, Any]) -> dict[str, Any]:
    """A JSON-RPC result response."""
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def complete(result: dict[str, Any], version: str | None) -> dict[str, Any]:
    """``result`` with the ``resultType`` the 2026-07-28 schema requires of every result."""
    if version is not None and version_at_least(version, MODERN_VERSIONS[0]):
        result.setdefault("resultType", "complete")
    return result


def refusal(
    request_id: Any,
    tool: str,
    findings: Sequence[Finding],
    version: str | None,
    *,
    schema: Any = None,
    next_step: str | None = None,
    code: str | None = None,
    message: str | None = None,
) -> dict[str, Any]:
    """The answer to a call refused for ``findings`` (the first names the failure), in the
    form the negotiated ``version`` prescribes for it (see the module)."""
    error = error_object(
        tool, findings, schema=schema, next_step=next_step, code=code, message=message
    )
    invalid = bool(findings) and findings[0].stage in _INVALID_ARGUMENTS and code is None
    if invalid and not tool_errors(version):
        return protocol_error(
            request_id, INVALID_PARAMS, f"Invalid params: {error['message']}", error
        )
    return tool_error(request_id, error, version)


def unknown_tool(
    request_id: Any, tool: str, findings: Iterable[Finding], why: str
) -> dict[str, Any]:
    """The answer to a call of a tool the model may not call (unknown, or hidden): a
    JSON-RPC error -32602 in every version."""
    listed = list(findings)
    data = {
        "code": listed[0].code if listed else codes.ENVELOPE_UNKNOWN_TOOL,
        "message": why,
        "findings": [finding_entry(f) for f in listed[:SHOWN]],
        "next": "call tools/list and use only the tools it lists",
    }
    return protocol_error(request_id, INVALID_PARAMS, f"Unknown tool: {tool} ({why})", data)


def stop_note(count: int) -> str:
    """What the answer to the last allowed identical retry adds: stop."""
    return STOP.format(count=count)


def with_stop(answer: dict[str, Any], count: int, version: str | None) -> dict[str, Any]:
    """A failing answer with the instruction to stop retrying added: in the ``next`` of an
    answer the guard made, else a text block of an ``isError`` result, or the message of a
    JSON-RPC error."""
    note = stop_note(count)
    own = _own_error(answer)
    if own is not None:
        error, rebuild = own
        rebuilt: dict[str, Any] = rebuild({**error, "next": note})
        return rebuilt
    if isinstance(answer.get("error"), dict):
        error = dict(answer["error"])
        error["message"] = f"{error.get('message', '')} (jsoncontract guard: {note})".strip()
        return {**answer, "error": error}
    result = answer.get("result")
    if isinstance(result, dict):
        content = list(result.get("content") or [])
        content.append({"type": "text", "text": f"jsoncontract guard: {note}"})
        return {**answer, "result": {**result, "content": content}}
    return answer


def _own_error(answer: dict[str, Any]) -> tuple[dict[str, Any], Any] | None:
    """The error object of an answer the guard made, and how to make the answer again with
    another; ``None`` for any other answer."""
    failure = answer.get("error")
    if isinstance(failure, dict):
        data = failure.get("data")
        if isinstance(data, dict) and "next" in data:
            return data, lambda new: {**answer, "error": {**failure, "data": new}}
        return None
    result = answer.get("result")
    if not isinstance(result, dict):
        return None
    content = result.get("content")
    if not isinstance(content, list) or len(content) != 1 or not isinstance(content[0], dict):
        return None
    try:
        parsed = orjson.loads(content[0].get("text", ""))
    except (orjson.JSONDecodeError, TypeError):
        return None
    if not isinstance(parsed, dict) or parsed.get("ok") is not False:
        return None
    error = parsed.get("error")
    if not isinstance(error, dict) or "next" not in error:
        return None

    def rebuild(new: dict[str, Any]) -> dict[str, Any]:
        text = orjson.dumps({"ok": False, "error": new}).decode()
        block = {**content[0], "text": text}
        return {**answer, "result": {**result, "content": [block]}}

    return error, rebuild


def with_id(answer: dict[str, Any], request_id: Any) -> dict[str, Any]:
    """A recorded answer, given again to another request."""
    return {**answer, "id": request_id}
