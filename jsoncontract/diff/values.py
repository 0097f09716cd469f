"""Showing values in a diff: compact JSON, with sensitive values replaced by a hash.

A value is hidden when its own path looks sensitive (``/password``, ``/auth/token``), and
inside a container every member whose name looks sensitive is hidden, so a dropped
``/user`` object does not leak its ``email``: the rules of :mod:`jsoncontract.masking`, as in
every report. ``--show-values`` turns this off.
"""

from __future__ import annotations

from typing import Any, Final

import orjson

from jsoncontract.masking import is_placeholder, redacted
from jsoncontract.pointer import ABSENT

#: Longest text kept for one shown value (the text report cuts further to its columns).
SHOWN_LIMIT: Final = 240


def redact_value(value: Any, path: str | None) -> Any:
    """The value with everything sensitive replaced by a placeholder (:data:`ABSENT`, a
    side where the member is not there, stays as it is)."""
    if value is ABSENT:
        return value
    return redacted(value, path)


def shown(value: Any, limit: int = SHOWN_LIMIT) -> str:
    """Compact JSON text of a value, cut to ``limit`` characters with an ellipsis."""
    if is_placeholder(value):
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
