"""What an MCP server's answer to ``tools/call`` means, and whether it keeps the contract.

Small pure functions over plain JSON values (a JSON-RPC response, its ``result`` or its
``error``, a tool's output schema, a protocol version); nothing here talks to a server.
``check`` runs them in its result stage (:mod:`jsoncontract.pipeline.result`) over
recorded answers, and ``mcp probe`` over the answers it gets:

- :func:`classify` tells what kind of answer a response is;
- :func:`error_object_problems` checks a JSON-RPC ``error`` object;
- :func:`result_envelope_findings` checks a ``CallToolResult`` against the MCP schema of
  the negotiated version;
- :func:`structured_content_findings` checks ``structuredContent`` against the tool's
  ``outputSchema``;
- :func:`invalid_arguments_findings` and :func:`unknown_tool_findings` check that a
  rejection is the kind the negotiated version asks for.

Findings use codes ``result.*`` and the stage ``result``; their paths are relative to
the JSON-RPC response's ``result`` (``/structuredContent/...``) or to the response
(``/error/...``). Versions are compared through :data:`VERSIONS`.
"""

from __future__ import annotations

from enum import StrEnum
from functools import cache, lru_cache
from typing import Any, Final

from jsoncontract import codes
from jsoncontract.model import Finding, Severity, Stage
from jsoncontract.pointer import escape_pointer_token

#: Protocol versions, oldest first: those the ``initialize`` handshake negotiates, then
#: those of the per-request envelope (negotiated with ``server/discover``).
HANDSHAKE_VERSIONS: Final = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN_VERSIONS: Final = ("2026-07-28",)
VERSIONS: Final = (*HANDSHAKE_VERSIONS, *MODERN_VERSIONS)
#: The versions whose MCP schema ships with jsoncontract (others are checked as the
#: nearest one).
SCHEMA_VERSIONS: Final = ("2025-06-18", "2025-11-25", "2026-07-28")
#: Since this version, invalid tool arguments are answered with an ``isError`` result
#: (SEP-1303); before it, with a JSON-RPC error -32602.
TOOL_ERROR_SINCE: Final = "2025-11-25"
INVALID_PARAMS: Final = -32602
#: Codes JSON-RPC 2.0 defines, and the range it reserves for implementations.
STANDARD_CODES: Final = {
    -32700: "Parse error",
    -32600: "Invalid Request",
    -32601: "Method not found",
    -32602: "Invalid params",
    -32603: "Internal error",
}
_RESERVED: Final = range(-32768, -31999)


class AnswerKind(StrEnum):
    """What a server did with a ``tools/call``."""

    ACCEPTED = "accepted"  # a result without isError
    TOOL_ERROR = "tool-error"  # a result with isError: true
    PROTOCOL_ERROR = "protocol-error"  # a JSON-RPC error
    TIMEOUT = "timeout"  # no answer in time
    CRASHED = "crashed"  # the connection ended during the call
    INVALID = "invalid"  # an answer that is not a JSON-RPC response

    @property
    def rejected(self) -> bool:
        """The server refused the call (in either of the two ways MCP allows)."""
        return self in (AnswerKind.TOOL_ERROR, AnswerKind.PROTOCOL_ERROR)

    def phrase(self, code: int | None = None) -> str:
        """``accepted``, ``rejected with isError``, ``rejected with JSON-RPC error -32602``..."""
        if self is AnswerKind.TOOL_ERROR:
            return "rejected with isError"
        if self is AnswerKind.PROTOCOL_ERROR:
            return f"rejected with JSON-RPC error {code}" if code is not None else "rejected"
        if self is AnswerKind.TIMEOUT:
            return "timed out"
        return self.value


def version_at_least(version: str, minimum: str) -> bool:
    """Whether ``version`` is ``minimum`` or newer (unknown versions compare as dates)."""
    if version in VERSIONS and minimum in VERSIONS:
        return VERSIONS.index(version) >= VERSIONS.index(minimum)
    return version >= minimum


@lru_cache(maxsize=256)
def schema_version(version: str) -> str:
    """The shipped MCP schema closest to ``version`` (older ones use the oldest shipped);
    remembered, as every result of a session asks it about the same version."""
    for known in reversed(SCHEMA_VERSIONS):
        if version_at_least(version, known):
            return known
    return SCHEMA_VERSIONS[0]


def classify(response: dict[str, Any]) -> AnswerKind:
    """The kind of a JSON-RPC response to ``tools/call``: an error, an ``isError`` result,
    or an accepting result (anything else is invalid)."""
    if "error" in response:
        return AnswerKind.PROTOCOL_ERROR
    result = response.get("result")
    if not isinstance(result, dict):
        return AnswerKind.INVALID
    return AnswerKind.TOOL_ERROR if result.get("isError") is True else AnswerKind.ACCEPTED


def error_object_problems(error: Any) -> list[str]:
    """What is wrong with a JSON-RPC ``error`` object (empty when it is well formed): an
    object with an integer ``code`` and a string ``message``."""
    if not isinstance(error, dict):
        return ["error is not an object"]
    problems = []
    code = error.get("code")
    if "code" not in error:
        problems.append("error has no code")
    elif not isinstance(code, int) or isinstance(code, bool):
        problems.append(f"error.code must be an integer, not {_kind(code)}")
    if "message" not in error:
        problems.append("error has no message")
    elif not isinstance(error.get("message"), str):
        problems.append(f"error.message must be a string, not {_kind(error.get('message'))}")
    return problems


def error_findings(error: Any, *, tool: str | None = None) -> list[Finding]:
    """A finding per problem of a JSON-RPC ``error`` object, and for a code in the range
    JSON-RPC reserves that it does not define (-32768 to -32000, outside -32099..-32000)."""
    out = [
        Finding(
            codes.RESULT_MALFORMED_ERROR,
            Severity.ERROR,
            f"the JSON-RPC error object is malformed: {problem}",
            path="/error",
            tool=tool,
            stage=Stage.RESULT,
            hint='answer {"code": <integer>, "message": "<text>"} (JSON-RPC 2.0, section 5.1)',
        )
        for problem in error_object_problems(error)
    ]
    code = error.get("code") if isinstance(error, dict) else None
    if (
        isinstance(code, int)
        and code in _RESERVED
        and code not in STANDARD_CODES
        and not -32099 <= code <= -32000
    ):
        out.append(
            Finding(
                codes.RESULT_RESERVED_ERROR_CODE,
                Severity.WARNING,
                f"error code {code} is in the range JSON-RPC reserves for its own errors, "
                "and JSON-RPC defines no such error",
                path="/error/code",
                tool=tool,
                stage=Stage.RESULT,
                hint="use -32602 for invalid arguments, -32603 for internal errors, or a code "
                "outside -32768..-32000 for the application's own errors",
            )
        )
    return out


@cache
def _result_validator(version: str) -> Any:
    from importlib import resources

    import jsonschema_rs
    import orjson

    folder = resources.files("jsoncontract") / "schemas" / "mcp"
    schema = orjson.loads((folder / f"call-tool-result-{version}.json").read_bytes())
    return jsonschema_rs.validator_for(schema)


def result_envelope_findings(
    result: Any, version: str, *, tool: str | None = None
) -> list[Finding]:
    """Where a ``tools/call`` result breaks the MCP schema's ``CallToolResult`` for
    ``version`` (``content`` a list of content blocks, ``isError`` a boolean, and so on)."""
    checked = schema_version(version)
    validator = _result_validator(checked)
    if validator.is_valid(result):
        return []
    out = []
    for error in validator.iter_errors(result):
        tokens = [str(t) for t in error.instance_path]
        pointer = "".join("/" + escape_pointer_token(t) for t in tokens)
        message = str(error.message).strip().splitlines()[0]
        out.append(
            Finding(
                codes.RESULT_ENVELOPE,
                Severity.ERROR,
                f"the result breaks the MCP {checked} CallToolResult schema at "
                f"{pointer or '/'}: {message}",
                path=pointer,
                tool=tool,
                stage=Stage.RESULT,
                keyword=tokens[-1] if tokens else None,
                hint='a tools/call result is {"content": [...], "isError"?, "structuredContent"?}',
            )
        )
        if len(out) == 5:
            break
    return out


def structured_content_findings(
    result: Any, output_schema: Any, version: str, *, tool: str | None = None
) -> list[Finding]:
    """Whether ``structuredContent`` keeps the tool's ``outputSchema``.

    A result with ``isError: true`` is not checked (it reports a failure, not output). A
    tool with an output schema must return structured content; each way the content
    breaks the schema is a finding with its pointer (under ``/structuredContent``).
    """
    if not isinstance(result, dict) or result.get("isError") is True:
        return []
    if not isinstance(output_schema, dict):
        return []
    if "structuredContent" not in result:
        return [
            Finding(
                codes.RESULT_STRUCTURED_CONTENT_MISSING,
                Severity.ERROR,
                "the tool declares an outputSchema but the result has no structuredContent",
                path="/structuredContent",
                tool=tool,
                stage=Stage.RESULT,
                hint="return structuredContent that matches the outputSchema (MCP: servers "
                "MUST provide structured results that conform to it)",
            )
        ]
    from jsoncontract.errors import SchemaLoadError
    from jsoncontract.validation import CompiledSchema

    try:
        compiled = _compiled(output_schema)
    except SchemaLoadError as exc:
        return [
            Finding(
                codes.RESULT_OUTPUT_SCHEMA_INVALID,
                Severity.ERROR,
                f"the outputSchema cannot check anything: {exc.message}",
                path="/structuredContent",
                tool=tool,
                stage=Stage.RESULT,
                hint="fix the outputSchema (jsoncontract mcp lint shows where)",
            )
        ]
    assert isinstance(compiled, CompiledSchema)
    return [
        Finding(
            codes.RESULT_STRUCTURED_CONTENT,
            Severity.ERROR,
            f"structuredContent breaks the outputSchema: {v.message}",
            path="/structuredContent" + v.path,
            tool=tool,
            stage=Stage.RESULT,
            keyword=v.keyword,
            schema_path=v.schema_path,
            hint=v.hint,
        )
        for v in compiled.violations(result["structuredContent"])
    ]


#: Output schemas compiled so far, by canonical text (a probe checks many results of one
#: tool; bounded, since a long-lived process may meet many servers).
_COMPILED: dict[str, Any] = {}


def _compiled(schema: dict[str, Any]) -> Any:
    """The compiled output schema, compiled once per schema."""
    import orjson

    from jsoncontract.validation import CompiledSchema

    try:
        key = orjson.dumps(schema, option=orjson.OPT_SORT_KEYS).decode()
    except TypeError:  # nested deeper than orjson writes: compiled each time
        return CompiledSchema(schema, label="outputSchema")
    found = _COMPILED.get(key)
    if found is None:
        if len(_COMPILED) > 256:
            _COMPILED.clear()
        found = _COMPILED[key] = CompiledSchema(schema, label="outputSchema")
    return found


def expected_rejection(version: str) -> AnswerKind:
    """How ``version`` says a server answers invalid tool arguments."""
    if version_at_least(version, TOOL_ERROR_SINCE):
        return AnswerKind.TOOL_ERROR
    return AnswerKind.PROTOCOL_ERROR


def invalid_arguments_findings(
    kind: AnswerKind, code: int | None, version: str, *, tool: str | None = None
) -> list[Finding]:
    """Whether a rejection of invalid arguments is the kind ``version`` asks for:
    an ``isError`` result from 2025-11-25 on (so the model can read the reason and
    correct the call), a JSON-RPC error -32602 before. Other answers say nothing here."""
    if not kind.rejected:
        return []
    expected = expected_rejection(version)
    if kind is expected and (kind is AnswerKind.TOOL_ERROR or code == INVALID_PARAMS):
        return []
    if kind is AnswerKind.PROTOCOL_ERROR and expected is AnswerKind.TOOL_ERROR:
        message = (
            f"invalid arguments were answered with JSON-RPC error {code}; MCP {version} "
            "answers them with a result whose isError is true"
        )
        hint = (
            'return {"content": [{"type": "text", "text": <what is wrong>}], '
            '"isError": true}: the model sees it and can correct the call (SEP-1303)'
        )
    elif kind is AnswerKind.PROTOCOL_ERROR:
        message = (
            f"invalid arguments were answered with JSON-RPC error {code}; MCP {version} "
            f"answers them with {INVALID_PARAMS} (Invalid params)"
        )
        hint = f"use code {INVALID_PARAMS} for arguments that break the input schema"
    else:
        message = (
            f"invalid arguments were answered with an isError result; MCP {version} "
            f"answers them with JSON-RPC error {INVALID_PARAMS}"
        )
        hint = (
            "answer with a JSON-RPC error -32602, or negotiate 2025-11-25 or later, "
            "where isError is the answer"
        )
    return [
        Finding(
            codes.RESULT_INVALID_ARGUMENTS_ANSWER,
            Severity.WARNING,
            message,
            tool=tool,
            stage=Stage.RESULT,
            hint=hint,
        )
    ]


def unknown_tool_findings(
    kind: AnswerKind, code: int | None, version: str, *, tool: str | None = None
) -> list[Finding]:
    """Whether a call of a tool that does not exist is answered as MCP says: with a
    JSON-RPC error (the specification's example uses -32602), in every version."""
    if kind is AnswerKind.PROTOCOL_ERROR:
        return []
    if kind is AnswerKind.TOOL_ERROR:
        message = (
            f"a call of a tool that does not exist was answered with an isError result; "
            f"MCP {version} answers it with a JSON-RPC error (unknown tools are protocol "
            "errors)"
        )
    else:
        how = {
            AnswerKind.TIMEOUT: "got no answer in time",
            AnswerKind.CRASHED: "crashed the server (the connection ended)",
            AnswerKind.INVALID: "was answered with something that is not a JSON-RPC response",
        }.get(kind, f"was {kind.phrase(code)}")
        message = (
            f"a call of a tool that does not exist {how}; every version answers it with a "
            "JSON-RPC error"
        )
    return [
        Finding(
            codes.RESULT_UNKNOWN_TOOL_ANSWER,
            Severity.WARNING if kind is AnswerKind.TOOL_ERROR else Severity.ERROR,
            message,
            tool=tool,
            stage=Stage.RESULT,
            hint='answer {"code": -32602, "message": "Unknown tool: <name>"}',
        )
    ]


def _kind(value: Any) -> str:
    from jsoncontract._json import json_type

    return f"a JSON {json_type(value)}"


__all__ = [
    "VERSIONS",
    "AnswerKind",
    "classify",
    "error_findings",
    "error_object_problems",
    "expected_rejection",
    "invalid_arguments_findings",
    "result_envelope_findings",
    "structured_content_findings",
    "unknown_tool_findings",
    "version_at_least",
]
