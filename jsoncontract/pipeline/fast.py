"""The fast lane: one JSONL line holding ordinary calls, checked (or read for the ledger)
with the least work that stays exact.

Most lines of a production trace are the same thing: a whole response (or request) of a
known dialect whose tool calls pass. The full path reads such a line through dialect
detection, builds a :class:`~jsoncontract.model.ToolCall` per call, hands them to the ledger,
runs every gate and builds a :class:`~jsoncontract.model.CallResult`, many µs of interpreter
work around a few µs of compiled work. The lane parses the line once, asks the reader which
handler would read it, and reads it with that handler's
:class:`~jsoncontract.capture.interface.Shortcut` (every dialect offers one for its common
documents: Chat completions and assistant messages, Responses objects, Anthropic Messages,
Gemini responses, MCP ``tools/call`` requests); a passing call becomes a
:class:`~jsoncontract.model.PassedCall`, a failing one or one a business rule looks at is
checked by the full gates from the schema gate on. Anything else (another shape, a line
that might hide something, an unknown tool, arguments that are not an object) goes to the
full path, which reads the line from scratch: so the results, and every report made of
them, are the same with and without the lane.

**Reading for the ledger.** A call that waits for its result (an MCP request while MCP
calls are answered, a Chat completion whose calls the next request answers) is checked as a
whole once its result came, and the ledger holds it until then, in capture order: the lane
does not check it. It reads it: while the ledger would not hand a lone model-hop call
straight on (it holds calls, or results come at the model hop), for an MCP message while
MCP calls are answered, and for a conversation history, the line is parsed once with the
same probes, and its handler's shortcut ``read`` builds exactly what the handler would (the
same calls and results, remembered the same way in the dialect's memory: an MCP
``tools/call`` request made under the session and waiting, an answer to a waiting request,
a Chat completion's calls, the messages of a history its last request did not hold). The
lane hands them to the ledger, as the full path does, so the ledger's order, window,
pairing and reuse of ids are the full path's by construction. A document its shortcut
declines (or one whose handler has none) is read by the full path from the parsed document:
the line is parsed once either way. What the lane saves is the dialect detection, the
generic handlers' work and, in a history, the repeated turns: a request whose messages
begin with every message of the file's last request, each of which is known and would be
skipped again (see :func:`jsoncontract.capture.openai_chat.lane_history`), is read from its
first new message.

What keeps it exact:

- the shortcut takes a document only when its handler would read it into those calls and
  nothing else (no envelope finding, no result, nothing the dialect's memory would read
  another way), and commits what the handler would remember of it;
- what orjson hides is ruled out on the line as the full path's probes rule it out on the
  line and then on the arguments: no escaped ``0-9:;<=>?`` (``\\u003``) anywhere, so every
  digit and colon of an arguments text is a literal byte of the line; the parser's number
  probe (:func:`~jsoncontract._json.may_hide_numbers`) on the line, so no integer may pass
  64 bits and no fraction or tiny literal may read as another number; and as many colons
  in the re-serialised document as in the line, and in each re-serialised arguments text
  as in the text, so no duplicate key was dropped at any level (each level can only lose
  colons). Lone surrogates, invalid UTF-8, NaN and nesting beyond the parser's depth make
  orjson refuse the line or the arguments: full path;
- the lane checks a line only while the ledger would hand a lone model-hop call straight on
  (nothing held, the model hop taken for calls alone: a trace of responses, past the first
  result window); an MCP request also needs its hop taken alone (while it is not, a line
  holding ``"jsonrpc"`` is read for the ledger, above). Every model-hop call id of the line
  must be new to the run and distinct (:meth:`~jsoncontract.capture.ledger.Ledger.unseen`)
  before any is remembered (:meth:`~jsoncontract.capture.ledger.Ledger.fresh`): an id seen
  before goes to the full path, whose ledger tells one call from two;
- the schema gate is the same compiled validator; the gate over the run sees a passed call
  through its ``passed`` method (the turn and session contracts' shortcut of ``call``), and
  a call the schema gate failed too when the gate says that it reads no finding of a call
  without a result (``failures_as_passed``); a gate of another kind that looks at every
  call closes the lane.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

import orjson

from jsoncontract._json import ESCAPED_COLON_PREFIX, may_hide_numbers
from jsoncontract.capture.interface import DocContext
from jsoncontract.model import ArgumentsForm, CallResult, Hop, PassedCall, Source, ToolCall

if TYPE_CHECKING:
    from jsoncontract.capture.reader import CaptureReader, Lane
    from jsoncontract.model import ToolContract
    from jsoncontract.pipeline.checker import Checker

_TEXT: Final = ArgumentsForm.TEXT
_MODEL: Final = Hop.MODEL
_MCP: Final = Hop.MCP
#: The member every JSON-RPC message has: a line that holds it, while MCP calls wait for
#: their answers, is read for the ledger (its calls would wait too).
_JSONRPC: Final = b'"jsonrpc"'
#: What the lane returns for a line it read and handed to the ledger (never changed).
_HANDED: Final[list[Any]] = []


def build_lane(checker: Checker, reader: CaptureReader) -> Lane | None:
    """The lane for ``checker`` and ``reader``, or ``None`` when it cannot be exact (a
    forced dialect other than bare bodies', or a gate of unknown kind)."""
    if reader.forced is not None and reader.forced is not reader.dialects.fallback:
        return None
    business = checker.business
    wants = getattr(business, "wants", None)
    if business is not None and wants is None:
        return None  # a gate of unknown kind sees every call
    # a gate that keeps a record of the call it checked last, read after each result (a
    # worker's business gate): a line's calls it checks come one at a time, on the full path
    alone = bool(getattr(business, "records_last", False))
    session = checker.session
    passed_hook: Callable[[PassedCall], object] | None = None
    if session is not None and getattr(session, "per_call", True):
        passed_hook = getattr(session, "passed", None)
        if passed_hook is None:
            return None  # a gate of unknown kind sees every call
    # a gate that sees a lone call the schema gate failed as it sees a passing one (none of
    # its checks reads the findings of a call without a result, and what they find is held)
    failed_hook = passed_hook if getattr(session, "failures_as_passed", False) else None
    validators: dict[tuple[str, Hop, Any], Callable[[Any], bool] | None] = {}
    needs: dict[tuple[str, Hop, Any], bool] = {}
    contracts: dict[tuple[str, Hop, Any], ToolContract] = {}
    contract_of = checker.contracts.contract
    schema_of = checker.contracts.schema
    loads = orjson.loads
    dumps = orjson.dumps
    error = orjson.JSONDecodeError
    hides_numbers = may_hide_numbers
    escaped = ESCAPED_COLON_PREFIX
    shortcut_of = reader.shortcut
    read_value = reader.read_value
    handler_of = reader.handler_of
    reading = reader.reading
    named = reader.tool  # the tool of bare bodies
    check_parsed = checker.check_parsed
    finish = checker.finish
    check = checker.check

    def validator(name: str, hop: Hop, offered: Any) -> Callable[[Any], bool] | None:
        """The schema's test of a call of ``name`` at ``hop`` offered ``offered``, or
        ``None`` when the envelope gate says anything of where its contract comes from (an
        unknown or unoffered tool, another offered schema): the full path says it."""
        if len(validators) > 65536:  # calls offered ever new lists
            validators.clear()
        key = (name, hop, offered)
        tool, said = contract_of(name, hop, offered)
        found = (
            schema_of(tool, hop, offered).is_valid if tool is not None and said is None else None
        )
        validators[key] = found
        if found is not None:
            assert tool is not None
            contracts[key] = tool
            needs[key] = bool(wants(tool)) if wants is not None else False
        return found

    def read(
        file: str, number: int, line: bytes, doc: dict[str, Any], state: Any
    ) -> list[PassedCall | CallResult] | None:
        """Read a parsed line into what it holds, for the ledger: by its handler's shortcut
        ``read`` when it has one and the document is ordinary, else as the full path reads
        a parsed document (so the line is parsed once, its handler found once)."""
        try:  # a duplicate key dropped
            if line.count(b":") != dumps(doc).count(b":"):
                return None
        except TypeError:  # nesting orjson does not write
            return None
        handler = handler_of(doc, state)
        if handler is not None:
            shortcut = reading(handler)
            if shortcut is not None and shortcut.read is not None:
                ctx = DocContext(file, number, None, (), named)
                items = shortcut.read(doc, getattr(handler, "__self__", None), ctx)
                if items is not None:
                    state.ledger.add(items, state.released)
                    return _HANDED
        read_value(file, number, doc, (), state, handler)
        return _HANDED

    def lane(
        file: str, number: int, line: bytes, state: Any
    ) -> list[PassedCall | CallResult] | None:
        ledger = state.ledger
        # while calls wait for their results, or for an MCP message while MCP calls are
        # answered, the lane reads the line for the ledger
        checking = ledger.passing and (ledger.passes(_MCP) or _JSONRPC not in line)
        if escaped in line or hides_numbers(line):
            return None
        try:
            doc = loads(line)
        except error:
            return None
        if type(doc) is not dict:
            return None
        if not checking:
            return read(file, number, line, doc, state)
        found = shortcut_of(doc, state)
        if found is None:
            return None
        shortcut, owner, dialect = found
        if shortcut.extract is None:  # a document the lane reads for the ledger
            return read(file, number, line, doc, state)
        calls = shortcut.extract(doc, owner, file, number)
        if not calls:
            return None
        hop = dialect.hop
        ledger = state.ledger
        if hop is _MODEL:
            unseen = ledger.unseen
            if len(calls) == 1:
                if not unseen(calls[0][1]):
                    return None
            else:
                ids = {c[1] for c in calls}
                if len(ids) != len(calls) or not all(unseen(i) for i in ids):
                    return None
        elif not ledger.passes(hop) or len(calls) != 1:
            return None
        # the session is asked before any call is decided: it is started as the full path
        # would start it, and says the tools it offers
        session = None
        sighting = None
        if shortcut.session is not None:
            session, sighting = shortcut.session(owner, doc, file)
        offered = session.offered if session is not None else None
        # every call decided before any is remembered
        parsed: list[Any] = []
        several = alone and len(calls) > 1
        for name, _, arguments, form, _ in calls:
            key = (name, hop, offered)
            if (validators[key] if key in validators else validator(name, hop, offered)) is None:
                return None  # an unknown or unoffered tool: the full path names it
            if several and needs[key]:
                return None  # its gate's record would be another call's by the time it is read
            if form is _TEXT:
                try:
                    value = loads(arguments)
                except error:
                    value = None
                if type(value) is dict:
                    try:
                        if arguments.count(":") != dumps(value).count(b":"):
                            return None  # a duplicate key was dropped
                    except TypeError:  # nesting orjson does not write
                        return None
                else:
                    value = _UNPARSED
                parsed.append(value)
            else:
                parsed.append(arguments)
        try:  # a duplicate key dropped from the document (or a value argument)
            if line.count(b":") != dumps(doc).count(b":"):
                return None
        except TypeError:  # nesting orjson does not write
            return None
        if hop is _MODEL:
            fresh, fresh_value = ledger.fresh, ledger.fresh_value
            for (name, call_id, arguments, form, _), value in zip(calls, parsed, strict=True):
                if form is _TEXT:
                    fresh(call_id, name, arguments, file, number)
                else:
                    fresh_value(call_id, name, value, file, number)
        if shortcut.commit is not None:
            shortcut.commit(doc, owner)
        name_of = dialect.name
        out: list[PassedCall | CallResult] = []
        for (name, call_id, arguments, form, turn), value in zip(calls, parsed, strict=True):
            key = (name, hop, offered)
            if type(value) is not dict:  # _UNPARSED, or a value argument that is no object
                # not JSON, or not an object: the parse gate explains
                call = ToolCall(
                    hop, name_of, name, call_id, arguments, form, Source(file, number), turn=turn,
                    session=session,
                )  # fmt: skip
                call.sighting = sighting
                out.append(check(call))
                continue
            valid = validators[key](value)  # type: ignore[misc]
            if valid and not needs[key]:
                passed = PassedCall(
                    name, hop, call_id, name_of, file, number, arguments, value, turn, form,
                    session, sighting,
                )  # fmt: skip
                if passed_hook is not None:
                    passed_hook(passed)
                out.append(passed)
                continue
            if not valid and failed_hook is not None:
                passed = PassedCall(
                    name, hop, call_id, name_of, file, number, arguments, value, turn, form,
                    session, sighting,
                )  # fmt: skip
                out.append(check_parsed(passed.call(), contracts[key], value, invalid=True))
                failed_hook(passed)  # the checker's ``finish``, for a call without a result
                continue
            call = ToolCall(
                hop, name_of, name, call_id, arguments, form, Source(file, number), turn=turn,
                session=session,
            )  # fmt: skip
            call.sighting = sighting
            out.append(finish(call, check_parsed(call, contracts[key], value, invalid=not valid)))
        return out

    return lane


#: Arguments text that is no JSON object (the parse gate's to explain).
_UNPARSED: Final[Any] = object()
