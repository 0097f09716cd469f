"""A difference the comparer found between two hops, made into a
:class:`~jsoncontract.diff.model.Difference` with its one-line message (on the arguments and
on the return leg alike)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from jsoncontract.diff.model import DiffCode, Difference
from jsoncontract.diff.values import redact_value, shown
from jsoncontract.pointer import ABSENT

if TYPE_CHECKING:
    from jsoncontract.diff.compare import Entry
    from jsoncontract.diff.model import HopView


_ROOT: Final = "/"


def make_difference(
    entry: Entry,
    va: HopView,
    vb: HopView,
    tool: str | None,
    *,
    show_values: bool,
    leg: str = "arguments",
) -> Difference:
    """The difference an entry of the comparer is between two hops (values hidden unless
    ``show_values``; on the return leg, placed at the later hop's result)."""
    assert entry.code is not None
    before, after = entry.a, entry.b
    if entry.code is DiffCode.TRUNCATED:
        before = after = ABSENT  # the whole texts: their lengths say it
    elif not show_values:
        before = redact_value(before, entry.a_path)
        after = redact_value(after, entry.b_path)
    source = vb.call.source
    if leg == "result" and vb.call.result is not None:
        source = vb.call.result.source
    difference = Difference(
        code=entry.code,
        from_hop=va.hop,
        to_hop=vb.hop,
        from_path=entry.a_path,
        to_path=entry.b_path,
        before=before,
        after=after,
        expected=entry.expected,
        rule=entry.rule,
        detail=entry.detail,
        tool=tool,
        call_id=vb.call.call_id or va.call.call_id,
        source=source,
        leg=leg,
    )
    difference.message = describe(difference)
    return difference


def describe(d: Difference) -> str:
    """The one-line message of a difference (on the return leg, of the result)."""
    result = d.leg == "result"

    def _at(path: str | None) -> str:
        if result:
            return f"the result's {path}" if path else "the result"
        return path or _ROOT

    a, b = d.from_hop.value, d.to_hop.value
    before = shown(d.before, 50) if d.before is not ABSENT else ""
    after = shown(d.after, 50) if d.after is not ABSENT else ""
    code = d.code
    if code is DiffCode.TRUNCATED:
        return f"{_at(d.from_path)} in {a} arrived in {b} cut short [{d.detail}]"
    if code is DiffCode.DROPPED:
        text = f"{_at(d.from_path)} is in {a} ({before}) but not in {b}"
    elif code is DiffCode.ADDED:
        text = f"{_at(d.to_path)} is in {b} ({after}) but not in {a}"
    elif code is DiffCode.RENAMED:
        text = f"{_at(d.from_path)} in {a} is {_at(d.to_path)} in {b}"
    elif code is DiffCode.MOVED:
        text = f"{_at(d.from_path)} in {a} moved to {_at(d.to_path)} in {b}"
    elif code is DiffCode.COERCED:
        text = f"{_at(d.from_path)}: {before} in {a} is {after} in {b} (same value, another type)"
    elif code is DiffCode.RE_ENCODED:
        if isinstance(d.after, str):
            kind = "object" if isinstance(d.before, dict) else "array"
            text = f"{_at(d.from_path)}: the {kind} in {a} arrived in {b} as a string of JSON text"
        else:
            kind = "object" if isinstance(d.after, dict) else "array"
            text = f"{_at(d.from_path)}: the string of JSON text in {a} arrived in {b} as an {kind}"
        if d.expected and d.detail:
            text += f" [{d.detail}]"
        return text
    elif code is DiffCode.REORDERED:
        text = f"{_at(d.from_path)}: the array's items are in another order in {b} than in {a}"
    else:
        text = f"{_at(d.from_path)}: {before} in {a} is {after} in {b}"
    if d.detail:
        text += f" [{d.detail}]"
    return text
