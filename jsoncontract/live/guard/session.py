"""The guard on the wire: one MCP session's JSON-RPC traffic, frame by frame, without I/O.

A :class:`GuardSession` is told each frame the client sent (:meth:`~GuardSession.client`)
and each frame the server sent (:meth:`~GuardSession.server`), and returns what to write
where (:class:`Out`); the proxies (stdio, Streamable HTTP) move the bytes. It:

- passes on every frame it does not judge, unchanged, as ``mcp record`` does;
- gates each ``tools/call`` (:meth:`Guard.call <jsoncontract.live.guard.gate.Guard.call>`),
  answering in the server's place when the call may not go on;
- runs the result stage over each answer to a forwarded call, and hides or flags drifted
  tools in each ``tools/list`` answer;
- asks the server for ``tools/list`` itself (ids ``jsoncontract-guard-N``, never passed on)
  when a call comes before a complete list (a 2026-07-28 client need not list at all), and
  again on ``notifications/tools/list_changed``; calls that come meanwhile wait for it,
  at most ``list_timeout`` seconds (then they are answered ``guard.no_tool_list``);
- answers a frame from the client that is no JSON-RPC message itself (``-32700`` Parse
  error, ``-32600`` Invalid Request) and keeps one from the server away from the client;
- when the server exits, answers every request still in flight (``guard.server_exited``)
  and gives the frames that replay the handshake to a new server (:meth:`restarted`).

Every frame goes to the trace (``-o``) before it is passed on, as ``mcp record`` writes it,
with the guard's decision marked (``"guard": {"decision": ..., "findings": [...]}``); a
frame the guard made is ``"from": "guard"``, and one it delivered in place of the server's
says which (``"replaces": SEQ``). The server's frames are kept as the server sent them,
each secret replaced by a stand-in of its kind and length; the tool list the guard enforces
is a ``tools`` event. With ``observe``, everything is passed on as it came.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, NamedTuple

import orjson

from jsoncontract import codes
from jsoncontract.live.guard import answers
from jsoncontract.live.guard.gate import VERSION_META, Action, GuardState, Verdict
from jsoncontract.live.guard.results import scrubbed
from jsoncontract.live.trace import CLIENT, GUARD, SERVER
from jsoncontract.model import Finding, Severity

if TYPE_CHECKING:
    from jsoncontract.live.guard.gate import Guard
    from jsoncontract.live.trace import TraceWriter

#: The prefix of the ids of the guard's own requests.
OWN_ID: Final = "jsoncontract-guard-"
#: The ``_meta`` members of a 2026-07-28 request the guard copies into its own.
_META_KEYS: Final = (
    VERSION_META,
    "io.modelcontextprotocol/clientInfo",
    "io.modelcontextprotocol/clientCapabilities",
)
_PAGES: Final = 200


class Out(NamedTuple):
    """A frame to write: ``to`` the client or the server, ``data`` without its newline."""

    to: str
    data: bytes


@dataclass(slots=True)
class _Pending:
    """A client request passed on to the server, waiting for its answer."""

    method: str
    verdict: Verdict | None = None
    seq: int = 0


@dataclass(slots=True)
class _Held:
    """A call that waits for the tool list."""

    message: dict[str, Any]
    data: bytes
    since: float = field(default_factory=time.monotonic)


def _key(value: Any) -> tuple[str, Any]:
    return (type(value).__name__, value)


def _dumps(message: Any) -> bytes:
    return orjson.dumps(message)


class GuardSession:
    """One session's traffic through the guard (see the module).

    Arguments:
        guard: the gate.
        writer: the trace (``None``: nothing is recorded).
        say: told of what the user should know (one line each), e.g. written to stderr.
    """

    def __init__(
        self,
        guard: Guard,
        *,
        writer: TraceWriter | None = None,
        say: Callable[[str], None] | None = None,
        state: GuardState | None = None,
    ) -> None:
        self.guard = guard
        self.state = state or guard.session()
        self.writer = writer
        self._say = say or (lambda _: None)
        self._lock = threading.RLock()
        self._pending: dict[tuple[str, Any], _Pending] = {}
        self._own: dict[str, str] = {}
        self._held: list[_Held] = []
        self._listing: str | None = None  # the id of the guard's tools/list in flight
        self._pages: list[Any] = []
        self._page_count = 0
        self._stale = guard.book is None
        self._ready = False
        self._meta: dict[str, Any] | None = None
        self._handshake: list[dict[str, Any]] = []
        self._counter = 0
        self._told: set[str] = set()
        self._enforced: list[Any] | None = None  # the tool list last written to the trace
        #: the frames of calls waiting for the answer of the same keyed write, by id
        self._waiting: dict[tuple[str, Any], bytes] = {}

    @property
    def observe(self) -> bool:
        return self.guard.settings.observe

    # -- the trace ------------------------------------------------------------------------

    def _record(
        self,
        direction: str,
        data: bytes,
        message: Any = None,
        *,
        mark: dict[str, Any] | None = None,
        replaces: int | None = None,
    ) -> int:
        writer = self.writer
        if writer is None:
            return 0
        if message is not None and _may_hold_secret(data):
            data = _dumps(scrubbed(message))
        return writer.frame(direction, data, guard=mark, replaces=replaces)

    def _tools_event(self) -> None:
        """The tool list the guard enforces, written to the trace when it changed."""
        book = self.guard.book
        if self.writer is not None and book is not None:
            definitions = book.definitions()
            if definitions == self._enforced:
                return
            self._enforced = definitions
            self.writer.event("tools", tools=definitions)
            for name, why in book.unusable.items():
                self._tell(f"tool {name!r} cannot be checked and is refused: {why}")
            for name, found in book.drift.items():
                self._tell(f"tool {name!r} drifted from the lock: {found[0].message}")

    def _tell(self, line: str) -> None:
        if line not in self._told:
            self._told.add(line)
            self._say(line)

    # -- from the client --------------------------------------------------------------------

    def client(self, data: bytes) -> list[Out]:
        """One frame the client sent (without its newline): what to write where."""
        with self._lock:
            return self._client(data)

    def _client(self, data: bytes) -> list[Out]:
        if not data.strip():
            return [Out(SERVER, data)]
        try:
            message = orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            return self._malformed(data, answers.PARSE_ERROR, f"Parse error: {exc.msg}")
        if isinstance(message, list):
            return self._batch(data, message)
        if not isinstance(message, dict) or not (
            "method" in message or "result" in message or "error" in message
        ):
            request_id = message.get("id") if isinstance(message, dict) else None
            return self._malformed(
                data,
                answers.INVALID_REQUEST,
                "Invalid Request: not a JSON-RPC request, notification or response",
                request_id,
            )
        method = message.get("method")
        params = message.get("params")
        if "method" in message and (
            not isinstance(method, str)
            or ("params" in message and not isinstance(params, dict | list))
        ):
            request_id = message.get("id")
            return self._malformed(
                data,
                answers.INVALID_REQUEST,
                "Invalid Request: the method must be a string, and params an object or an array",
                request_id if type(request_id) in (str, int) else None,
            )
        if isinstance(params, dict) and isinstance(params.get("_meta"), dict):
            self._learn_meta(params["_meta"])
        if method == "tools/call" and "id" not in message and not self.observe:
            # a notification is never answered, and never reaches the server unchecked
            finding = Finding(
                codes.ENVELOPE_MALFORMED,
                Severity.ERROR,
                "tools/call has no id, so it is a notification: it is not passed on",
                hint="give every request a unique id",
            )
            self._record(
                CLIENT, data, message, mark={"decision": "drop", "findings": [finding.to_dict()]}
            )
            return []
        if method == "tools/call" and "id" in message:
            if self._stale or self.guard.book is None:
                self._record(CLIENT, data, message, mark={"decision": "hold"})
                self._held.append(_Held(message, data))
                return self._ask_tools()
            return self._gate(message, data)
        if method == "initialize":
            self._handshake = [message]
        elif method == "notifications/initialized":
            self._handshake.append(message)
            self._ready = True
        self._record(CLIENT, data, message)
        if isinstance(method, str) and "id" in message:
            self._pending[_key(message["id"])] = _Pending(method)
        out = [Out(SERVER, data)]
        if method == "notifications/initialized" and self._held:
            out.extend(self._ask_tools())
        return out

    def _learn_meta(self, meta: dict[str, Any]) -> None:
        version = meta.get(VERSION_META)
        if isinstance(version, str):
            self.state.version = version
            self._meta = {k: meta[k] for k in _META_KEYS if k in meta}
            self._ready = True

    def _malformed(self, data: bytes, code: int, message: str, request_id: Any = None) -> list[Out]:
        finding = Finding(
            codes.GUARD_MALFORMED_FRAME,
            Severity.WARNING,
            f"the client sent a frame that is no JSON-RPC message ({message})",
            hint="send one JSON-RPC message per line",
        )
        mark = {"decision": "pass" if self.observe else "refuse", "findings": [finding.to_dict()]}
        self._record(CLIENT, data, None, mark=mark)
        if self.observe:
            return [Out(SERVER, data)]
        answer = _dumps(answers.protocol_error(request_id, code, message))
        self._record(GUARD, answer)
        return [Out(CLIENT, answer)]

    def _batch(self, data: bytes, batch: list[Any]) -> list[Out]:
        calls = [m for m in batch if isinstance(m, dict) and m.get("method") == "tools/call"]
        if not calls or self.observe:
            self._record(CLIENT, data, batch)
            return [Out(SERVER, data)]
        finding = Finding(
            codes.GUARD_MALFORMED_FRAME,
            Severity.WARNING,
            "the client sent tools/call in a JSON-RPC batch, which MCP does not use (2025-06-18 "
            "removed batching): refused",
            hint="send each request on its own line",
        )
        self._record(
            CLIENT, data, batch, mark={"decision": "refuse", "findings": [finding.to_dict()]}
        )
        replies = [
            answers.protocol_error(
                m.get("id"),
                answers.INVALID_REQUEST,
                "Invalid Request: send tools/call alone, not in a batch",
            )
            for m in batch
            if isinstance(m, dict) and "id" in m and "method" in m
        ]
        answer = _dumps(replies)
        self._record(GUARD, answer)
        return [Out(CLIENT, answer)]

    def _gate(self, message: dict[str, Any], data: bytes) -> list[Out]:
        verdict = self.guard.call(message, self.state)
        seq = self._record(CLIENT, data, message, mark=verdict.mark())
        if verdict.action is Action.FORWARD:
            self._pending[_key(message.get("id"))] = _Pending("tools/call", verdict, seq)
            return [Out(SERVER, data)]
        if verdict.action is Action.WAIT:
            self._waiting[_key(message.get("id"))] = data
            return []
        if verdict.answer is None:
            return []
        answer = _dumps(verdict.answer)
        self._record(GUARD, answer)
        return [Out(CLIENT, answer)]

    # -- the guard's own tools/list ------------------------------------------------------------

    def _ask_tools(self, cursor: Any = None) -> list[Out]:
        """Ask the server for the tool list (a page of it), unless already asking, or the
        session has not started yet."""
        if self._listing is not None and cursor is None:
            return []
        if not self._ready:
            return []
        self._counter += 1
        own = f"{OWN_ID}{self._counter}"
        params: dict[str, Any] = {}
        if cursor is not None:
            params["cursor"] = cursor
        if self._meta:
            params["_meta"] = dict(self._meta)
        request = _dumps({"jsonrpc": "2.0", "id": own, "method": "tools/list", "params": params})
        self._own[own] = "tools/list"
        self._listing = own
        self._record(GUARD, request)
        return [Out(SERVER, request)]

    def _own_answer(self, purpose: str, message: dict[str, Any], data: bytes) -> list[Out]:
        self._record(SERVER, data, message, mark={"decision": "own"})
        if purpose != "tools/list":
            return []
        result = message.get("result")
        tools = result.get("tools") if isinstance(result, dict) else None
        if not isinstance(tools, list):
            self._listing = None
            why = (
                "answered with an error" if "error" in message else "answered without a tools list"
            )
            return self._fail_held(f"the server {why} to tools/list")
        self._pages.extend(tools)
        self._page_count += 1
        cursor = result.get("nextCursor") if isinstance(result, dict) else None
        if isinstance(cursor, str) and self._page_count < _PAGES:
            return self._ask_tools(cursor)
        pages, self._pages, self._page_count = self._pages, [], 0
        self._listing = None
        self.guard.learn(pages)
        self._stale = False
        self._tools_event()
        return self._release_held()

    def _release_held(self) -> list[Out]:
        held, self._held = self._held, []
        out: list[Out] = []
        for item in held:
            out.extend(self._gate_held(item))
        return out

    def _gate_held(self, item: _Held) -> list[Out]:
        verdict = self.guard.call(item.message, self.state)
        if self.writer is not None:
            self.writer.event("decision", id=item.message.get("id"), guard=verdict.mark())
        if verdict.action is Action.FORWARD:
            self._pending[_key(item.message.get("id"))] = _Pending("tools/call", verdict)
            return [Out(SERVER, item.data)]
        if verdict.answer is None:
            return []
        answer = _dumps(verdict.answer)
        self._record(GUARD, answer)
        return [Out(CLIENT, answer)]

    def _fail_held(self, why: str) -> list[Out]:
        held, self._held = self._held, []
        out: list[Out] = []
        if held:
            self._tell(f"no tool list to check calls against: {why}")
        for item in held:
            if self.observe:
                self._pending[_key(item.message.get("id"))] = _Pending("tools/call")
                out.append(Out(SERVER, item.data))
                continue
            answer = _dumps(_no_tool_list(item.message, why, self.state.version))
            self._record(GUARD, answer)
            out.append(Out(CLIENT, answer))
        return out

    def expire(self, now: float | None = None) -> list[Out]:
        """Answer the calls that waited longer than ``list_timeout`` for the tool list."""
        with self._lock:
            if not self._held:
                return []
            now = time.monotonic() if now is None else now
            limit = self.guard.settings.list_timeout
            if now - self._held[0].since < limit:
                return []
            self._listing = None
            return self._fail_held(f"the server did not answer tools/list within {limit:g} s")

    # -- from the server --------------------------------------------------------------------------

    def server(self, data: bytes) -> list[Out]:
        """One frame the server sent (without its newline): what to write where."""
        with self._lock:
            return self._server(data)

    def _server(self, data: bytes) -> list[Out]:
        if not data.strip():
            return [] if not self.observe else [Out(CLIENT, data)]
        try:
            message = orjson.loads(data)
        except orjson.JSONDecodeError:
            return self._junk(data)
        if not isinstance(message, dict):
            self._record(SERVER, data, message)
            return [Out(CLIENT, data)]
        method = message.get("method")
        if method is None and "id" in message and ("result" in message or "error" in message):
            request_id = message["id"]
            if isinstance(request_id, str) and request_id in self._own:
                return self._own_answer(self._own.pop(request_id), message, data)
            pending = self._pending.pop(_key(request_id), None)
            if pending is not None:
                return self._answer(pending, message, data)
        elif method == "notifications/tools/list_changed":
            self._record(SERVER, data, message)
            self._stale = True
            return [Out(CLIENT, data), *self._ask_tools()]
        self._record(SERVER, data, message)
        return [Out(CLIENT, data)]

    def _junk(self, data: bytes) -> list[Out]:
        finding = Finding(
            codes.GUARD_MALFORMED_FRAME,
            Severity.WARNING,
            "the server wrote a line that is no JSON-RPC message to stdout",
            hint="a stdio server writes JSON-RPC messages only to stdout; logs go to stderr",
        )
        mark = {"decision": "pass" if self.observe else "drop", "findings": [finding.to_dict()]}
        self._record(SERVER, data, None, mark=mark)
        self._tell(
            "the server wrote lines that are no JSON-RPC messages; they are kept from the client"
        )
        return [Out(CLIENT, data)] if self.observe else []

    def _answer(self, pending: _Pending, message: dict[str, Any], data: bytes) -> list[Out]:
        method = pending.method
        if method == "tools/call" and pending.verdict is not None:
            return self._call_answer(pending.verdict, message, data)
        if method == "initialize":
            result = message.get("result")
            version = result.get("protocolVersion") if isinstance(result, dict) else None
            if isinstance(version, str):
                self.state.version = version
        if method == "tools/list":
            return self._listing_answer(message, data)
        self._record(SERVER, data, message)
        return [Out(CLIENT, data)]

    def _call_answer(self, verdict: Verdict, message: dict[str, Any], data: bytes) -> list[Out]:
        decision, released = self.guard.result(verdict, message, self.state, data)
        mark: dict[str, Any] = {"decision": decision.action}
        if decision.would is not None:
            mark["would"] = decision.would
        if decision.findings:
            mark["findings"] = [f.to_dict() for f in decision.findings]
        seq = self._record(SERVER, data, message, mark=mark)
        out: list[Out] = []
        if decision.answer is None:
            out.append(Out(CLIENT, data))
        else:
            answer = _dumps(decision.answer)
            self._record(GUARD, answer, decision.answer, replaces=seq)
            out.append(Out(CLIENT, answer))
        for item in released:
            waiter = item.verdict
            held = self._waiting.pop(_key(waiter.request_id), None)
            if item.answer is None:
                self._pending[_key(waiter.request_id)] = _Pending("tools/call", waiter)
                if held is not None:
                    out.append(Out(SERVER, held))
                continue
            answer = _dumps(item.answer)
            self._record(GUARD, answer, item.answer)
            out.append(Out(CLIENT, answer))
        return out

    def _listing_answer(self, message: dict[str, Any], data: bytes) -> list[Out]:
        result = message.get("result")
        if not isinstance(result, dict) or not isinstance(result.get("tools"), list):
            self._record(SERVER, data, message)
            return [Out(CLIENT, data)]
        learned = result.get("nextCursor") is None
        shown = self.guard.listed(result, self.state)
        out: list[Out] = []
        if learned:
            self._stale = False
            self._tools_event()
        book = self.guard.book
        drifted = [
            f
            for tool in result["tools"]
            if isinstance(tool, dict) and book is not None
            for f in book.drift.get(str(tool.get("name")), [])
        ]
        if shown is result:
            mark = (
                {"decision": "pass", "findings": [f.to_dict() for f in drifted]}
                if drifted
                else None
            )
            self._record(SERVER, data, message, mark=mark)
            out.append(Out(CLIENT, data))
        else:
            hidden = sorted(
                {str(t.get("name")) for t in result["tools"] if isinstance(t, dict)}
                - {str(t.get("name")) for t in shown["tools"] if isinstance(t, dict)}
            )
            mark = {
                "decision": "hide" if hidden else "flag",
                "tools": hidden,
                "findings": [f.to_dict() for f in drifted],
            }
            seq = self._record(SERVER, data, message, mark=mark)
            answer = {**message, "result": shown}
            encoded = _dumps(answer)
            self._record(GUARD, encoded, answer, replaces=seq)
            out.append(Out(CLIENT, encoded))
        if learned and self._held:
            out.extend(self._release_held())
        return out

    @property
    def settled(self) -> bool:
        """Whether the guard has nothing more to send the server on its own: no call waits
        for the tool list, and no request of the guard's waits for its answer."""
        with self._lock:
            return not self._held and not self._own

    @property
    def in_flight(self) -> bool:
        """Whether a request passed on to the server waits for its answer."""
        with self._lock:
            return bool(self._pending)

    # -- frames too long to judge ----------------------------------------------------------------

    def too_large(
        self, direction: str, size: int, limit: int, head: bytes = b"", *, encoding: str = ""
    ) -> list[Out]:
        """A frame longer than ``limit`` bytes came from ``direction`` (``head``: its first
        bytes; ``encoding``: it came packed, ``size`` bytes as sent, and unpacks past the
        limit). The proxy never holds it whole, so it cannot be judged: it was passed on as
        it came under ``observe``, and kept away otherwise. A request from the client is
        answered ``-32600``; an answer of the server is replaced by a
        ``guard.frame_too_large`` error for the request it answered, when its id comes
        before its result (:func:`leading_id`), and its request waits on when not."""
        with self._lock:
            frame = "client" if direction == CLIENT else "server"
            packed = f" ({encoding}, more once unpacked)" if encoding else ""
            finding = Finding(
                codes.GUARD_FRAME_TOO_LARGE,
                Severity.WARNING,
                f"the {frame} sent a frame of {size:,} bytes{packed}, over the guard's limit "
                f"of {limit:,} (--max-frame): it cannot be checked",
                hint="raise --max-frame, or send smaller frames",
            )
            decision = "pass" if self.observe else "drop"
            fields: dict[str, Any] = {"from": direction, "bytes": size}
            if encoding:
                fields["encoding"] = encoding
            if self.writer is not None:
                self.writer.event(
                    "too_large",
                    **fields,
                    guard={"decision": decision, "findings": [finding.to_dict()]},
                )
            self._tell(finding.message)
            found, request_id = leading_id(head)
            if direction == CLIENT:
                if self.observe:
                    if found:  # its answer is passed on as any other
                        self._pending[_key(request_id)] = _Pending("unknown")
                    return []
                reply = answers.protocol_error(
                    request_id if found and type(request_id) in (str, int) else None,
                    answers.INVALID_REQUEST,
                    f"Invalid Request: a frame of {size:,} bytes is over the limit of {limit:,}",
                )
            else:
                pending = self._pending.pop(_key(request_id), None) if found else None
                if pending is None or self.observe:
                    return []
                error = {
                    "code": codes.GUARD_FRAME_TOO_LARGE,
                    "message": f"the server's answer of {size:,} bytes was too large to check, "
                    "so it was not passed on",
                    "next": "ask for less (a narrower query, a page of the results)",
                }
                if pending.method == "tools/call":
                    reply = answers.tool_error(request_id, error, self.state.version)
                else:
                    reply = answers.protocol_error(
                        request_id, answers.INTERNAL_ERROR, error["message"]
                    )
            answer = _dumps(reply)
            self._record(GUARD, answer, mark={"decision": "too_large"})
            return [Out(CLIENT, answer)]

    # -- the server's end -------------------------------------------------------------------------

    def server_exited(self, code: int | None) -> list[Out]:
        """The server's process ended: answer every request still waiting for it."""
        with self._lock:
            out: list[Out] = []
            pending, self._pending = self._pending, {}
            self._own.clear()
            self._listing = None
            how = "exited" if code is None else f"exited with code {code}"
            for (_kind, request_id), item in pending.items():
                if item.method == "tools/call":
                    error = {
                        "code": codes.GUARD_SERVER_EXITED,
                        "message": f"the server {how} during the call; it may or may not "
                        "have taken effect",
                        "next": "check whether it took effect before calling it again",
                    }
                    reply = answers.tool_error(request_id, error, self.state.version)
                else:
                    reply = answers.protocol_error(
                        request_id, answers.INTERNAL_ERROR, f"the server {how} before it answered"
                    )
                answer = _dumps(reply)
                self._record(GUARD, answer, mark={"decision": "server_exited"})
                out.append(Out(CLIENT, answer))
            if self.writer is not None:
                self.writer.event("server_exit", code=code)
            return out

    def restarted(self) -> list[Out]:
        """The frames that bring a new server process to where the session is: the
        client's ``initialize`` (under an id of the guard's, so that its answer is not
        passed on) and ``notifications/initialized``; nothing for a 2026-07-28 session,
        whose requests carry what the server needs. The tool list is asked for again."""
        with self._lock:
            out: list[Out] = []
            for message in self._handshake:
                if message.get("method") == "initialize":
                    self._counter += 1
                    own = f"{OWN_ID}{self._counter}"
                    self._own[own] = "initialize"
                    message = {**message, "id": own}
                data = _dumps(message)
                self._record(GUARD, data, mark={"decision": "restart"})
                out.append(Out(SERVER, data))
            self._stale = True
            if self.writer is not None:
                self.writer.event("server_restart")
            return out


_LEADING_ID: Final = re.compile(
    rb'\A\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*[,}]'
)


def leading_id(head: bytes) -> tuple[bool, Any]:
    """The id of a JSON-RPC message from its first bytes, when it is the first member (or
    the second, after ``"jsonrpc": "2.0"``), as the SDKs write their messages: ``(True,
    id)``; ``(False, None)`` otherwise (a member named ``id`` further on may be a result's).

    >>> leading_id(b'{"jsonrpc":"2.0","id":7,"result":{"content":[')
    (True, 7)
    >>> leading_id(b'{"result":{"id":1},"id":2')
    (False, None)
    """
    match = _LEADING_ID.match(head)
    if match is None:
        return False, None
    try:
        return True, orjson.loads(match.group(1))
    except orjson.JSONDecodeError:
        return False, None


def _no_tool_list(message: dict[str, Any], why: str, version: str | None) -> dict[str, Any]:
    params = message.get("params")
    name = params.get("name") if isinstance(params, dict) else None
    tool = name if isinstance(name, str) else "the tool"
    error = {
        "code": codes.GUARD_NO_TOOL_LIST,
        "message": f"{tool} was not called: the guard has no tool list to check it against ({why})",
        "next": "tell the user the tool server is not answering; try again later",
    }
    return answers.tool_error(message.get("id"), error, version)


def _may_hold_secret(data: bytes) -> bool:
    from jsoncontract.masking import may_hold_secret

    try:
        return may_hold_secret(data.decode("utf-8"))
    except UnicodeDecodeError:
        return True


__all__ = ["OWN_ID", "GuardSession", "Out", "leading_id"]
