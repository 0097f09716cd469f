"""MCP: JSON-RPC 2.0 ``tools/call`` requests, and the responses that answer them.

``params.arguments`` must be an *object* (or absent, meaning no arguments). A string there
is the classic host fault of forwarding the model's ``arguments`` text without parsing it;
the parse gate names it. A response is the :class:`~jsoncontract.model.ToolResult` of the
request with its id in its session, whenever it arrives; ``initialize``, ``tools/list`` and
``notifications/tools/list_changed`` are read into the session (:class:`McpState`); the
latest complete list is what the session offers its calls (``McpSession.offered``). Tool
definitions are ``Tool`` objects ``{name, title, description, inputSchema, outputSchema,
annotations}``.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace
from typing import Any, Final

from jsoncontract import codes
from jsoncontract.capture.base import (
    call_without_arguments,
    envelope,
    make_call,
    make_result,
    result_problem,
    text,
)
from jsoncontract.capture.interface import DocContext, Handler, LaneCall, Shortcut, ToolLayout
from jsoncontract.model import (
    ArgumentsForm,
    Captured,
    Dialect,
    EventKind,
    Finding,
    Hop,
    McpSession,
    Source,
    ToolCall,
    ToolResult,
    TraceEvent,
    offered_tools,
)

#: How many unanswered requests other than ``tools/call`` per file are remembered.
_REMEMBERED: Final = 4096
#: Where a 2026-07-28 (stateless) request names its protocol version.
_VERSION_META: Final = "io.modelcontextprotocol/protocolVersion"
_ABSENT: Final[Any] = object()
#: JSON-RPC ids that can be matched (a float, object or array id is reported, never matched).
_ID_TYPES: Final = (str, int)
#: Messages that read the session as it stands (what a part must not ask of a memory that
#: is not fresh).
_SESSION_METHODS: Final = frozenset({"initialize", "notifications/tools/list_changed"})
_MCP_HOP: Final = Hop.MCP
_NAME: Final = Dialect.MCP


def _key(value: Any) -> Any:
    return (type(value).__name__, value)


def typed_id(value: Any) -> str:
    """A JSON-RPC id with its type, as the ledger keys it: ``1`` and ``"1"`` are two ids."""
    return f"{type(value).__name__}:{value}"


def request(node: dict[str, Any], ctx: DocContext, out: list[Captured], pointer: str = "") -> None:
    """A ``tools/call`` request: its call."""
    findings: list[Finding] = []
    if node.get("jsonrpc") != "2.0":
        findings.append(
            envelope(
                codes.ENVELOPE_MALFORMED,
                'the request does not say "jsonrpc": "2.0"',
                path="",
                hint='every MCP message carries "jsonrpc": "2.0"',
            )
        )
    request_id = node.get("id")
    if "id" not in node:
        findings.append(
            envelope(
                codes.ENVELOPE_MALFORMED,
                "tools/call has no id, so it is a notification and will never be answered",
                hint="give every request a unique id",
            )
        )
    elif type(request_id) not in _ID_TYPES:  # null, a bool, a float, an object...
        findings.append(
            envelope(
                codes.ENVELOPE_MALFORMED,
                f"the request id must be a string or an integer, not {request_id!r}",
            )
        )
    params = node.get("params")
    if not isinstance(params, dict):
        findings.append(envelope(codes.ENVELOPE_MALFORMED, "tools/call has no params object"))
        out.append(call_without_arguments(ctx, DIALECT, findings, node=pointer, call_id=request_id))
        return
    name = text(params, "name")
    if not name:
        findings.append(envelope(codes.ENVELOPE_MALFORMED, "tools/call params has no tool name"))
    meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else None
    if "arguments" in params:
        call = make_call(
            ctx,
            DIALECT,
            tool=name,
            call_id=request_id,
            arguments=params["arguments"],
            form=ArgumentsForm.VALUE,
            node=pointer,
            args=pointer + "/params/arguments",
            findings=findings,
            meta=meta,
        )
    else:  # the specification makes arguments optional: none means an empty object
        call = make_call(
            ctx,
            DIALECT,
            tool=name,
            call_id=request_id,
            arguments={},
            form=ArgumentsForm.VALUE,
            node=pointer,
            args=None,
            findings=findings,
            meta=meta,
        )
    out.append(call)


class McpState:
    """What one file's MCP messages have said so far: the session they belong to, and the
    requests other than ``tools/call`` still waiting for their answer.

    A ``tools/call`` request is a call, made under the session as it stands
    (``ToolCall.session``); its response is a :class:`~jsoncontract.model.ToolResult` of the
    same session and id, which the reader's ledger attaches to the call whenever it comes.
    The answers to ``initialize`` and ``tools/list`` (every page, until one has no
    ``nextCursor``) and ``notifications/tools/list_changed`` change the session and are
    handed on as :class:`~jsoncontract.model.TraceEvent` values in capture order. A second
    ``initialize`` in the file starts a new session (its ids start again).

    **Joins** (a :class:`~jsoncontract.capture.interface.JoinableState`). Watched, the
    memory notes what a part's reading asks of the memory it began with (:class:`_Asked`):
    the ids it looked up and did not find, the ids it remembered, and whether it read the
    session otherwise than by starting the file's first one. The run's memory joins when it
    would have answered the same: the session is the one the part started (or none), or, if
    the part read more of it, the run's is as a fresh file's; and, for each memory of ids,
    none the part missed or remembered is in it. Then, reading the part, the run's memory
    of ids would have been the run's own (its newest, those the bound leaves) followed by
    exactly the part's: the run's are older than any the part remembers, so they are
    forgotten first, and the part's are forgotten only once no id of the run's is left. So
    every lookup finds what it found in the part, and the memory after it is the run's
    followed by the part's, cut to the bound.
    """

    __slots__ = ("_calls", "_count", "_methods", "_pages", "_session", "_used", "_watch")

    def __init__(self) -> None:
        self._session: McpSession | None = None
        self._count = 0
        self._used = False  # the current session has carried messages
        self._methods: OrderedDict[Any, str] = OrderedDict()
        # unanswered tools/call ids (typed: 3 and "3" are two ids) -> the call id as text
        self._calls: OrderedDict[Any, str] = OrderedDict()
        self._pages: dict[str, Any] | None = None
        self._watch: _Asked | None = None

    # -- joins (see the class) --

    def fresh(self) -> bool:
        """As a fresh file's memory."""
        return (
            self._session is None
            and not self._used
            and not self._calls
            and not self._methods
            and self._pages is None
        )

    def watch(self, on: bool) -> None:
        """Note what the reading asks of the memory it began with (see the class)."""
        self._watch = _Asked() if on else None

    def joins(self, part: McpState) -> bool:
        """Whether ``part``'s reading would have been the same from this memory."""
        asked = part._watch
        if asked is None:
            return False
        if asked.session:
            if self._session is not None or self._used or self._pages is not None:
                return False
        elif (
            part._session is not None
            and self._session is not None
            and (self._session != part._session or self._count != 1)
        ):
            return False
        for which, mine in enumerate((self._calls, self._methods)):
            if not mine:
                continue
            if not (asked.missed[which].isdisjoint(mine) and asked.written[which].isdisjoint(mine)):
                return False
        return True

    def absorb(self, part: McpState) -> None:
        """This memory, continued as ``part``'s reading left its own."""
        asked = part._watch
        assert asked is not None
        if asked.session or self._session is None:
            self._session, self._count, self._pages = part._session, part._count, part._pages
        self._used = self._used or part._used
        for mine, theirs in ((self._calls, part._calls), (self._methods, part._methods)):
            mine.update(theirs)
            while len(mine) > _REMEMBERED:
                mine.popitem(last=False)

    def _remember(self, which: int, key: Any, value: str) -> None:
        """Remember an id of ``_calls`` (``which`` 0) or ``_methods`` (1); the oldest is
        forgotten past the bound."""
        memory = self._methods if which else self._calls
        watch = self._watch
        if watch is not None:
            watch.written[which].add(key)
        memory[key] = value
        if len(memory) > _REMEMBERED:  # the oldest is forgotten
            memory.popitem(last=False)

    def _take(self, which: int, key: Any) -> str | None:
        """Take an id out of ``_calls`` (``which`` 0) or ``_methods`` (1), if it is there."""
        found = (self._methods if which else self._calls).pop(key, None)
        watch = self._watch
        if watch is not None and found is None:
            watch.missed[which].add(key)
        return found

    def session(self, ctx: DocContext) -> McpSession:
        """The session the file's messages belong to now."""
        session = self._session
        if session is None:
            self._count = 1
            session = self._session = McpSession(ctx.file)
        return session

    def read(self, node: dict[str, Any], ctx: DocContext, out: list[Captured]) -> None:
        """One JSON-RPC message: a ``tools/call`` request adds a call to ``out``, its
        response a result; session messages add trace events."""
        method = node.get("method")
        if method is None:
            if "result" in node or "error" in node:
                self.answer(node, ctx, out)
            return
        if method == "tools/call":
            session = self._session or self.session(ctx)
            self._used = True
            start = len(out)
            request(node, ctx, out)
            call = out[start]
            if isinstance(call, ToolCall):
                call.session = session if call.meta is None else _versioned(session, call.meta)
                request_id = node.get("id")
                if type(request_id) in _ID_TYPES and call.call_id is not None:
                    self._remember(0, _key(request_id), call.call_id)
                    call.sighting = typed_id(request_id)
            return
        if method in _SESSION_METHODS and self._watch is not None:
            self._watch.session = True
        if method == "initialize":
            if self._used or self._session is None:
                self._new_session(ctx)
            self._used = True
        elif method == "notifications/tools/list_changed":
            session = replace(self.session(ctx), list_changed=True)
            self._session = session
            out.append(TraceEvent(EventKind.LIST_CHANGED, ctx.source(), session, message=node))
            return
        if "id" in node:  # a request: its answer is no tool result
            request_id = node.get("id")
            if type(request_id) in _ID_TYPES:
                self._remember(1, _key(request_id), method)

    def _new_session(self, ctx: DocContext) -> None:
        self._count += 1
        name = ctx.file if self._count == 1 else f"{ctx.file}#{self._count}"
        self._session = McpSession(name)
        self._pages = None

    def answer(self, message: dict[str, Any], ctx: DocContext, out: list[Captured]) -> None:
        """A response: to ``initialize`` or ``tools/list``, a session event; to anything
        else, the result of the ``tools/call`` with its id."""
        response_id = message.get("id")
        if self._watch is not None:
            self._watch.session = True
        session = self.session(ctx)
        method: Any = None
        answers: str | None = None
        if type(response_id) in _ID_TYPES:
            answers = self._take(0, _key(response_id))
            if answers is None:
                method = self._take(1, _key(response_id))
        body = message.get("result")
        if method is None and isinstance(body, dict) and "content" not in body:
            # an answer whose request is not in the capture: told by its members
            if isinstance(body.get("tools"), list):
                method = "tools/list"
            elif "protocolVersion" in body and "serverInfo" in body:
                method = "initialize"
        if method == "initialize":
            if isinstance(body, dict):
                version = body.get("protocolVersion")
                capabilities = body.get("capabilities")
                session = self._session = replace(
                    session,
                    protocol_version=version if isinstance(version, str) else None,
                    capabilities=capabilities if isinstance(capabilities, dict) else None,
                )
                out.append(TraceEvent(EventKind.INITIALIZE, ctx.source(), session, message=message))
            return
        if method == "tools/list":
            if isinstance(body, dict) and isinstance(body.get("tools"), list):
                self._listed(body, message, ctx, out)
            return
        if method is not None:  # the answer to ping, resources/list...
            return
        if answers is None and isinstance(body, dict) and "content" not in body:
            return  # the answer to a request the capture does not hold (ping, resources...)
        answer = result(message, ctx, session, answers)
        if answers is not None:
            answer.sighting = typed_id(response_id)
        out.append(answer)

    def _listed(
        self, body: dict[str, Any], message: Any, ctx: DocContext, out: list[Captured]
    ) -> None:
        """One page of ``tools/list``; the last page completes the list."""
        pages = self._pages if self._pages is not None else {}
        for tool in body["tools"]:
            if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                pages[tool["name"]] = tool
        if body.get("nextCursor") is not None:
            self._pages = pages
            return
        self._pages = None
        session = self.session(ctx)
        session = self._session = replace(
            session,
            tools=pages,
            listings=session.listings + 1,
            list_changed=False,
            offered=offered_tools(pages.values()),
        )
        out.append(TraceEvent(EventKind.TOOLS_LIST, ctx.source(), session, message=message))

    def flush(self, out: list[Captured]) -> None:
        """Nothing is left unfinished: unanswered calls are the ledger's to hand on."""

    # -- the fast lane's shortcut (see :class:`~jsoncontract.capture.interface.Shortcut`) --

    def lane_session(self, node: dict[str, Any], file: str) -> tuple[McpSession, str]:
        """The session a request the lane reads is made under (started if there is none
        yet), and the request's sighting."""
        session = self._session
        if session is None:
            self._count = 1
            session = self._session = McpSession(file)
        return session, typed_id(node["id"])


def lane_request(
    node: dict[str, Any], state: McpState, file: str, line: int
) -> list[LaneCall] | None:
    """An ordinary ``tools/call`` request (``"jsonrpc": "2.0"``, a string or integer id, a
    tool name, no ``_meta``), as :meth:`McpState.read` reads it."""
    if node.get("method") != "tools/call" or node.get("jsonrpc") != "2.0":
        return None
    request_id = node.get("id")
    params = node.get("params")
    if type(request_id) not in _ID_TYPES or type(params) is not dict or "_meta" in params:
        return None
    name = params.get("name")
    if type(name) is not str or not name:
        return None
    call_id = request_id if type(request_id) is str else str(request_id)
    arguments = params.get("arguments", {})
    return [(name, call_id, arguments, ArgumentsForm.VALUE, None)]


def lane_taken(node: dict[str, Any], state: McpState) -> None:
    """What :meth:`McpState.read` remembers of a request the lane took."""
    request_id = node["id"]
    state._used = True
    state._remember(0, _key(request_id), request_id if type(request_id) is str else str(request_id))


def lane_read(node: dict[str, Any], state: McpState, ctx: DocContext) -> list[Captured] | None:
    """An ordinary ``tools/call`` request (as :func:`lane_request` takes it), or an ordinary
    answer to one the file holds (``"jsonrpc": "2.0"``, a ``result`` object with a
    ``content`` list and ``isError`` true, false or absent, no ``error``), read as
    :meth:`McpState.read` reads it, for the ledger: the call, made under the session and
    remembered as waiting, or the result, the call it answers no longer waiting."""
    request_id = node.get("id")
    if "method" in node:
        found = lane_request(node, state, ctx.file, 0)
        if found is None:
            return None
        name, call_id, arguments, form, _ = found[0]
        assert call_id is not None  # a string or integer id, as text
        session = state._session or state.session(ctx)
        state._used = True
        call = ToolCall(
            _MCP_HOP, _NAME, name, call_id, arguments, form, Source(ctx.file, ctx.line),
            session=session, sighting=typed_id(request_id),
        )  # fmt: skip
        state._remember(0, _key(request_id), call_id)
        return [call]
    if type(request_id) not in _ID_TYPES or "error" in node or node.get("jsonrpc") != "2.0":
        return None
    body = node.get("result")
    if type(body) is not dict or type(body.get("content")) is not list:
        return None
    flag = body.get("isError", False)
    key = _key(request_id)
    answers = state._calls.get(key)
    if type(flag) is not bool or answers is None:
        return None
    if state._watch is not None:
        state._watch.session = True
    session = state.session(ctx)
    state._take(0, key)
    present = "structuredContent" in body
    answer = ToolResult(
        _MCP_HOP, _NAME, answers, Source(ctx.file, ctx.line), body["content"],
        body["structuredContent"] if present else None, present, flag, None, None, None, None,
        None, node, False, session, [],
    )  # fmt: skip
    answer.sighting = typed_id(request_id)
    return [answer]


def _versioned(session: McpSession, meta: dict[str, Any]) -> McpSession:
    """The session a request is made under: a 2026 stateless request names its protocol
    version in ``params._meta``."""
    version = meta.get(_VERSION_META)
    if isinstance(version, str) and version != session.protocol_version:
        return replace(session, protocol_version=version)
    return session


class _Asked:
    """What a part's reading asked of the MCP memory it began with, per memory of ids
    (``_calls``, ``_methods``): the ids looked up and missed, and the ids remembered; and
    whether the session was read otherwise than by starting the file's first one."""

    __slots__ = ("missed", "session", "written")

    def __init__(self) -> None:
        self.missed: tuple[set[Any], set[Any]] = (set(), set())
        self.written: tuple[set[Any], set[Any]] = (set(), set())
        self.session = False


def result(
    message: dict[str, Any], ctx: DocContext, session: McpSession | None, answers: str | None
) -> ToolResult:
    """A response to ``tools/call``: ``result`` (``content``, ``structuredContent``,
    ``isError``) or a JSON-RPC ``error``. ``answers`` is the id of the call it answers, as
    text, when the file holds the request (``None``: a result whose call is not known)."""
    findings: list[Finding] = []
    content: Any = None
    structured: Any = _ABSENT
    is_error: bool | None = None
    error: dict[str, Any] | None = None
    has_result, has_error = "result" in message, "error" in message
    if has_result and has_error:
        findings.append(
            result_problem(
                codes.RESULT_MALFORMED,
                "the response has both result and error",
                "a JSON-RPC response carries exactly one of them",
            )
        )
    if has_error:
        raw = message["error"]
        if isinstance(raw, dict):
            error = raw
            code = raw.get("code")
            if type(code) is not int:
                findings.append(
                    result_problem(
                        codes.RESULT_MALFORMED,
                        f"the JSON-RPC error code must be an integer, not {code!r}",
                    )
                )
        else:
            findings.append(
                result_problem(codes.RESULT_MALFORMED, "the JSON-RPC error is not an object")
            )
        is_error = True
    elif has_result:
        body = message["result"]
        if isinstance(body, dict):
            content = body.get("content")
            if "structuredContent" in body:
                structured = body["structuredContent"]
            flag = body.get("isError", False)
            if type(flag) is bool:
                is_error = flag
            else:
                findings.append(
                    result_problem(
                        codes.RESULT_MALFORMED, f"isError must be true or false, not {flag!r}"
                    )
                )
            if not isinstance(content, list):
                findings.append(
                    result_problem(
                        codes.RESULT_MALFORMED,
                        "the tools/call result has no content list",
                        "a CallToolResult always carries content (an empty list at least)",
                    )
                )
        else:
            findings.append(
                result_problem(codes.RESULT_MALFORMED, "the tools/call result is not an object")
            )
    if message.get("jsonrpc") != "2.0":
        findings.append(
            result_problem(codes.RESULT_MALFORMED, 'the response does not say "jsonrpc": "2.0"')
        )
    extra = {} if structured is _ABSENT else {"structured": structured}
    return make_result(
        ctx,
        DIALECT,
        call_id=answers,
        node="",
        content=content,
        is_error=is_error,
        error=error,
        message=message,
        findings=findings,
        session=session,
        **extra,
    )


class Mcp:
    """The Model Context Protocol dialect."""

    name: Final = Dialect.MCP
    hop: Final = Hop.MCP
    mark: Final = "jsonrpc"
    #: members without one of which :meth:`part` takes no object
    claims: Final = frozenset({"method"})
    tools: Final = ToolLayout(
        lambda entry: "inputSchema" in entry,
        input=("/inputSchema",),
        output=("/outputSchema",),
        parts=frozenset({"title", "annotations"}),
    )

    def new_state(self) -> McpState:
        """The file's requests waiting for their response."""
        return McpState()

    #: the fast lane's reading of ``tools/call`` requests
    shortcuts: Final = {
        McpState.read: Shortcut(lane_request, lane_taken, McpState.lane_session, lane_read)
    }

    def whole(self, value: dict[str, Any], state: McpState) -> Handler | None:
        """A JSON-RPC message."""
        return state.read if "jsonrpc" in value else None

    def part(self, value: dict[str, Any], state: McpState) -> Handler | None:
        """A request that lost its ``jsonrpc`` member."""
        return state.read if "method" in value and "params" in value else None


DIALECT: Final = Mcp()
