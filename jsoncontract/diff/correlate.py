"""Pairing the hops of one call: which model call, MCP frame and downstream body belong together.

Calls arrive in trace order. Each joins an open *group* (one logical call):

1. **by id**: a group holding a call that shares a correlation id with it. A model call's
   id is its provider id (``call_…``, ``toolu_…``); any call also carries the values of the
   configured correlation fields found in its MCP ``params._meta`` or its trace record's
   ``context`` (``tool_call_id``, ``call_id``...). A downstream record's ``call_id`` counts
   too, and so does an MCP request id for a downstream body that quotes it.
2. **by order**: otherwise, the oldest open group for the same tool that still lacks this
   hop and whose hops all come earlier (model → mcp → downstream), unless both sides carry
   explicit ids that differ.
3. otherwise the call opens a group of its own.

A group is finished when it has its downstream hop, or when ``window`` more calls have
been read since it last grew; groups are handed out in the order they were opened, so
memory stays bounded on traces of any length. Each hop records how it joined, so a person
can see why hops were put side by side.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from typing import Final

from jsoncontract.diff.model import HOP_RANK
from jsoncontract.model import Hop, ToolCall
from jsoncontract.pointer import get_in, pointer_tokens

#: Correlation fields looked for when none are configured.
DEFAULT_FIELDS: Final = ("tool_call_id", "toolCallId", "call_id", "callId", "correlation_id")
#: Calls read before an unfinished group is handed out.
DEFAULT_WINDOW: Final = 10_000
_DOWNSTREAM_RANK: Final = HOP_RANK[Hop.DOWNSTREAM]
#: Waiting groups looked at when pairing by order (the oldest that fits wins).
_ORDER_SCAN: Final = 64


class Member:
    """One hop of a group: the call, how it joined (``first``, ``id``, ``order``), and on what."""

    __slots__ = ("call", "key", "matched_by")

    def __init__(self, call: ToolCall, matched_by: str, key: str | None = None) -> None:
        self.call = call
        self.matched_by = matched_by
        self.key = key


class Group:
    """The hops of one logical call, as correlated so far.

    ``top`` is the rank of the latest hop present (-1 for none), ``tool`` that of the first
    hop naming one; ``strong`` and ``weak`` are the ids its hops carry.
    """

    __slots__ = ("done", "hops", "last_seen", "members", "seq", "strong", "tool", "top", "weak")

    def __init__(self, *, last_seen: int = 0, seq: int = 0) -> None:
        self.members: list[Member] = []
        self.hops: set[Hop] = set()
        self.strong: set[str] = set()
        self.weak: set[str] = set()
        self.last_seen = last_seen
        self.seq = seq
        self.done = False
        self.tool: str | None = None
        self.top = -1

    def add(self, member: Member) -> None:
        """Put one more hop in the group."""
        self.members.append(member)
        call = member.call
        if call.hop is not None:
            self.hops.add(call.hop)
            rank = HOP_RANK[call.hop]
            if rank > self.top:
                self.top = rank
        if self.tool is None and call.tool:
            self.tool = call.tool

    def pairing(self) -> str | None:
        """``id``, ``order``, ``id+order``, ``given``, or ``None`` for a lone hop."""
        ways = {m.matched_by for m in self.members[1:]}
        if not ways:
            return "given" if self.members and self.members[0].matched_by == "given" else None
        if len(ways) == 1:
            return ways.pop()
        return "id+order"

    def ordered(self) -> list[Member]:
        """Members in hop order (model, mcp, downstream); unknown hops last."""
        if len(self.members) == 1:
            return self.members
        return sorted(
            self.members, key=lambda m: HOP_RANK[m.call.hop] if m.call.hop is not None else 9
        )


class Correlator:
    """Groups calls from a trace into the hops of each logical call.

    Arguments:
        fields: correlation field names (or JSON Pointers) looked for in MCP ``_meta`` and
            trace record ``context``.
        window: calls read before an unfinished group is handed out as it is.
    """

    def __init__(self, fields: Sequence[str] = DEFAULT_FIELDS, *, window: int = DEFAULT_WINDOW):
        self.fields = tuple(fields)
        self._names = tuple(f for f in self.fields if not f.startswith("/"))
        self._pointers = tuple(pointer_tokens(f) for f in self.fields if f.startswith("/"))
        self.window = window
        self._open: deque[Group] = deque()
        #: id -> the open groups carrying it (strong or weak), and those carrying it as a
        #: strong id: the only ones a model call or an MCP frame may join by that id
        self._by_key: dict[str, dict[int, Group]] = {}
        self._by_strong: dict[str, dict[int, Group]] = {}
        self._waiting: dict[tuple[str, int], deque[Group]] = {}
        self._seen = 0

    def keys(self, call: ToolCall) -> tuple[set[str], set[str]]:
        """``(strong, weak)`` ids of a call: explicit ones, and an MCP request id."""
        strong: set[str] = set()
        weak: set[str] = set()
        if call.call_id:
            if call.hop is Hop.MCP:
                weak.add(call.call_id)
            else:
                strong.add(call.call_id)
        for source in (call.meta, call.context):
            if not source:
                continue
            found = [source.get(name) for name in self._names]
            found.extend(get_in(source, tokens) for tokens in self._pointers)
            for value in found:
                if value is None:
                    continue
                if type(value) is str:
                    if value:
                        strong.add(value)
                elif type(value) is int:
                    strong.add(str(value))
        return strong, weak

    def feed(self, call: ToolCall) -> list[Group]:
        """Take one call; return the groups that are now finished (oldest first)."""
        self._seen += 1
        hop = call.hop
        if hop is None:  # an unreadable line: a group of its own, handed out in turn
            group = Group(last_seen=self._seen, seq=self._seen)
            group.add(Member(call, "first"))
            self._open.append(group)
            return self._ready()
        strong, weak = self.keys(call)
        found, how, key = self._find(call, hop, strong, weak)
        if found is None:
            group = Group(last_seen=self._seen, seq=self._seen)
            group.add(Member(call, "first"))
            self._open.append(group)
        else:
            group = found
            group.add(Member(call, how, key))
            group.last_seen = self._seen
        by_key = self._by_key
        for value in strong:
            if value not in group.strong:
                by_key.setdefault(value, {}).setdefault(id(group), group)
                self._by_strong.setdefault(value, {})[id(group)] = group
                group.strong.add(value)
        for value in weak:
            if value not in group.weak:
                by_key.setdefault(value, {}).setdefault(id(group), group)
                group.weak.add(value)
        tool = group.tool
        if tool is not None and group.top < _DOWNSTREAM_RANK:
            queue = self._waiting.get((tool, group.top))
            if queue is None:
                queue = self._waiting[(tool, group.top)] = deque()
            queue.append(group)
        return self._ready()

    def flush(self) -> list[Group]:
        """Hand out every group still open (end of input)."""
        out = []
        while self._open:
            out.append(self._pop())
        return out

    def run(self, calls: Iterable[ToolCall]) -> Iterator[Group]:
        """Every group of a stream of calls, in the order each was opened."""
        feed = self.feed
        for call in calls:
            ready = feed(call)
            if ready:
                yield from ready
        yield from self.flush()

    # -- internals ---------------------------------------------------------------------------

    def _find(
        self, call: ToolCall, hop: Hop, strong: set[str], weak: set[str]
    ) -> tuple[Group | None, str, str | None]:
        # only a downstream body may join by an id the group carries as a weak one, so the
        # other hops look only at groups holding the id as a strong one (an MCP request id
        # that every session reuses would otherwise make each lookup scan every open group)
        index = self._by_key if hop is Hop.DOWNSTREAM else self._by_strong
        for value in sorted(strong) if len(strong) > 1 else strong:
            for group in index.get(value, {}).values():
                if hop not in group.hops and self._accepts_id(group, value, hop):
                    return group, "id", value
        for value in weak:
            for group in index.get(value, {}).values():
                if hop not in group.hops and self._accepts_id(group, value, hop):
                    return group, "id", value
        tool = call.tool
        if tool is None:
            return None, "first", None
        best: Group | None = None
        for rank in range(HOP_RANK[hop]):
            queue = self._waiting.get((tool, rank))
            if not queue:
                continue
            while queue and (queue[0].done or queue[0].top != rank):
                queue.popleft()  # stale: handed out, or it has grown since
            for scanned, group in enumerate(queue):
                if scanned >= _ORDER_SCAN:
                    break
                if group.done or group.top != rank:
                    continue
                if strong and group.strong and not (strong & group.strong):
                    continue  # both carry explicit ids, and they differ
                if best is None or group.seq < best.seq:
                    best = group
                break
        if best is None:
            return None, "first", None
        return best, "order", None

    @staticmethod
    def _accepts_id(group: Group, value: str, hop: Hop) -> bool:
        """A weak id (an MCP request id) pairs only an MCP frame with a downstream body."""
        if value in group.strong:
            return True
        return hop is Hop.DOWNSTREAM and Hop.MCP in group.hops

    def _ready(self) -> list[Group]:
        out: list[Group] = []
        opened = self._open
        while opened:
            head = opened[0]
            if (
                head.top == _DOWNSTREAM_RANK
                or head.members[0].call.hop is None
                or self._seen - head.last_seen >= self.window
            ):
                out.append(self._pop())
            else:
                break
        return out

    def _pop(self) -> Group:
        group = self._open.popleft()
        group.done = True
        tool = group.tool
        if tool is not None:
            for rank in (0, 1):
                queue = self._waiting.get((tool, rank))
                if queue is None:
                    continue
                while queue and (queue[0].done or queue[0].top != rank):
                    queue.popleft()
                if not queue:
                    del self._waiting[(tool, rank)]
        key = id(group)
        for index, values in ((self._by_key, (*group.strong, *group.weak)),
                              (self._by_strong, group.strong)):  # fmt: skip
            for value in values:
                groups = index.get(value)
                if groups is not None and groups.pop(key, None) is not None and not groups:
                    del index[value]
        return group


def given(calls: Sequence[ToolCall]) -> Group:
    """One group from calls named on the command line as hops of the same call."""
    group = Group()
    for call in sorted(calls, key=lambda c: HOP_RANK[c.hop] if c.hop is not None else 9):
        group.add(Member(call, "given"))
    return group
