"""Declared transforms applied to the differences between two hops.

The comparer reports what differs; :func:`explain` then goes through the transforms the
mapping files declare between those two hops. A transform found in the payloads turns the
differences it accounts for into one *expected* difference (a rename's dropped and added
member become one ``renamed``; a declared drop, default or conversion is marked expected);
what it does not account for stays unexpected, with a note; a transform whose source is
there but whose result is not is a ``diff.mapping_not_applied`` finding, and a value the
declared conversion cannot convert a ``diff.convert_failed`` one. :func:`undeclared_moves`
then pairs what is left: a member dropped in one place and added in another with the same
value is one unexpected ``renamed`` or ``moved``.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from jsoncontract import codes
from jsoncontract._json import short_repr
from jsoncontract.diff.compare import Comparer, Entry, canonical, classify, same
from jsoncontract.diff.mapping import ConversionError, Transform
from jsoncontract.diff.model import DiffCode
from jsoncontract.diff.paths import expand, substitute
from jsoncontract.model import Finding, Hop, Severity
from jsoncontract.pointer import (
    ABSENT,
    escape_pointer_token,
    get,
    is_within,
    parent,
    pointer_tokens,
)


@dataclass(slots=True)
class Outcome:
    """What the transforms made of the differences: entries, and findings about them."""

    entries: list[Entry]
    findings: list[Finding] = field(default_factory=list)


def explain(
    entries: list[Entry],
    source: Any,
    target: Any,
    transforms: list[Transform],
    comparer: Comparer,
    *,
    a_hop: Hop,
    b_hop: Hop,
    used: Counter[str] | None = None,
) -> Outcome:
    """Turn the differences a declared transform accounts for into expected ones.

    Arguments:
        entries: the comparer's entries between ``source`` (hop ``a_hop``) and ``target``.
        transforms: what the mapping files declare between those hops.
        comparer: used again to compare a transformed value with what the target holds.
        used: counts the transforms that matched, by origin.
    """
    outcome = Outcome(list(entries))
    for transform in transforms:
        for path, bindings in expand(source, transform.path):
            to = substitute(transform.to, bindings) if transform.to is not None else None
            matched = _apply(outcome, transform, path, to, source, target, comparer, a_hop, b_hop)
            if matched and used is not None:
                used[transform.origin] += 1
    return outcome


def _apply(
    outcome: Outcome,
    transform: Transform,
    path: str,
    to: str | None,
    source: Any,
    target: Any,
    comparer: Comparer,
    a_hop: Hop,
    b_hop: Hop,
) -> bool:
    op = transform.op
    before = get(source, path)
    if op == "default":
        if before is not ABSENT:
            return False
        return _default(outcome, transform, path, target, a_hop, b_hop)
    if before is ABSENT:
        return False
    if op == "drop":
        _drop(outcome, transform, path, target, a_hop, b_hop)
    elif op == "convert":
        _convert(outcome, transform, path, before, target, comparer, a_hop, b_hop)
    else:
        assert to is not None
        _relocate(outcome, transform, path, to, before, target, comparer, a_hop, b_hop)
    return True


def _not_applied(transform: Transform, path: str, message: str, a_hop: Hop, b_hop: Hop) -> Finding:
    return Finding(
        code=codes.DIFF_MAPPING_NOT_APPLIED,
        severity=Severity.ERROR,
        message=f"the mapping declares {transform.describe()} between {a_hop.value} and "
        f"{b_hop.value}, but {message}",
        path=path,
        hop=b_hop,
        hint=f"the adapter did not make the declared transform ({transform.origin})",
    )


def _drop(
    outcome: Outcome, transform: Transform, path: str, target: Any, a_hop: Hop, b_hop: Hop
) -> None:
    if get(target, path) is not ABSENT:
        outcome.findings.append(
            _not_applied(transform, path, f"{b_hop.value} still has {path}", a_hop, b_hop)
        )
        return
    for entry in outcome.entries:
        if entry.code is DiffCode.DROPPED and entry.a_path == path:
            entry.expected = True
            entry.rule = transform.origin
            entry.detail = "declared drop"


def _default(
    outcome: Outcome, transform: Transform, path: str, target: Any, a_hop: Hop, b_hop: Hop
) -> bool:
    after = get(target, path)
    if after is ABSENT:
        if get(target, parent(path)) is ABSENT:
            return False  # the containing object is not there either: nothing to default
        outcome.findings.append(
            _not_applied(transform, path, f"{b_hop.value} has no {path}", a_hop, b_hop)
        )
        return True
    entry = _take_added(outcome.entries, path, target)
    if entry is None:
        return True
    if same(after, transform.value):
        entry.expected = True
        entry.rule = transform.origin
        entry.detail = "declared default"
    else:
        entry.detail = f"the mapping's default is {short_repr(transform.value, 40)}"
    outcome.entries.append(entry)
    return True


def _convert(
    outcome: Outcome,
    transform: Transform,
    path: str,
    before: Any,
    target: Any,
    comparer: Comparer,
    a_hop: Hop,
    b_hop: Hop,
) -> None:
    after = get(target, path)
    if after is ABSENT:
        return  # dropped: reported as such
    assert transform.convert is not None
    try:
        converted = transform.convert.apply(before)
    except ConversionError as exc:
        outcome.findings.append(_convert_failed(transform, path, str(exc), b_hop))
        return
    if same(before, after):
        if not same(converted, before):
            outcome.findings.append(
                _not_applied(
                    transform, path, f"{b_hop.value} has the value unconverted", a_hop, b_hop
                )
            )
        return
    position, _ = _take_within(outcome.entries, path, lambda e: e.a_path)
    residual = comparer.compare(converted, after, path, path)
    _restore_originals(residual, path, before, converted)
    differences = [e for e in residual if e.code is not None]
    if differences:
        for entry in differences:
            entry.detail = _join(entry.detail, f"after the declared {transform.convert.describe()}")
        outcome.entries[position:position] = residual
        return
    detail: str | None
    if isinstance(before, dict | list) and isinstance(after, str):
        code, detail = DiffCode.RE_ENCODED, f"{_kind(before)} → JSON text"
    elif isinstance(before, str) and isinstance(after, dict | list):
        code, detail = DiffCode.RE_ENCODED, f"JSON text → {_kind(after)}"
    else:
        code, detail = classify(before, after)
    expected = Entry(
        code,
        path,
        path,
        before,
        after,
        _join(f"declared {transform.convert.describe()}", detail),
        expected=True,
        rule=transform.origin,
    )
    kept = [e for e in residual if not (e.a_path == path and e.b_path == path)]
    outcome.entries[position:position] = [expected, *kept]


def _relocate(
    outcome: Outcome,
    transform: Transform,
    path: str,
    to: str,
    before: Any,
    target: Any,
    comparer: Comparer,
    a_hop: Hop,
    b_hop: Hop,
) -> None:
    after = get(target, to)
    verb = "renames" if transform.op == "rename" else "moves"
    if after is ABSENT:
        if get(target, path) is not ABSENT:
            outcome.findings.append(
                _not_applied(
                    transform,
                    path,
                    f"{b_hop.value} still has {path} and no {to}",
                    a_hop,
                    b_hop,
                )
            )
        else:
            for entry in outcome.entries:
                if entry.code is DiffCode.DROPPED and entry.a_path == path:
                    entry.detail = _join(entry.detail, f"the mapping {verb} it to {to}")
        return
    position, _ = _take_within(
        outcome.entries,
        path,
        lambda e: e.a_path if e.code is DiffCode.DROPPED else None,
    )
    _take_added(outcome.entries, to, target)  # the member at its new place: explained here
    if position > len(outcome.entries):
        position = len(outcome.entries)
    converted = before
    note = None
    if transform.convert is not None:
        try:
            converted = transform.convert.apply(before)
            note = f"declared {transform.convert.describe()}"
        except ConversionError as exc:
            outcome.findings.append(_convert_failed(transform, path, str(exc), b_hop))
    residual = comparer.compare(converted, after, path, to)
    _restore_originals(residual, path, before, converted)
    for entry in residual:
        if entry.code is not None:
            entry.detail = _join(entry.detail, f"after the declared {transform.op}")
    code = DiffCode.RENAMED if parent(path) == parent(to) else DiffCode.MOVED
    expected = Entry(
        code,
        path,
        to,
        before,
        after,
        note or f"declared {transform.op}",
        expected=True,
        rule=transform.origin,
    )
    same_row = [e for e in residual if e.a_path == path and e.b_path == to]
    kept = [e for e in residual if not (e.a_path == path and e.b_path == to)]
    changed_here = [e for e in same_row if e.code is not None]
    outcome.entries[position:position] = [expected, *changed_here, *kept]


def _convert_failed(transform: Transform, path: str, reason: str, hop: Hop) -> Finding:
    assert transform.convert is not None
    return Finding(
        code=codes.DIFF_CONVERT_FAILED,
        severity=Severity.ERROR,
        message=f"{path}: cannot apply the declared {transform.convert.describe()}: {reason}",
        path=path,
        hop=hop,
        hint=f"the value does not fit the conversion declared at {transform.origin}",
    )


def _take_within(
    entries: list[Entry], path: str, key: Callable[[Entry], str | None]
) -> tuple[int, list[Entry]]:
    """Remove entries whose key path is ``path`` or below it; return where they were."""
    position = len(entries)
    kept: list[Entry] = []
    removed: list[Entry] = []
    for entry in entries:
        where = key(entry)
        if where is not None and is_within(where, path) and path != "":
            if not removed:
                position = len(kept)
            removed.append(entry)
        else:
            kept.append(entry)
    entries[:] = kept
    return position, removed


def _take_added(entries: list[Entry], path: str, target: Any) -> Entry | None:
    """Remove and return the ``added`` entry for ``path``.

    When a whole containing object was added (``/customer`` for ``/customer/id``), it is
    split: the member at ``path`` is taken, its siblings stay ``added``.
    """
    for position, entry in enumerate(entries):
        if entry.code is not DiffCode.ADDED or entry.b_path is None:
            continue
        if entry.b_path == path:
            del entries[position]
            return entry
        if path.startswith(entry.b_path + "/"):
            del entries[position]
            siblings: list[Entry] = []
            node = entry.b_path
            for token in pointer_tokens(path[len(entry.b_path) :]):
                container = get(target, node)
                step = node + "/" + escape_pointer_token(token)
                if isinstance(container, dict):
                    for key, value in container.items():
                        child = node + "/" + escape_pointer_token(key)
                        if child != step:
                            siblings.append(Entry(DiffCode.ADDED, None, child, ABSENT, value))
                node = step
            entries[position:position] = siblings
            return Entry(DiffCode.ADDED, None, path, ABSENT, get(target, path))
    return None


def _restore_originals(entries: list[Entry], path: str, before: Any, converted: Any) -> None:
    """Show the earlier hop's own values (not the converted ones) on the earlier side."""
    if converted is before:
        return
    for entry in entries:
        if entry.a_path is None:
            continue
        rest = entry.a_path[len(path) :]
        entry.a = get(before, rest) if rest else before


def _join(first: str | None, second: str | None) -> str | None:
    if first and second:
        return f"{first}; {second}"
    return first or second


def _kind(value: Any) -> str:
    return "object" if isinstance(value, dict) else "array"


def undeclared_moves(entries: list[Entry], source: Any, target: Any) -> None:
    """Pair a member dropped in one place with one added elsewhere holding the same value.

    The pair becomes one unexpected ``renamed`` (same object) or ``moved`` difference.
    Only object members pair up, and only when the value identifies them: exactly one
    dropped and one added member hold it, and for ``true``/``false``/``null`` the two
    names must also look alike.
    """
    dropped: dict[bytes, list[int]] = {}
    added: dict[bytes, list[int]] = {}
    for position, entry in enumerate(entries):
        if entry.expected:
            continue
        if entry.code is DiffCode.DROPPED and entry.a_path:
            if isinstance(get(source, parent(entry.a_path)), dict):
                dropped.setdefault(canonical(entry.a), []).append(position)
        elif (
            entry.code is DiffCode.ADDED
            and entry.b_path
            and isinstance(get(target, parent(entry.b_path)), dict)
        ):
            added.setdefault(canonical(entry.b), []).append(position)
    replaced: dict[int, Entry] = {}
    removed: set[int] = set()
    for key, positions in dropped.items():
        partners = added.get(key)
        if len(positions) != 1 or not partners or len(partners) != 1:
            continue
        old, new = entries[positions[0]], entries[partners[0]]
        assert old.a_path is not None and new.b_path is not None
        if old.a is None or isinstance(old.a, bool):
            ratio = difflib.SequenceMatcher(
                None, old.a_path.rsplit("/", 1)[-1].lower(), new.b_path.rsplit("/", 1)[-1].lower()
            ).ratio()
            if ratio < 0.6:
                continue
        code = DiffCode.RENAMED if parent(old.a_path) == parent(new.b_path) else DiffCode.MOVED
        replaced[positions[0]] = Entry(
            code, old.a_path, new.b_path, old.a, new.b, "not declared in a mapping"
        )
        removed.add(partners[0])
    if not replaced:
        return
    entries[:] = [replaced.get(i, e) for i, e in enumerate(entries) if i not in removed]


__all__ = ["Outcome", "explain", "undeclared_moves"]
