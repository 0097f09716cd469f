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


def redacted(value: Any) -> Any:
    """``value`` with the value of every member whose name looks sensitive, at any depth,
    replaced by its :func:`fingerprint`, so that quoting an object does not leak its
    ``password``. ``value`` itself comes back when nothing in it is hidden."""
    return _redacted(value, 0)


#: Containers nested deeper than this are hidden whole rather than searched.
_SEARCH_DEPTH: Final = 100


def _redacted(value: Any, depth: int) -> Any:
    if isinstance(value, dict):
        if depth > _SEARCH_DEPTH:
            return fingerprint(value)
        members: dict[Any, Any] = {}
        changed = False
        for key, item in value.items():
            shown = fingerprint(item) if is_sensitive(key) else _redacted(item, depth + 1)
            changed = changed or shown is not item
            members[key] = shown
        return members if changed else value
    if isinstance(value, list):
        if depth > _SEARCH_DEPTH:
            return fingerprint(value)
        items = [_redacted(item, depth + 1) for item in value]
        return items if any(a is not b for a, b in zip(items, value, strict=True)) else value
    return value


@lru_cache(maxsize=8192)  # the same few paths come back in every report
def pointer_is_sensitive(pointer: str) -> bool:
    """Whether any member on a JSON Pointer path has a sensitive-looking name."""
    return any(is_sensitive(token) for token in pointer.split("/") if token and not token.isdigit())
