"""``mcp replay``: serve a recorded session as a stdio MCP server.

An agent's tests can then run without the real server: ``initialize`` (or
``server/discover``) and ``tools/list`` are answered as they were recorded, and each
``tools/call`` with the answer recorded for the same tool and the same arguments (canonical
JSON: member order does not matter). The same call recorded several times is answered in
the recorded order, then with the last answer again. Anything not recorded gets a JSON-RPC
error that says so, with the recorded arguments of that tool in ``data``, never a guess.

A request the server sent the client while it worked on a call (``sampling/createMessage``,
``elicitation/create``, ``roots/list``) is sent again when that call is replayed, before its
answer, which waits for the client's response (at most :data:`RESPONSE_WAIT` seconds).

``--inject`` rules apply to the replayed answers as they do to a live server's.
"""

from __future__ import annotations

import sys
import threading
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final

import orjson

from jsoncontract.live.inject import NEVER, Injector
from jsoncontract.live.trace import CLIENT, read_frames

#: The error code of "nothing was recorded for this" (a server error in the range JSON-RPC
#: leaves to implementations, outside the codes MCP and the SDKs give meanings to).
NOT_RECORDED: Final = -32010
METHOD_NOT_FOUND: Final = -32601
#: Recorded argument sets quoted in a "not recorded" error.
_QUOTED: Final = 5
#: Seconds a replayed answer waits for the client's responses to the requests re-sent
#: before it.
RESPONSE_WAIT: Final = 5.0


#: How deep a frame's JSON may nest: a deeper request is refused with an error (and the
#: replay serves on); a deeper recorded exchange cannot be answered and is not filed.
MAX_DEPTH: Final = 128


def canonical(value: Any) -> bytes:
    """Canonical JSON of arguments (sorted keys), the key of the answer table.

    Raises:
        ValueError: the value nests deeper than :data:`MAX_DEPTH`.
    """
    if too_deep(value):
        raise ValueError(f"nested more than {MAX_DEPTH} levels deep")
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether ``value`` nests deeper than ``limit`` (found without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


@dataclass(slots=True)
class Recording:
    """What a trace recorded, arranged for answering: results by method, tool answers by
    tool and canonical arguments."""

    initialize: dict[str, Any] | None = None
    discover: dict[str, Any] | None = None
    #: cursor (``None`` for the first page) -> tools/list result
    pages: dict[Any, dict[str, Any]] = field(default_factory=dict)
    #: (tool, canonical arguments) -> answers, in order (each {"result": ..} or {"error": ..})
    calls: dict[tuple[str, bytes], list[dict[str, Any]]] = field(default_factory=dict)
    #: tool -> the argument sets recorded for it
    arguments: dict[str, list[Any]] = field(default_factory=lambda: defaultdict(list))
    #: (method, canonical params) -> answer, for other requests
    other: dict[tuple[str, bytes], dict[str, Any]] = field(default_factory=dict)
    #: (method, tool or "", canonical arguments or params) -> the requests the server sent
    #: the client while it worked on that request (method and params of each)
    asked: dict[tuple[str, str, bytes], list[dict[str, Any]]] = field(default_factory=dict)
    frames: int = 0

    def tools(self) -> int:
        """How many tools the recorded listing holds."""
        return sum(len(p.get("tools") or []) for p in self.pages.values())


def load_recording(path: Path) -> Recording:
    """Pair the recorded requests with their answers.

    Raises:
        InputError: the file cannot be read or is no trace.
    """
    recording = Recording()
    pending: dict[Any, dict[str, Any]] = {}
    #: answers logged before their request (a recorder that writes the two directions
    #: from two threads may), by id
    early: dict[Any, dict[str, Any]] = {}
    for frame in read_frames(path):
        message = frame.message
        if not isinstance(message, dict):
            continue
        recording.frames += 1
        key = _key(message.get("id"))
        is_request = "method" in message and "id" in message
        if is_request and frame.direction not in (None, CLIENT) and pending:
            # the server asks the client something while the latest request is pending
            latest = list(pending.values())[-1]
            asked = {"method": message["method"]}
            if "params" in message:
                asked["params"] = message["params"]
            recording.asked.setdefault(_asked_key(latest), []).append(asked)
            continue
        if is_request and frame.direction in (None, CLIENT):
            answer = early.pop(key, None)
            if answer is not None:
                _file(recording, message, answer)
            else:
                pending[key] = message
            continue
        if "method" in message or frame.direction == CLIENT or not frame.delivered:
            continue
        answer = {k: message[k] for k in ("result", "error") if k in message}
        if not answer:
            continue
        request = pending.pop(key, None)
        if request is None:
            early[key] = answer
            continue
        _file(recording, request, answer)
    return recording


def _file(recording: Recording, request: dict[str, Any], answer: dict[str, Any]) -> None:
    if too_deep(request) or too_deep(answer):  # cannot be asked for again: not filed
        return
    method = request.get("method")
    params = _params(request)
    result = answer.get("result")
    if method == "initialize" and isinstance(result, dict):
        recording.initialize = recording.initialize or result
    elif method == "server/discover" and isinstance(result, dict):
        recording.discover = recording.discover or result
    elif method == "tools/list" and isinstance(result, dict):
        recording.pages.setdefault(params.get("cursor"), result)
    elif method == "tools/call" and isinstance(params.get("name"), str):
        tool = params["name"]
        arguments = params.get("arguments", {})
        key = (tool, canonical(arguments))
        if key not in recording.calls:
            recording.arguments[tool].append(arguments)
        recording.calls.setdefault(key, []).append(answer)
    elif isinstance(method, str):
        recording.other.setdefault((method, canonical(_without_meta(params))), answer)


def _asked_key(request: dict[str, Any]) -> tuple[str, str, bytes]:
    """What identifies a request across sessions: its method, tool, and arguments (or
    params without ``_meta``)."""
    params = _params(request)
    method = str(request.get("method"))
    if method == "tools/call":
        return (method, str(params.get("name")), canonical(params.get("arguments", {})))
    return (method, "", canonical(_without_meta(params)))


def _params(request: dict[str, Any]) -> dict[str, Any]:
    params = request.get("params")
    return params if isinstance(params, dict) else {}


def _without_meta(params: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in params.items() if k != "_meta"}


def _key(value: Any) -> Any:
    return (type(value).__name__, value) if isinstance(value, str | int) else None


class Replayer:
    """Answers requests from a :class:`Recording` (the logic, without any I/O)."""

    def __init__(self, recording: Recording) -> None:
        self.recording = recording
        self._served: dict[tuple[str, bytes], int] = defaultdict(int)

    def answer(self, request: dict[str, Any]) -> dict[str, Any] | None:
        """The answer (``{"result": ..}`` or ``{"error": ..}``) to a request, ``None`` for a
        notification."""
        if "id" not in request:
            return None
        method = request.get("method")
        params = _params(request)
        rec = self.recording
        if method == "initialize":
            if rec.initialize is not None:
                return {"result": rec.initialize}
            if rec.discover is not None:
                return {"result": _handshake_from(rec.discover, params)}
        if method == "server/discover" and rec.discover is not None:
            return {"result": rec.discover}
        if method == "ping":  # as recorded (2026-07-28 servers may not know it), else {}
            return rec.other.get(("ping", canonical({})), {"result": {}})
        if method == "tools/list":
            page = rec.pages.get(params.get("cursor"))
            if page is not None:
                return {"result": page}
            return _error(
                NOT_RECORDED, "jsoncontract replay: this tools/list page was not recorded"
            )
        if method == "tools/call":
            return self._call(params)
        found = rec.other.get((str(method), canonical(_without_meta(params))))
        if found is not None:
            return found
        return _error(METHOD_NOT_FOUND, f"jsoncontract replay: {method} was not recorded")

    def asked(self, request: dict[str, Any]) -> list[dict[str, Any]]:
        """The requests the server sent the client while it worked on this one, as
        recorded (``method`` and ``params`` each; the replay gives them new ids)."""
        return list(self.recording.asked.get(_asked_key(request), ()))

    def _call(self, params: dict[str, Any]) -> dict[str, Any]:
        tool = params.get("name")
        if not isinstance(tool, str):
            return _error(-32602, "tools/call without a tool name")
        arguments = params.get("arguments", {})
        key = (tool, canonical(arguments))
        answers = self.recording.calls.get(key)
        if answers:
            index = min(self._served[key], len(answers) - 1)
            self._served[key] += 1
            return answers[index]
        recorded = self.recording.arguments.get(tool, [])
        if recorded:
            message = (
                f"jsoncontract replay: no recorded answer for tools/call {tool} with these "
                f"arguments ({len(recorded)} other argument set"
                f"{'s' if len(recorded) != 1 else ''} recorded)"
            )
        else:
            message = f"jsoncontract replay: tools/call {tool} was never recorded"
        return _error(
            NOT_RECORDED,
            message,
            {"tool": tool, "arguments": arguments, "recorded": recorded[:_QUOTED]},
        )


def _handshake_from(discover: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
    """An ``initialize`` result for a client that does not speak 2026-07-28, built from a
    recorded ``server/discover`` result (same capabilities and server)."""
    from jsoncontract.pipeline.answers import HANDSHAKE_VERSIONS as known

    offered = params.get("protocolVersion")
    raw = discover.get("_meta")
    meta: dict[str, Any] = raw if isinstance(raw, dict) else {}
    info = meta.get("io.modelcontextprotocol/serverInfo")
    out: dict[str, Any] = {
        "protocolVersion": offered if offered in known else known[-1],
        "capabilities": discover.get("capabilities") or {},
        "serverInfo": info if isinstance(info, dict) else {"name": "replay", "version": "0"},
    }
    if isinstance(discover.get("instructions"), str):
        out["instructions"] = discover["instructions"]
    return out


def _error(code: int, message: str, data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"error": error}


def serve_replay(
    recording: Recording,
    injector: Injector,
    *,
    client_in: IO[bytes] | None = None,
    client_out: IO[bytes] | None = None,
) -> int:
    """Answer newline-delimited JSON-RPC on stdin from the recording, until stdin closes."""
    from jsoncontract.live.record import MAX_FRAME, FramePart, FrameWriter, fd_lines

    replayer = Replayer(recording)
    out = FrameWriter((client_out or sys.stdout.buffer).fileno())
    fd = (client_in or sys.stdin.buffer).fileno()
    timers: list[threading.Timer] = []
    waiting: dict[Any, _Held] = {}
    asked_ids = 0
    for line in fd_lines(fd):
        if isinstance(line, FramePart):  # past the frame limit: refused once whole
            if line.end:
                refused = _error(-32600, f"Invalid Request: over {MAX_FRAME:,} bytes")
                out.write(orjson.dumps({"jsonrpc": "2.0", "id": None, **refused}) + b"\n")
            continue
        body = line.strip()
        if not body:
            continue
        try:
            request = orjson.loads(body)
        except orjson.JSONDecodeError:
            out.write(
                orjson.dumps({"jsonrpc": "2.0", "id": None, **_error(-32700, "Parse error")})
                + b"\n"
            )
            continue
        if not isinstance(request, dict):
            out.write(
                orjson.dumps({"jsonrpc": "2.0", "id": None, **_error(-32600, "Invalid Request")})
                + b"\n"
            )
            continue
        if "method" not in request:  # the client's response to a re-sent request
            held = waiting.pop(_key(request.get("id")), None)
            if held is not None:
                held.answered()
            continue
        request_id = request.get("id")
        if too_deep(request):
            refused = _error(-32600, f"Invalid Request: nested more than {MAX_DEPTH} levels deep")
            out.write(orjson.dumps({"jsonrpc": "2.0", "id": _plain_id(request_id), **refused}))
            out.write(b"\n")
            continue
        injector.client_frame(request)
        answer = replayer.answer(request)
        if answer is None:
            continue
        try:
            data = orjson.dumps({"jsonrpc": "2.0", "id": request_id, **answer})
        except TypeError:  # a recorded answer orjson cannot write: said, and serving goes on
            failed = _error(-32603, "Internal error: the recorded answer cannot be written")
            data = orjson.dumps({"jsonrpc": "2.0", "id": _plain_id(request_id), **failed})
        asked = replayer.asked(request)
        if asked:
            held = _Held(len(asked), out, data + b"\n")
            for question in asked:
                asked_ids += 1
                ident = f"replay-{asked_ids}"
                waiting[_key(ident)] = held
                out.write(orjson.dumps({"jsonrpc": "2.0", "id": ident, **question}) + b"\n")
            timer = threading.Timer(RESPONSE_WAIT, held.release)
            timer.daemon = True
            timers.append(timer)
            timer.start()
            continue
        delivery = injector.server_frame(data, orjson.loads(data)) if injector.active else None
        if delivery is None:
            out.write(data + b"\n")
            continue
        payload = delivery.data

        def send(payload: bytes | None = payload, then: list[bytes] = delivery.then) -> None:
            if payload is not None:
                out.write(payload + b"\n")
            for extra in then:
                out.write(extra + b"\n")

        if delivery.delay == NEVER:
            continue
        if delivery.delay > 0:
            timer = threading.Timer(delivery.delay, send)
            timer.daemon = True
            timers.append(timer)
            timer.start()
        else:
            send()
    for timer in timers:
        timer.join(timeout=5.0)
    return 0


class _Held:
    """A replayed answer waiting for the client's responses to the requests sent before it
    (written when the last arrives, or after :data:`RESPONSE_WAIT` seconds)."""

    def __init__(self, count: int, out: Any, data: bytes) -> None:
        self._left = count
        self._out = out
        self._data: bytes | None = data
        self._lock = threading.Lock()

    def answered(self) -> None:
        with self._lock:
            self._left -= 1
            done = self._left <= 0
        if done:
            self.release()

    def release(self) -> None:
        with self._lock:
            data, self._data = self._data, None
        if data is not None:
            self._out.write(data)


def _plain_id(value: Any) -> Any:
    """A request id fit to answer with (a string or a number; else ``None``)."""
    return value if isinstance(value, str | int | float) and not isinstance(value, bool) else None


def replay(path: Path, injector: Injector) -> int:
    """Serve the trace at ``path`` on this process's stdin and stdout."""
    return serve_replay(load_recording(path), injector)


__all__ = ["NOT_RECORDED", "Recording", "Replayer", "load_recording", "replay", "serve_replay"]
