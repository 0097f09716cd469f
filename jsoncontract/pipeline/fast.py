"""The fast lane: one JSONL line holding one ordinary, valid call, checked with the least work
that stays exact.

Most lines of a production trace are the same thing: a whole response of a known dialect with
one tool call whose arguments pass. The full path reads such a line through dialect
detection, builds a :class:`~jsoncontract.model.ToolCall`, runs every gate and builds a
:class:`~jsoncontract.model.CallResult`, about 15 µs of interpreter work around 4 µs of
compiled work. The lane recognises the common shape directly and yields a
:class:`~jsoncontract.model.PassedCall`; anything else (another shape, a line that might hide
something, an unknown tool, invalid arguments, a tool the business gate looks at) goes to
the full path, which builds today's rich result. The lane never decides a failure: so the
results, and every report made of them, are the same with and without it.

What keeps it exact:

- the shape is the one the full path would read as one call with no envelope finding (a
  ``chat.completion`` with one choice and one ``tool_calls`` entry with a string id, a
  known tool's name and arguments as a JSON string of an object), and no dialect detected
  before OpenAI Chat claims it (MCP's ``jsonrpc``);
- what orjson hides is ruled out on the line as the full path's probes rule it out on the
  line and then on the arguments: no escaped ``0-9:;<=>?`` (``\\u003``) anywhere, so every
  digit and colon of the arguments text is a literal byte of the line; the parser's number
  probe (:func:`~jsoncontract._json.may_hide_numbers`) on the line, so no integer of the
  arguments (or the envelope) may pass 64 bits and no fraction or tiny literal may read as
  another number; and, with
  the arguments' parsed value put in place of their text, as many colons in the
  re-serialised document as in the line, so no duplicate key was dropped at either level
  (each level can only lose colons). Lone surrogates, invalid UTF-8, NaN and nesting
  beyond the parser's depth make orjson refuse the line or the arguments: full path;
- the schema gate is the same compiled validator; a call the business gate has anything to
  say about (a rule for its tool, a write the idempotency checks follow) is built as a
  :class:`~jsoncontract.model.ToolCall` and checked by the full checker;
- the reader offers a line only while its ledger would hand the line's one call straight
  on (nothing held, the model hop taken for calls alone: a trace of responses, past the
  first result window) and the file's Chat state follows no conversation history; the call
  has no result then, and its turn is the one the dialect names (the response's ``id`` and
  choice 0, else the line);
- the ledger is asked whether the call's id is new to the run before the call is checked
  (:meth:`~jsoncontract.capture.ledger.Ledger.fresh`), and remembers it: a call id seen
  before (the same call again, or a reused id) goes to the full path, whose ledger tells
  one call from two;
- the gate over the run sees the passed call through its ``passed`` method (the turn and
  session contracts' shortcut of ``call``); a gate of another kind that looks at every
  call closes the lane.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

import orjson

from jsoncontract._json import ESCAPED_COLON_PREFIX, may_hide_numbers
from jsoncontract.capture.openai_chat import DIALECT as OPENAI_CHAT
from jsoncontract.model import (
    ArgumentsForm,
    CallResult,
    Hop,
    PassedCall,
    Source,
    ToolCall,
)

if TYPE_CHECKING:
    from jsoncontract.capture.reader import CaptureReader, Fresh, Lane
    from jsoncontract.model import ToolContract
    from jsoncontract.pipeline.checker import Checker

_COMPLETION: Final = "chat.completion"


def build_lane(checker: Checker, reader: CaptureReader) -> Lane | None:
    """The lane for ``checker`` and ``reader``, or ``None`` when it cannot be exact (a
    forced dialect, or a registry that reads OpenAI Chat some other way)."""
    if reader.forced is not None:
        return None
    detected = reader.dialects.dialects
    position = next((i for i, d in enumerate(detected) if d is OPENAI_CHAT), None)
    if position is None:
        return None
    before = tuple(d.mark for d in detected[:position] if d.mark is not None)
    if any(m in ("choices", "payload", "object") for m in before):
        return None

    tools = checker.tools
    business = checker.business
    wants = getattr(business, "wants", None)
    if business is not None and wants is None:
        return None  # a gate of unknown kind sees every call
    session = checker.session
    passed_hook: Callable[[PassedCall], object] | None = None
    if session is not None and getattr(session, "per_call", True):
        passed_hook = getattr(session, "passed", None)
        if passed_hook is None:
            return None  # a gate of unknown kind sees every call
    validators: dict[str, Callable[[Any], bool] | None] = {}
    needs: dict[str, bool] = {}
    loads = orjson.loads
    dumps = orjson.dumps
    error = orjson.JSONDecodeError
    hides_numbers = may_hide_numbers
    escaped = ESCAPED_COLON_PREFIX
    dialect = OPENAI_CHAT.name
    hop = Hop.MODEL
    check_parsed = checker.check_parsed
    finish = checker.finish
    check = checker.check
    TEXT = ArgumentsForm.TEXT
    contracts: dict[str, ToolContract] = {}

    def validator(name: str) -> Callable[[Any], bool] | None:
        tool = tools.get(name)
        found = tools.schema(name).is_valid if tool is not None else None
        validators[name] = found
        if tool is not None:
            contracts[name] = tool
            needs[name] = bool(wants(tool)) if wants is not None else False
        return found

    def may_hide_keys(line: bytes, doc: dict[str, Any]) -> bool:
        """Whether a duplicate key may have been dropped (each level only loses colons)."""
        try:
            return line.count(b":") != dumps(doc).count(b":")
        except TypeError:  # nesting orjson does not write
            return True

    def lane(file: str, number: int, line: bytes, fresh: Fresh) -> PassedCall | CallResult | None:
        if escaped in line or hides_numbers(line):
            return None
        try:
            doc = loads(line)
        except error:
            return None
        if type(doc) is not dict or doc.get("object") != _COMPLETION or "payload" in doc:
            return None
        for mark in before:  # a dialect detected before OpenAI Chat would read it
            if mark in doc:
                return None
        choices = doc.get("choices")
        if type(choices) is not list or len(choices) != 1:
            return None
        choice = choices[0]
        if type(choice) is not dict:
            return None
        message = choice.get("message")
        if type(message) is not dict or "function_call" in message:
            return None
        calls = message.get("tool_calls")
        if type(calls) is not list or len(calls) != 1:
            return None
        node = calls[0]
        if type(node) is not dict:
            return None
        function = node.get("function")
        call_id = node.get("id")
        if type(function) is not dict or type(call_id) is not str:
            return None
        name = function.get("name")
        text = function.get("arguments")
        if type(name) is not str or type(text) is not str or not name:
            return None
        valid = validators[name] if name in validators else validator(name)
        if valid is None:
            return None
        try:
            arguments = loads(text)
        except error:
            arguments = None
        response = doc.get("id")
        if type(arguments) is not dict:
            # not JSON, or not an object: the envelope is sound when no key of it was
            # dropped (the arguments are text on both sides), and the parse gate explains
            if may_hide_keys(line, doc) or not fresh(call_id, name, text, file, number):
                return None
            return check(_call(name, call_id, text, file, number, response))
        function["arguments"] = arguments
        if may_hide_keys(line, doc) or not fresh(call_id, name, text, file, number):
            return None
        if valid(arguments) and not needs[name]:
            passed = PassedCall(
                name, hop, call_id, dialect, file, number, text, arguments, response
            )
            if passed_hook is not None:
                passed_hook(passed)
            return passed
        call = _call(name, call_id, text, file, number, response)
        return finish(call, check_parsed(call, contracts[name], arguments))

    def _call(
        name: str, call_id: str, text: str, file: str, number: int, response: Any
    ) -> ToolCall:
        """The call as the dialect reads it."""
        turn = f"{response}/0" if type(response) is str else f"{file}:{number}:/choices/0/message"
        return ToolCall(hop, dialect, name, call_id, text, TEXT, Source(file, number), turn=turn)

    return lane
