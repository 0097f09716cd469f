"""Pairing results with their calls, and telling one call seen in several places from two.

The reader hands the ledger what each document holds (calls, results, trace events), in
capture order, and the ledger hands on calls, with their results attached, and trace events,
in the same order.

**Keys.** A call and its result meet by key: ``(hop, session, call id)``. The session is the
MCP session's id for MCP messages, whose JSON-RPC ids restart in every session; it is
``None`` elsewhere, where the ids are the model's (``call_...``, ``toolu_...``, a Gemini id,
``gen_ai.tool.call.id``: the OpenTelemetry conventions carry the model's id) and unique in
the run. ``jsonrpc.request.id`` and ``mcp.session.id`` of an MCP span give the same key as
the frames. A call or result without an id never waits: a dialect that pairs by position
(a Gemini history without ids, an HTTP Archive entry, a span that holds both) attaches the
result itself before handing the call on.

**Holding.** A call with an id waits for its result until the result arrives, or
:data:`WINDOW` more documents (JSONL lines, SSE events, files) have been read (results
follow their call within a few lines in every capture seen), or more than :data:`LIMIT`
calls and events wait, or the run ends. Everything leaves in capture order: a call answered
early waits behind an earlier one that is still waiting, so that the checks over a run
(idempotency, turns, sessions) see the capture's order. A result that comes before its
call waits :data:`WINDOW` documents for it the same way. Memory is bounded by :data:`LIMIT`
items plus the keys of the :data:`REMEMBERED` calls handed on last.

**One call, several places.** A model-hop call whose key was already seen, waiting or
handed on (the response, then the next request's history; a chat span's ``tool_call``
part, then the execute-tool span) is the same call: the later sighting is dropped, except
that it supplies the arguments when the first one did not record them (an execute-tool
span without the opt-in ``gen_ai.tool.call.arguments``). MCP and downstream calls are never
merged: a JSON-RPC id may be used again once answered.

**Results.** A result meets the waiting call of its key and is attached (the first one
stays: a history repeats the results before it). A result for a call already handed on
without one is a :attr:`~jsoncontract.model.EventKind.LATE_RESULT` event; a result no call
claims within the window is an :attr:`~jsoncontract.model.EventKind.ORPHAN_RESULT` event.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from typing import Any, Final

from jsoncontract.model import (
    ArgumentsForm,
    Captured,
    EventKind,
    Hop,
    ToolCall,
    ToolResult,
    TraceEvent,
)

#: How many documents a call waits for its result (and a result for its call).
WINDOW: Final = 1024
#: How many calls and events may wait at once; beyond it the oldest leave unanswered.
LIMIT: Final = 16384
#: How many keys of calls handed on are remembered, to merge repeats and spot late results.
REMEMBERED: Final = 65536

Released = ToolCall | TraceEvent
_MODEL: Final = Hop.MODEL
_UNRECORDED: Final = ArgumentsForm.UNRECORDED


def call_key(call: ToolCall) -> tuple[Any, ...] | None:
    """The key a call's result is found by, or ``None`` when it has no id."""
    call_id = call.call_id
    if call_id is None:
        return None
    session = call.session
    return (call.hop, session.id if session is not None else None, call_id)


def result_key(result: ToolResult) -> tuple[Any, ...] | None:
    """The key of the call a result answers, or ``None`` when it names none."""
    call_id = result.call_id
    if call_id is None:
        return None
    session = result.session
    return (result.hop, session.id if session is not None else None, call_id)


class _Entry:
    """One call or event in the queue; ``done`` once nothing more is awaited for it."""

    __slots__ = ("doc", "done", "item", "key")

    def __init__(self, item: Released, doc: int, done: bool, key: Any = None) -> None:
        self.item = item
        self.doc = doc
        self.done = done
        self.key = key


class Ledger:
    """The calls of one run waiting for their results, and the results waiting for calls.

    Arguments:
        window: how many documents a call waits for its result (and a result for its call).
        limit: how many calls and events may wait at once.
        remembered: how many handed-on call keys are kept for merging repeats.
    """

    __slots__ = (
        "_queue",
        "_results",
        "_results_order",
        "_seen",
        "_waiting",
        "doc",
        "limit",
        "remembered",
        "window",
    )

    def __init__(
        self, *, window: int = WINDOW, limit: int = LIMIT, remembered: int = REMEMBERED
    ) -> None:
        if window < 0 or limit < 1:
            raise ValueError("the window must be 0 or more and the limit 1 or more")
        self.window = window
        self.limit = limit
        self.remembered = remembered
        self.doc = 0
        self._queue: deque[_Entry] = deque()
        self._waiting: dict[Any, _Entry] = {}
        self._results: dict[Any, tuple[ToolResult, int]] = {}
        self._results_order: deque[tuple[int, Any]] = deque()
        # keys of calls handed on -> whether they had their result
        self._seen: OrderedDict[Any, bool] = OrderedDict()

    @property
    def waiting(self) -> int:
        """How many calls and events are held."""
        return len(self._queue)

    def add(self, items: list[Captured], out: list[Released]) -> None:
        """Take what one document holds; append to ``out`` what may leave now."""
        self.doc += 1
        for item in items:
            kind = type(item)
            if kind is ToolCall:
                self._call(item)  # type: ignore[arg-type]
            elif kind is ToolResult:
                self._result(item)  # type: ignore[arg-type]
            else:
                self._queue.append(_Entry(item, self.doc, True))  # type: ignore[arg-type]
        self._release(out)

    def flush(self, out: list[Released]) -> None:
        """The end of the run: everything still held leaves, in order; results still
        waiting for a call are orphans."""
        queue = self._queue
        while queue:
            self._leave(queue.popleft(), out)
        self._waiting.clear()
        for result, _ in self._results.values():
            out.append(TraceEvent(EventKind.ORPHAN_RESULT, result.source, result=result))
        self._results.clear()
        self._results_order.clear()

    # -- arrivals ------------------------------------------------------------------------

    def _call(self, call: ToolCall) -> None:
        key = call_key(call)
        if key is None:
            self._queue.append(_Entry(call, self.doc, True))
            return
        if call.hop is _MODEL:
            first = self._waiting.get(key)
            if first is not None:  # the same call seen again before it left
                self._merge(first.item, call)  # type: ignore[arg-type]
                return
            if key in self._seen:  # seen again after it left: checked already
                return
        else:
            earlier = self._waiting.pop(key, None)
            if earlier is not None:  # an id used again while unanswered: that one is done
                earlier.done = True
        waiting = self._results.pop(key, None)
        if waiting is not None:
            self._attach(call, waiting[0])
        entry = _Entry(call, self.doc, call.result is not None, key)
        if not entry.done:
            self._waiting[key] = entry
        self._queue.append(entry)

    def _result(self, result: ToolResult) -> None:
        key = result_key(result)
        if key is None:  # nothing to pair it with
            self._queue.append(self._orphan_entry(result))
            return
        entry = self._waiting.pop(key, None)
        if entry is not None:
            self._attach(entry.item, result)  # type: ignore[arg-type]
            entry.done = True
            return
        seen = self._seen.get(key)
        if seen is not None:
            if not seen:
                self._seen[key] = True  # report it once
                late = TraceEvent(EventKind.LATE_RESULT, result.source, result=result)
                self._queue.append(_Entry(late, self.doc, True))
            elif result.hop is not _MODEL and not result.in_history:
                self._queue.append(self._orphan_entry(result))
            return
        if key not in self._results:  # a repeat of a waiting result is dropped
            self._results[key] = (result, self.doc)
            self._results_order.append((self.doc, key))

    @staticmethod
    def _attach(call: ToolCall, result: ToolResult) -> None:
        if call.result is None:
            call.result = result
            if result.started is None and call.time is not None:
                result.started = call.time

    @staticmethod
    def _merge(first: ToolCall, again: ToolCall) -> None:
        """``again`` is ``first`` seen in another place."""
        if first.form is _UNRECORDED and again.form is not _UNRECORDED:
            first.arguments = again.arguments
            first.form = again.form
            first.anomalies = again.anomalies
            first.source = again.source
            first.dialect = again.dialect
            first.load_findings = again.load_findings + [
                f for f in first.load_findings if f.code != "envelope.arguments_not_recorded"
            ]
            first.turn = first.turn or again.turn
        if first.result is None and again.result is not None:
            first.result = again.result
        if first.time is None:
            first.time = again.time

    # -- departures ----------------------------------------------------------------------

    def _release(self, out: list[Released]) -> None:
        oldest = self.doc - self.window
        results = self._results_order
        while results and results[0][0] <= oldest:
            _, key = results.popleft()
            waiting = self._results.get(key)
            if waiting is not None and waiting[1] <= oldest:
                del self._results[key]
                self._queue.append(self._orphan_entry(waiting[0]))
        queue = self._queue
        while queue:
            head = queue[0]
            if not head.done and head.doc > oldest and len(queue) <= self.limit:
                break
            queue.popleft()
            self._leave(head, out)

    def _leave(self, entry: _Entry, out: list[Released]) -> None:
        key = entry.key
        if key is not None:
            if not entry.done and self._waiting.get(key) is entry:
                del self._waiting[key]
            call: ToolCall = entry.item  # type: ignore[assignment]
            seen = self._seen
            seen[key] = call.result is not None
            if len(seen) > self.remembered:
                seen.popitem(last=False)
        out.append(entry.item)

    def _orphan_entry(self, result: ToolResult) -> _Entry:
        orphan = TraceEvent(EventKind.ORPHAN_RESULT, result.source, result=result)
        return _Entry(orphan, self.doc, True)
