"""The side-by-side view: each member followed across the hops, one row per member.

Rows are built from the aligned entries of each pair of consecutive hops (equal leaves
included). A member keeps its row from hop to hop, even when it is renamed or moved (the
cell then shows its new pointer); a member that appears later gets a row of its own, placed
after the last row its pair touched, so rows stay in document order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jsoncontract.diff.compare import Entry
from jsoncontract.diff.model import DiffCode, Difference, HopView, Row
from jsoncontract.pointer import ABSENT, get

_REENCODED = DiffCode.RE_ENCODED


class _Slot:
    """A row while being built, with the rows that were inserted after it."""

    __slots__ = ("after", "row")

    def __init__(self, row: Row) -> None:
        self.row = row
        self.after: list[_Slot] = []


PairEntries = tuple[int, int, list[tuple[Entry, Difference | None]]]


def build_rows(
    views: Sequence[HopView], pairs: Sequence[PairEntries], *, show_values: bool
) -> list[Row]:
    """The rows of one call.

    Arguments:
        views: the hops, in order.
        pairs: for each compared pair of hops, their indexes and the aligned entries, each
            with the difference it became (``None`` for an equal leaf).
    """
    count = len(views)
    top: list[_Slot] = []
    at: list[dict[str, _Slot]] = [{} for _ in views]
    # rows that show a whole object or array at a hop (dropped, added, reordered...)
    whole: list[dict[str, _Slot]] = [{} for _ in views]
    nested = False
    for number, (ia, ib, entries) in enumerate(pairs):
        cursor: _Slot | None = None
        later = number > 0  # rows of the earlier hop exist already, possibly finer or coarser
        at_a, at_b = at[ia], at[ib]
        for entry, difference in entries:
            a_path = entry.a_path
            slot = at_a.get(a_path) if a_path is not None else None
            if slot is None and later and a_path is not None and entry.code is not _REENCODED:
                slot = _ancestor(whole[ia], a_path)
                if slot is not None:  # an earlier hop showed the whole object: so does this one
                    _whole_cell(slot.row, entry, ia, ib, views)
                elif _spread(at_a, entry, difference, ib, views):
                    continue
            if slot is None:
                path = a_path if a_path is not None else entry.b_path or ""
                slot = _Slot(Row(path, [None] * count, show_values=show_values))
                if cursor is not None:
                    cursor.after.append(slot)
                    nested = True
                else:
                    top.append(slot)
                if a_path is not None:
                    slot.row.values[ia] = (a_path, entry.a)
                    at_a[a_path] = slot
                    if entry.code is not None and _is_whole(entry, entry.a):
                        whole[ia][a_path] = slot
            else:
                cursor = slot
            row = slot.row
            b_path = entry.b_path
            if b_path is not None and row.values[ib] is None:
                row.values[ib] = (b_path, entry.b)
                at_b.setdefault(b_path, slot)
                if entry.code is not None and _is_whole(entry, entry.b):
                    whole[ib].setdefault(b_path, slot)
            if difference is not None and all(d is not difference for d in row.differences):
                row.differences.append(difference)
    if not nested:
        return [slot.row for slot in top]
    rows: list[Row] = []
    stack = list(reversed(top))
    while stack:
        slot = stack.pop()
        rows.append(slot.row)
        stack.extend(reversed(slot.after))
    return rows


def single_rows(
    view: HopView, entries: list[Entry], index: int, count: int, *, show_values: bool
) -> list[Row]:
    """Rows for a call with one comparable hop: its members, nothing to compare them with."""
    rows = []
    for entry in entries:
        if entry.a_path is None:
            continue
        values: list[tuple[str, Any] | None] = [None] * count
        values[index] = (entry.a_path, entry.a)
        rows.append(Row(entry.a_path, values, show_values=show_values))
    return rows


def fill_unchanged(rows: list[Row], views: Sequence[HopView]) -> None:
    """Fill the cells no pair gave: the member, where a hop has it at the same pointer and
    no difference says it is absent there (a changed-only build has no entries for hops
    that agree; a row that starts at a later hop has none for the earlier ones)."""
    for row in rows:
        for index, item in enumerate(row.values):
            if item is None and views[index].available:
                value = get(views[index].value, row.path)
                if value is not ABSENT and not _changed_here(row, views[index]):
                    row.values[index] = (row.path, value)


def _changed_here(row: Row, view: HopView) -> bool:
    """Whether one of the row's differences says the member is absent at this hop."""
    for d in row.differences:
        if d.to_hop is view.hop and d.to_path is None:
            return True
        if d.from_hop is view.hop and d.from_path is None:
            return True
    return False


def count_leaves(value: Any, limit: int) -> int:
    """How many members a side-by-side view of ``value`` has, counting no further than
    ``limit + 1``."""
    count = 0
    stack = [value]
    while stack and count <= limit:
        node = stack.pop()
        if type(node) is dict and node:
            stack.extend(node.values())
        elif type(node) is list and node:
            stack.extend(node)
        else:
            count += 1
    return count


def _whole_cell(row: Row, entry: Entry, ia: int, ib: int, views: Sequence[HopView]) -> None:
    """The later hop's cell of a row that shows a whole object: the object there too."""
    held = row.values[ia]
    if held is None or row.values[ib] is not None or entry.a_path is None:
        return
    path = held[0]
    suffix = entry.a_path[len(path) :]
    target = path
    if entry.b_path is not None and entry.b_path.endswith(suffix):
        target = entry.b_path[: len(entry.b_path) - len(suffix)]
    value = get(views[ib].value, target)
    if value is not ABSENT:
        row.values[ib] = (target, value)


def _is_whole(entry: Entry, value: Any) -> bool:
    """Whether a cell shows a whole object or array (its parts get no rows of their own)."""
    return entry.code is not None and entry.code is not _REENCODED and type(value) in (dict, list)


def _ancestor(index: dict[str, _Slot], path: str) -> _Slot | None:
    """The row of the nearest enclosing member (when an earlier pair showed it whole)."""
    probe = path
    while probe:
        probe = probe[: probe.rfind("/")]
        slot = index.get(probe)
        if slot is not None:
            return slot
    return None


def _spread(
    index: dict[str, _Slot],
    entry: Entry,
    difference: Difference | None,
    ib: int,
    views: Sequence[HopView],
) -> bool:
    """Apply an entry about a whole member to the rows of its parts (``/address`` dropped,
    while the earlier pair showed ``/address/city`` and ``/address/zip``)."""
    assert entry.a_path is not None
    prefix = entry.a_path + "/" if entry.a_path else "/"
    inside = [(path, slot) for path, slot in index.items() if path.startswith(prefix)]
    if not inside:
        return False
    target = views[ib].value
    for path, slot in inside:
        row = slot.row
        if entry.b_path is not None and row.values[ib] is None:
            where = entry.b_path + path[len(entry.a_path) :]
            value = get(target, where)
            if value is not ABSENT:
                row.values[ib] = (where, value)
        if difference is not None and all(d is not difference for d in row.differences):
            row.differences.append(difference)
    return True
