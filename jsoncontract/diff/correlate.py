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
from dataclasses import dataclass, field
from typing import Any, Final

from jsoncontract.diff.model import HOP_RANK
from jsoncontract.model import Hop, ToolCall, pointer_tokens

#: Correlation fields looked for when none are configured.
DEFAULT_FIELDS: Final = ("tool_call_id", "toolCallId", "call_id", "callId", "correlation_id")
#: Calls read before an unfinished group is handed out.
DEFAULT_WINDOW: Final = 10_000
#: Waiting groups looked at when pairing by order (the oldest that fits wins).
_ORDER_SCAN: Final = 64


@dataclass(slots=True)
class Member:
    """One hop of a group: the call, how it joined (``first``, ``id``, ``order``), and on what."""

    call: ToolCall
    matched_by: str
    key: str | None = None


@dataclass(slots=True)
class Group:
    """The hops of one logical call, as correlated so far."""

    members: list[Member] = field(default_factory=list)
    hops: set[Hop] = field(default_factory=set)
    strong: set[str] = field(default_factory=set)
    weak: set[str] = field(default_factory=set)
    last_seen: int = 0
    seq: int = 0
    done: bool = False

    @property
    def tool(self) -> str | None:
        """The tool of the first hop that names one."""
        for member in self.members:
            if member.call.tool:
                return member.call.tool
        return None

    @property
    def top(self) -> int:
        """The rank of the latest hop present (-1 for none)."""
        return max((HOP_RANK[h] for h in self.hops), default=-1)

    def add(self, member: Member) -> None:
        """Put one more hop in the group."""
        self.members.append(member)
        if member.call.hop is not None:
            self.hops.add(member.call.hop)

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
        return sorted(
            self.members, key=lambda m: HOP_RANK[m.call.hop] if m.call.hop is not None else 9
        )


def _lookup(source: dict[str, Any] | None, name: str) -> Any:
    if source is None:
        return None
    if name.startswith("/"):
        node: Any = source
        for token in pointer_tokens(name):
            if not isinstance(node, dict):
                return None
            node = node.get(token)
        return node
    return source.get(name)


class Correlator:
    """Groups calls from a trace into the hops of each logical call.

    Arguments:
        fields: correlation field names (or JSON Pointers) looked for in MCP ``_meta`` and
            trace record ``context``.
        window: calls read before an unfinished group is handed out as it is.
    """

    def __init__(self, fields: Sequence[str] = DEFAULT_FIELDS, *, window: int = DEFAULT_WINDOW):
        self.fields = tuple(fields)
        self.window = window
        self._open: deque[Group] = deque()
        self._by_key: dict[str, list[Group]] = {}
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
            for name in self.fields:
                value = _lookup(source, name)
                if isinstance(value, str) and value:
                    strong.add(value)
                elif isinstance(value, int) and not isinstance(value, bool):
                    strong.add(str(value))
        return strong, weak

    def feed(self, call: ToolCall) -> Iterator[Group]:
        """Take one call; yield the groups that are finished."""
        self._seen += 1
        hop = call.hop
        if hop is None:  # an unreadable line: a group of its own, handed out in turn
            group = Group([Member(call, "first")], last_seen=self._seen, seq=self._seen)
            self._open.append(group)
            yield from self._ready()
            return
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
        for value in strong - group.strong:
            self._by_key.setdefault(value, []).append(group)
        group.strong |= strong
        for value in weak - group.weak:
            self._by_key.setdefault(value, []).append(group)
        group.weak |= weak
        top = group.top
        tool = group.tool
        if tool is not None and top < HOP_RANK[Hop.DOWNSTREAM]:
            self._waiting.setdefault((tool, top), deque()).append(group)
        yield from self._ready()

    def flush(self) -> Iterator[Group]:
        """Hand out every group still open (end of input)."""
        while self._open:
            yield self._pop()

    def run(self, calls: Iterable[ToolCall]) -> Iterator[Group]:
        """Every group of a stream of calls, in the order each was opened."""
        for call in calls:
            yield from self.feed(call)
        yield from self.flush()

    # -- internals ---------------------------------------------------------------------------

    def _find(
        self, call: ToolCall, hop: Hop, strong: set[str], weak: set[str]
    ) -> tuple[Group | None, str, str | None]:
        for value in (*sorted(strong), *sorted(weak)):
            for group in self._by_key.get(value, ()):
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

    def _ready(self) -> Iterator[Group]:
        while self._open:
            head = self._open[0]
            finished = (
                head.members[0].call.hop is None
                or Hop.DOWNSTREAM in head.hops
                or self._seen - head.last_seen >= self.window
            )
            if not finished:
                return
            yield self._pop()

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
        for value in group.strong | group.weak:
            groups = self._by_key.get(value)
            if groups is not None:
                groups[:] = [g for g in groups if g is not group]
                if not groups:
                    del self._by_key[value]
        return group


def given(calls: Sequence[ToolCall]) -> Group:
    """One group from calls named on the command line as hops of the same call."""
    group = Group()
    for call in sorted(calls, key=lambda c: HOP_RANK[c.hop] if c.hop is not None else 9):
        group.add(Member(call, "given"))
    return group
