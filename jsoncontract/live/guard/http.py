"""``mcp guard --listen 127.0.0.1:PORT --upstream URL``: the guard in front of a Streamable
HTTP server.

It serves the upstream's endpoint path on the local address, as ``mcp record --listen``
does (its :class:`~jsoncontract.live.record.HttpProxy` listens and serves; this subclass
answers), and puts a :class:`~jsoncontract.live.guard.session.GuardSession` between the two:
one per MCP session (the ``Mcp-Session-Id`` the server gives; the requests of a stateless
2026-07-28 client share one). For each POST:

- the message goes through :meth:`~GuardSession.client`; an answer the guard makes is the
  HTTP response (``application/json``), and the server is not called;
- the guard's own requests (``tools/list`` before the first call, after ``list_changed``)
  are POSTed upstream with the client's headers (its credentials, session and protocol
  version), and their answers go back into the session, never to the client;
- a request that goes on is POSTed upstream, and every message of the response (a JSON
  body, or each event of a ``text/event-stream``, as it comes) goes through
  :meth:`~GuardSession.server` before it is passed on;
- a call that waits for the answer of the same keyed write is answered when that answer
  comes, on its own response.

GET (the server's event stream) and DELETE are forwarded; the messages of the event stream
go through the session too. Request headers are passed on but never recorded.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any, Final

import orjson

from jsoncontract.live.guard.session import OWN_ID, GuardSession, Out
from jsoncontract.live.record import (
    HOP_BY_HOP,
    MAX_FRAME,
    Body,
    FramePart,
    HttpProxy,
    SseEvents,
    event_data,
    parse_listen,
)
from jsoncontract.live.trace import CLIENT, SERVER

if TYPE_CHECKING:
    from jsoncontract.live.guard.gate import Guard
    from jsoncontract.live.trace import TraceWriter

_SESSION: Final = "mcp-session-id"
#: How much of a body past the limit is kept to find its id.
_HEAD: Final = 512
#: Headers not forwarded: the recorder's hop-by-hop ones, and the client's Accept-Encoding
#: (the guard's HTTP client asks for the encodings it undoes, and the answers it passes on
#: are decoded, so their Content-Encoding goes too).
_HOP_BY_HOP: Final = HOP_BY_HOP | {"accept-encoding"}
_ACCEPT: Final = "application/json, text/event-stream"
#: 2026-07-28 headers that mirror one request's body.
_METHOD: Final = "mcp-method"
_MIRRORED: Final = frozenset({_METHOD, "mcp-name"})
_PARAM: Final = "mcp-param-"


def _id_of(data: bytes) -> Any:
    try:
        message = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    return message.get("id") if isinstance(message, dict) else None


def _key(value: Any) -> tuple[str, Any]:
    return (type(value).__name__, value)


class _Route:
    """One MCP session behind the proxy: its guard session, the client headers the guard's
    own requests reuse, and the POSTs waiting for an answer the session has not made yet."""

    def __init__(self, session: GuardSession) -> None:
        self.session = session
        self.headers: list[tuple[str, str]] = []
        self.modern = False
        self.waiting: dict[tuple[str, Any], asyncio.Future[Out]] = {}


class GuardHttpProxy(HttpProxy):
    """The Streamable HTTP guard (see the module).

    Arguments:
        guard: the gate.
        upstream: the server's endpoint URL.
        listen: the local address (``port`` 0: the system picks one).
        writer: the trace.
        say: told of what the user should know.
        on_ready: told the local URL once the proxy listens.
        headers: headers sent upstream with every request (credentials from the config).
        max_frame: the longest request body held whole to be judged (bytes).
    """

    def __init__(
        self,
        guard: Guard,
        upstream: str,
        listen: tuple[str, int],
        *,
        writer: TraceWriter | None,
        label: str,
        say: Callable[[str], None] | None = None,
        on_ready: Callable[[str], None] | None = None,
        headers: dict[str, str] | None = None,
        max_frame: int = MAX_FRAME,
    ) -> None:
        super().__init__(upstream, listen, trace=None, label=label, on_ready=on_ready)
        self.guard = guard
        self.max_frame = max_frame
        self.writer = writer
        self.say = say
        self.extra = dict(headers or {})
        self._routes: dict[str, _Route] = {}
        self._default: _Route | None = None

    def _route(self, session_id: str | None, body: bytes) -> _Route:
        """The session a request belongs to: the one its ``Mcp-Session-Id`` names; a new
        one for an ``initialize`` (bound to the id the server's answer gives); else the one
        the requests without a session share (a stateless 2026-07-28 client's)."""
        if session_id is not None and session_id in self._routes:
            return self._routes[session_id]
        if session_id is None and b'"initialize"' not in body:
            if self._default is None:
                self._default = self._new()
            return self._default
        route = self._new()
        if session_id is not None:
            self._routes[session_id] = route
        return route

    def _new(self) -> _Route:
        return _Route(GuardSession(self.guard, writer=self.writer, say=self.say))

    def _app(self) -> Any:
        import httpx2
        from starlette.requests import Request
        from starlette.responses import Response, StreamingResponse

        client = httpx2.AsyncClient(timeout=httpx2.Timeout(30.0, read=None), follow_redirects=False)
        upstream = self.upstream
        tasks: set[asyncio.Future[None]] = set()

        def forwarded(request: Request, route: _Route | None) -> list[tuple[str, str]]:
            headers = [(k, v) for k, v in request.headers.items() if k.lower() not in _HOP_BY_HOP]
            headers.extend(self.extra.items())
            if route is not None:
                # what the guard's own requests reuse: credentials, session, version; not the
                # headers that mirror one request's body (2026-07-28: Mcp-Method, Mcp-Name,
                # Mcp-Param-*), which its own requests set for themselves
                route.headers = [
                    (k, v)
                    for k, v in headers
                    if k.lower() != "accept"
                    and k.lower() not in _MIRRORED
                    and not k.lower().startswith(_PARAM)
                ]
                route.modern = any(k.lower() == _METHOD for k, _ in headers)
            return headers

        def own_headers(route: _Route, data: bytes) -> list[tuple[str, str]]:
            headers = [*route.headers, ("accept", _ACCEPT), ("content-type", "application/json")]
            if route.modern:
                try:
                    method = orjson.loads(data).get("method")
                except (orjson.JSONDecodeError, AttributeError):
                    method = None
                if isinstance(method, str):
                    headers.append((_METHOD, method))
            return headers

        async def post(route: _Route, data: bytes) -> tuple[str, Body]:
            """A request the guard sends itself, POSTed upstream: the answer's content type
            and body (held no further than ``max_frame``, unpacked).

            Raises:
                httpx2.HTTPError: the upstream is unreachable.
            """
            headers = own_headers(route, data)
            request = client.build_request("POST", upstream, headers=headers, content=data)
            response = await client.send(request, stream=True)
            held = Body({}, self.max_frame)
            try:
                async for chunk in response.aiter_bytes():
                    held.feed(chunk)  # past the limit: read to its end, held nowhere
            finally:
                await response.aclose()
            return response.headers.get("content-type", ""), held

        async def own_request(route: _Route, data: bytes) -> list[Out]:
            """The guard's own request, POSTed upstream; the outs its answer makes."""
            why = ""
            try:
                kind, held = await post(route, data)
            except httpx2.HTTPError as exc:
                why = f"upstream unreachable: {exc}"
            else:
                if held.over:
                    why = f"the server's answer of {held.size:,} bytes is over the limit of "
                    why += f"{self.max_frame:,} (--max-frame)"
            if why:
                failure = {
                    "jsonrpc": "2.0",
                    "id": _id_of(data),
                    "error": {"code": -32603, "message": why},
                }
                return route.session.server(orjson.dumps(failure))
            outs: list[Out] = []
            for message in _messages(kind, held.message()):
                outs.extend(route.session.server(message))
            return outs

        async def settle(
            route: _Route, outs: list[Out], mine: Any, body: bytes | None = None
        ) -> tuple[Out | None, list[Out]]:
            """Carry out ``outs``: the guard's own requests go upstream (their outs carried
            out in turn), answers and forwards of other waiting POSTs are handed to them;
            the out that concerns this request (its id ``mine``, or, for a message without
            one, its ``body`` passed on), if any, and those handed on."""
            found: Out | None = None
            handed: list[Out] = []
            queue = list(outs)
            while queue:
                out = queue.pop(0)
                target = _id_of(out.data)
                if out.to != CLIENT and isinstance(target, str) and target.startswith(OWN_ID):
                    queue.extend(await own_request(route, out.data))
                    continue
                if found is None and (
                    (mine is not None and target == mine) or (mine is None and out.data == body)
                ):
                    found = out
                    continue
                future = route.waiting.pop(_key(target), None) if target is not None else None
                if future is not None and not future.done():
                    future.set_result(out)
                    handed.append(out)
                elif out.to != CLIENT:
                    task = asyncio.ensure_future(background(route, out.data))
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)
                    handed.append(out)
            return found, handed

        async def background(route: _Route, data: bytes) -> None:
            """A request of the client the session lets go later: its answer has no POST
            left to go back on, but the session still sees it."""
            try:
                kind, held = await post(route, data)
            except httpx2.HTTPError:
                return
            if held.over:
                route.session.too_large(SERVER, held.size, self.max_frame, held.head)
                return
            for message in _messages(kind, held.message()):
                route.session.server(message)

        async def app(scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] != "http":
                return
            request = Request(scope, receive)
            if request.url.path != self.path:
                await Response(status_code=404)(scope, receive, send)
                return
            session_id = request.headers.get(_SESSION)
            sent = Body(request.headers, self.max_frame)
            chunks = request.stream()
            async for chunk in chunks:
                if not sent.feed(chunk):
                    break
            if sent.over:
                route = self._route(session_id, b"")
                await too_large(request, route, sent, chunks, scope, receive, send)
                return
            body = sent.message()  # judged and sent on unpacked
            route = self._route(session_id, body)
            headers = forwarded(request, route if request.method == "POST" else None)
            if sent.unpacked:
                headers = [(k, v) for k, v in headers if k.lower() != "content-encoding"]
            if request.method != "POST" or not body.strip():
                await passthrough(request, route, headers, body, scope, receive, send)
                return
            mine = _id_of(body)
            future: asyncio.Future[Out] | None = None
            if mine is not None:
                future = asyncio.get_running_loop().create_future()
                route.waiting[_key(mine)] = future
            found, _ = await settle(route, route.session.client(body), mine, body)
            if found is None and future is not None:
                found = await future
            if future is not None:
                route.waiting.pop(_key(mine), None)
            if found is None:  # kept from the server (a tools/call notification)
                await Response(status_code=202)(scope, receive, send)
                return
            if found.to == CLIENT:
                await Response(found.data, media_type="application/json")(scope, receive, send)
                return
            await passthrough(request, route, headers, found.data, scope, receive, send)

        async def too_large(
            request: Request,
            route: _Route,
            sent: Body,
            rest: AsyncIterator[bytes],
            scope: Any,
            receive: Any,
            send: Any,
        ) -> None:
            """A body past ``max_frame`` (as sent, or once unpacked): never held whole, so
            never judged. Refused with 413 and a JSON-RPC error (``-32600``); under
            ``observe``, streamed on as it comes (as it came: packed when it was)."""
            head = sent.head
            if route.session.observe:
                headers = forwarded(request, None)
                await passthrough(request, route, headers, sent.relay(rest), scope, receive, send)
                route.session.too_large(
                    CLIENT, sent.size, self.max_frame, head, encoding=sent.encoding
                )
                return
            sent.release()
            async for chunk in rest:  # read to its end (to say its size), held nowhere
                sent.feed(chunk)
            outs = route.session.too_large(
                CLIENT, sent.size, self.max_frame, head, encoding=sent.encoding
            )
            answer = outs[0].data if outs else b""
            await Response(answer, status_code=413, media_type="application/json")(
                scope, receive, send
            )

        async def passthrough(
            request: Request,
            route: _Route,
            headers: list[tuple[str, str]],
            body: bytes | AsyncIterator[bytes],
            scope: Any,
            receive: Any,
            send: Any,
        ) -> None:
            url = upstream + (f"?{request.url.query}" if request.url.query else "")
            try:
                outgoing = client.build_request(request.method, url, headers=headers, content=body)
                response = await client.send(outgoing, stream=True)
            except httpx2.HTTPError as exc:
                message = f"jsoncontract mcp guard: the upstream server is unreachable: {exc}"
                await Response(message, status_code=502)(scope, receive, send)
                return
            given = response.headers.get(_SESSION)
            if given is not None and given not in self._routes:
                self._routes[given] = route
            kind = response.headers.get("content-type", "")
            out_headers = {
                k: v
                for k, v in response.headers.items()
                if k.lower() not in _HOP_BY_HOP and k.lower() != "content-encoding"
            }

            async def stream() -> AsyncIterator[bytes]:
                """The answer, each message judged before it is passed on (unpacked as it
                comes, held no further than ``max_frame``)."""
                try:
                    if "text/event-stream" in kind:
                        events = SseEvents(self.max_frame)
                        head = b""  # the first bytes of an event past the limit
                        async for chunk in response.aiter_bytes():
                            for event in events.feed(chunk):
                                if isinstance(event, FramePart):
                                    head = head or event.data[:_HEAD]
                                    yield over_event(route, event, head, b"\n\n")
                                    head = b"" if event.end else head
                                else:
                                    yield await relay_event(route, event)
                        rest = events.end()
                        if isinstance(rest, FramePart):
                            yield over_event(route, rest, head or rest.data[:_HEAD], b"")
                        elif rest.strip():
                            yield await relay_event(route, rest)
                        return
                    if "json" not in kind:
                        async for chunk in response.aiter_bytes():
                            yield chunk
                        return
                    held = Body({}, self.max_frame)
                    head = b""
                    async for chunk in response.aiter_bytes():
                        if held.over:
                            held.feed(chunk)  # counted
                            if route.session.observe:
                                yield chunk
                        elif not held.feed(chunk):
                            head = held.head  # past the limit: passed on only under observe
                            pieces = held.release()
                            if route.session.observe:
                                yield b"".join(pieces)
                    if held.over:
                        outs = route.session.too_large(SERVER, held.size, self.max_frame, head)
                        yield b"".join(o.data for o in outs if o.to == CLIENT)
                        return
                    whole = held.message()
                    if not whole.strip():
                        yield whole
                        return
                    outs = route.session.server(whole)
                    mine, _ = await settle(route, outs, _id_of(whole))
                    yield mine.data if mine is not None and mine.to == CLIENT else b""
                finally:
                    await response.aclose()

            await StreamingResponse(
                stream(), status_code=response.status_code, headers=out_headers
            )(scope, receive, send)

        def over_event(route: _Route, part: FramePart, head: bytes, ending: bytes) -> bytes:
            """A piece of an event past the limit: passed on only under ``observe``; at its
            end, told to the session, and what the session answers in its place sent as an
            event."""
            out = part.data if route.session.observe else b""
            if not part.end:
                return out
            if route.session.observe:
                route.session.too_large(SERVER, part.size, self.max_frame, event_data(head))
                return out + ending
            outs = route.session.too_large(SERVER, part.size, self.max_frame, event_data(head))
            sent = [b"event: message\ndata: " + o.data + b"\n\n" for o in outs if o.to == CLIENT]
            return b"".join(sent) or b": kept by the guard\n\n"

        async def relay_event(route: _Route, event: bytes) -> bytes:
            """One server-sent event: its message through the session, re-sent as it is
            passed on (an event the session keeps from the client is sent empty)."""
            lines = event.split(b"\n")
            data = b"\n".join(
                line[5:].removeprefix(b" ") for line in lines if line.startswith(b"data:")
            )
            other = [line for line in lines if line and not line.startswith(b"data:")]
            if not data.strip():
                return event + b"\n\n"
            outs = route.session.server(data)
            found, handed = await settle(route, outs, _id_of(data))
            sent = [o.data for o in outs if o.to == CLIENT and o is not found and o not in handed]
            if found is not None and found.to == CLIENT:
                sent.insert(0, found.data)
            if not sent:
                return b": kept by the guard\n\n"
            return b"".join(b"\n".join([*other, b"data: " + item]) + b"\n\n" for item in sent)

        return app


def _messages(kind: str, body: bytes) -> list[bytes]:
    """The JSON-RPC messages of an HTTP response: the body, or each event's data."""
    if "text/event-stream" not in kind:
        return [body] if body.strip() else []
    out = []
    for event in body.replace(b"\r\n", b"\n").split(b"\n\n"):
        data = b"\n".join(
            line[5:].removeprefix(b" ") for line in event.split(b"\n") if line.startswith(b"data:")
        )
        if data.strip():
            out.append(data)
    return out


def guard_http(
    guard: Guard,
    upstream: str,
    listen: str,
    *,
    writer: TraceWriter | None,
    say: Callable[[str], None] | None = None,
    on_ready: Callable[[str], None] | None = None,
    headers: dict[str, str] | None = None,
    max_frame: int = MAX_FRAME,
) -> int:
    """Run the Streamable HTTP guard until interrupted (see :class:`GuardHttpProxy`)."""
    from jsoncontract.live.server import safe_url

    return GuardHttpProxy(
        guard,
        upstream,
        parse_listen(listen),
        writer=writer,
        label=safe_url(upstream),
        say=say,
        on_ready=on_ready,
        headers=headers,
        max_frame=max_frame,
    ).run()


__all__ = ["GuardHttpProxy", "guard_http"]
