"""Pairing results with their calls, and telling one call seen in several places from two.

The reader hands the ledger what each document holds (calls, results, trace events), in
capture order, and the ledger hands on calls, with their results attached, and trace events,
in the same order.

**Keys.** A call and its result meet by key. At the model hop the key is the call id
(``call_...``, ``toolu_...``, a Gemini id, ``gen_ai.tool.call.id``: the OpenTelemetry
conventions carry the model's id), unique in the run. At the MCP hop it is ``(hop, session,
id)``, the session being the MCP session's id, since JSON-RPC ids restart in every session
(``jsonrpc.request.id`` and ``mcp.session.id`` of an MCP span give the same key as the
frames); the downstream hop keys the same way. A call without an id is keyed by its
``sighting`` when its dialect gives one. A call or result without either never waits:
a dialect that pairs by position (a Gemini history without ids, an HTTP Archive entry, a
span that holds both) attaches the result itself before handing the call on.

**Holding.** A call with an id waits for its result until the result arrives, or
:data:`WINDOW` more documents (JSONL lines, SSE events, files) have been read (results
follow their call within a few lines in every capture seen), or more than :data:`LIMIT`
calls and events wait, or the run ends. Everything leaves in capture order: a call
answered early waits behind an earlier one that is still waiting, so that the checks over
a run (idempotency, turns, sessions) see the capture's order. A result that comes before
its call waits :data:`WINDOW` documents for it the same way. Memory is bounded by
:data:`LIMIT` items plus the keys of the last :data:`REMEMBERED` to twice as many calls
handed on.

**Calls alone.** A run whose first :data:`WINDOW` documents held no result at some hop
(neither a result nor a call with an id that brings its own, as an execute-tool span
does) is taken to be a trace of calls alone at that hop (the responses of
a model, the requests a host sent): from then on its calls neither wait nor are
remembered, so that such a trace is read as fast as before results were paired (holding
calls costs time, their data going cold while they wait, and remembering them costs a
hash each). A call repeated there is counted again. The first result of that hop ends
it; a result then whose call is not waiting is reported late.

**One call, several places.** A model-hop call whose key was already seen, waiting or
handed on (the response, then the next request's history; a chat span's ``tool_call``
part, then the execute-tool span) is the same call: the later sighting is dropped, except
that it supplies the arguments when the first one did not record them (an execute-tool
span without the opt-in ``gen_ai.tool.call.arguments``). MCP and downstream calls are never
merged: a JSON-RPC id may be used again once answered. A call without an id is keyed the
same way by its ``sighting``, when its dialect can tell its sightings apart from other calls
(a Gemini call of a response and the same call in the next request's history; an
OpenTelemetry chat span's call, its execute-tool span and the next span's history: see
:class:`jsoncontract.capture.base.Sightings`).

**Results.** A result meets the waiting call of its key and is attached (the first one
stays: a history repeats the results before it). A result for a call already handed on
without one is a :attr:`~jsoncontract.model.EventKind.LATE_RESULT` event; a result no call
claims within the window is an :attr:`~jsoncontract.model.EventKind.ORPHAN_RESULT` event.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Final

from jsoncontract import codes
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
#: How many keys of calls handed on are remembered, to merge repeats and spot late results
#: (at least; up to twice as many). More than the calls of a window, few enough to stay in
#: the processor's cache: looking them up is paid by every call.
REMEMBERED: Final = 8192

Released = ToolCall | TraceEvent
Key = str | tuple[str, str | None, str]
_MODEL: Final = Hop.MODEL
_UNRECORDED: Final = ArgumentsForm.UNRECORDED


def _key(hop: Hop | None, session: Any, call_id: str) -> Key:
    # Keys are strings, or tuples of strings, which the garbage collector does not track
    # (the ledger remembers tens of thousands); a hop is keyed by its value, an enum
    # member's hash being computed in Python.
    if hop is _MODEL:
        return call_id
    return (
        hop._value_ if hop is not None else "",
        session.id if session is not None else None,
        call_id,
    )


def result_key(result: ToolResult) -> Key | None:
    """The key of the call a result answers, or ``None`` when it names none."""
    call_id = result.call_id
    return None if call_id is None else _key(result.hop, result.session, call_id)


# The steps a StepLog records: a repeat lookup that missed or hit, a key remembered (of a
# call handed on without its result, or with it).
_UNSEEN, _SEEN, _REMEMBER, _REMEMBER_ANSWERED = 0, 1, 2, 3

# A queue entry is a list, [item, document number, done, key]: made for every call, it is
# five times cheaper to build than an object.
_ITEM, _DOC, _DONE, _KEY = 0, 1, 2, 3


class Ledger:
    """The calls of one run waiting for their results, and the results waiting for calls.

    Arguments:
        window: how many documents a call waits for its result (and a result for its call).
        limit: how many calls and events may wait at once.
        remembered: how many handed-on call keys are kept for merging repeats (at least;
            they are kept in two generations of ``remembered`` each).
    """

    __slots__ = (
        "_alone",
        "_answered",
        "_expect",
        "_idle",
        "_older",
        "_queue",
        "_results",
        "_results_order",
        "_seen",
        "_waiting",
        "_window_passed",
        "doc",
        "limit",
        "passing",
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
        self._queue: deque[list[Any]] = deque()
        self._waiting: dict[Key, list[Any]] = {}
        self._results: dict[Key, tuple[ToolResult, int]] = {}
        self._results_order: deque[tuple[int, Key]] = deque()
        # the keys of the calls handed on, in two generations (when the newer fills up it
        # becomes the older, and the older is forgotten); and those that left answered
        self._seen: set[Key] = set()
        self._older: set[Key] = set()
        self._answered: set[Key] = set()
        # per hop value: whether its calls wait (True: results of the hop were seen; None:
        # not yet known; False: the first window passed without one)
        self._expect: dict[str, bool | None] = {}
        self._alone: tuple[Hop, ...] = ()  # the hops whose calls pass at once
        self._idle = True  # nothing is held
        self._window_passed = False
        #: whether a lone model-hop call would pass straight through now (nothing held, the
        #: model hop taken for calls alone): then a reader may check such a call at once
        #: and only :meth:`count` its document (the fast lane)
        self.passing = False

    @property
    def waiting(self) -> int:
        """How many calls and events are held."""
        return len(self._queue)

    def add(self, items: list[Captured], out: list[Released]) -> None:
        """Take what one document holds; append to ``out`` what may leave now."""
        self.doc += 1
        if self._idle and len(items) == 1:
            # the common case of a trace of calls alone, kept to a few steps: one call of
            # a hop that carries no results, with nothing held before it, leaves at once
            call = items[0]
            if type(call) is ToolCall and call.hop in self._alone and call.result is None:
                out.append(call)
                return
        if not self._window_passed and self.doc > self.window:
            self._window_passed = True  # a hop without a result so far carries none
            expect = self._expect
            for each in Hop:
                if not expect.get(each._value_):
                    expect[each._value_] = False
            self._alone = tuple(h for h in Hop if expect[h._value_] is False)
        for item in items:
            kind = type(item)
            if kind is ToolCall:
                self._call(item)  # type: ignore[arg-type]
            elif kind is ToolResult:
                self._result(item)  # type: ignore[arg-type]
            else:
                self._queue.append([item, self.doc, True, None])
        if self._queue or self._results_order:
            self._release(out)
        self._idle = idle = not self._queue and not self._results_order
        self.passing = idle and _MODEL in self._alone

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
        self._idle = True
        self.passing = _MODEL in self._alone

    def count(self) -> None:
        """Count a document whose one model-hop call was handed on without the ledger, while
        :attr:`passing` (as :meth:`add` would have passed it)."""
        self.doc += 1

    def assume_alone(self) -> None:
        """Start as after a first window in which no hop carried a result: every hop's
        calls pass at once. A part of a run read on its own starts so (see
        :mod:`jsoncontract.pipeline.parallel`)."""
        self._window_passed = True
        self._expect = {h._value_: False for h in Hop}
        self._alone = tuple(Hop)
        self.passing = self._idle

    @property
    def idle(self) -> bool:
        """Whether nothing is held (no call waiting for its result, no result for its
        call)."""
        return self._idle

    @property
    def expects_results(self) -> bool:
        """Whether some hop has carried a result (its calls wait for theirs)."""
        return any(self._expect.values())

    @property
    def settled(self) -> bool:
        """Whether nothing is held and every hop's calls pass at once (the state
        :meth:`assume_alone` starts in, but for the keys remembered)."""
        return self._idle and self._window_passed and len(self._alone) == len(Hop)

    def replay(self, steps: list[tuple[int, Key]]) -> bool:
        """Apply the key steps a ledger that :meth:`assume_alone` logged (see
        :class:`StepLog`) to this settled one, if it would have taken the same ones: each
        repeat lookup giving the same answer. Returns ``False`` (and changes nothing) when
        one differs."""
        saved = (set(self._seen), set(self._older), set(self._answered))
        for step, key in steps:
            if step >= _REMEMBER:
                self._remember(key, step == _REMEMBER_ANSWERED)
            elif (key in self._seen or key in self._older) != (step == _SEEN):
                self._seen, self._older, self._answered = saved
                return False
        return True

    # -- arrivals ------------------------------------------------------------------------

    def _call(self, call: ToolCall) -> None:
        call_id = call.call_id
        if call_id is None:
            call_id = call.sighting  # a key its dialect gave the sightings of one call
            if call_id is None:
                self._queue.append([call, self.doc, True, None])
                return
        hop = call.hop
        if (
            call.result is not None
            and hop is not None
            and self._expect.get(hop._value_) is not True
        ):
            self._carries_results(hop)  # an execute-tool span, which holds its result
        key = _key(hop, call.session, call_id)
        waiting = self._waiting
        if hop is _MODEL:
            first = waiting.get(key)
            if first is not None:  # the same call seen again before it left
                self._merge(first[_ITEM], call)
                if first[_ITEM].result is not None:  # it brought the result: done
                    first[_DONE] = True
                    del waiting[key]
                return
            if self._repeat(key):  # seen again after it left
                return
        else:
            earlier = waiting.pop(key, None)
            if earlier is not None:  # an id used again while unanswered: that one is done
                earlier[_DONE] = True
        if self._results:
            answer = self._results.pop(key, None)
            if answer is not None:
                self._attach(call, answer[0])
        if call.result is not None or (hop is not None and self._expect.get(hop._value_) is False):
            self._queue.append([call, self.doc, True, key])
            return
        entry = [call, self.doc, False, key]
        waiting[key] = entry
        self._queue.append(entry)

    def _carries_results(self, hop: Hop) -> bool:
        """Results were seen at ``hop``: its calls wait for theirs from now on. Whether it
        had been taken for a hop of calls alone."""
        alone = self._expect.get(hop._value_) is False
        self._expect[hop._value_] = True
        if alone:
            self._alone = tuple(h for h in self._alone if h is not hop)
        return alone

    def _result(self, result: ToolResult) -> None:
        alone = False  # its hop was taken for calls alone: its call may have left
        if result.hop is not None and self._expect.get(result.hop._value_) is not True:
            alone = self._carries_results(result.hop)
        key = result_key(result)
        if key is None:  # nothing to pair it with
            self._queue.append(self._orphan_entry(result))
            return
        entry = self._waiting.pop(key, None)
        if entry is not None:
            self._attach(entry[_ITEM], result)
            entry[_DONE] = True
            return
        if key in self._seen or key in self._older:  # its call has left
            if key not in self._answered:
                self._answered.add(key)  # reported once
                late = TraceEvent(EventKind.LATE_RESULT, result.source, result=result)
                self._queue.append([late, self.doc, True, None])
            elif result.hop is not _MODEL and not result.in_history:
                self._queue.append(self._orphan_entry(result))
            return
        if alone:
            late = TraceEvent(EventKind.LATE_RESULT, result.source, result=result)
            self._queue.append([late, self.doc, True, None])
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
                f for f in first.load_findings if f.code != codes.ENVELOPE_ARGUMENTS_NOT_RECORDED
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
            answer = self._results.get(key)
            if answer is not None and answer[1] <= oldest:
                del self._results[key]
                self._queue.append(self._orphan_entry(answer[0]))
        queue = self._queue
        limit = self.limit
        leave = self._leave
        while queue:
            head = queue[0]
            if not head[_DONE] and head[_DOC] > oldest and len(queue) <= limit:
                break
            queue.popleft()
            leave(head, out)

    def _leave(self, entry: list[Any], out: list[Released]) -> None:
        key = entry[_KEY]
        if key is not None:
            if not entry[_DONE] and self._waiting.get(key) is entry:
                del self._waiting[key]
            self._remember(key, entry[_ITEM].result is not None)
        out.append(entry[_ITEM])

    def _repeat(self, key: Key) -> bool:
        """Whether a model-hop call of ``key`` was handed on already."""
        return key in self._seen or key in self._older

    def _remember(self, key: Key, answered: bool) -> None:
        self._seen.add(key)
        if answered:
            self._answered.add(key)
        if len(self._seen) > self.remembered:
            self._rotate()

    def _rotate(self) -> None:
        """The newer generation of keys becomes the older; the older is forgotten."""
        self._older = self._seen
        self._seen = set()
        self._answered.intersection_update(self._older)

    def _orphan_entry(self, result: ToolResult) -> list[Any]:
        orphan = TraceEvent(EventKind.ORPHAN_RESULT, result.source, result=result)
        return [orphan, self.doc, True, None]


class StepLog(Ledger):
    """A ledger that logs what a part of a run read on its own did with keys, and what it
    saw, so that the run can tell whether its start mattered (see
    :mod:`jsoncontract.pipeline.parallel`).

    ``steps``: each repeat lookup of a model-hop call with its answer, and each key
    remembered, in order (:meth:`Ledger.replay` applies them to the run's ledger);
    ``clean``: no result and no trace event came in.
    """

    __slots__ = ("clean", "steps")

    def __init__(self, *, window: int = WINDOW, limit: int = LIMIT, remembered: int = REMEMBERED):
        super().__init__(window=window, limit=limit, remembered=remembered)
        self.steps: list[tuple[int, Key]] = []
        self.clean = True

    def add(self, items: list[Captured], out: list[Released]) -> None:
        if self.clean:
            for item in items:
                if type(item) is not ToolCall:
                    self.clean = False
        super().add(items, out)

    def plain(self) -> Ledger:
        """A ledger in the same state that logs nothing."""
        ledger = Ledger(window=self.window, limit=self.limit, remembered=self.remembered)
        for name in Ledger.__slots__:
            setattr(ledger, name, getattr(self, name))
        return ledger

    def _repeat(self, key: Key) -> bool:
        seen = super()._repeat(key)
        self.steps.append((_SEEN if seen else _UNSEEN, key))
        return seen

    def _remember(self, key: Key, answered: bool) -> None:
        self.steps.append((_REMEMBER_ANSWERED if answered else _REMEMBER, key))
        super()._remember(key, answered)
