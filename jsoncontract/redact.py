"""Keep secrets out of reports.

Every report that quotes a payload hides secrets through this module, in one of three ways:

- :func:`redacted`, for a value about to be shown (a value in a message, a cell of the diff
  table, a value in a JSON Patch, a repaired preview): the whole value when its pointer
  names a sensitive member, else every sensitive member inside it, at any depth;
- :func:`redacted_text`, for a message that may quote strings taken from a value (the
  messages business rules write);
- :func:`pointer_is_sensitive`, for code that only needs to know (a hint that would repeat
  the value).

A hidden value is replaced by its :func:`fingerprint`, a short stable hash, so two reports
can still be compared without either one leaking the value. ``--show-values`` turns all of
this off.

What is secret is decided in one place: :func:`is_sensitive`, by the member's name
(token, password, secret, authorization, api_key, email...). Values are not inspected: a
key pasted into a member called ``note`` is shown. Recognising secrets by their form
(provider key formats, JWTs, bearer tokens, PEM blocks) would be one table of patterns
consulted next to the name check in :func:`_redacted` and :func:`secrets_in`, which every
report above goes through.

>>> redacted({"user": "bob", "login": {"password": "hunter2"}})
{'user': 'bob', 'login': {'password': '<redacted sha256:4ddbb67b>'}}
>>> redacted("hunter2", "/login/password")
'<redacted sha256:4ddbb67b>'
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any, Final, TypeGuard

import orjson

from jsoncontract.pointer import pointer_tokens

#: Member names whose values are hidden (searched anywhere in the name, any case).
SENSITIVE_NAMES: Final = re.compile(
    r"(?i)(pass(word|wd|phrase)?|secret|token|api[_-]?key|apikey|auth(orization)?|"
    r"credential|cookie|session|private[_-]?key|e[_-]?mail|ssn|card[_-]?number|cvv|pin$)"
)
#: Containers nested deeper than this are hidden whole rather than searched.
SEARCH_DEPTH: Final = 100
#: Strings shorter than this are not searched for in messages (they match too much text).
_SHORTEST_QUOTED: Final = 4
_PREFIXES: Final = ("<redacted sha256:", "<redacted: ")


@lru_cache(maxsize=8192)  # payloads repeat their member names
def is_sensitive(name: str | None) -> bool:
    """Whether a member name looks like it holds a secret or personal data.

    >>> is_sensitive("X-Api-Key"), is_sensitive("user_email"), is_sensitive("city")
    (True, True, False)
    """
    return bool(name) and SENSITIVE_NAMES.search(name) is not None  # type: ignore[arg-type]


@lru_cache(maxsize=8192)  # the same few paths come back in every report
def pointer_is_sensitive(pointer: str) -> bool:
    """Whether any member on a JSON Pointer path has a sensitive-looking name (array
    indexes are not names)."""
    return any(is_sensitive(t) for t in pointer_tokens(pointer) if t and not t.isdigit())


def fingerprint(value: Any) -> str:
    """A short stable hash standing in for a hidden value: ``<redacted sha256:1a2b3c4d>``.

    Member order does not change it; a value too deep to hash gets a fixed text instead.
    """
    try:
        data = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # orjson.JSONEncodeError: lone surrogates, or deeper than orjson writes
        try:
            data = repr(value).encode("utf-8", "surrogatepass")
        except RecursionError:
            return "<redacted: nested too deeply to hash>"
    return f"<redacted sha256:{hashlib.sha256(data).hexdigest()[:8]}>"


def is_fingerprint(value: Any) -> TypeGuard[str]:
    """Whether ``value`` is what :func:`fingerprint` puts in place of a hidden value."""
    return isinstance(value, str) and value.startswith(_PREFIXES) and value.endswith(">")


def redacted(value: Any, pointer: str | None = None) -> Any:
    """``value`` as a report may show it.

    Its :func:`fingerprint` when ``pointer`` (where the value sits) names a sensitive
    member; otherwise the value with every member whose name looks sensitive, at any depth,
    replaced by its fingerprint, so that quoting an object does not leak its ``password``.
    Containers deeper than :data:`SEARCH_DEPTH` are hidden whole. ``value`` itself comes
    back, not a copy, when nothing in it is hidden.
    """
    if pointer and pointer_is_sensitive(pointer):
        return fingerprint(value)
    if isinstance(value, dict | list):
        return _redacted(value, 0)
    return value


def _redacted(value: Any, depth: int) -> Any:
    """:func:`redacted` inside a container: copied only when something in it is hidden."""
    if depth > SEARCH_DEPTH:
        return fingerprint(value)
    out: Any = None
    if isinstance(value, dict):
        for key, item in value.items():
            if is_sensitive(key):
                shown = fingerprint(item)
            elif isinstance(item, dict | list):
                shown = _redacted(item, depth + 1)
                if shown is item:
                    continue
            else:
                continue
            if out is None:
                out = dict(value)
            out[key] = shown
    else:
        for index, item in enumerate(value):
            if isinstance(item, dict | list):
                shown = _redacted(item, depth + 1)
                if shown is not item:
                    if out is None:
                        out = list(value)
                    out[index] = shown
    return value if out is None else out


def secrets_in(value: Any) -> Iterator[str]:
    """The strings a report must not quote from ``value``: those :func:`redacted` would
    hide (held by a member whose name looks sensitive, or anywhere inside one), in document
    order. Walked without recursion: arguments may nest as deep as a parser allows.

    >>> list(secrets_in({"to": "bob", "auth": {"token": "t-123456", "kind": "basic"}}))
    ['t-123456', 'basic']
    """
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        item, hidden = stack.pop()
        if isinstance(item, dict):
            stack.extend(
                (member, hidden or is_sensitive(key)) for key, member in reversed(item.items())
            )
        elif isinstance(item, list):
            stack.extend((member, hidden) for member in reversed(item))
        elif hidden and isinstance(item, str) and len(item) >= _SHORTEST_QUOTED:
            yield item


def redacted_text(text: str, value: Any) -> str:
    """``text`` with every string of :func:`secrets_in` ``value`` replaced by its
    fingerprint (for messages written by rules, which may quote the arguments).

    >>> redacted_text("token t-123456 expired", {"token": "t-123456"})
    'token <redacted sha256:e5b241a3> expired'
    """
    for secret in secrets_in(value):
        if secret in text:
            text = text.replace(secret, fingerprint(secret))
    return text


__all__ = [
    "SEARCH_DEPTH",
    "SENSITIVE_NAMES",
    "fingerprint",
    "is_fingerprint",
    "is_sensitive",
    "pointer_is_sensitive",
    "redacted",
    "redacted_text",
    "secrets_in",
]
