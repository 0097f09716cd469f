"""Which known word a misspelt one was meant to be.

Checks meet the same slips over and over (a model that writes ``priorty`` once writes it in
every call, and a renamed tool is called all day), while difflib takes from tens of
microseconds to milliseconds to match one word against a tool list. So answers are
remembered, for words short enough to keep.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from functools import lru_cache
from typing import Final

#: The longest word whose answer is remembered (a payload may hold huge strings).
_REMEMBERED: Final = 100


def closest(word: str, options: Iterable[str]) -> str | None:
    """The option most like ``word`` (difflib similarity at least 0.6), or ``None``."""
    known = tuple(options)
    if len(word) > _REMEMBERED:
        return _closest.__wrapped__(word, known)
    return _closest(word, known)


@lru_cache(maxsize=4096)
def _closest(word: str, options: tuple[str, ...]) -> str | None:
    match = difflib.get_close_matches(word, options, n=1, cutoff=0.6)
    return match[0] if match else None
