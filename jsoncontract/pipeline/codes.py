"""The catalog of finding codes that ``check`` can report, with one line on each.

Schema findings are ``schema.<keyword>`` for any JSON Schema keyword and business findings
``business.<rule-id>`` for any rule, so those two families are described by pattern; the
envelope and parse codes are listed one by one. The README's code table and the CI report
formats (SARIF rule metadata, annotation titles) are checked against this table by tests.
"""

from __future__ import annotations

from typing import Final

from jsoncontract.model import Severity

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

#: Code families described by pattern: (prefix, summary, default severity).
FAMILIES: Final = (
    ("schema.", "the arguments break the tool's JSON Schema at this keyword", Severity.ERROR),
    ("business.", "a business rule (or an idempotency check) fails", Severity.ERROR),
)


def describe(code: str) -> str:
    """The one-line summary of a code (a family's summary for schema and business codes)."""
    for table in (ENVELOPE_CODES, PARSE_CODES):
        if code in table:
            return table[code]
    for prefix, summary, _ in FAMILIES:
        if code.startswith(prefix):
            return f"{summary}: {code.removeprefix(prefix)}"
    return code
