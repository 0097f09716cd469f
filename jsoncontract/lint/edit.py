"""Editing a JSON text in place: change members and elements, keep everything else.

A fix is a list of :class:`~jsoncontract.lint.rule.Edit` values addressed by JSON Pointer.
:class:`Layout` scans the text once for the span of every value and member; an edit then
touches only the bytes of what it changes: a new member goes after the last one, with the
same indentation and separators as its neighbours; a removed member takes its comma with
it; everything else (key order, spacing, line breaks, non-ASCII text) stays as written.
"""

from __future__ import annotations

import bisect
import itertools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from jsoncontract.pointer import escape_pointer_token, pointer_tokens

if TYPE_CHECKING:
    from jsoncontract.lint.rule import Edit

_TOKEN: Final = re.compile(
    r'[ \t\r\n]*(?:("[^"\\]*(?:\\.[^"\\]*)*")|([{}\[\],:])|([^ \t\r\n{}\[\],:"]+))', re.DOTALL
)


#: A member name and the separator after it (whose spacing new members copy).
_KEY: Final = re.compile(r'"(?:[^"\\]|\\.)*"(\s*:\s*)')


@dataclass(slots=True)
class _Span:
    start: int
    end: int = -1
    key_start: int | None = None  # object members: where the key begins
    container: bool = False
    children: list[str] = field(default_factory=list)


class Layout:
    """Where every value of a JSON text starts and ends, and the order of members."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.spans: dict[str, _Span] = {}
        self._scan()

    def _scan(self) -> None:
        text = self.text
        spans = self.spans
        stack: list[tuple[str, bool, list[Any]]] = []  # pointer, is_object, [next]
        pending_key: tuple[str, int] | None = None
        expecting_key = False
        pos = 0
        size = len(text)
        while pos < size:
            m = _TOKEN.match(text, pos)
            if m is None or m.end() == pos:
                break
            pos = m.end()
            string, punct, _literal = m.group(1), m.group(2), m.group(3)
            if punct in ("}", "]"):
                if stack:
                    pointer, _, _ = stack.pop()
                    spans[pointer].end = m.end(2)
                expecting_key = False
                continue
            if punct == ":":
                continue
            if punct == ",":
                expecting_key = bool(stack) and stack[-1][1]
                continue
            if expecting_key and string is not None:
                key = json.loads(string)
                pending_key = (f"{stack[-1][0]}/{escape_pointer_token(key)}", m.start(1))
                expecting_key = False
                continue
            start = m.start(1) if string is not None else m.start(2) if punct else m.start(3)
            if not stack:
                here, key_start = "", None
            elif stack[-1][1]:
                assert pending_key is not None
                here, key_start = pending_key
                pending_key = None
            else:
                state = stack[-1][2]
                here, key_start = f"{stack[-1][0]}/{state[0]}", None
                state[0] += 1
            span = _Span(start, key_start=key_start)
            spans[here] = span
            if stack:
                spans[stack[-1][0]].children.append(here)
            if punct == "{":
                span.container = True
                stack.append((here, True, [0]))
                expecting_key = True
            elif punct == "[":
                span.container = True
                stack.append((here, False, [0]))
            else:
                span.end = m.end(1) if string is not None else m.end(3)


class EditError(Exception):
    """An edit does not apply to the text (its target moved or never existed)."""


@dataclass(frozen=True, slots=True)
class _Op:
    start: int
    end: int
    text: str


def _render(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _style(layout: Layout, parent: _Span) -> tuple[str, str]:
    """(separator before a new entry, separator after a key) used in a container."""
    text = layout.text
    spans = layout.spans
    first = spans[parent.children[0]] if parent.children else None
    colon = ": "
    if first is not None and first.key_start is not None:
        match = _KEY.match(text, first.key_start)
        if match is not None:
            colon = match.group(1)
    if first is None:
        return "", colon
    begin = first.key_start if first.key_start is not None else first.start
    gap = text[parent.start + 1 : begin]
    if "\n" in gap:
        return ",\n" + gap[gap.rfind("\n") + 1 :], colon
    if len(parent.children) > 1:
        second = spans[parent.children[1]]
        between = text[
            first.end : second.key_start if second.key_start is not None else second.start
        ]
        if "\n" not in between and between.strip() == ",":
            return between, colon
    return ", ", colon


def _ops(layout: Layout, edit: Edit) -> list[_Op]:
    spans = layout.spans
    text = layout.text
    pointer = edit.pointer
    if edit.kind == "set":
        span = spans.get(pointer)
        if span is not None:
            return [_Op(span.start, span.end, _render(edit.value))]
        tokens = pointer_tokens(pointer)
        if not tokens:
            raise EditError("cannot add the document root")
        parent_pointer = pointer[: pointer.rfind("/")]
        parent = spans.get(parent_pointer)
        if parent is None or not parent.container or text[parent.start] != "{":
            raise EditError(f"no object at {parent_pointer or '/'}")
        separator, colon = _style(layout, parent)
        member = f"{_render(tokens[-1])}{colon}{_render(edit.value)}"
        if not parent.children:
            return [_Op(parent.start + 1, parent.end - 1, member)]
        last = spans[parent.children[-1]]
        return [_Op(last.end, last.end, separator + member)]
    if edit.kind == "append":
        parent = spans.get(pointer)
        if parent is None or not parent.container or text[parent.start] != "[":
            raise EditError(f"no array at {pointer or '/'}")
        rendered = _render(edit.value)
        if not parent.children:
            return [_Op(parent.start + 1, parent.end - 1, rendered)]
        separator, _ = _style(layout, parent)
        last = spans[parent.children[-1]]
        return [_Op(last.end, last.end, separator + rendered)]
    if edit.kind == "remove":
        span = spans.get(pointer)
        parent_pointer = pointer[: pointer.rfind("/")]
        parent = spans.get(parent_pointer)
        if span is None or parent is None:
            raise EditError(f"nothing at {pointer}")
        siblings = parent.children
        index = siblings.index(pointer)
        begin = span.key_start if span.key_start is not None else span.start
        if len(siblings) == 1:
            return [_Op(parent.start + 1, parent.end - 1, "")]
        if index + 1 < len(siblings):
            nxt = spans[siblings[index + 1]]
            nxt_begin = nxt.key_start if nxt.key_start is not None else nxt.start
            return [_Op(begin, nxt_begin, "")]
        previous = spans[siblings[index - 1]]
        return [_Op(previous.end, span.end, "")]
    raise EditError(f"unknown edit {edit.kind!r}")


def _fix_ops(layout: Layout, edits: Sequence[Edit]) -> list[_Op]:
    """The text operations of one fix. A member removed and another added to the same
    object become one replacement, written where the removed member was."""
    spans = layout.spans
    removed = {e.pointer: e for e in edits if e.kind == "remove" and e.pointer in spans}
    ops: list[_Op] = []
    used: set[str] = set()
    for edit in edits:
        if edit.kind != "set" or edit.pointer in spans:
            continue
        parent = edit.pointer[: edit.pointer.rfind("/")]
        partner = next((p for p in removed if p not in used and p[: p.rfind("/")] == parent), None)
        if partner is None:
            continue
        span = spans[partner]
        if span.key_start is None:
            continue
        used.add(partner)
        used.add(edit.pointer)
        _, colon = _style(layout, spans[parent])
        key = pointer_tokens(edit.pointer)[-1]
        ops.append(_Op(span.key_start, span.end, f"{_render(key)}{colon}{_render(edit.value)}"))
    for edit in edits:
        if edit.pointer in used and edit.kind in ("set", "remove"):
            continue
        ops.extend(_ops(layout, edit))
    return ops


def apply(text: str, fixes: Sequence[Sequence[Edit]]) -> tuple[str, int]:
    """Apply as many fixes as do not overlap; returns the new text and how many applied.

    Each fix is applied whole or not at all. Fixes left out (overlapping an earlier one, or
    addressing something that is not there) are for the next pass, after a re-lint. The
    cost is linear in the text and near linear in the number of fixes.
    """
    layout = Layout(text)
    taken = _Taken()
    chosen: list[_Op] = []
    applied = 0
    for edits in fixes:
        try:
            ops = _fix_ops(layout, edits)
        except (EditError, ValueError):
            continue
        if any(taken.overlaps(op) for op in ops) or _self_overlap(ops):
            continue
        for op in ops:
            taken.add(op)
        chosen.extend(ops)
        applied += 1
    pieces: list[str] = []
    position = 0
    for op in sorted(chosen, key=lambda o: (o.start, o.end)):
        pieces.append(text[position : op.start])
        pieces.append(op.text)
        position = op.end
    pieces.append(text[position:])
    return "".join(pieces), applied


class _Taken:
    """The spans already edited: closed intervals that never overlap one another, kept
    sorted, so whether a new span touches one is a binary search."""

    __slots__ = ("ends", "starts")

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def overlaps(self, op: _Op) -> bool:
        # the span starting last at or before op.end is the only one that can reach op.start
        index = bisect.bisect_right(self.starts, op.end) - 1
        return index >= 0 and self.ends[index] >= op.start

    def add(self, op: _Op) -> None:
        index = bisect.bisect_right(self.starts, op.start)
        self.starts.insert(index, op.start)
        self.ends.insert(index, op.end)


def _self_overlap(ops: list[_Op]) -> bool:
    spans = sorted((op.start, op.end) for op in ops)
    return any(b[0] <= a[1] for a, b in itertools.pairwise(spans))
