"""Comparing two JSON values and classifying every difference.

The comparer walks both values together and yields :class:`Entry` values: one per
difference, each with the JSON Pointer on both sides, and, in *align* mode (for the
side-by-side view), one per equal leaf as well. It is written for this job rather than
borrowed: it knows JSON types exactly (``1``, ``1.0`` and ``true`` are three values; Python
says they are equal), recognises coercions and re-encodings, and compares arrays as lists,
sets, multisets or objects matched by key, per path. Equal subtrees are skipped with one
C-level comparison, so a call whose hops agree costs two ``==`` and two serialisations.

Classification of a changed value:

- ``coerced``: another JSON type with the same meaning (``"5"``/``5``, ``"true"``/``true``,
  ``1.0``/``1``, ``1``/``true``, ``"null"``/``null``);
- ``re-encoded``: an object or array on one side, its JSON text on the other; the
  comparison then continues inside the decoded text, so what else changed is still shown;
- ``value-changed``: anything else.

Arrays (per path, from :class:`ArrayRule`): ``list`` (the default) aligns elements by a
longest-common-subsequence match (patience anchors on long arrays) and reports a
permutation as ``reordered``; ``set`` and ``multiset`` ignore order (a permutation is listed
as an expected ``reordered``); ``key`` matches objects by the named members, as jd's
``-setkeys`` does.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any, Final

import orjson

from jsoncontract._align import align_sequences
from jsoncontract._json import json_type
from jsoncontract.diff.model import DiffCode
from jsoncontract.diff.paths import PathRules, PathSet
from jsoncontract.pointer import ABSENT, escape_pointer_token

#: Below this depth, subtrees are compared whole (bounded recursion, whatever the input).
MAX_WALK_DEPTH: Final = 200
_SORT: Final = orjson.OPT_SORT_KEYS
_NUMBER: Final = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")

_DROPPED: Final = DiffCode.DROPPED
_ADDED: Final = DiffCode.ADDED
_CHANGED: Final = DiffCode.VALUE_CHANGED
_COERCED: Final = DiffCode.COERCED
_REENCODED: Final = DiffCode.RE_ENCODED
_REORDERED: Final = DiffCode.REORDERED


@dataclass(frozen=True, slots=True)
class ArrayRule:
    """How the arrays at some paths compare: ``list``, ``set``, ``multiset`` or ``key``.

    ``keys`` are the members that identify an object in ``key`` mode; ``origin`` names
    where the rule was declared (shown on the differences it explains).
    """

    mode: str
    keys: tuple[str, ...] = ()
    origin: str = ""

    def describe(self) -> str:
        """``set``, ``multiset`` or ``matched by id``."""
        if self.mode == "key":
            return "matched by " + ", ".join(self.keys)
        return self.mode


@dataclass(frozen=True, slots=True)
class CompareOptions:
    """What the comparer ignores and how it treats numbers and arrays."""

    tolerance: float = 0.0
    ignore: PathSet = field(default_factory=lambda: PathSet(()))
    arrays: PathRules[ArrayRule] = field(default_factory=PathRules)


class Entry:
    """One aligned position: a difference (``code`` set) or, in align mode, an equal leaf.

    ``a_path``/``b_path`` are the pointers in the earlier and later value (``None`` on
    the side where the member is absent); ``a``/``b`` the values (:data:`ABSENT` there).
    """

    __slots__ = ("a", "a_path", "b", "b_path", "code", "detail", "expected", "rule")

    def __init__(
        self,
        code: DiffCode | None,
        a_path: str | None,
        b_path: str | None,
        a: Any,
        b: Any,
        detail: str | None = None,
        expected: bool = False,
        rule: str | None = None,
    ) -> None:
        self.code = code
        self.a_path = a_path
        self.b_path = b_path
        self.a = a
        self.b = b
        self.detail = detail
        self.expected = expected
        self.rule = rule

    def __repr__(self) -> str:
        mark = " expected" if self.expected else ""
        where = f"{self.a_path!r} -> {self.b_path!r}"
        return f"Entry({self.code}{mark} {where}: {self.a!r} -> {self.b!r})"


def canonical(value: Any) -> bytes:
    """Exact, order-independent bytes of a JSON value (types kept apart: 1, 1.0, true).

    Values orjson cannot write (integers beyond 64 bits, nesting beyond 255 levels) take a
    slower exact path; a value nested too deep even for that gets a key of its own, so it
    matches only itself.
    """
    try:
        return orjson.dumps(value, option=_SORT)
    except (orjson.JSONEncodeError, TypeError):
        try:
            return repr(_sorted(value)).encode("utf-8", "surrogatepass")
        except RecursionError:
            return b"\x00" + str(id(value)).encode()


def _sorted(value: Any) -> Any:
    """An order-independent, type-tagged form of a value: objects and arrays are told
    apart as well as scalars (``{}`` is not ``[]``, ``1`` is not ``1.0``)."""
    if isinstance(value, dict):
        pairs = sorted(((k, _sorted(v)) for k, v in value.items()), key=lambda kv: kv[0])
        return ("object", pairs)
    if isinstance(value, list):
        return ("array", [_sorted(v) for v in value])
    return (type(value).__name__, value)


def same(a: Any, b: Any) -> bool:
    """Strict JSON equality: like ``==``, but ``1``, ``1.0`` and ``true`` differ.

    >>> same({"a": [1, 2]}, {"a": [1, 2]}), same(1, 1.0), same([True], [1])
    (True, False, False)
    """
    if a is b:
        return True
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is dict or kind is list:
        try:
            if a != b:
                return False
        except RecursionError:  # deeper than Python compares: let the walk descend
            return False
        try:
            return orjson.dumps(a, option=_SORT) == orjson.dumps(b, option=_SORT)
        except (orjson.JSONEncodeError, TypeError):
            try:
                return bool(_sorted(a) == _sorted(b))
            except RecursionError:
                return True  # equal by ==; too deep to tell 1 from 1.0 inside
    return bool(a == b)


def decode_json_text(text: str) -> Any:
    """The object or array a string holds as JSON text, or :data:`ABSENT`."""
    head = text.lstrip()[:1]
    if head not in ("{", "["):
        return ABSENT
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return ABSENT


def _decimal(text: str) -> Decimal | None:
    text = text.strip()
    if not _NUMBER.fullmatch(text):
        return None
    try:
        return Decimal(text)
    except InvalidOperation:  # pragma: no cover - the pattern admits only valid numbers
        return None


def _numbers_equal(x: float, y: float, tolerance: float) -> bool:
    if tolerance:
        return abs(x - y) <= tolerance
    return x == y


def same_meaning(a: Any, b: Any, tolerance: float = 0.0) -> bool:
    """Whether two values of different JSON types mean the same thing (a coercion).

    >>> same_meaning("5", 5), same_meaning(1, True), same_meaning(0, True)
    (True, True, False)
    >>> same_meaning("2.50", 2.5), same_meaning("null", None), same_meaning("1e3", 1000)
    (True, True, True)
    """
    ta, tb = type(a), type(b)
    if ta is bool or tb is bool:
        flag, other = (a, b) if ta is bool else (b, a)
        if type(other) is str:
            return other.strip().lower() == ("true" if flag else "false")
        if type(other) in (int, float):
            return other in (0, 1) and bool(other) is flag
        return False
    if ta in (int, float) and tb in (int, float):
        return _numbers_equal(a, b, tolerance)
    if (ta is str and tb in (int, float)) or (tb is str and ta in (int, float)):
        text, number = (a, b) if ta is str else (b, a)
        parsed = _decimal(text)
        if parsed is None:
            return False
        if tolerance:
            return bool(abs(float(parsed) - number) <= tolerance)
        try:
            return parsed == Decimal(repr(number)) if type(number) is float else parsed == number
        except InvalidOperation:  # pragma: no cover - repr of a finite float is a number
            return False
    if a is None or b is None:
        other = b if a is None else a
        return type(other) is str and other.strip().lower() == "null"
    return False


def classify(a: Any, b: Any, tolerance: float = 0.0) -> tuple[DiffCode, str | None]:
    """The code of a changed scalar (or of a type change), with ``type → type`` detail.

    >>> classify(5, "5")
    (<DiffCode.COERCED: 'coerced'>, 'integer → string')
    >>> classify("2025-10-01", "01/10/2025")
    (<DiffCode.VALUE_CHANGED: 'value-changed'>, None)
    """
    ta, tb = json_type(a), json_type(b)
    detail = f"{ta} → {tb}" if ta != tb else None
    if ta != tb and same_meaning(a, b, tolerance):
        return _COERCED, detail
    return _CHANGED, detail


class Comparer:
    """Compares two JSON values under one set of options.

    Arguments:
        options: ignored paths, numeric tolerance, array rules.
        align: also yield an entry for every equal leaf (for the side-by-side view).
    """

    __slots__ = ("align", "arrays", "ignore", "options", "tolerance")

    def __init__(self, options: CompareOptions, *, align: bool = False) -> None:
        self.options = options
        self.align = align
        self.tolerance = options.tolerance
        self.ignore = options.ignore if options.ignore else None
        self.arrays = options.arrays if options.arrays else None

    def compare(self, a: Any, b: Any, a_path: str = "", b_path: str = "") -> list[Entry]:
        """Every difference between ``a`` and ``b`` (and equal leaves in align mode)."""
        out: list[Entry] = []
        if not self.align and same(a, b):
            return out
        self._walk(a, b, a_path, b_path, 0, out)
        return out

    # -- the walk --------------------------------------------------------------------------

    def _walk(self, a: Any, b: Any, pa: str, pb: str, depth: int, out: list[Entry]) -> None:
        kind = type(a)
        if kind is type(b):
            if kind is dict or kind is list:
                if same(a, b):
                    if self.align:
                        self._equal(a, pa, pb, depth, out)
                    return
                if depth >= MAX_WALK_DEPTH:
                    out.append(Entry(_CHANGED, pa, pb, a, b, "nested too deep to compare"))
                elif kind is dict:
                    self._dict(a, b, pa, pb, depth, out)
                else:
                    self._list(a, b, pa, pb, depth, out)
                return
            if a == b or (
                self.tolerance and kind in (int, float) and _numbers_equal(a, b, self.tolerance)
            ):
                if self.align:
                    out.append(Entry(None, pa, pb, a, b))
                return
            out.append(Entry(_CHANGED, pa, pb, a, b))
            return
        if kind is str or type(b) is str:
            text, other = (a, b) if kind is str else (b, a)
            if type(other) in (dict, list):
                decoded = decode_json_text(text)
                if type(decoded) is type(other):
                    encoded = kind is not str
                    name = json_type(other)
                    note = f"{name} → JSON text" if encoded else f"JSON text → {name}"
                    out.append(Entry(_REENCODED, pa, pb, a, b, note))
                    if encoded:
                        self._walk(a, decoded, pa, pb, depth + 1, out)
                    else:
                        self._walk(decoded, b, pa, pb, depth + 1, out)
                    return
        code, detail = classify(a, b, self.tolerance)
        out.append(Entry(code, pa, pb, a, b, detail))

    def _equal(self, value: Any, pa: str, pb: str, depth: int, out: list[Entry]) -> None:
        """Align-mode entries for every leaf of a subtree that is the same on both sides."""
        if type(value) is dict and value and depth < MAX_WALK_DEPTH:
            ignore = self.ignore
            for key, item in value.items():
                token = "/" + escape_pointer_token(key)
                if ignore is not None and (pa + token in ignore or pb + token in ignore):
                    continue
                self._equal(item, pa + token, pb + token, depth + 1, out)
        elif type(value) is list and value and depth < MAX_WALK_DEPTH:
            for index, item in enumerate(value):
                token = f"/{index}"
                self._equal(item, pa + token, pb + token, depth + 1, out)
        else:
            out.append(Entry(None, pa, pb, value, value))

    def _dict(
        self, a: dict[str, Any], b: dict[str, Any], pa: str, pb: str, depth: int, out: list[Entry]
    ) -> None:
        ignore = self.ignore
        walk = self._walk
        for key, item in a.items():
            token = "/" + escape_pointer_token(key)
            if ignore is not None and (pa + token in ignore or pb + token in ignore):
                continue
            if key in b:
                walk(item, b[key], pa + token, pb + token, depth + 1, out)
            else:
                out.append(Entry(_DROPPED, pa + token, None, item, ABSENT))
        for key, item in b.items():
            if key not in a:
                token = "/" + escape_pointer_token(key)
                if ignore is not None and (pa + token in ignore or pb + token in ignore):
                    continue
                out.append(Entry(_ADDED, None, pb + token, ABSENT, item))

    # -- arrays ----------------------------------------------------------------------------

    def _list(
        self, a: list[Any], b: list[Any], pa: str, pb: str, depth: int, out: list[Entry]
    ) -> None:
        rule = None
        if self.arrays is not None:
            rule = self.arrays.lookup(pa) or self.arrays.lookup(pb)
        if rule is not None and rule.mode == "key":
            self._keyed(a, b, pa, pb, depth, out, rule)
            return
        ka = self._keys(a, pa)
        kb = self._keys(b, pb)
        if rule is not None and rule.mode in ("set", "multiset"):
            self._unordered(a, b, ka, kb, pa, pb, depth, out, rule)
            return
        if ka == kb:  # equal but for ignored members
            for index in range(len(a)):
                self._walk(a[index], b[index], f"{pa}/{index}", f"{pb}/{index}", depth + 1, out)
            return
        if len(a) == len(b) and sorted(ka) == sorted(kb):
            shifted = sum(1 for x, y in zip(ka, kb, strict=True) if x != y)
            out.append(Entry(_REORDERED, pa, pb, a, b, f"the same {len(a)} items, {shifted} moved"))
            return
        ops = align_sequences(ka, kb)
        # an item that left one place and reappears in another has moved: not a change
        waiting: dict[bytes, list[int]] = {}
        for tag, _, _, j1, j2 in ops:
            if tag != "equal":
                for j in range(j1, j2):
                    waiting.setdefault(kb[j], []).append(j)
        moved: dict[int, int] = {}
        if waiting:
            for tag, i1, i2, _, _ in ops:
                if tag != "equal":
                    for i in range(i1, i2):
                        spots = waiting.get(ka[i])
                        if spots:
                            moved[i] = spots.pop(0)
        if moved:
            count = len(moved)
            detail = f"{count} item{'s' * (count != 1)} moved"
            out.append(Entry(_REORDERED, pa, pb, a, b, detail))
        taken = set(moved.values())
        walk = self._walk
        for tag, i1, i2, j1, j2 in ops:
            if tag == "equal":
                if self.align or self.ignore is not None:
                    for t in range(i2 - i1):
                        i, j = i1 + t, j1 + t
                        walk(a[i], b[j], f"{pa}/{i}", f"{pb}/{j}", depth + 1, out)
                continue
            left = [i for i in range(i1, i2) if i not in moved]
            right = [j for j in range(j1, j2) if j not in taken]
            paired = min(len(left), len(right))
            for i, j in zip(left[:paired], right[:paired], strict=True):
                walk(a[i], b[j], f"{pa}/{i}", f"{pb}/{j}", depth + 1, out)
            out.extend(Entry(_DROPPED, f"{pa}/{i}", None, a[i], ABSENT) for i in left[paired:])
            out.extend(Entry(_ADDED, None, f"{pb}/{j}", ABSENT, b[j]) for j in right[paired:])
        if self.align:
            for i, j in moved.items():
                walk(a[i], b[j], f"{pa}/{i}", f"{pb}/{j}", depth + 1, out)

    def _unordered(
        self,
        a: list[Any],
        b: list[Any],
        ka: list[bytes],
        kb: list[bytes],
        pa: str,
        pb: str,
        depth: int,
        out: list[Entry],
        rule: ArrayRule,
    ) -> None:
        multiset = rule.mode == "multiset"
        pairs: list[tuple[int, int]] = []
        unmatched_b: set[int] = set()
        if multiset:
            slots: dict[bytes, list[int]] = {}
            for j, key in enumerate(kb):
                slots.setdefault(key, []).append(j)
            taken: Counter[bytes] = Counter()
            for i, key in enumerate(ka):
                free = slots.get(key)
                if free and taken[key] < len(free):
                    pairs.append((i, free[taken[key]]))
                    taken[key] += 1
                else:
                    out.append(Entry(_DROPPED, f"{pa}/{i}", None, a[i], ABSENT))
            used = {j for _, j in pairs}
            unmatched_b = {j for j in range(len(b)) if j not in used}
        else:
            first_b: dict[bytes, int] = {}
            for j, key in enumerate(kb):
                first_b.setdefault(key, j)
            seen_a: set[bytes] = set()
            for i, key in enumerate(ka):
                if key in seen_a:
                    continue
                seen_a.add(key)
                if key in first_b:
                    pairs.append((i, first_b[key]))
                else:
                    out.append(Entry(_DROPPED, f"{pa}/{i}", None, a[i], ABSENT))
            set_a = set(ka)
            reported: set[bytes] = set()
            for j, key in enumerate(kb):
                if key not in set_a and key not in reported:
                    reported.add(key)
                    unmatched_b.add(j)
        out.extend(Entry(_ADDED, None, f"{pb}/{j}", ABSENT, b[j]) for j in sorted(unmatched_b))
        self._order(pairs, a, b, pa, pb, out, rule)
        if self.align or self.ignore is not None:
            for i, j in pairs:
                self._walk(a[i], b[j], f"{pa}/{i}", f"{pb}/{j}", depth + 1, out)

    def _keyed(
        self,
        a: list[Any],
        b: list[Any],
        pa: str,
        pb: str,
        depth: int,
        out: list[Entry],
        rule: ArrayRule,
    ) -> None:
        fields = rule.keys

        def identity(item: Any) -> bytes | None:
            if type(item) is not dict or any(f not in item for f in fields):
                return None
            return canonical([item[f] for f in fields])

        index_b: dict[bytes, int] = {}
        loose_b: list[int] = []
        for j, item in enumerate(b):
            key = identity(item)
            if key is None:
                loose_b.append(j)
            else:
                index_b.setdefault(key, j)
        pairs: list[tuple[int, int]] = []
        loose_a: list[int] = []
        used: set[int] = set()
        for i, item in enumerate(a):
            key = identity(item)
            if key is None:
                loose_a.append(i)
                continue
            partner = index_b.get(key)
            if partner is None or partner in used:
                out.append(Entry(_DROPPED, f"{pa}/{i}", None, item, ABSENT))
            else:
                used.add(partner)
                pairs.append((i, partner))
        # elements without the key members are matched by their whole value
        loose_index: dict[bytes, list[int]] = {}
        for j in loose_b:
            loose_index.setdefault(canonical(b[j]), []).append(j)
        for i in loose_a:
            free = loose_index.get(canonical(a[i]))
            if free:
                j = free.pop(0)
                used.add(j)
                pairs.append((i, j))
            else:
                out.append(Entry(_DROPPED, f"{pa}/{i}", None, a[i], ABSENT))
        out.extend(
            Entry(_ADDED, None, f"{pb}/{j}", ABSENT, b[j]) for j in range(len(b)) if j not in used
        )
        self._order(pairs, a, b, pa, pb, out, rule)
        for i, j in pairs:
            self._walk(a[i], b[j], f"{pa}/{i}", f"{pb}/{j}", depth + 1, out)

    def _order(
        self,
        pairs: list[tuple[int, int]],
        a: list[Any],
        b: list[Any],
        pa: str,
        pb: str,
        out: list[Entry],
        rule: ArrayRule,
    ) -> None:
        targets = [j for _, j in sorted(pairs)]
        if any(x > y for x, y in itertools.pairwise(targets)):
            out.append(
                Entry(
                    _REORDERED,
                    pa,
                    pb,
                    a,
                    b,
                    f"order differs ({rule.describe()}: order is not significant)",
                    expected=True,
                    rule=rule.origin or None,
                )
            )

    def _keys(self, items: list[Any], path: str) -> list[bytes]:
        ignore = self.ignore
        if ignore is None:
            return [canonical(item) for item in items]
        return [canonical(_pruned(item, f"{path}/{i}", ignore)) for i, item in enumerate(items)]


def _pruned(value: Any, path: str, ignore: PathSet, depth: int = 0) -> Any:
    """A value without the members an ignore pattern names (for matching array items)."""
    if depth > MAX_WALK_DEPTH:
        return value
    if type(value) is dict:
        out = {}
        for key, item in value.items():
            child = path + "/" + escape_pointer_token(key)
            if child not in ignore:
                out[key] = _pruned(item, child, ignore, depth + 1)
        return out
    if type(value) is list:
        return [_pruned(item, f"{path}/{i}", ignore, depth + 1) for i, item in enumerate(value)]
    return value
