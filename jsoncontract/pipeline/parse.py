"""The parse gate: is it JSON, and the right kind (an object)?

Each fault class has its own code (``parse.code_fence``, ``parse.truncated``...) and a hint;
where a repaired form exists, the hint shows it. Nothing is ever repaired in place: a
payload that needed repair is a failed contract.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from jsoncontract import codes
from jsoncontract._json import NotJSON, dumps, json_type, load, short_repr
from jsoncontract.masking import masked_names, redacted
from jsoncontract.model import Anomaly, ArgumentsForm, Finding, Hop, Severity, Stage, ToolCall

#: How much of a repaired payload a hint shows.
REPAIR_PREVIEW: Final = 160
_ANOMALY_HINTS: Final = {
    "duplicate_key": "send each key once; which value the tool sees depends on its parser",
    "big_integer": "send the number as a string, or use a smaller unit",
    "inexact_number": "send the number as a string, or round it to what a double holds",
    "lone_surrogate": "fix the producer's string handling (a UTF-16 pair was split)",
    "invalid_utf8": "re-encode the payload as UTF-8 at its source",
    "nan_infinity": "send null, a string, or leave the member out",
}
#: Diagnoses whose position inside the arguments says nothing useful.
_NO_POSITION: Final = frozenset(
    {codes.PARSE_EMPTY, codes.PARSE_CODE_FENCE, codes.PARSE_PROSE, codes.PARSE_INVALID_UTF8}
)


@dataclass(slots=True)
class ParseOutcome:
    """The parsed arguments (``ok``), or the findings saying why there are none."""

    ok: bool
    value: Any = None
    findings: list[Finding] = field(default_factory=list)


def parse_arguments(
    call: ToolCall, *, require_object: bool = True, show_values: bool = False
) -> ParseOutcome:
    """Run the parse gate on one call's arguments.

    Arguments:
        require_object: tool arguments must be a JSON object; a downstream contract may
            say otherwise.
        show_values: quote sensitive-looking members in the repaired previews of hints
            instead of hashing them.
    """
    form = call.form
    value = call.arguments
    anomalies: tuple[Anomaly, ...] = call.anomalies
    if form is ArgumentsForm.MISSING:
        return _failed(
            finding(
                codes.PARSE_MISSING,
                "the call carries no arguments",
                "send an object, {} when there are none",
            )
        )
    if form is ArgumentsForm.TEXT:
        if anomalies:  # the text itself was already broken in the capture
            return ParseOutcome(
                False, None, [anomaly_finding(a, show_values=show_values) for a in anomalies]
            )
        try:
            value, anomalies = load(value)
        except NotJSON as exc:
            d = exc.diagnosis
            where = (
                ""
                if d.code in _NO_POSITION
                else (f" (line {d.line}, column {d.column} of the arguments)")
            )
            hint = with_repair(d.hint, d.repaired, show_values=show_values)
            return _failed(finding(d.code, d.message + where, hint))
        if isinstance(value, str) and require_object:
            return _failed(_string_inside(value, double=True, show_values=show_values))
    elif isinstance(value, str) and require_object:
        double = form is ArgumentsForm.DECODED
        return _failed(_string_inside(value, double=double, hop=call.hop, show_values=show_values))
    if require_object and not isinstance(value, dict):
        return _failed(
            finding(
                codes.PARSE_NOT_OBJECT,
                f"the arguments are a JSON {json_type(value)}, but tool arguments are an object",
                "wrap the values in an object keyed by parameter name",
            )
        )
    if anomalies:
        return ParseOutcome(
            False, value, [anomaly_finding(a, show_values=show_values) for a in anomalies]
        )
    return ParseOutcome(True, value)


def _failed(one: Finding) -> ParseOutcome:
    return ParseOutcome(False, None, [one])


def finding(code: str, message: str, hint: str | None, path: str = "") -> Finding:
    """A parse-gate error reported under ``code`` (a ``parse.*`` code of the catalog)."""
    return Finding(
        code=code,
        severity=Severity.ERROR,
        message=message,
        path=path,
        stage=Stage.PARSE,
        hint=hint,
    )


def anomaly_finding(anomaly: Anomaly, *, show_values: bool = False) -> Finding:
    """The finding for something the JSON parser would have hidden (a member name that
    holds a secret masked in its place and its words, unless ``show_values``)."""
    code = codes.ANOMALY_CODES[anomaly.kind][0]
    pointer, detail = anomaly.pointer, anomaly.detail
    if not show_values:
        pointer, detail = masked_names(pointer, detail)  # type: ignore[assignment]
    return finding(code, detail or "", _ANOMALY_HINTS.get(anomaly.kind), pointer or "")


def with_repair(hint: str, repaired: str | None, *, show_values: bool = False) -> str:
    """A hint followed by a (compact, shortened) repaired form, its sensitive-looking
    members hashed unless ``show_values``."""
    if repaired is None:
        return hint
    try:
        value = orjson.loads(repaired)
        repaired = dumps(value if show_values else redacted(value)).decode()
    except (orjson.JSONDecodeError, TypeError):  # not JSON, or deeper than orjson writes
        if not show_values:  # nothing in it could be hidden, so it is not shown
            return hint
    preview = repaired if len(repaired) <= REPAIR_PREVIEW else repaired[:REPAIR_PREVIEW] + "..."
    return f"{hint}; repaired, it would read: {preview}"


def _string_inside(
    text: str, *, double: bool, hop: Hop | None = None, show_values: bool = False
) -> Finding:
    """A string where an object belongs: JSON text sent as a string, or double-encoded."""
    try:
        inner, _ = load(text)
    except NotJSON:
        inner = None
    if isinstance(inner, dict):
        preview = short_repr(inner if show_values else redacted(inner), REPAIR_PREVIEW + 3)
        if double:
            return finding(
                codes.PARSE_DOUBLE_ENCODED,
                "the arguments were JSON-encoded twice: the JSON text holds a string that "
                "holds the object",
                f"encode once; decoded twice it would read: {preview}",
            )
        where = "MCP params.arguments" if hop is Hop.MCP else "the arguments"
        return finding(
            codes.PARSE_STRING_ARGUMENTS,
            f"{where} is a JSON string holding an object, not the object itself",
            "the host forwarded the model's arguments text without JSON.parse; send the "
            f"parsed object: {preview}",
        )
    return finding(
        codes.PARSE_NOT_OBJECT,
        "the arguments are a JSON string, but tool arguments are an object",
        "send an object keyed by parameter name",
    )
