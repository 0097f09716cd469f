"""What the tap of a :class:`~jsoncontract.live.client.Connection` says of a message the
SDK could not read: what the server sent, which request it answers, and why it is not
JSON-RPC, in words."""

from __future__ import annotations

import re
from typing import Any, Final

#: ``{"jsonrpc": "2.0", "id": N`` at the start of a message, as SDKs write them.
LEADING_ID: Final = re.compile(
    r'\s*\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*(-?\d{1,18})\s*[,}]'
)


def input_of(exc: Exception) -> Any:
    """What the server sent, as far as a parse error tells: the text or the JSON value."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            found = errors()
        except Exception:  # pragma: no cover - errors() of a foreign exception type
            found = []
        if found:
            return found[0].get("input")
    return str(exc)


def undecoded(text: str) -> bool:
    """Whether a line holds bytes that were not UTF-8 (read as lone surrogates)."""
    return any("\udc80" <= c <= "\udcff" for c in text)


def too_deep(exc: Exception) -> bool:
    """Whether the SDK could not read a message because of its depth (valid JSON)."""
    errors = getattr(exc, "errors", None)
    if not callable(errors):
        return False
    try:
        found = errors()
    except Exception:  # pragma: no cover - errors() of a foreign exception type
        return False
    return bool(found) and "recursion limit" in str(found[0].get("msg", ""))


def bytes_shown(text: str) -> str:
    """A line read with ``surrogateescape``, its bytes that are not UTF-8 written ``\\xNN``."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def id_of(text: str) -> Any:
    """The ``id`` of a message the SDK could not read (a line read with ``surrogateescape``,
    its stray bytes replaced; a message too deep for the SDK), else ``None``."""
    import orjson

    try:
        value = orjson.loads(text.encode("utf-8", "surrogateescape").decode("utf-8", "replace"))
    except orjson.JSONDecodeError:
        found = LEADING_ID.match(text)  # deeper than orjson reads too: the usual member order
        return int(found.group(1)) if found else None
    return value.get("id") if isinstance(value, dict) else None


def text_of(raw: Any) -> str:
    if isinstance(raw, str):
        return raw
    import orjson

    try:
        return orjson.dumps(raw).decode()
    except TypeError:
        return repr(raw)


def why_invalid(raw: Any) -> str:
    """Why a message is not JSON-RPC, in words."""
    if isinstance(raw, str):
        return "not JSON: stdout is for JSON-RPC messages only; log to stderr"
    if not isinstance(raw, dict):
        return "a JSON value that is not a JSON-RPC message object"
    from jsoncontract.pipeline.answers import error_object_problems

    if "error" in raw:
        problems = error_object_problems(raw.get("error"))
        if problems:
            return "a malformed error object: " + "; ".join(problems)
    if raw.get("jsonrpc") != "2.0":
        return 'not JSON-RPC 2.0 ("jsonrpc": "2.0" is missing)'
    if "result" in raw and "error" in raw:
        return "a response with both result and error"
    return "not a valid JSON-RPC message"


def first_error(exc: Any) -> str:
    errors = exc.errors()
    if not errors:
        return str(exc)
    first = errors[0]
    where = ".".join(str(p) for p in first.get("loc", ())) or "(root)"
    return f"{where}: {first.get('msg', '')}"
