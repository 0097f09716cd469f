"""Which known word a misspelt one was meant to be: every "did you mean" in jsoncontract.

One policy, whatever is misspelt (a tool, a property, an enum value, a config key, a
keyword, a format, a lint rule), so that the same slip gets the same answer everywhere:

1. Case and separators do not count: an option equal to the word ignoring case is the
   answer, else one equal to it ignoring separators as well (``searchInvoices``,
   ``search_invoices`` and ``Search-Invoices`` are one word).
2. A word that begins exactly one option, and is three characters long at least, is an
   abbreviation of it (``int`` for ``integer``, ``str`` for ``string``).
3. Otherwise an option is a candidate when the two differ by at most one edit (a
   character added, dropped or replaced) per three characters of the shorter one, ignoring
   case: ``priorty``, ``exprss``, ``url`` for ``uri``. A longer word that merely holds an
   option is a different word (``format_hint`` is not a misspelt ``format``, nor ``units``
   a misspelt ``uniqueItems``). The most similar candidate wins (difflib's ratio), then
   the one sharing the longer beginning with the word, then the first listed (a set is
   read in sorted order).

Edits are counted from difflib's matching blocks: each edit leaves at most two characters
of the two words outside them (a replaced character, one on each side), so a pair is close
enough when at most twice the allowed edits are left out.

Checks meet the same slips over and over (a model that writes ``priorty`` once writes it in
every call, and a renamed tool is called all day), while difflib takes from tens of
microseconds to milliseconds to match one word against a tool list. So answers are
remembered, for words short enough to keep.

>>> did_you_mean("priorty", ["priority", "notes"])
'priority'
>>> did_you_mean("Search-Invoices", ["searchInvoices", "search_invoice"])
'searchInvoices'
>>> did_you_mean("str", ["string", "number"]), did_you_mean("format_hint", ["format"])
('string', None)
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Any, Final

#: One edit is allowed per this many characters of the shorter word (one at least).
CHARACTERS_PER_EDIT: Final = 3
#: The shortest beginning of an option taken as its abbreviation.
SHORTEST_ABBREVIATION: Final = 3
#: The longest word whose answer is remembered (a payload may hold huge strings).
_REMEMBERED: Final = 100
_SEPARATORS: Final = re.compile(r"[\W_]+")


def fold(word: str) -> str:
    """``word`` without case or separators: what :func:`did_you_mean` compares.

    >>> fold("X-Api_Key"), fold("date time")
    ('xapikey', 'datetime')
    """
    return _SEPARATORS.sub("", word.casefold())


def did_you_mean(word: str, options: Iterable[Any]) -> str | None:
    """The option ``word`` was probably meant to be, or ``None`` (options that are not
    strings are passed over)."""
    if isinstance(options, set | frozenset):
        options = sorted(o for o in options if isinstance(o, str))
    known = tuple(options)
    if len(word) > _REMEMBERED:
        return _best.__wrapped__(word, known)
    try:
        return _best(word, known)
    except TypeError:  # an unhashable option (an enum may list objects): not remembered
        return _best.__wrapped__(word, known)


@lru_cache(maxsize=4096)
def _best(word: str, options: tuple[str, ...]) -> str | None:
    lowered = word.casefold()
    folded = fold(word)
    options = tuple(o for o in options if isinstance(o, str))
    same_letters: str | None = None
    for option in options:
        other = option.casefold()
        if other == lowered:
            return option
        if same_letters is None and fold(option) == folded:
            same_letters = option
    if same_letters is not None:
        return same_letters
    if len(lowered) >= SHORTEST_ABBREVIATION:
        started = [o for o in options if o.casefold().startswith(lowered)]
        if len(started) == 1:
            return started[0]
    matcher = SequenceMatcher()
    matcher.set_seq2(lowered)
    best: tuple[float, int] | None = None
    found: str | None = None
    for option in options:
        other = option.casefold()
        matcher.set_seq1(other)
        if not _within_edits(matcher, lowered, other):
            continue
        key = (matcher.ratio(), _shared_start(lowered, other))
        if best is None or key > best:
            best, found = key, option
    return found


def _within_edits(matcher: SequenceMatcher[str], word: str, option: str) -> bool:
    """Whether two case-folded words differ by at most one edit per
    :data:`CHARACTERS_PER_EDIT` characters of the shorter (one at least)."""
    total = len(word) + len(option)
    # characters outside the matching blocks: a replacement leaves one on each side
    most = 2 * max(1, min(len(word), len(option)) // CHARACTERS_PER_EDIT)
    # the quick ratios bound the real one from above: cheap ways to say no
    if total * (1 - matcher.real_quick_ratio()) > most + 1e-9:
        return False
    if total * (1 - matcher.quick_ratio()) > most + 1e-9:
        return False
    matched = sum(block.size for block in matcher.get_matching_blocks())
    return total - 2 * matched <= most


def _shared_start(a: str, b: str) -> int:
    size = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        size += 1
    return size


__all__ = ["CHARACTERS_PER_EDIT", "SHORTEST_ABBREVIATION", "did_you_mean", "fold"]
