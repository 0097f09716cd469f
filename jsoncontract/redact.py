"""Keep secrets out of reports.

Values of members whose names look sensitive (token, password, secret, authorization,
api_key, email...) are shown as a short, stable hash, so two reports can still be compared
without either one leaking the value. ``--show-values`` turns this off.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from typing import Any, Final

import orjson

_SENSITIVE: Final = re.compile(
    r"(?i)(pass(word|wd|phrase)?|secret|token|api[_-]?key|apikey|auth(orization)?|"
    r"credential|cookie|session|private[_-]?key|e[_-]?mail|ssn|card[_-]?number|cvv|pin$)"
)


def is_sensitive(name: str | None) -> bool:
    """Whether a member name looks like it holds a secret or personal data."""
    return bool(name) and _SENSITIVE.search(name) is not None  # type: ignore[arg-type]


def fingerprint(value: Any) -> str:
    """A short stable hash standing in for a hidden value: ``<redacted sha256:1a2b3c4d>``."""
    try:
        data = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # orjson.JSONEncodeError: lone surrogates, or deeper than orjson writes
        try:
            data = repr(value).encode("utf-8", "surrogatepass")
        except RecursionError:
            return "<redacted: nested too deeply to hash>"
    return f"<redacted sha256:{hashlib.sha256(data).hexdigest()[:8]}>"


@lru_cache(maxsize=8192)  # the same few paths come back in every report
def pointer_is_sensitive(pointer: str) -> bool:
    """Whether any member on a JSON Pointer path has a sensitive-looking name."""
    return any(is_sensitive(token) for token in pointer.split("/") if token and not token.isdigit())
