"""Showing values in a diff: compact JSON, with sensitive values replaced by a hash.

A value is hidden when its own path looks sensitive (``/password``, ``/auth/token``), and
inside a container every member whose name looks sensitive is hidden, so a dropped
``/user`` object does not leak its ``email``. ``--show-values`` turns this off.
"""

from __future__ import annotations

import functools
from typing import Any, Final

import orjson

from jsoncontract.pointer import ABSENT
from jsoncontract.redact import fingerprint, is_sensitive

#: Longest text kept for one shown value (the text report cuts further to its columns).
SHOWN_LIMIT: Final = 240


#: Whether one member name looks sensitive, remembered: paths repeat their names.
_sensitive_name = functools.lru_cache(maxsize=4096)(is_sensitive)


def path_is_sensitive(path: str) -> bool:
    """Whether any member on a JSON Pointer path has a sensitive-looking name."""
    return any(_sensitive_name(token) for token in path.split("/") if token and not token.isdigit())


def redact_value(value: Any, path: str | None, *, depth: int = 0) -> Any:
    """The value with everything sensitive replaced by a fingerprint."""
    if value is ABSENT:
        return value
    if path and path_is_sensitive(path):
        return fingerprint(value)
    if type(value) not in (dict, list):
        return value
    return _redact_inside(value, depth)


def _redact_inside(value: Any, depth: int) -> Any:
    if depth > 100:
        return value
    if isinstance(value, dict):
        if not any(_sensitive_name(k) for k in value) and not any(
            isinstance(v, dict | list) for v in value.values()
        ):
            return value
        return {
            k: fingerprint(v) if _sensitive_name(k) else _redact_inside(v, depth + 1)
            for k, v in value.items()
        }
    if isinstance(value, list):
        if not any(isinstance(v, dict | list) for v in value):
            return value
        return [_redact_inside(v, depth + 1) for v in value]
    return value


def shown(value: Any, limit: int = SHOWN_LIMIT) -> str:
    """Compact JSON text of a value, cut to ``limit`` characters with an ellipsis."""
    if isinstance(value, str) and value.startswith("<redacted sha256:"):
        return value
    try:
        text = orjson.dumps(value).decode()
    except (TypeError, orjson.JSONEncodeError):
        try:
            text = repr(value)
        except RecursionError:
            text = "[…nested too deep to show…]"
    if len(text) > limit:
        return text[: limit - 1] + "…"
    return text
