"""Aligning two sequences: the opcodes that turn one into the other (difflib's shape),
in bounded time however long they are. The diff aligns array items with it, and ``lint
--fix`` the lines of a file it rewrites."""

from __future__ import annotations

import bisect
import difflib
from collections import Counter
from typing import Final

#: Largest ``len(a) * len(b)`` aligned with difflib; longer arrays use patience anchors.
MATCHER_BUDGET: Final = 250_000


Opcode = tuple[str, int, int, int, int]


def align_sequences(a: list[bytes], b: list[bytes]) -> list[Opcode]:
    """Opcodes (difflib's shape) turning ``a`` into ``b``.

    Common head and tail are trimmed first; a small middle goes to difflib, a large one is
    split at patience anchors (items unique on both sides, kept in order by a longest
    increasing subsequence), so the cost stays near linear on large arrays.
    """
    n, m = len(a), len(b)
    head = 0
    while head < n and head < m and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < n - head and tail < m - head and a[n - 1 - tail] == b[m - 1 - tail]:
        tail += 1
    ops: list[Opcode] = []
    if head:
        ops.append(("equal", 0, head, 0, head))
    _middle(a, b, head, n - tail, head, m - tail, ops)
    if tail:
        ops.append(("equal", n - tail, n, m - tail, m))
    return _merge(ops)


def _middle(
    a: list[bytes], b: list[bytes], i1: int, i2: int, j1: int, j2: int, ops: list[Opcode]
) -> None:
    if i1 == i2 and j1 == j2:
        return
    if i1 == i2:
        ops.append(("insert", i1, i1, j1, j2))
        return
    if j1 == j2:
        ops.append(("delete", i1, i2, j1, j1))
        return
    if (i2 - i1) * (j2 - j1) <= MATCHER_BUDGET:
        matcher = difflib.SequenceMatcher(None, a[i1:i2], b[j1:j2], autojunk=False)
        for tag, x1, x2, y1, y2 in matcher.get_opcodes():
            ops.append((tag, i1 + x1, i1 + x2, j1 + y1, j1 + y2))
        return
    anchors = _anchors(a, b, i1, i2, j1, j2)
    if not anchors:
        ops.append(("replace", i1, i2, j1, j2))
        return
    pi, pj = i1, j1
    for i, j in anchors:
        _middle(a, b, pi, i, pj, j, ops)
        ops.append(("equal", i, i + 1, j, j + 1))
        pi, pj = i + 1, j + 1
    _middle(a, b, pi, i2, pj, j2, ops)


def _anchors(
    a: list[bytes], b: list[bytes], i1: int, i2: int, j1: int, j2: int
) -> list[tuple[int, int]]:
    count_a = Counter(a[i1:i2])
    count_b = Counter(b[j1:j2])
    where_b = {b[j]: j for j in range(j1, j2) if count_b[b[j]] == 1}
    pairs = [(i, where_b[a[i]]) for i in range(i1, i2) if count_a[a[i]] == 1 and a[i] in where_b]
    # longest increasing subsequence of the b positions (patience sorting)
    tails: list[int] = []
    tail_index: list[int] = []
    previous: list[int] = [-1] * len(pairs)
    for k, (_, j) in enumerate(pairs):
        slot = bisect.bisect_left(tails, j)
        if slot == len(tails):
            tails.append(j)
            tail_index.append(k)
        else:
            tails[slot] = j
            tail_index[slot] = k
        previous[k] = tail_index[slot - 1] if slot else -1
    chain: list[tuple[int, int]] = []
    k = tail_index[-1] if tail_index else -1
    while k != -1:
        chain.append(pairs[k])
        k = previous[k]
    chain.reverse()
    return chain


def _merge(ops: list[Opcode]) -> list[Opcode]:
    merged: list[Opcode] = []
    for op in ops:
        if merged and merged[-1][0] == op[0] == "equal":
            tag, i1, _, j1, _ = merged[-1]
            merged[-1] = (tag, i1, op[2], j1, op[4])
        else:
            merged.append(op)
    return merged
