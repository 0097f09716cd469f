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
remembered, for words short enough to keep, and one process makes at most
:data:`MAX_COMPARISONS` close-match comparisons.

>>> did_you_mean("priorty", ["priority", "notes"])
'priority'
>>> did_you_mean("Search-Invoices", ["searchInvoices", "search_invoice"])
'searchInvoices'
>>> did_you_mean("str", ["string", "number"]), did_you_mean("format_hint", ["format"])
('string', None)
"""

from __future__ import annotations

import re
from bisect import bisect_left
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
#: Close-match comparisons (step 3) one process makes at most, a few seconds of work: a
#: trace calling 20,000 different unknown tools out of 2,000 would otherwise spend minutes
#: on suggestions. Past it, only steps 1 and 2 answer.
MAX_COMPARISONS: Final = 300_000
#: Options indexed at most; a longer list (a million-value enum) is searched for the word
#: ignoring case, in one pass, and nothing closer (an index of it would take hundreds of MB).
MAX_INDEXED: Final = 50_000
_comparisons = 0


def fold(word: str) -> str:
    """``word`` without case or separators: what :func:`did_you_mean` compares.

    >>> fold("X-Api_Key"), fold("date time")
    ('xapikey', 'datetime')
    """
    return _SEPARATORS.sub("", word.casefold())


def reset_budget() -> None:
    """Start a new run's count of close-match comparisons (:data:`MAX_COMPARISONS`)."""
    global _comparisons
    _comparisons = 0
    _best.cache_clear()


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
    strings = tuple(o for o in options if isinstance(o, str))
    lowered = word.casefold()
    if len(strings) > MAX_INDEXED:  # a huge enum: no index, no close matches, one pass
        return next((o for o in strings if o.casefold() == lowered), None)
    index = _index(strings)
    exact = index.lowered.get(lowered)
    if exact is not None:
        return exact
    same_letters = index.folded.get(fold(word))
    if same_letters is not None:
        return same_letters
    if len(lowered) >= SHORTEST_ABBREVIATION:
        start = bisect_left(index.starts, (lowered,))
        started = []
        for other, option in index.starts[start : start + 2]:
            if other.startswith(lowered):
                started.append(option)
        if len(started) == 1:
            return started[0]
    global _comparisons
    candidates = index.candidates(lowered)
    if _comparisons + len(candidates) > MAX_COMPARISONS:
        return None  # the run's budget for close matches is spent
    _comparisons += len(candidates)
    matcher = SequenceMatcher()
    matcher.set_seq2(lowered)
    best: tuple[float, int] | None = None
    found: str | None = None
    for option, other in candidates:
        matcher.set_seq1(other)
        if not _within_edits(matcher, lowered, other):
            continue
        key = (matcher.ratio(), _shared_start(lowered, other))
        if best is None or key > best:
            best, found = key, option
    return found


class _Index:
    """A list of options prepared for many look-ups: by case-folded and by folded form,
    sorted for abbreviations, and by length, so that a word is compared only with the
    options whose length is within its allowed edits."""

    __slots__ = ("by_length", "folded", "lowered", "starts")

    def __init__(self, options: tuple[str, ...]) -> None:
        self.lowered: dict[str, str] = {}
        self.folded: dict[str, str] = {}
        self.by_length: dict[int, list[tuple[int, str, str]]] = {}
        for position, option in enumerate(dict.fromkeys(options)):
            other = option.casefold()
            self.lowered.setdefault(other, option)
            self.folded.setdefault(fold(option), option)
            self.by_length.setdefault(len(other), []).append((position, option, other))
        self.starts = sorted((other, option) for other, option in self.lowered.items())

    def candidates(self, lowered: str) -> list[tuple[str, str]]:
        """``(option, case-folded option)`` for the options whose length leaves them within
        the allowed edits of ``lowered`` (the length alone bounds the similarity), in the
        order given."""
        most = 2 * max(1, len(lowered) // CHARACTERS_PER_EDIT)
        near = [
            entry
            for size in range(len(lowered) - most, len(lowered) + most + 1)
            for entry in self.by_length.get(size, ())
        ]
        near.sort()
        return [(option, other) for _, option, other in near]


@lru_cache(maxsize=64)
def _index(options: tuple[str, ...]) -> _Index:
    return _Index(options)


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


__all__ = [
    "CHARACTERS_PER_EDIT",
    "MAX_COMPARISONS",
    "MAX_INDEXED",
    "SHORTEST_ABBREVIATION",
    "did_you_mean",
    "fold",
    "reset_budget",
]
