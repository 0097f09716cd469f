"""Regular expressions taken from schemas, matched in bounded time.

A schema's ``pattern`` is input: ``^(a+)+$`` against forty ``a`` and a ``!`` takes Python's
backtracking engine longer than any run should. Every pattern the project matches that it
did not write itself goes through :func:`search`, which uses jsonschema-rs's engine: ECMA-262
syntax (as JSON Schema specifies), a linear-time automaton for patterns without lookaround or
back-references and a backtracking limit for those with them (a pattern over the limit counts
as not matching).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import jsonschema_rs


class InvalidPattern(ValueError):
    """The pattern is not an ECMA-262 regular expression the engine can read."""


def search(pattern: str, text: str) -> bool:
    """Whether ``pattern`` matches somewhere in ``text`` (unanchored, as JSON Schema means).

    >>> search("^(a+)+$", "a" * 40 + "!"), search("[0-9]{3}", "id-123")
    (False, True)

    Raises:
        InvalidPattern: ``pattern`` cannot be compiled.
    """
    return _matcher(pattern)(text)


@lru_cache(maxsize=4096)
def _matcher(pattern: str) -> Callable[[str], bool]:
    try:
        validator = jsonschema_rs.validator_for({"pattern": pattern})
    except (jsonschema_rs.ValidationError, ValueError):
        raise InvalidPattern(f"invalid regular expression {pattern!r}") from None
    is_valid: Callable[[str], bool] = validator.is_valid
    return is_valid


__all__ = ["InvalidPattern", "search"]
