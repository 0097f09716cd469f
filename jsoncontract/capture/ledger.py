"""Pairing results with their calls, and telling one call seen in several places from two.

The reader hands the ledger what each document holds (calls, results, trace events), in
capture order, and the ledger hands on calls, with their results attached, and trace events,
in the same order.

**Keys.** A call and its result meet by key. At the model hop the key is the call id
(``call_...``, ``toolu_...``, a Gemini id, ``gen_ai.tool.call.id``: the OpenTelemetry
conventions carry the model's id). At the MCP hop it is ``(hop, session, id)``, the session
being the MCP session's id, since JSON-RPC ids restart in every session
(``jsonrpc.request.id`` and ``mcp.session.id`` of an MCP span give the same key as the
frames); the downstream hop keys the same way. A call without an id is keyed by its
``sighting`` when its dialect gives one. A call or result without either never waits:
a dialect that pairs by position (a Gemini history without ids, an HTTP Archive entry, a
span that holds both) attaches the result itself before handing the call on.

**Call identity (the contract).** A key is not a call. At the model hop, a call seen again
with the same key, the same tool and the same arguments (the response, then the next
request's history; a chat span's ``tool_call`` part, then the execute-tool span) is the
same call: it is counted once, however far apart the sightings are, in whichever order,
file or dialect they come. Arguments are the same when they are the same JSON value
(``{"a": 1}`` and ``{ "a" : 1 }`` are; a sighting that does not record them, an
execute-tool span without the opt-in ``gen_ai.tool.call.arguments``, matches any and
supplies them when it comes first). The same key with another tool or other arguments is
another call, counted and checked, and a :attr:`~jsoncontract.model.EventKind.REUSED_CALL_ID`
event says the id was used again. MCP and downstream calls are never merged: a JSON-RPC id
may be used again once answered.

A later sighting never loses what it brings. The tools it was offered are kept when the
held call records none; its result is attached to its call while the
call is held; once the call has left, the result is handed on as a
:attr:`~jsoncontract.model.EventKind.LATE_RESULT` event (the checker checks it alone). A
second result that differs from the first (another answer for one call, a history that
edits it) is a :attr:`~jsoncontract.model.EventKind.CONFLICTING_RESULT` event, checked the
same way; the same result again (each history repeats the results before it) is dropped.

**Holding.** A call with an id waits for its result until the result arrives, or
:data:`WINDOW` more documents (JSONL lines, SSE events, files) have been read (results
follow their call within a few lines in every capture seen), or more than :data:`LIMIT`
calls and events wait, or the run ends. Everything leaves in capture order: a call
answered early waits behind an earlier one that is still waiting, so that the checks over
a run (idempotency, turns, sessions) see the capture's order. A result that comes before
its call waits :data:`WINDOW` documents for it the same way.

**Calls alone.** A run whose first :data:`WINDOW` documents held no result at some hop
(neither a result nor a call with an id that brings its own, as an execute-tool span
does) is taken to be a trace of calls alone at that hop (the responses of a model, the
requests a host sent): from then on its calls do not wait, so that such a trace is read as
fast as before results were paired (holding calls costs time, their data going cold while
they wait). Model-hop calls are still remembered, so that identity does not depend on
where a call sits. The first result of that hop ends it; a result then whose call is not
held is reported late.

**Memory.** Bounded by :data:`LIMIT` held items, plus what is remembered of the calls
handed on: for the keys of the last :data:`REMEMBERED` to twice as many of them, each
call's tool, its arguments (the text when at most :data:`SHORT` characters, else a
digest), where it was read and a digest of its result. A key names at most
:data:`PER_KEY` calls; a sighting of a call forgotten is counted as a new call.

**Results.** A result meets the latest call of its key and is attached. A result for a call
already handed on without one is a late result; a second answer at the MCP or downstream
hop is an :attr:`~jsoncontract.model.EventKind.ORPHAN_RESULT` (JSON-RPC answers a request
once); a result no call claims within the window is an orphan.
"""

from __future__ import annotations

import hashlib
import json
from collections import deque
from typing import Any, Final

import orjson

from jsoncontract import codes
from jsoncontract._json import may_hide_numbers
from jsoncontract.model import (
    ArgumentsForm,
    Captured,
    EventKind,
    Hop,
    Source,
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
#: How many calls one key may name before the oldest of them is forgotten.
PER_KEY: Final = 16
#: Arguments texts up to this length are remembered as they are; longer ones as a digest.
SHORT: Final = 256

Released = ToolCall | TraceEvent
Key = str | tuple[str, str | None, str]
#: What a call's arguments are remembered as: ``None`` (not recorded: matches any), the
#: text as sent, or a digest of the JSON value (bytes).
Mark = str | bytes | None
#: What is remembered of a call handed on (see below).
Record = tuple[Any, ...]
_MODEL: Final = Hop.MODEL
_UNRECORDED: Final = ArgumentsForm.UNRECORDED
_TEXT: Final = ArgumentsForm.TEXT


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
    if call_id is not None and result.hop is not _MODEL and result.sighting is not None:
        call_id = result.sighting
    return None if call_id is None else _key(result.hop, result.session, call_id)


# -- identity ---------------------------------------------------------------------------------


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


def canonical(value: Any) -> bytes:
    """A JSON value written one way (keys sorted, no spaces), to compare values by; a value
    too deep to write gets a mark of its own, equal to no other."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # an integer past 64 bits, or nesting orjson does not write
        try:
            text = json.dumps(
                value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=repr
            )
        except (ValueError, TypeError, RecursionError):
            return b"\x01" + str(id(value)).encode()
        return text.encode("utf-8", "surrogatepass")


def _canonical_text(text: str) -> bytes:
    """:func:`canonical` of the JSON a text holds (read exactly: orjson reads an integer past
    64 bits as a float); a text that is no JSON, as it is."""
    try:
        if may_hide_numbers(text.encode("utf-8", "surrogatepass")):
            raise orjson.JSONDecodeError("exact numbers", text, 0)
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            return b"\x00" + text.encode("utf-8", "surrogatepass")
    return canonical(value)


def arguments_mark(call: ToolCall) -> Mark:
    """What a model-hop call's arguments are remembered and compared as."""
    form = call.form
    if form is _UNRECORDED:
        return None
    arguments = call.arguments
    if form is _TEXT and type(arguments) is str:
        return arguments if len(arguments) <= SHORT else _digest(_canonical_text(arguments))
    return _digest(canonical(arguments))


def text_mark(text: str) -> Mark:
    """:func:`arguments_mark` of arguments sent as ``text``."""
    return text if len(text) <= SHORT else _digest(_canonical_text(text))


def same_arguments(one: Mark, other: Mark) -> bool:
    """Whether two marks name the same arguments (an unrecorded side matches any)."""
    if one is None or other is None or one == other:
        return True
    return _as_digest(one) == _as_digest(other)


def _as_digest(mark: str | bytes) -> bytes:
    return mark if type(mark) is bytes else _digest(_canonical_text(mark))  # type: ignore[arg-type]


def result_mark(result: ToolResult) -> bytes:
    """A digest of what a result says: its content (a text that holds JSON compared as the
    value), structured content and error, so that one result carried in several places
    (a span's attribute, a history's message) is the same result."""
    content = result.content
    if type(content) is str:
        content = _canonical_text(content)
    else:
        content = canonical(content)
    rest = canonical(
        [result.structured_content if result.present_structured else None, result.error]
    )
    return _digest(content + b"\x00" + rest)


def unrecorded(result: ToolResult) -> bool:
    """Whether a result records nothing of what came back (an execute-tool span without
    ``gen_ai.tool.call.result``, its times alone): another sighting's result completes it."""
    return (
        result.content is None
        and not result.present_structured
        and result.error is None
        and result.is_error is not True
        and not result.load_findings
    )


# The steps a StepLog records: a lookup of a model-hop call among the calls handed on (its
# outcome: no call of that key, the same call, another call), a call remembered.
_UNSEEN, _SAME, _OTHER, _REMEMBER, _FRESH = 0, 1, 2, 3, 4

# A queue entry is a list, [item, document number, done, key]: made for every call, it is
# five times cheaper to build than an object.
_ITEM, _DOC, _DONE, _KEY = 0, 1, 2, 3
# A record of a call handed on is a tuple: (tool, arguments mark, file, line, answer), the
# answer being None (none yet), a result mark (model hop) or True. A key maps to its one
# record, or to a tuple of its records: tuples of strings and numbers, which the garbage
# collector stops tracking (the ledger remembers tens of thousands).
_TOOL, _ARGS, _FILE, _LINE, _ANSWER = 0, 1, 2, 3, 4


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
        "_expect",
        "_idle",
        "_live",
        "_older",
        "_queue",
        "_results",
        "_results_order",
        "_seen",
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
        # the held calls of each key, in capture order (waiting or done, until they leave)
        self._live: dict[Key, list[list[Any]]] = {}
        self._results: dict[Key, tuple[ToolResult, int]] = {}
        self._results_order: deque[tuple[int, Key]] = deque()
        # the records of the calls handed on, by key, in two generations (when the newer
        # fills up it becomes the older, and the older is forgotten); a key is in one
        self._seen: dict[Key, Any] = {}
        self._older: dict[Key, Any] = {}
        # per hop value: whether its calls wait (True: results of the hop were seen; None:
        # not yet known; False: the first window passed without one)
        self._expect: dict[str, bool | None] = {}
        self._alone: tuple[Hop, ...] = ()  # the hops whose calls pass at once
        self._idle = True  # nothing is held
        self._window_passed = False
        #: whether a lone model-hop call would pass straight through now (nothing held, the
        #: model hop taken for calls alone): then a reader may check such a call at once,
        #: after :meth:`fresh` says its id is new (the fast lane)
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
            # a hop that carries no results and merges nothing, with nothing held before
            # it, leaves at once
            call = items[0]
            if (
                type(call) is ToolCall
                and call.hop in self._alone
                and call.result is None
                and call.hop is not _MODEL
            ):
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

    def fresh(self, call_id: str, tool: str, text: str, file: str, line: int) -> bool:
        """For the fast lane, while :attr:`passing`: whether a model-hop call of ``call_id``
        is new to the run (then it is remembered as handed on, its arguments sent as
        ``text``, read at ``file``:``line``); ``False`` when the id was seen before, and the
        line is read on the full path."""
        # the lane's every call comes here: the lookups and the record made inline
        if call_id in self._live or call_id in self._seen or call_id in self._older:
            return False
        mark = text if len(text) <= SHORT else _digest(_canonical_text(text))
        seen = self._seen
        seen[call_id] = (tool, mark, file, line, None)
        if len(seen) > self.remembered:
            self._older = seen
            self._seen = {}
        return True

    def fresh_value(self, call_id: str, tool: str, value: Any, file: str, line: int) -> bool:
        """:meth:`fresh` for a call whose arguments are a JSON value, not a text."""
        if call_id in self._live or call_id in self._seen or call_id in self._older:
            return False
        seen = self._seen
        seen[call_id] = (tool, _digest(canonical(value)), file, line, None)
        if len(seen) > self.remembered:
            self._older = seen
            self._seen = {}
        return True

    def unseen(self, call_id: str) -> bool:
        """Whether :meth:`fresh` would take a model-hop call of ``call_id`` now (asked of
        every call of a document before any is remembered)."""
        return not (call_id in self._live or call_id in self._seen or call_id in self._older)

    def passes(self, hop: Hop) -> bool:
        """Whether a lone call of ``hop`` (not the model's) would leave at once now, with
        nothing remembered of it (the fast lane takes it then)."""
        return self._idle and hop in self._alone

    def flush(self, out: list[Released]) -> None:
        """The end of the run: everything still held leaves, in order; results still
        waiting for a call are orphans."""
        queue = self._queue
        while queue:
            self._leave(queue.popleft(), out)
        self._live.clear()
        for result, _ in self._results.values():
            out.append(self._event(EventKind.ORPHAN_RESULT, result))
        self._results.clear()
        self._results_order.clear()
        self._idle = True
        self.passing = _MODEL in self._alone

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
        :meth:`assume_alone` starts in, but for the calls remembered)."""
        return self._idle and self._window_passed and len(self._alone) == len(Hop)

    def replay(self, steps: list[Any]) -> bool:
        """Apply the key steps a ledger that :meth:`assume_alone` logged (see
        :class:`StepLog`) to this settled one, if it would have taken the same ones: each
        lookup of a call among those handed on giving the same outcome. Returns ``False``
        (and changes nothing) when one differs."""
        saved = (dict(self._seen), dict(self._older))  # records are immutable
        remembered = self.remembered
        i, end = 0, len(steps)
        while i < end:
            step = steps[i]
            if step == _FRESH:  # a lookup that must find nothing, then a record (inline)
                key = steps[i + 1]
                seen = self._seen
                if key in seen or key in self._older:
                    self._seen, self._older = saved
                    return False
                seen[key] = (steps[i + 2], steps[i + 3], steps[i + 4], steps[i + 5], None)
                if len(seen) > remembered:
                    self._older = seen
                    self._seen = {}
                i += 6
            elif step == _REMEMBER:
                self._remember(steps[i + 1], steps[i + 2])
                i += 3
            elif self._outcome(steps[i + 1], steps[i + 2], steps[i + 3]) != step:
                self._seen, self._older = saved
                return False
            else:
                i += 4
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
        if hop is not _MODEL and call.sighting is not None:
            call_id = call.sighting  # a JSON-RPC id with its type: 1 and "1" are two
        key = _key(hop, call.session, call_id)
        live = self._live.get(key)
        if hop is _MODEL:
            if self._sighted(key, call, live):
                return
        elif live is not None:  # an id used again while unanswered: that one is done
            for entry in live:
                entry[_DONE] = True
        brought = call.result
        if self._results:
            answer = self._results.pop(key, None)
            if answer is not None:
                self._join(call, answer[0])
        # done once it has a result, unless the one it brought records nothing (an
        # execute-tool span without gen_ai.tool.call.result): that one waits for what
        # another sighting says
        got = call.result
        done = (got is not None and not (got is brought and unrecorded(got))) or (
            hop is not None and self._expect.get(hop._value_) is False
        )
        entry = [call, self.doc, done, key]
        self._queue.append(entry)
        if live is None:
            self._live[key] = [entry]
        else:
            live.append(entry)

    def _sighted(self, key: Key, call: ToolCall, live: list[list[Any]] | None) -> bool:
        """Whether a model-hop call is one seen before (then what it brings is taken);
        when its key named another call, the reuse is reported and it is a call of its
        own."""
        tool = call.tool
        if live is not None:
            mark = arguments_mark(call)
            for entry in reversed(live):
                first = entry[_ITEM]
                if first.tool == tool and same_arguments(arguments_mark(first), mark):
                    self._merge(entry, call)
                    return True
        else:
            mark = None if call.form is _UNRECORDED else _NOT_YET
        records = self._records(key)
        if records is not None:
            if mark is _NOT_YET:
                mark = arguments_mark(call)
            record = _matching(records, tool, mark)
            self._classified(_OTHER if record is None else _SAME, key, tool, mark)
            if record is not None:
                if call.result is not None:
                    self._answer_left(key, record, call.result)
                return True
        elif live is None:
            if mark is _NOT_YET:
                mark = arguments_mark(call)
            self._classified(_UNSEEN, key, tool, mark)
            return False
        if live is not None:
            earlier = live[-1][_ITEM].source
            for entry in live:  # the earlier call of the id waits no more
                entry[_DONE] = True
        else:
            assert records is not None
            earlier = Source(records[-1][_FILE], records[-1][_LINE])
        self._emit(TraceEvent(EventKind.REUSED_CALL_ID, call.source, call=call, earlier=earlier))
        return False

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
            self._emit_event(EventKind.ORPHAN_RESULT, result)
            return
        live = self._live.get(key)
        if live is not None:
            call = live[-1][_ITEM]  # the latest call of the key
            self._join(call, result)
            live[-1][_DONE] = True
            return
        records = self._records(key)
        if records is not None:  # its call has left
            self._answer_left(key, records[-1], result)
            return
        if alone and result.hop is not _MODEL:  # its call passed unremembered
            self._emit_event(EventKind.LATE_RESULT, result)
            return
        waiting = self._results.get(key)
        if waiting is not None:  # results of one call before the call
            if unrecorded(waiting[0]):
                self._results[key] = (result, waiting[1])
            elif not unrecorded(result):
                self._again(waiting[0], result, result.hop)
            return
        self._results[key] = (result, self.doc)
        self._results_order.append((self.doc, key))

    def _again(self, first: ToolResult, again: ToolResult, hop: Hop | None) -> None:
        """A second result for a call that has ``first``."""
        if hop is _MODEL:
            if result_mark(first) != result_mark(again):
                self._emit_event(EventKind.CONFLICTING_RESULT, again)
        elif not again.in_history:  # JSON-RPC answers a request once
            self._emit_event(EventKind.ORPHAN_RESULT, again)

    def _answer_left(self, key: Key, record: Record, result: ToolResult) -> None:
        """A result for a call handed on (``record``): late when the call had none, and
        checked either way."""
        answer = record[_ANSWER]
        if result.tool is None:
            result.tool = record[_TOOL]
        if answer is None:
            if not unrecorded(result):
                answer = result_mark(result) if result.hop is _MODEL else True
                self._answered(key, record, answer)
            self._emit_event(EventKind.LATE_RESULT, result)
        elif unrecorded(result):  # a sighting that records nothing of it: no second answer
            return
        elif result.hop is _MODEL:
            if answer != result_mark(result):
                self._emit_event(EventKind.CONFLICTING_RESULT, result)
        elif not result.in_history:
            self._emit_event(EventKind.ORPHAN_RESULT, result)

    @staticmethod
    def _attach(call: ToolCall, result: ToolResult) -> None:
        if call.result is None:
            call.result = result
            if result.started is None and call.time is not None:
                result.started = call.time

    def _join(self, call: ToolCall, result: ToolResult) -> None:
        """``result`` for a call that may have one already: a result that records nothing
        (an execute-tool span without ``gen_ai.tool.call.result``) takes what the other
        says, and keeps its times; two that say different things are a conflict."""
        first = call.result
        if first is None:
            self._attach(call, result)
        elif unrecorded(first):
            if not unrecorded(result):
                if result.started is None:
                    result.started = first.started
                if result.ended is None:
                    result.ended = first.ended
                call.result = result
        elif not unrecorded(result):
            self._again(first, result, call.hop)

    def _merge(self, entry: list[Any], again: ToolCall) -> None:
        """``again`` is the held call of ``entry`` seen in another place."""
        first: ToolCall = entry[_ITEM]
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
        if again.result is not None:
            if first.result is None:  # (the time it took is the sighting's to say)
                first.result = again.result
            else:
                self._join(first, again.result)
            entry[_DONE] = True  # it has its result: done
        if first.time is None:
            first.time = again.time
        if first.offered is None:  # the tools it was offered, where only this one says
            first.offered = again.offered

    # -- departures ----------------------------------------------------------------------

    def _release(self, out: list[Released]) -> None:
        oldest = self.doc - self.window
        results = self._results_order
        while results and results[0][0] <= oldest:
            _, key = results.popleft()
            answer = self._results.get(key)
            if answer is not None and answer[1] <= oldest:
                del self._results[key]
                self._emit_event(EventKind.ORPHAN_RESULT, answer[0])
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
        call = entry[_ITEM]
        if key is not None:
            live = self._live.get(key)
            if live is not None:
                if live[0] is entry:
                    del live[0]
                elif entry in live:
                    live.remove(entry)
                if not live:
                    del self._live[key]
            result = call.result
            model = call.hop is _MODEL
            if result is None or unrecorded(result):
                answer: Any = None
            else:
                answer = result_mark(result) if model else True
            source = call.source
            self._remember(
                key,
                (
                    call.tool,
                    arguments_mark(call) if model else None,
                    source.file,
                    source.line,
                    answer,
                ),
            )
        out.append(call)

    def _outcome(self, key: Key, tool: str | None, mark: Mark) -> int:
        """What a lookup of a call among those handed on finds."""
        records = self._records(key)
        if records is None:
            return _UNSEEN
        return _OTHER if _matching(records, tool, mark) is None else _SAME

    def _classify(self, key: Key, tool: str | None, mark: Mark) -> int:
        """:meth:`_outcome`, logged (a call held under ``key`` counts as seen)."""
        if key in self._live:
            return _OTHER
        outcome = self._outcome(key, tool, mark)
        self._classified(outcome, key, tool, mark)
        return outcome

    def _classified(self, outcome: int, key: Key, tool: str | None, mark: Mark) -> None:
        """A lookup's outcome (logged by :class:`StepLog`)."""

    def _records(self, key: Key) -> tuple[Record, ...] | None:
        """The records of the calls of ``key`` handed on, oldest first (``None``: none)."""
        found = self._seen.get(key) or self._older.get(key)
        if found is None:
            return None
        return found if type(found[0]) is tuple else (found,)

    def _remember(self, key: Key, record: Record) -> None:
        seen = self._seen
        found = seen.get(key)
        if found is None:
            found = self._older.pop(key, None)
        if found is None:
            seen[key] = record
        else:
            records = (found if type(found[0]) is tuple else (found,)) + (record,)
            seen[key] = records[-PER_KEY:]
        if len(seen) > self.remembered:
            self._older = seen
            self._seen = {}

    def _answered(self, key: Key, record: Record, answer: Any) -> None:
        """``record`` of ``key`` now has its answer (records are replaced, never changed)."""
        new = (*record[:_ANSWER], answer)
        for generation in (self._seen, self._older):
            found = generation.get(key)
            if found is record:
                generation[key] = new
                return
            if found is not None and type(found[0]) is tuple:
                generation[key] = tuple(new if r is record else r for r in found)
                return

    def _emit_event(self, kind: EventKind, result: ToolResult) -> None:
        self._emit(TraceEvent(kind, result.source, result=result))

    def _event(self, kind: EventKind, result: ToolResult) -> TraceEvent:
        return TraceEvent(kind, result.source, result=result)

    def _emit(self, event: TraceEvent) -> None:
        """An event the ledger makes, queued in capture order."""
        self._queue.append([event, self.doc, True, None])


_NOT_YET: Final[Any] = object()


def _matching(records: tuple[Record, ...], tool: str | None, mark: Mark) -> Record | None:
    """The latest record of a call of ``tool`` with the arguments ``mark`` names."""
    for record in reversed(records):
        if record[_TOOL] == tool and same_arguments(record[_ARGS], mark):
            return record
    return None


class StepLog(Ledger):
    """A ledger that logs what a part of a run read on its own did with keys, and what it
    saw, so that the run can tell whether its start mattered (see
    :mod:`jsoncontract.pipeline.parallel`).

    ``steps``: each lookup of a model-hop call among the calls handed on, with its outcome,
    and each call remembered, in order (:meth:`Ledger.replay` applies them to the run's
    ledger); ``clean``: no result and no trace event came in, and the ledger made none.

    The steps are one flat list, which a worker hands back to the run at a fraction of the
    cost of a tuple per step: a lookup is ``outcome, key, tool, mark``; a call remembered
    ``_REMEMBER, key, record``; and a call the fast lane found new (a lookup that found
    nothing, then its record) ``_FRESH, key, tool, mark, file, line``.
    """

    __slots__ = ("clean", "steps")

    def __init__(self, *, window: int = WINDOW, limit: int = LIMIT, remembered: int = REMEMBERED):
        super().__init__(window=window, limit=limit, remembered=remembered)
        self.steps: list[Any] = []
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

    def _classified(self, outcome: int, key: Key, tool: str | None, mark: Mark) -> None:
        self.steps += (outcome, key, tool, mark)

    def fresh(self, call_id: str, tool: str, text: str, file: str, line: int) -> bool:
        return self._fresh(call_id, tool, text_mark(text), file, line)

    def fresh_value(self, call_id: str, tool: str, value: Any, file: str, line: int) -> bool:
        return self._fresh(call_id, tool, _digest(canonical(value)), file, line)

    def _fresh(self, call_id: str, tool: str, mark: Mark, file: str, line: int) -> bool:
        if call_id in self._live:
            return False
        if self._records(call_id) is not None:
            self._classified(self._outcome(call_id, tool, None), call_id, tool, None)
            return False
        self.steps += (_FRESH, call_id, tool, mark, file, line)
        Ledger._remember(self, call_id, (tool, mark, file, line, None))
        return True

    def _remember(self, key: Key, record: Record) -> None:
        self.steps += (_REMEMBER, key, record)
        super()._remember(key, record)

    def _emit(self, event: TraceEvent) -> None:
        self.clean = False
        super()._emit(event)
