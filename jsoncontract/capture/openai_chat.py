"""OpenAI Chat Completions: tool calls in assistant messages, whole or streamed.

``tool_calls[].function.arguments`` is a JSON *string*; streamed, it arrives as
``choices[].delta.tool_calls[]`` fragments to concatenate per ``index``. Tool definitions are
``{"type": "function", "function": {name, description, parameters, strict}}``.

Results are ``{"role": "tool", "tool_call_id", "content"}`` messages (``content`` a string
or a list of text parts; the legacy ``{"role": "function", "name", "content"}`` answers the
``function_call`` before it). A request body's ``messages`` is a conversation history: its
assistant messages' calls and its tool messages' results are read, the calls of one
assistant message sharing a turn; the calls seen before in the response are the same calls
(:mod:`jsoncontract.capture.ledger`).
"""

from __future__ import annotations

import hashlib
from typing import Any, Final

import orjson

from jsoncontract import codes
from jsoncontract.capture.base import (
    FUNCTION_INPUT,
    Assembler,
    Known,
    answered_id,
    anthropic_history,
    call_without_arguments,
    envelope,
    key,
    make_call,
    make_result,
    request_tools,
    result_problem,
    string_arguments,
    text,
)
from jsoncontract.capture.interface import DocContext, Handler, LaneCall, Shortcut, ToolLayout
from jsoncontract.model import (
    ArgumentsForm,
    Captured,
    Dialect,
    Finding,
    Hop,
    OfferedTools,
    Severity,
    Source,
    ToolCall,
    ToolResult,
)


def tool_call(node: Any, ctx: DocContext, out: list[Captured], pointer: str = "") -> None:
    """One ``tool_calls[]`` entry: ``{id, type: "function", function: {name, arguments}}``."""
    findings: list[Finding] = []
    if not isinstance(node, dict):
        findings.append(envelope(codes.ENVELOPE_MALFORMED, "a tool call must be an object"))
        out.append(call_without_arguments(ctx, DIALECT, findings, node=pointer))
        return
    function = node.get("function")
    if not isinstance(function, dict):
        if node.get("type") not in (None, "function"):
            return  # a custom or built-in tool call, not a function call
        findings.append(envelope(codes.ENVELOPE_MALFORMED, "the tool call has no function object"))
        out.append(
            call_without_arguments(ctx, DIALECT, findings, node=pointer, call_id=node.get("id"))
        )
        return
    name = text(function, "name")
    if not name:
        findings.append(
            envelope(codes.ENVELOPE_MALFORMED, "the function call has no name", path="")
        )
    if "id" not in node:
        findings.append(
            envelope(
                codes.ENVELOPE_MISSING_CALL_ID,
                "the tool call has no id, so its result cannot be matched to it",
                severity=Severity.WARNING,
            )
        )
    arguments, form, args = string_arguments(function, findings, pointer + "/function")
    out.append(
        make_call(
            ctx,
            DIALECT,
            tool=name,
            call_id=node.get("id"),
            arguments=arguments,
            form=form,
            node=pointer,
            args=args,
            findings=findings,
        )
    )


def message(node: dict[str, Any], ctx: DocContext, out: list[Captured], pointer: str = "") -> None:
    """An assistant message: its ``tool_calls`` (or the legacy ``function_call``); a tool
    message: its result."""
    role = node.get("role")
    if role == "tool" or role == "function":
        tool_message(node, ctx, out, pointer)
        return
    outer = ctx.turn
    if outer is None:  # set on the context while the message is read, then restored
        ctx.turn = ctx.turn_at(pointer)
    calls = node.get("tool_calls")
    if isinstance(calls, list):
        for i, call in enumerate(calls):
            tool_call(call, ctx, out, f"{pointer}/tool_calls/{i}")
    elif calls is not None:
        malformed = [envelope(codes.ENVELOPE_MALFORMED, "tool_calls must be a list")]
        out.append(call_without_arguments(ctx, DIALECT, malformed, node=pointer))
    legacy = node.get("function_call")
    if isinstance(legacy, dict):
        findings: list[Finding] = []
        arguments, form, args = string_arguments(legacy, findings, f"{pointer}/function_call")
        out.append(
            make_call(
                ctx,
                DIALECT,
                tool=text(legacy, "name"),
                call_id=None,
                arguments=arguments,
                form=form,
                node=f"{pointer}/function_call",
                args=args,
                findings=findings,
            )
        )
    ctx.turn = outer


def tool_message(
    node: dict[str, Any], ctx: DocContext, out: list[Captured], pointer: str = ""
) -> None:
    """A ``role: "tool"`` message (or a legacy ``role: "function"`` one): a result."""
    call_id = node.get("tool_call_id")
    findings: list[Finding] = []
    if type(call_id) is not str:
        call_id = None
        if node.get("role") == "tool":  # a legacy function message answers by position
            call_id, findings = answered_id(node, "tool_call_id", "the tool message", "tool call")
    if "content" not in node:
        findings.append(result_problem(codes.RESULT_MALFORMED, "the tool message has no content"))
    out.append(
        make_result(
            ctx,
            DIALECT,
            call_id=call_id,
            node=pointer,
            content=node.get("content"),
            tool=text(node, "name"),
            message=node,
            findings=findings,
        )
    )


def history(
    node: dict[str, Any],
    ctx: DocContext,
    out: list[Captured],
    pointer: str = "",
    known: Known | None = None,
    start: int = 0,
) -> None:
    """A request body: its ``messages`` are a conversation history. Messages whose every
    call id (or whose answered id) ``known`` holds were read in an earlier request of the
    file and are skipped. ``start``: how many leading messages to skip unread (each one
    that this function would skip, and that would leave nothing behind)."""
    messages = node.get("messages")
    if not isinstance(messages, list):
        return
    ctx = ctx.child("", history=True, offered=request_tools(node, "tools", "functions"))
    legacy: list[ToolCall] = []  # function_call messages, answered by the next function one
    asked: dict[str, ToolCall] = {}  # the calls read in this history, by id
    for i, entry in enumerate(messages[start:] if start else messages, start):
        if not isinstance(entry, dict):
            continue
        role = entry.get("role")
        if role not in _CALLING_ROLES or (known is not None and _known(entry, known)):
            continue
        where = f"{pointer}/messages/{i}"
        if role == "assistant":
            start = len(out)
            turn = ctx.child("")
            turn.turn = ctx.turn_at(where)
            message(entry, turn, out, where)
            legacy = []
            for made in out[start:]:
                if isinstance(made, ToolCall):
                    if made.call_id is None:
                        legacy.append(made)
                    else:
                        asked[made.call_id] = made
        elif role == "tool":
            start = len(out)
            tool_message(entry, ctx, out, where)
            # a result answering a call of the same history is attached here at once (the
            # ledger would pair them the same way, at more cost)
            answer = out[-1] if len(out) > start else None
            if isinstance(answer, ToolResult) and answer.call_id is not None:
                answered = asked.get(answer.call_id)
                if answered is not None and answered.result is None:
                    answered.result = answer
                    del out[-1]
        elif role == "function":  # answers the legacy function_call before it, by position
            start = len(out)
            tool_message(entry, ctx, out, where)
            answer = out[start] if len(out) > start else None
            if legacy and isinstance(answer, ToolResult):
                legacy.pop(0).result = answer
                del out[start]


_TEXT: Final = ArgumentsForm.TEXT
_MODEL: Final = Hop.MODEL
_NAME: Final = Dialect.OPENAI_CHAT

#: The roles of the messages of a history that hold calls or results.
_CALLING_ROLES: Final = ("assistant", "tool", "function")


def _known(entry: dict[str, Any], known: Known) -> bool:
    """Whether a history message was read before (and remember it if not). A message is
    known by what it says, not by its ids alone: a later history that edits a call's
    arguments, or its result, is read again (and the ledger tells the two apart)."""
    answered = entry.get("tool_call_id")
    if isinstance(answered, str):
        key = "=" + answered + "\x00" + _said(entry.get("content"))  # never a call's key
        if key in known:
            return True
        known.add(key)
        return False
    calls = entry.get("tool_calls")
    if isinstance(calls, list) and calls:
        keys = [_call_key(c) for c in calls]
        if all(k is not None and k in known for k in keys):
            return True
        for k in keys:
            if k is not None:
                known.add(k)
    return False


def _settled(messages: list[Any], start: int) -> bool:
    """Whether every message of ``messages`` from ``start`` on, once read by
    :func:`history`, would be skipped when an equal message comes again (while ``known``
    forgets nothing), and leaves nothing behind when it is: what is not a calling message;
    a message that answers an id, its content a text or null; an assistant message whose
    every call has a text id, name and arguments (Python's ``==`` tells these apart
    exactly as the keys :func:`_known` makes do); an assistant message with no call at all
    (no ``tool_calls`` or an empty list, no ``function_call`` object)."""
    for entry in messages[start:] if start else messages:
        if type(entry) is not dict:
            continue
        role = entry.get("role")
        if role not in _CALLING_ROLES:
            continue
        if type(entry.get("tool_call_id")) is str:
            content = entry.get("content")
            if type(content) is not str and content is not None:
                return False
            continue
        calls = entry.get("tool_calls")
        if type(calls) is list and calls:
            for call in calls:
                if type(call) is not dict or type(call.get("id")) is not str:
                    return False
                function = call.get("function")
                if (
                    type(function) is not dict
                    or type(function.get("name")) is not str
                    or type(function.get("arguments")) is not str
                ):
                    return False
            continue
        if (
            role != "assistant"
            or (calls is not None and calls != [])
            or type(entry.get("function_call")) is dict
        ):
            return False
    return True


def _said(value: Any) -> str:
    """A short text that stands for a message's content (the text when short, else a
    digest of the value)."""
    if type(value) is str and len(value) <= 256:
        return value
    try:
        data = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # deeper than orjson writes: never taken for a message read before
        return "\x01" + str(id(value))
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _call_key(node: Any) -> str | None:
    """What a call of an assistant message is known by: its id, name and arguments."""
    if not isinstance(node, dict) or not isinstance(node.get("id"), str):
        return None
    function = node.get("function")
    if not isinstance(function, dict):
        return None
    return known_call(node["id"], function.get("name"), function.get("arguments"))


def known_call(call_id: str, name: Any, arguments: Any) -> str:
    """The key :func:`_known` remembers a call by."""
    return f"{call_id}\x00{name}\x00{_said(arguments)}"


def response(node: dict[str, Any], ctx: DocContext, out: list[Captured], pointer: str = "") -> None:
    """A whole ``chat.completion``: every choice's message."""
    choices = node.get("choices")
    if not isinstance(choices, list):
        return
    response_id = node.get("id")
    outer = ctx.turn
    for i, choice in enumerate(choices):
        if isinstance(choice, dict) and isinstance(choice.get("message"), dict):
            where = f"{pointer}/choices/{i}/message"
            # the turn is set on the document's context while its message is read (a child
            # context per response would cost more than the call it names)
            ctx.turn = f"{response_id}/{i}" if isinstance(response_id, str) else ctx.turn_at(where)
            message(choice["message"], ctx, out, where)
    ctx.turn = outer


# -- the fast lane's shortcuts (see :class:`~jsoncontract.capture.interface.Shortcut`) -------


def _lane_message(node: dict[str, Any], turn: str, calls: list[LaneCall]) -> bool:
    """The calls of an assistant message as :func:`message` reads them, added to
    ``calls``; ``False`` when the message is not ordinary (a tool message, the legacy
    ``function_call``, a call with an envelope finding)."""
    role = node.get("role")
    if role == "tool" or role == "function" or "function_call" in node:
        return False
    entries = node.get("tool_calls")
    if entries is None:
        return True
    if type(entries) is not list:
        return False
    for entry in entries:
        if type(entry) is not dict:
            return False
        function = entry.get("function")
        call_id = entry.get("id")
        if type(function) is not dict or type(call_id) is not str:
            return False
        name = function.get("name")
        arguments = function.get("arguments")
        if type(name) is not str or not name or type(arguments) is not str:
            return False
        calls.append((name, call_id, arguments, _TEXT, turn))
    return True


def lane_response(
    node: dict[str, Any], stream: ChatStream | None, file: str, line: int
) -> list[LaneCall] | None:
    """The calls of an ordinary ``chat.completion``, as :func:`response` reads them."""
    if stream is not None and stream.histories:  # its calls are remembered: the full path
        return None
    choices = node.get("choices")
    if type(choices) is not list:
        return None
    response_id = node.get("id")
    calls: list[LaneCall] = []
    for i, choice in enumerate(choices):
        if type(choice) is not dict:
            continue
        found = choice.get("message")
        if type(found) is not dict:
            continue
        turn = (
            f"{response_id}/{i}"
            if type(response_id) is str
            else f"{file}:{line}:/choices/{i}/message"
        )
        if not _lane_message(found, turn, calls):
            return None
    return calls


def lane_read_response(
    node: dict[str, Any], stream: ChatStream, ctx: DocContext
) -> list[Captured] | None:
    """An ordinary ``chat.completion`` (as :func:`lane_response` takes it) read as
    :meth:`ChatStream.response` reads it, for the ledger: its calls, remembered for the
    histories that repeat them."""
    file, line = ctx.file, ctx.line
    found = lane_response(node, None, file, line or 0)
    if found is None:
        return None
    out: list[Captured] = [
        ToolCall(_MODEL, _NAME, name, call_id, arguments, form, Source(file, line), turn=turn)
        for name, call_id, arguments, form, turn in found
    ]
    if stream.histories:
        known = stream.known
        for name, call_id, arguments, _, _ in found:
            assert call_id is not None  # every call of an ordinary message has a text id
            known.add(known_call(call_id, name, arguments))
    return out


def lane_message(node: dict[str, Any], _: Any, file: str, line: int) -> list[LaneCall] | None:
    """The calls of an ordinary assistant message logged on its own (``{"tool_calls":
    [...]}``), as :func:`message` reads them."""
    calls: list[LaneCall] = []
    return calls if _lane_message(node, f"{file}:{line}:", calls) else None


def lane_history(
    node: dict[str, Any], stream: ChatStream, ctx: DocContext
) -> list[Captured] | None:
    """A request that repeats the last request's messages and adds some (as a proxy logs a
    conversation): read as :meth:`ChatStream.history` reads it, from the first new message
    (the repeated ones would all be skipped)."""
    messages = node.get("messages")
    if type(messages) is not list:
        return None
    start = stream.repeated(messages)
    if start is None:
        return None
    out: list[Captured] = []
    stream.history(node, ctx, out, start)
    return out


class ChatStream:
    """Reassembles ``chat.completion.chunk`` tool-call fragments per (response, choice, index)."""

    __slots__ = ("_checked", "_last", "_turns", "calls", "histories", "known")

    def __init__(self) -> None:
        self.calls = Assembler(
            DIALECT, unit="call", unnamed="the streamed call never named its tool"
        )
        self.known = Known()
        self.histories = False  # the file has held a request body
        # the messages of the last request read, while every one of them is known (no
        # generation of ``known`` forgotten since); its first ``_checked`` are settled
        self._last: list[Any] | None = None
        self._checked = 0
        self._turns = 0

    def history(
        self, node: dict[str, Any], ctx: DocContext, out: list[Captured], start: int = 0
    ) -> None:
        """A request body, read for the messages the file's earlier requests did not hold
        (``start``: the first so many are the last request's, settled)."""
        self.histories = True
        known = self.known
        turns = known.turns
        history(node, ctx, out, known=known, start=start)
        messages = node.get("messages")
        if type(messages) is list and known.turns == turns:
            self._last, self._checked, self._turns = messages, start, turns
        else:
            self._last = None

    def repeated(self, messages: list[Any]) -> int | None:
        """How many leading messages of a request's ``messages`` are the last request's
        (every message of which is known and settled, see :func:`_settled`): the history
        reads the same from there; ``None`` when it cannot tell."""
        last = self._last
        if last is None or self.known.turns != self._turns:
            return None
        count = len(last)
        if len(messages) < count or messages[:count] != last:
            return None
        if self._checked < count:
            if not _settled(last, self._checked):
                self._last = None
                return None
            self._checked = count
        return count

    def response(self, node: dict[str, Any], ctx: DocContext, out: list[Captured]) -> None:
        """A whole completion; its calls' ids are remembered, so that the next request's
        history, which repeats them, is read for what is new."""
        start = len(out)
        response(node, ctx, out)
        if self.histories:  # only a file of requests repeats the response's calls
            known = self.known
            for item in out[start:]:
                if type(item) is ToolCall and item.call_id is not None:
                    known.add(known_call(item.call_id, item.tool, item.arguments))

    def feed(self, chunk: dict[str, Any], ctx: DocContext, out: list[Captured]) -> None:
        """Take one chunk; add the calls its ``finish_reason`` completes to ``out``."""
        calls = self.calls
        response = key(chunk.get("id"))
        choices = chunk.get("choices")
        if type(choices) is not list:
            return
        for choice in choices:
            if not isinstance(choice, dict):
                continue
            number = key(choice.get("index", 0))
            delta = choice.get("delta")
            if isinstance(delta, dict):
                fragments = delta.get("tool_calls")
                for fragment in fragments if type(fragments) is list else ():
                    if not isinstance(fragment, dict):
                        continue
                    pending = calls.open(
                        (response, number, key(fragment.get("index", 0))),
                        ctx if ctx.turn is not None else ctx.child("", turn=f"{response}/{number}"),
                    )
                    if fragment.get("id"):
                        pending.call_id = fragment["id"]
                    function = fragment.get("function")
                    if isinstance(function, dict):
                        if function.get("name"):
                            pending.name = (pending.name or "") + str(function["name"])
                        part = function.get("arguments")
                        if isinstance(part, str):
                            pending.parts.append(part)
            if choice.get("finish_reason") is not None:
                for done in calls.opened():
                    if done[0] == response and done[1] == number:
                        finished = calls.pop(done)
                        if finished is not None:
                            calls.close(finished, out)

    def flush(self, out: list[Captured]) -> None:
        """Calls whose stream ended without a ``finish_reason`` (possibly cut off)."""
        self.calls.flush(out)


def is_chunk(value: dict[str, Any]) -> bool:
    """A ``chat.completion.chunk`` (also when a log dropped ``object``: its choices have deltas)."""
    kind: object = value.get("object")
    if kind is not None:
        return kind == "chat.completion.chunk"
    choices = value.get("choices")
    return (
        isinstance(choices, list)
        and bool(choices)
        and isinstance(choices[0], dict)
        and "delta" in choices[0]
    )


def _is_tool(entry: dict[str, Any]) -> bool:
    return entry.get("type") == "function" and isinstance(entry.get("function"), dict)


class OpenAIChat:
    """The OpenAI Chat Completions dialect."""

    name: Final = Dialect.OPENAI_CHAT
    hop: Final = Hop.MODEL
    mark: Final = "choices"
    #: members without one of which :meth:`part` takes no object
    claims: Final = frozenset({"object", "function_call", "tool_calls", "type", "role", "messages"})
    tools: Final = ToolLayout(
        _is_tool,
        input=tuple("/function/" + member for member in FUNCTION_INPUT),
        output=("/output_schema",),
        body="/function",
        input_required=False,
    )
    #: the fast lane's readings of completions and of assistant messages
    shortcuts: Final = {
        ChatStream.response: Shortcut(lane_response, read=lane_read_response),
        response: Shortcut(lane_response),
        message: Shortcut(lane_message),
        ChatStream.history: Shortcut(read=lane_history),
    }

    def new_state(self) -> ChatStream:
        """The file's open chunk streams."""
        return ChatStream()

    def whole(self, value: dict[str, Any], state: ChatStream) -> Handler | None:
        """A completion or one of its chunks: only Chat answers with ``choices``."""
        kind = value.get("object")
        if kind == "chat.completion.chunk" or (kind is None and is_chunk(value)):
            return state.feed
        return state.response if isinstance(value["choices"], list) else None

    def part(self, value: dict[str, Any], state: ChatStream) -> Handler | None:
        """A completion or chunk without usable ``choices``, an assistant message, or one
        ``tool_calls`` entry."""
        kind = value.get("object")
        if kind == "chat.completion.chunk":
            return state.feed
        if kind == "chat.completion":
            return response
        legacy = value.get("function_call")
        if "tool_calls" in value or (
            isinstance(legacy, dict) and ("arguments" in legacy or value.get("role") == "assistant")
        ):
            return message
        if value.get("type") == "function" and isinstance(value.get("function"), dict):
            return tool_call
        if value.get("role") == "tool" and "tool_call_id" in value:
            return tool_message
        messages = value.get("messages")
        if isinstance(messages, list) and not anthropic_history(value):
            return state.history
        return None

    def offered(self, value: dict[str, Any]) -> OfferedTools | None:
        """The tools a request body offers (``tools``, or the legacy ``functions``)."""
        if isinstance(value.get("messages"), list) and not anthropic_history(value):
            return request_tools(value, "tools", "functions")
        return None


DIALECT: Final = OpenAIChat()
