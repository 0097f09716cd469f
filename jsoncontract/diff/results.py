"""The return leg: what came back for one call, at each hop, side by side.

A result travels the other way: the downstream system answers the tool (the HTTP response),
the MCP server answers the host (``structuredContent``, or a text block), the host hands the
model its tool message. Each hop's result is read as the value it holds
(:func:`~jsoncontract.payload.payload`: JSON text read as JSON once) and compared
with the hop before it on the way back, classified like the arguments' differences, plus
one kind the return leg has: ``truncated``, a text cut short on the way (the later hop's
text is the start of the earlier hop's, with or without a marker such as ``...``).

Where a result is carried as JSON text twice over (an object serialised into a string that
is then put in a JSON text), the value is a string of JSON text and the difference is
``re-encoded``; where a member is lost, ``dropped``. Mappings declare the arguments'
transforms and do not apply here.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

import orjson

from jsoncontract._json import partial_json
from jsoncontract.diff.compare import CompareOptions, Comparer, Entry
from jsoncontract.diff.differences import make_difference
from jsoncontract.diff.model import DiffCode, Difference, HopView, Row
from jsoncontract.diff.rows import PairEntries, build_rows, fill_unchanged
from jsoncontract.model import Hop
from jsoncontract.payload import content_pointer, payload, text_blocks
from jsoncontract.pointer import ABSENT

if TYPE_CHECKING:
    from jsoncontract.model import ToolResult

#: The hops in the order a result travels: the downstream answer, the MCP result, the
#: model's tool message.
RETURN_ORDER: Final = (Hop.DOWNSTREAM, Hop.MCP, Hop.MODEL)
#: What hosts append to a text they cut short.
_MARKER: Final = re.compile(
    r"\s*(?:\.\.\.|…|\[(?:truncated|\.\.\.|output truncated)[^\]\n]{0,80}\]"
    r"|\((?:truncated)[^)\n]{0,80}\))\s*$",
    re.IGNORECASE,
)
#: A cut text shorter than this is not told from an answer that differs.
_SHORTEST_CUT: Final = 8


@dataclass(slots=True)
class ReturnLeg:
    """The results of one call's hops, in return order, and how they differ."""

    views: list[HopView] = field(default_factory=list)
    differences: list[Difference] = field(default_factory=list)
    pairs: list[tuple[int, int, list[Entry]]] = field(default_factory=list)


def value_of(result: ToolResult) -> tuple[Any, str | None]:
    """What a hop's result holds, and its text as the hop carried it (``None`` when it was
    no text): the JSON value if it holds one, else its text, else its content."""
    blocks = text_blocks(result.content, content_pointer(result))
    text = "".join(t for _, t in blocks) if blocks else None
    found = payload(result)
    if found is not None:
        return found.value, text
    if text is not None:
        inner = _json_string(text)
        if inner is not None:  # serialised twice: the JSON text of a JSON text
            return inner, text
        return text, text
    if result.content is not None:
        return result.content, None
    if result.error is not None:
        return {"error": result.error}, None
    return ABSENT, None


def _json_string(text: str) -> str | None:
    """The string a text holds as JSON when that string is itself the JSON text of an object
    or array (``"{\\"id\\": 1}"``), else ``None``."""
    if text.lstrip()[:1] != '"':
        return None
    try:
        inner = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    if isinstance(inner, str) and inner.lstrip()[:1] in ("{", "["):
        return inner
    return None


def _texts(view: HopView, text: str | None) -> list[str]:
    """The texts a later hop's text may have been cut from."""
    out = [text] if text is not None else []
    value = view.value
    if value is not ABSENT and not isinstance(value, str):
        try:
            out.append(orjson.dumps(value).decode())
            out.append(orjson.dumps(value, option=orjson.OPT_INDENT_2).decode())
        except TypeError:
            pass
    elif isinstance(value, str) and value not in out:
        out.append(value)
    return out


def truncated(earlier: list[str], later: Any) -> tuple[int, int] | None:
    """``(kept, whole)`` characters when ``later`` is one of ``earlier`` cut short."""
    if not isinstance(later, str):
        return None
    core = later.rstrip()
    for _ in range(3):  # "... [truncated]": a marker or two
        stripped = _MARKER.sub("", core).rstrip()
        if stripped == core:
            break
        core = stripped
    if len(core) < _SHORTEST_CUT:
        return None
    for text in earlier:
        whole = text.rstrip()
        if len(core) < len(whole) and whole.startswith(core):
            return len(core), len(whole)
    return None


def return_leg(
    hops: Sequence[HopView], *, tolerance: float, show_values: bool, tool: str | None
) -> ReturnLeg:
    """The results of ``hops`` (the argument views of one call) side by side."""

    leg = ReturnLeg()
    texts: list[str | None] = []
    for hop in RETURN_ORDER:
        for view in hops:
            result = view.call.result
            if view.hop is not hop or result is None:
                continue
            value, text = value_of(result)
            leg.views.append(
                HopView(
                    hop,
                    view.call,
                    matched_by=view.matched_by,
                    match_key=view.match_key,
                    value=value,
                    parsed=value is not ABSENT and not isinstance(value, str),
                )
            )
            texts.append(text)
    comparer = Comparer(CompareOptions(tolerance=tolerance))
    usable = [i for i, v in enumerate(leg.views) if v.available]
    for ia, ib in itertools.pairwise(usable):
        a, b = leg.views[ia], leg.views[ib]
        cut = truncated(_texts(a, texts[ia]), b.value)
        if cut is not None:
            entries = [Entry(DiffCode.TRUNCATED, "", "", a.value, b.value, _kept(*cut))]
            kept = partial_json(b.value)
            if kept is not ABSENT:  # the side-by-side view shows what the model got
                b.value = kept
        else:
            entries = comparer.compare(a.value, b.value)
        leg.pairs.append((ia, ib, entries))
        leg.differences.extend(
            make_difference(entry, a, b, tool, show_values=show_values, leg="result")
            for entry in entries
            if entry.code
        )
    return leg


def rows(leg: ReturnLeg, *, show_values: bool, tolerance: float) -> list[Row]:
    """The side-by-side rows of the return leg (every member, equal ones too)."""
    comparer = Comparer(CompareOptions(tolerance=tolerance), align=True)
    pairs: list[PairEntries] = []
    for ia, ib, found in leg.pairs:
        a, b = leg.views[ia], leg.views[ib]
        differences = _differences_of(leg, a, b)
        if _cut(found):
            cut = differences[0]
            if isinstance(b.value, str):  # a cut text that holds no JSON: one row
                pairs.append((ia, ib, [(found[0], cut)]))
            else:  # what the cut left out is the truncation's
                entries = comparer.compare(a.value, b.value)
                pairs.append((ia, ib, [(e, cut if e.code else None) for e in entries]))
            continue
        by_place = {(d.from_path, d.to_path, d.code): d for d in differences}
        entries = comparer.compare(a.value, b.value)
        pairs.append(
            (
                ia,
                ib,
                [
                    (e, by_place.get((e.a_path, e.b_path, e.code)) if e.code else None)
                    for e in entries
                ],
            )
        )
    built = build_rows(leg.views, pairs, show_values=show_values)
    fill_unchanged(built, leg.views)
    return built


def _cut(entries: list[Entry]) -> bool:
    return len(entries) == 1 and entries[0].code is DiffCode.TRUNCATED


def _differences_of(leg: ReturnLeg, a: HopView, b: HopView) -> list[Difference]:
    return [d for d in leg.differences if d.from_hop is a.hop and d.to_hop is b.hop]


def _kept(kept: int, whole: int) -> str:
    return f"{kept:,} of {whole:,} characters"
