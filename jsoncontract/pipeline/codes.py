"""The catalog of finding codes that ``check`` can report, with one line on each.

Schema findings are ``schema.<keyword>`` for any JSON Schema keyword and business findings
``business.<rule-id>`` for any rule, so those two families are described by pattern; the
envelope, parse, result and session codes are listed one by one. The README's code table
and the CI report formats (SARIF rule metadata, annotation titles) are checked against this
table by tests.
"""

from __future__ import annotations

from typing import Final

from jsoncontract.model import Severity
from jsoncontract.pipeline import session

ENVELOPE_CODES: Final = {
    "envelope.malformed": "the call is not a well-formed call of its dialect",
    "envelope.unknown_tool": "the call names a tool that is not in the tool list",
    "envelope.missing_tool": "a downstream body does not say which tool sent it",
    "envelope.missing_call_id": "the call has no id, so its result cannot be matched to it",
    "envelope.arguments_not_string": "arguments should be a JSON string in this dialect",
    "envelope.incomplete_stream": "the stream ended before the call was finished",
    "envelope.stream_mismatch": "streamed fragments do not add up to the final arguments",
    "envelope.unknown_dialect": "a trace line is JSON but in no known capture dialect",
    "envelope.no_tool_call": "the capture holds no tool call",
    "envelope.duplicate_key": "a key appears twice in the call's envelope",
    "envelope.big_integer": "an integer beyond 64 bits in the call's envelope",
    "envelope.inexact_number": "a number a double cannot hold in the call's envelope",
    "envelope.lone_surrogate": "a lone UTF-16 surrogate in the call's envelope",
    "envelope.invalid_utf8": "bytes that are not UTF-8 in the call's envelope",
    "envelope.nan_infinity": "NaN or Infinity in the call's envelope",
    "envelope.arguments_not_recorded": "the capture does not record the call's arguments",
}

PARSE_CODES: Final = {
    "parse.code_fence": "the JSON is wrapped in a markdown code fence",
    "parse.prose": "the JSON is surrounded by prose",
    "parse.truncated": "the JSON ends early (cut off, often at max_tokens)",
    "parse.trailing_comma": "a comma right before a closing bracket",
    "parse.single_quotes": "strings in single quotes",
    "parse.python_literal": "True, False or None instead of true, false, null",
    "parse.nan_infinity": "NaN or Infinity used as a number",
    "parse.comment": "a comment inside the JSON",
    "parse.control_character": "a raw control character inside a string",
    "parse.duplicate_key": "a key appears twice; parsers disagree on which value wins",
    "parse.big_integer": "an integer beyond 64 bits, which most parsers round",
    "parse.inexact_number": "a number a double reads as another (1e-400 as 0, a fraction as whole)",
    "parse.invalid_utf8": "bytes that are not UTF-8",
    "parse.lone_surrogate": "a lone UTF-16 surrogate, which UTF-8 cannot encode",
    "parse.not_object": "the arguments are not a JSON object",
    "parse.string_arguments": "an object sent as a JSON string where the object belongs",
    "parse.double_encoded": "the arguments were JSON-encoded twice",
    "parse.empty": "the arguments are empty",
    "parse.missing": "the call carries no arguments at all",
    "parse.too_deep": "nested more than 1024 levels deep",
    "parse.too_large": "a trace line longer than the line limit",
    "parse.invalid_json": "not JSON, for another reason",
}

RESULT_CODES: Final = {
    "result.malformed": "the result is not a well-formed answer of its dialect",
    "result.envelope": "a tools/call result breaks the MCP schema's CallToolResult",
    "result.structured_content": "structuredContent breaks the tool's outputSchema",
    "result.structured_content_missing": "a tool with an outputSchema returned no "
    "structuredContent",
    "result.output_schema_invalid": "a tool's outputSchema is not a valid JSON Schema",
    "result.text_mirror": "structuredContent has no text block mirroring it as JSON, or one "
    "that says something else",
    "result.malformed_error": "a JSON-RPC error object lacks an integer code or a string message",
    "result.reserved_error_code": "an error code in the range JSON-RPC reserves, which "
    "JSON-RPC does not define",
    "result.invalid_arguments_answer": "invalid arguments were rejected, but not as the "
    "negotiated protocol version says",
    "result.unknown_tool_answer": "a call of a tool that does not exist was not answered with "
    "a JSON-RPC error",
    "result.contract": "the result breaks the result contract (ok / error / data)",
    "result.error_without_code": "an error result without a stable machine-readable code",
    "result.stack_trace": "the result holds a stack trace (Python, JavaScript, Java, Go, .NET)",
    "result.html_error_page": "the result is an HTML error page, not data",
    "result.secret": "the result holds a secret (an API key, a token, a private key...), "
    "reported by kind and hash",
}

#: Codes about the run rather than one call (:mod:`jsoncontract.pipeline.contracts`).
SESSION_CODES: Final = {
    **session.SESSION_CODES,
    "session.missing_result": "a call got no result, though later calls did (or an MCP "
    "request was never answered)",
    "session.parallel_side_effects": "payments, messages or deletions in one assistant turn, "
    "which the host may run at once",
    "session.unlisted_tool": "a call of a tool the latest tools/list of its session does not hold",
    "session.stale_tool_list": "a call made after list_changed, before the tools were listed again",
    "session.input_schema_changed": "a tool's inputSchema changed between two lists of one session",
    "session.list_changed_undeclared": "list_changed from a server that did not declare "
    "capabilities.tools.listChanged",
    "session.identical_retry": "a failed call retried identically, more times than allowed",
    "session.unrelated_change": "a retry after an error changed arguments the error did not name",
    "session.new_idempotency_key": "a write retried after an error under a new idempotency key",
}

#: Code families described by pattern: (prefix, summary, default severity).
FAMILIES: Final = (
    ("schema.", "the arguments break the tool's JSON Schema at this keyword", Severity.ERROR),
    ("business.", "a business rule (or an idempotency check) fails", Severity.ERROR),
)


def describe(code: str) -> str:
    """The one-line summary of a code (a family's summary for schema and business codes)."""
    for table in (ENVELOPE_CODES, PARSE_CODES, RESULT_CODES, SESSION_CODES):
        if code in table:
            return table[code]
    for prefix, summary, _ in FAMILIES:
        if code.startswith(prefix):
            return f"{summary}: {code.removeprefix(prefix)}"
    return code
