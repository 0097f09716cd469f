"""``mcp record``: a recording proxy between an MCP host and a server.

**stdio.** The host runs ``jsoncontract mcp record -o TRACE -- COMMAND ARGS...`` where its
config named ``COMMAND ARGS...``. The proxy starts the server, forwards every byte the host
writes to the server's stdin and every byte the server writes to the host, unchanged and as
soon as a frame is complete. Each frame is appended to the trace just before it is passed
on, so the trace holds frames in the order they happened (a request always before its
answer: the two directions are read by two threads, and recording after forwarding would
let an answer overtake its request). It never writes to stdout itself (its own messages
go to stderr, the server's stderr passes through), ends the server when the host hangs up,
and exits with the server's exit code. With ``--inject`` rules, server frames answering
``tools/call`` may be delayed, withheld, replaced or broken (see
:mod:`jsoncontract.live.inject`); without rules, frames pass untouched.

**Streamable HTTP.** ``--listen 127.0.0.1:PORT --upstream URL`` serves the upstream's
endpoint path on the local address and forwards every request and response (server-sent
events streamed as they come). Request bodies and every JSON-RPC message of the responses are
recorded, each before it is passed on; headers (credentials) never are. ``--inject`` rules
apply to the JSON-RPC answers of both kinds of response: a JSON body, or each event of a
stream (a ``list_changed`` notification then follows as an event of its own).
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Final

import orjson

from jsoncontract.errors import ServerError
from jsoncontract.live.inject import NEVER, Delivery, Injector
from jsoncontract.live.trace import CLIENT, SERVER, TraceWriter

if TYPE_CHECKING:
    from jsoncontract.live.server import ServerSpec

_CHUNK: Final = 1 << 16
#: How much of a body past the limit is kept (to find its id).
_HEAD: Final = 512
#: Seconds the server has to exit after the host hangs up, then after SIGTERM.
GRACE: Final = 2.0


class FrameWriter:
    """Writes whole frames to a file descriptor, from several threads."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._lock = threading.Lock()
        self.broken = False

    def write(self, data: bytes) -> None:
        with self._lock:
            if self.broken:
                return
            view = memoryview(data)
            try:
                while view:
                    written = os.write(self.fd, view)
                    view = view[written:]
            except OSError:  # the reader went away (EPIPE)
                self.broken = True


#: The longest frame held whole to be recorded (and offered to fault rules): a longer one
#: is passed on as it comes, in linear time and bounded memory, and recorded as too large.
MAX_FRAME: Final = 64 * 1024 * 1024


class FramePart:
    """A piece of a frame longer than the limit, passed on as it comes; the last one
    (``end``) says how long the frame was."""

    __slots__ = ("data", "end", "size")

    def __init__(self, data: bytes, end: bool = False, size: int = 0) -> None:
        self.data = data
        self.end = end
        self.size = size


class Source:
    """Reads a file descriptor; once ``gone`` is set (the server exited), a pipe that a
    helper the server started still holds open stops being read after :data:`GRACE`
    seconds of silence."""

    def __init__(self, fd: int, gone: threading.Event | None = None) -> None:
        self.fd = fd
        self.gone = gone
        self.last = time.monotonic()  # when something was last read

    def read(self) -> bytes:
        if self.gone is None:
            try:
                return os.read(self.fd, _CHUNK)
            except OSError:
                return b""
        while True:
            try:
                ready, _, _ = select.select([self.fd], [], [], 0.1)
            except (OSError, ValueError):
                return b""
            if ready:
                try:
                    chunk = os.read(self.fd, _CHUNK)
                except OSError:
                    return b""
                self.last = time.monotonic()
                return chunk
            if self.gone.is_set() and time.monotonic() - self.last > GRACE:
                return b""  # the server is gone; what holds its stdout is not it


def fd_lines(source: Source | int, limit: int = MAX_FRAME) -> Iterator[bytes | FramePart]:
    """The lines read, each with its ``\n`` (the last may lack one), found in one pass
    over each chunk: linear in what is read, holding at most ``limit`` bytes. A line longer
    than ``limit`` comes as :class:`FramePart` pieces, as they are read."""
    if isinstance(source, int):
        source = Source(source)
    held: list[bytes] = []
    size = 0
    over = False  # inside a line past the limit
    while True:
        chunk = source.read()
        if not chunk:
            if over:
                yield FramePart(b"", end=True, size=size)
            elif held:
                yield b"".join(held)
            return
        start = 0
        while True:
            cut = chunk.find(b"\n", start)
            if cut < 0:
                rest = chunk[start:]
                if rest:
                    size += len(rest)
                    if over:
                        yield FramePart(rest)
                    else:
                        held.append(rest)
                        if size > limit:  # too long to hold: passed on from here
                            over = True
                            yield FramePart(b"".join(held))
                            held = []
                break
            piece = chunk[start : cut + 1]
            size += len(piece)
            if over:
                yield FramePart(piece, end=True, size=size)
                over = False
            else:
                if held:
                    held.append(piece)
                    piece = b"".join(held)
                    held = []
                # a line over the limit that came whole within a read is still too large
                yield FramePart(piece, end=True, size=size) if size > limit else piece
            size = 0
            start = cut + 1


def _parse(line: bytes) -> Any:
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return None


class StdioProxy:
    """The stdio recording proxy; :meth:`run` returns the server's exit code.

    Arguments:
        spec: the server (its command, environment and working directory).
        trace: the trace file (``None``: nothing is recorded, faults are still injected).
        injector: the fault rules.
        client_in, client_out: the host's side (default: this process's stdin and stdout).
        on_message: told of problems (one line each), e.g. written to stderr.
        max_frame: the longest frame recorded whole (bytes); a longer one is passed on as
            it comes and recorded as ``too_large`` with its size.
    """

    def __init__(
        self,
        spec: ServerSpec,
        *,
        trace: Path | None,
        injector: Injector,
        client_in: IO[bytes] | None = None,
        client_out: IO[bytes] | None = None,
        on_message: Callable[[str], None] | None = None,
        max_frame: int = MAX_FRAME,
    ) -> None:
        self.spec = spec
        self.trace_path = trace
        self.injector = injector
        self.max_frame = max_frame
        self._gone = threading.Event()  # the server has exited
        self._server: Source | None = None
        self._in = (client_in or sys.stdin.buffer).fileno()
        self._out = FrameWriter((client_out or sys.stdout.buffer).fileno())
        self._say = on_message or (lambda _: None)
        self._writer: TraceWriter | None = None
        self._timers: list[threading.Timer] = []

    def run(self) -> int:
        """Start the server, forward until either side hangs up, return its exit code.

        Raises:
            ServerError: the server cannot be started.
            InputError: the trace cannot be written.
        """
        if self.trace_path is not None:
            self._writer = TraceWriter(
                self.trace_path, server=self.spec.endpoint, transport="stdio"
            )
        try:
            child = spawn(self.spec)
        except ServerError:
            self._close_trace(None)
            raise
        assert child.stdin is not None and child.stdout is not None
        upstream = threading.Thread(target=self._client_to_server, args=(child,), daemon=True)
        upstream.start()
        # a server that exits on its own (a crash) takes its helpers with it: one of them
        # holding its stdout would keep the recording, and the host, waiting; a helper that
        # left its process group (setsid) is not waited for
        threading.Thread(target=self._after_exit, args=(child,), daemon=True).start()
        previous = signal.getsignal(signal.SIGTERM)
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, exit_on_signal)
        code: int | None = None
        try:
            self._server = Source(child.stdout.fileno(), self._gone)
            self._server_to_client(self._server)
            for timer in list(self._timers):
                timer.join(timeout=GRACE)
            code = stop_server(child)
        finally:
            if code is None:
                code = stop_server(child)
            if threading.current_thread() is threading.main_thread():
                signal.signal(signal.SIGTERM, previous)
            self._close_trace(code)
        return code

    def _close_trace(self, code: int | None) -> None:
        if self._writer is not None:
            if code is not None:
                self._writer.event("exit", code=code)
            self._writer.close()

    def _client_to_server(self, child: subprocess.Popen[bytes]) -> None:
        assert child.stdin is not None
        target = FrameWriter(child.stdin.fileno())
        inject = self.injector.active
        writer = self._writer
        for line in fd_lines(self._in, self.max_frame):
            if isinstance(line, FramePart):
                self._too_large(CLIENT, line)
                target.write(line.data)
            else:
                if writer is not None or inject:
                    body = line.rstrip(b"\n")
                    if inject:
                        self.injector.client_frame(_parse(body))
                    if writer is not None:
                        writer.frame(CLIENT, body)
                target.write(line)
            if target.broken:
                break
        if target.broken:
            with contextlib.suppress(OSError):
                child.stdin.close()
        else:
            wind_down(child, lambda: self._server)

    def _after_exit(self, child: subprocess.Popen[bytes]) -> None:
        end_after_exit(child, self._gone)

    def _too_large(self, direction: str, part: FramePart) -> None:
        """A piece of a frame past the limit: its end is recorded, with its size."""
        if part.end and self._writer is not None:
            self._writer.event("too_large", **{"from": direction, "bytes": part.size})
            self._say(
                f"a {direction} frame of {part.size:,} bytes was passed on unrecorded (over "
                f"the {self.max_frame:,}-byte limit of --max-frame)"
            )

    def _server_to_client(self, source: Source) -> None:
        inject = self.injector.active
        writer = self._writer
        for line in fd_lines(source, self.max_frame):
            if isinstance(line, FramePart):
                self._too_large(SERVER, line)
                self._out.write(line.data)
                continue
            if not inject:
                if writer is not None:
                    writer.frame(SERVER, line.rstrip(b"\n"))
                self._out.write(line)
                continue
            body = line.rstrip(b"\n")
            ending = line[len(body) :]
            delivery = self.injector.server_frame(body, _parse(body))
            self._deliver(delivery, ending)

    def _deliver(self, delivery: Delivery, ending: bytes) -> None:
        """Write (now, later, or never) what the injector decided, and record it."""
        data = delivery.data
        writer = self._writer

        def record(delivered: bool) -> None:
            _record_delivery(writer, delivery, delivered=delivered)

        def send() -> None:
            record(True)
            if data is not None:
                self._out.write(data + (ending or b"\n"))
            for extra in delivery.then:
                if writer is not None:
                    writer.frame(SERVER, extra, fault="list-changed", injected=True)
                self._out.write(extra + b"\n")

        if delivery.delay == NEVER:
            record(False)
        elif delivery.delay > 0:
            timer = threading.Timer(delivery.delay, send)
            timer.daemon = True
            self._timers.append(timer)
            timer.start()
        else:
            send()


def spawn(spec: ServerSpec) -> subprocess.Popen[bytes]:
    """Start a stdio server in a process group of its own (so that :func:`stop_server` ends its
    helpers too), its stdin and stdout piped, its stderr this process's.

    Raises:
        ServerError: it cannot be started.
    """
    env = {**os.environ, **spec.env} if spec.env else None
    try:
        return subprocess.Popen(
            list(spec.command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            cwd=spec.cwd,
            start_new_session=True,
        )
    except OSError as exc:
        reason = "command not found" if isinstance(exc, FileNotFoundError) else str(exc)
        raise ServerError(
            f"{spec.label}: cannot start the server: {spec.command[0]}: {reason}"
        ) from None


def wind_down(child: subprocess.Popen[bytes], source: Callable[[], Source | None]) -> None:
    """The host hung up: the server's stdin is closed, and the server reads the end of its
    input and answers what it was asked (whole), then exits; one that stays silent on
    ``source`` (the reader of its stdout, when there is one) for :data:`GRACE` seconds is
    ended with its process group."""
    if child.stdin is not None:
        with contextlib.suppress(OSError):
            child.stdin.close()
    while child.poll() is None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.wait(timeout=0.1)
        reader = source()
        if reader is not None and time.monotonic() - reader.last > GRACE:
            stop_server(child)
            break


def end_after_exit(child: subprocess.Popen[bytes], gone: threading.Event) -> None:
    """Once the server has exited (on its own, a crash), end what is left of its process
    group, helpers it started; ``gone`` tells the reader of its stdout to stop once that
    is silent (a helper may hold it)."""
    child.wait()
    gone.set()
    stop_server(child)


def exit_on_signal(signum: int, frame: Any) -> None:
    """SIGTERM ends the proxy as a shell says a signal's death: ``128 + N``."""
    raise SystemExit(128 + signum)


def stop_server(child: subprocess.Popen[bytes]) -> int:
    """Wait for the server to exit after its stdin closed; then end what is left of its
    process group (the server itself if it did not exit, helpers it started): SIGTERM,
    then SIGKILL."""
    if child.stdin is not None and not child.stdin.closed:
        with contextlib.suppress(OSError):
            child.stdin.close()
    with contextlib.suppress(subprocess.TimeoutExpired):
        child.wait(timeout=GRACE)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if not _signal_group(child.pid, sig):
            break
        deadline = time.monotonic() + GRACE
        while time.monotonic() < deadline and _signal_group(child.pid, 0):
            child.poll()  # a leader that died is reaped, or the group lives on as a zombie
            time.sleep(0.02)
        if not _signal_group(child.pid, 0):
            break
    code = child.wait()
    return 128 - code if code < 0 else code  # a signal's death as a shell says it


def _signal_group(pgid: int, sig: int) -> bool:
    """Send ``sig`` to a process group; whether it still has members."""
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        return False
    return True


# -- Streamable HTTP --------------------------------------------------------------------------

#: Headers that belong to one connection and are not forwarded.
HOP_BY_HOP: Final = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
    }
)


def parse_listen(text: str) -> tuple[str, int]:
    """``127.0.0.1:8123`` -> ``("127.0.0.1", 8123)`` (port 0: the system picks one).

    Raises:
        UsageError: not HOST:PORT.
    """
    from jsoncontract.errors import UsageError

    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or int(port) > 65535:
        raise UsageError(f"--listen {text!r}: write HOST:PORT, e.g. 127.0.0.1:8123 (0: any port)")
    return host.strip("[]"), int(port)


class HttpProxy:
    """The Streamable HTTP recording proxy.

    Arguments:
        upstream: the server's endpoint URL.
        listen: the local address (``port`` 0: the system picks one).
        trace: the trace file.
        on_ready: told the local URL once the proxy listens.
        on_message: told of problems (one line each).
        max_frame: the longest body (unpacked) or event held whole to be recorded (bytes); a
            longer one is passed on as it comes and recorded as ``too_large`` with its size.
    """

    def __init__(
        self,
        upstream: str,
        listen: tuple[str, int],
        *,
        trace: Path | None,
        label: str,
        on_ready: Callable[[str], None] | None = None,
        injector: Injector | None = None,
        on_message: Callable[[str], None] | None = None,
        max_frame: int = MAX_FRAME,
    ) -> None:
        from urllib.parse import urlsplit

        self.injector = injector if injector is not None else Injector([])
        self.upstream = upstream
        self.listen = listen
        self.trace_path = trace
        self.label = label
        self.on_ready = on_ready
        self.max_frame = max_frame
        self.path = urlsplit(upstream).path or "/"
        self._writer: TraceWriter | None = None
        self._say = on_message or (lambda _: None)

    def run(self) -> int:
        """Serve until interrupted; 0 on a clean stop.

        Raises:
            ServerError: the SDK (which brings the HTTP stack) is missing, or the address is
                taken.
        """
        from jsoncontract.live.client import require_sdk

        require_sdk()
        import socket

        import anyio
        import uvicorn

        host, port = self.listen
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            sock.close()
            raise ServerError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
        bound = sock.getsockname()[1]
        if self.trace_path is not None:
            self._writer = TraceWriter(self.trace_path, server=self.label, transport="http")
        config = uvicorn.Config(self._app(), log_level="critical", lifespan="off")
        server = uvicorn.Server(config)
        shown = f"[{host}]" if ":" in host else host

        async def main() -> None:
            async with anyio.create_task_group() as tg:
                tg.start_soon(server.serve, [sock])
                while not server.started:
                    if server.should_exit:
                        return
                    await anyio.sleep(0.01)
                if self.on_ready is not None:
                    self.on_ready(f"http://{shown}:{bound}{self.path}")

        try:
            anyio.run(main)
        finally:
            sock.close()
            if self._writer is not None:
                self._writer.event("exit", code=0)
                self._writer.close()
        return 0

    def _too_large(self, direction: str, size: int, encoding: str = "") -> None:
        """A body or event past the limit was passed on: recorded, with its size (as sent,
        packed when ``encoding`` says so)."""
        if self._writer is None:
            return
        fields: dict[str, Any] = {"from": direction, "bytes": size}
        packed = ""
        if encoding:
            fields["encoding"] = encoding
            packed = f" ({encoding}, over the limit once unpacked)"
        self._writer.event("too_large", **fields)
        self._say(
            f"a {direction} message of {size:,} bytes{packed} was passed on unrecorded (over "
            f"the {self.max_frame:,}-byte limit of --max-frame)"
        )

    def _app(self) -> Any:
        import httpx2
        from starlette.requests import Request
        from starlette.responses import Response, StreamingResponse

        client = httpx2.AsyncClient(timeout=httpx2.Timeout(30.0, read=None), follow_redirects=False)
        writer = self._writer
        upstream = self.upstream
        injector = self.injector
        limit = self.max_frame

        async def app(scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] != "http":
                return
            request = Request(scope, receive)
            if request.url.path != self.path:
                await Response(status_code=404)(scope, receive, send)
                return
            sent = Body(request.headers, limit)
            chunks = request.stream()
            async for chunk in chunks:
                if not sent.feed(chunk):
                    break
            body: bytes | AsyncIterator[bytes]
            if sent.over:

                async def streamed() -> AsyncIterator[bytes]:
                    """The body past the limit, passed on as it comes, then recorded."""
                    async for chunk in sent.relay(chunks):
                        yield chunk
                    self._too_large(CLIENT, sent.size, sent.encoding)

                body = streamed()
            else:
                message = sent.message()
                body = b"".join(sent.release())
                if writer is not None and message.strip():
                    writer.frame(CLIENT, message)
                if injector.active and message.strip():
                    parsed = _parse(message)
                    for item in parsed if isinstance(parsed, list) else [parsed]:
                        injector.client_frame(item)
            headers = [(k, v) for k, v in request.headers.items() if k.lower() not in HOP_BY_HOP]
            url = upstream + (f"?{request.url.query}" if request.url.query else "")
            try:
                upstream_request = client.build_request(
                    request.method, url, headers=headers, content=body
                )
                response = await client.send(upstream_request, stream=True)
            except httpx2.HTTPError as exc:
                why = f"jsoncontract mcp record: the upstream server is unreachable: {exc}"
                await Response(why, status_code=502)(scope, receive, send)
                return
            kind = response.headers.get("content-type", "")
            out_headers = {k: v for k, v in response.headers.items() if k.lower() not in HOP_BY_HOP}

            async def injected() -> AsyncIterator[bytes]:
                """The upstream body with the faults applied, message by message (unpacked:
                the client gets it without its ``Content-Encoding``); a body or an event
                past the limit is passed on as it comes, without faults."""
                events = SseEvents(limit) if "text/event-stream" in kind else None
                held = Body({}, limit)  # a JSON body, whole (unpacked as it comes)
                try:
                    async for chunk in response.aiter_bytes():
                        if events is None:
                            if held.over:
                                held.feed(chunk)  # counted
                                yield chunk
                            elif not held.feed(chunk):
                                for piece in held.release():
                                    yield piece
                            continue
                        for event in events.feed(chunk):
                            if isinstance(event, FramePart):
                                for out in self._pass_part(event, b"\n\n"):
                                    yield out
                                continue
                            async for out in _inject_event(event, injector, writer):
                                yield out
                finally:
                    await response.aclose()
                if events is not None:
                    rest = events.end()  # an event the stream ended without its blank line
                    if isinstance(rest, FramePart):
                        for out in self._pass_part(rest, b""):
                            yield out
                    elif rest.strip():
                        async for out in _inject_event(rest, injector, writer):
                            yield out
                    return
                if held.over:
                    self._too_large(SERVER, held.size)
                    return
                message = held.message()
                if message.strip():
                    async for out in _inject_body(message, injector, writer):
                        yield out

            async def stream() -> AsyncIterator[bytes]:
                """The upstream body, each message recorded before the client gets it (a
                body or an event past the limit is passed on as it comes)."""

                def large(size: int) -> None:
                    self._too_large(SERVER, size)

                events = _SseFrames(writer, limit, large) if "text/event-stream" in kind else None
                whole = writer is not None and events is None and "json" in kind
                held = Body(response.headers, limit) if whole else None
                try:
                    async for chunk in response.aiter_raw():
                        if held is not None:
                            if held.over:
                                held.feed(chunk)  # counted
                            elif held.feed(chunk):
                                continue  # one JSON answer: recorded complete
                            else:
                                for piece in held.release():  # past the limit: passed on
                                    yield piece
                                continue
                        if events is not None:
                            events.feed(chunk)
                        yield chunk
                finally:
                    await response.aclose()
                if events is not None:
                    events.end()
                if held is None:
                    return
                if held.over:
                    self._too_large(SERVER, held.size, held.encoding)
                    return
                assert writer is not None
                # recorded as the message it is (a gzip answer unpacked), sent unchanged
                message = held.message()
                if message.strip():
                    writer.frame(SERVER, message)
                for piece in held.release():
                    yield piece

            fault = injector.active and ("json" in kind or "text/event-stream" in kind)
            if fault:
                out_headers = {
                    k: v for k, v in out_headers.items() if k.lower() != "content-encoding"
                }
            body_stream = injected() if fault else stream()
            await StreamingResponse(
                body_stream, status_code=response.status_code, headers=out_headers
            )(scope, receive, send)

        return app

    def _pass_part(self, part: FramePart, ending: bytes) -> Iterator[bytes]:
        """A piece of an event past the limit, passed on; its end is recorded."""
        if part.data:
            yield part.data
        if part.end:
            if ending:
                yield ending
            self._too_large(SERVER, part.size)


async def _deliver_http(delivery: Delivery, writer: TraceWriter | None) -> bytes | None:
    """Wait as the delivery says, record it, and give the frame to send (``None``: it is
    withheld; an injected timeout holds the response open until the client gives up)."""
    import anyio

    _record_delivery(writer, delivery, delivered=delivery.delay != NEVER)
    if delivery.delay == NEVER:
        await anyio.sleep_forever()
    if delivery.delay > 0:
        await anyio.sleep(delivery.delay)
    return delivery.data


def _record_delivery(writer: TraceWriter | None, delivery: Delivery, *, delivered: bool) -> None:
    """Record the server frame a delivery sends (or withholds), marked with its fault."""
    if writer is not None and delivery.data is not None:
        writer.frame(
            SERVER,
            delivery.data,
            fault=delivery.fault,
            original=delivery.original,
            delivered=delivered,
        )


async def _inject_body(body: bytes, injector: Injector, writer: TraceWriter | None) -> Any:
    """One JSON body (an answer), with the faults applied."""
    delivery = injector.server_frame(body.strip(), _parse(body))
    data = await _deliver_http(delivery, writer)
    if data is not None:
        yield data


async def _inject_event(event: bytes, injector: Injector, writer: TraceWriter | None) -> Any:
    """One server-sent event, its ``data`` with the faults applied, then the events the
    faults add (a ``list_changed`` notification)."""
    lines = event.split(b"\n")
    data = b"\n".join(line[5:].removeprefix(b" ") for line in lines if line.startswith(b"data:"))
    if not data.strip():
        yield event + b"\n\n"
        return
    other = [line for line in lines if not line.startswith(b"data:")]
    delivery = injector.server_frame(data, _parse(data))
    sent = await _deliver_http(delivery, writer)
    if sent is not None:
        yield b"\n".join([*other, b"data: " + sent]) + b"\n\n"
    for extra in delivery.then:
        if writer is not None:
            writer.frame(SERVER, extra, fault="list-changed", injected=True)
        yield b"event: message\ndata: " + extra + b"\n\n"


def _encoding(headers: Any) -> str:
    """The ``Content-Encoding`` of a body the proxy unpacks (``""``: none it unpacks)."""
    encoding = (headers.get("content-encoding") or "").strip().lower()
    return encoding if encoding in ("gzip", "x-gzip", "deflate") else ""


class Body:
    """An HTTP body held as it comes, while it is at most ``limit`` bytes as sent and once
    unpacked (gzip or deflate, by its ``Content-Encoding``): unpacked in pieces of at most
    64 KiB, and no further than the limit, so a small body that unpacks to gigabytes (a
    decompression bomb) costs no more than one at the limit. Past the limit, ``over``:
    what was held is given back (:meth:`release`) and nothing more is held; ``size`` goes on
    counting the bytes as sent.

    >>> body = Body({"content-encoding": "gzip"}, limit=1000)
    >>> import gzip; body.feed(gzip.compress(b"x" * 1001)), body.over, body.encoding
    (False, True, 'gzip')
    """

    def __init__(self, headers: Any, limit: int = MAX_FRAME) -> None:
        import zlib

        self.limit = limit
        self.encoding = _encoding(headers)
        self.size = 0  # bytes as sent
        self.over = False
        self._raw: list[bytes] = []
        self._unpacked: list[bytes] = []
        self._length = 0  # bytes unpacked
        self._head = b""  # the first bytes of the message
        # gzip or zlib, told by the header; None: held as it is (or it did not unpack)
        self._unpack = zlib.decompressobj(zlib.MAX_WBITS | 32) if self.encoding else None

    def feed(self, chunk: bytes) -> bool:
        """Take the next chunk; whether the body is still held (within the limit)."""
        import zlib

        self.size += len(chunk)
        if self.over:
            return False
        self._raw.append(chunk)
        if self._unpack is None:
            self._note(chunk)
        if self.size > self.limit:
            self.over = True
            return False
        if self._unpack is not None:
            data = chunk
            try:
                while True:  # in pieces, until the chunk is used up and nothing is pending
                    piece = self._unpack.decompress(data, _CHUNK)
                    self._note(piece)
                    self._unpacked.append(piece)
                    self._length += len(piece)
                    if self._length > self.limit:
                        self.over = True
                        self._unpacked = []
                        return False
                    data = self._unpack.unconsumed_tail
                    if not data and len(piece) < _CHUNK:
                        break
            except zlib.error:  # kept as it came, marked raw in the trace
                self._unpack = None
                self._unpacked = []
                self._head = b"".join(self._raw)[:_HEAD]
        return True

    def _note(self, piece: bytes) -> None:
        if len(self._head) < _HEAD:
            self._head += piece[: _HEAD - len(self._head)]

    @property
    def unpacked(self) -> bool:
        """Whether the body came packed and unpacks."""
        return self._unpack is not None

    @property
    def head(self) -> bytes:
        """The message's first bytes (unpacked; which may name its id), kept past the
        limit."""
        return self._head

    def message(self) -> bytes:
        """The whole body (within the limit) as the message it carries: unpacked, or as it
        came when it is not packed or does not unpack."""
        if self._unpack is None:
            return b"".join(self._raw)
        return b"".join(self._unpacked)

    def release(self) -> list[bytes]:
        """The chunks held as they came (and no longer held)."""
        raw, self._raw, self._unpacked = self._raw, [], []
        return raw

    async def relay(self, rest: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
        """A body past the limit passed on as it came: the chunks held (no longer held),
        then ``rest``, the rest of its stream, as it comes (counted in ``size``)."""
        for chunk in self.release():
            yield chunk
        async for chunk in rest:
            self.feed(chunk)
            yield chunk


class SseEvents:
    """Splits a stream of server-sent events into its events (each without the blank line
    that ends it, its line ends ``\\n``) as the chunks come: each byte is looked at once,
    so a long event costs time linear in its length. An event longer than ``limit`` bytes
    comes as :class:`FramePart` pieces, as they are read, never held whole (the last,
    ``end``, says its size).

    >>> events = SseEvents()
    >>> events.feed(b"data: 1\\r\\n\\r"), events.feed(b"\\ndata: 2\\n"), events.end()
    ([], [b'data: 1'], b'data: 2\\n')
    >>> events = SseEvents(limit=8)
    >>> [(p.data, p.end, p.size) for p in events.feed(b"data: 123\\n\\n")]
    [(b'data: 123', False, 0), (b'', True, 9)]
    """

    def __init__(self, limit: int = MAX_FRAME) -> None:
        self.limit = limit
        self._held: list[bytes] = []  # the pieces of the event being read
        self._size = 0  # its bytes so far
        self._over = False  # past the limit: passed on in pieces
        self._newline = False  # it ends with a line break (a blank line may follow)
        self._carry = b""  # a \r that may start a \r\n

    def feed(self, chunk: bytes) -> list[bytes | FramePart]:
        """The events this chunk completes (and the pieces of one past the limit)."""
        chunk = self._carry + chunk
        self._carry = b""
        if chunk.endswith(b"\r"):
            self._carry, chunk = b"\r", chunk[:-1]
        chunk = chunk.replace(b"\r\n", b"\n")
        events: list[bytes | FramePart] = []
        start = 0
        if self._newline and chunk.startswith(b"\n"):
            self._close(events, newline=True)  # the blank line began a chunk
            start = 1
        while (cut := chunk.find(b"\n\n", start)) >= 0:
            self._add(events, chunk[start:cut])
            self._close(events)
            start = cut + 2
        if start < len(chunk):
            self._add(events, chunk[start:])
        return events

    def _add(self, events: list[bytes | FramePart], piece: bytes) -> None:
        if not piece:
            return
        self._size += len(piece)
        if self._over:
            # a line break at the end may be half of the blank line: said with what follows
            events.append(FramePart(b"\n" * self._newline + piece.removesuffix(b"\n")))
        else:
            self._held.append(piece)
            if self._size > self.limit:  # too long to hold: passed on from here
                self._over = True
                held = b"".join(self._held)
                self._held = []
                events.append(FramePart(held.removesuffix(b"\n")))
        self._newline = piece.endswith(b"\n")

    def _close(self, events: list[bytes | FramePart], newline: bool = False) -> None:
        if self._over:
            events.append(FramePart(b"", end=True, size=self._size - newline))
        else:
            event = b"".join(self._held)
            events.append(event[:-1] if newline else event)
        self._held, self._size, self._over, self._newline = [], 0, False, False

    def end(self) -> bytes | FramePart:
        """What is left when the stream ends (an event without its blank line)."""
        rest: bytes | FramePart
        if self._over:
            size = self._size + len(self._carry)
            rest = FramePart(b"\n" * self._newline + self._carry, end=True, size=size)
        else:
            rest = b"".join(self._held) + self._carry
        self._held, self._size, self._over, self._newline, self._carry = [], 0, False, False, b""
        return rest


def event_data(event: bytes) -> bytes:
    """The message a server-sent event carries: its ``data`` lines, joined."""
    return b"\n".join(
        line[5:].removeprefix(b" ") for line in event.split(b"\n") if line.startswith(b"data:")
    )


class _SseFrames:
    """Records the ``data:`` of each server-sent event as a frame, as the stream passes (an
    event past the limit: ``too_large``, told to ``on_large`` with its size)."""

    def __init__(
        self, writer: TraceWriter | None, limit: int, on_large: Callable[[int], None]
    ) -> None:
        self.writer = writer
        self.on_large = on_large
        self._events = SseEvents(limit)

    def feed(self, chunk: bytes) -> None:
        if self.writer is not None:
            self._record(self._events.feed(chunk))

    def end(self) -> None:
        if self.writer is not None:
            self._record([self._events.end()])

    def _record(self, events: list[bytes | FramePart]) -> None:
        assert self.writer is not None
        for event in events:
            if isinstance(event, FramePart):
                if event.end:
                    self.on_large(event.size)
                continue
            data = event_data(event)
            if data.strip():
                self.writer.frame(SERVER, data)


def record_stdio(
    spec: ServerSpec,
    *,
    trace: Path | None,
    injector: Injector,
    on_message: Callable[[str], None] | None = None,
    max_frame: int = MAX_FRAME,
) -> int:
    """Run the stdio proxy on this process's stdin and stdout (see :class:`StdioProxy`)."""
    return StdioProxy(
        spec, trace=trace, injector=injector, on_message=on_message, max_frame=max_frame
    ).run()


def record_http(
    upstream: str,
    listen: str,
    *,
    trace: Path | None,
    label: str,
    on_ready: Callable[[str], None] | None = None,
    injector: Injector | None = None,
    on_message: Callable[[str], None] | None = None,
    max_frame: int = MAX_FRAME,
) -> int:
    """Run the Streamable HTTP proxy (see :class:`HttpProxy`)."""
    return HttpProxy(
        upstream,
        parse_listen(listen),
        trace=trace,
        label=label,
        on_ready=on_ready,
        injector=injector,
        on_message=on_message,
        max_frame=max_frame,
    ).run()


__all__ = [
    "GRACE",
    "HOP_BY_HOP",
    "MAX_FRAME",
    "Body",
    "FramePart",
    "FrameWriter",
    "HttpProxy",
    "Source",
    "SseEvents",
    "StdioProxy",
    "end_after_exit",
    "event_data",
    "exit_on_signal",
    "fd_lines",
    "parse_listen",
    "record_http",
    "record_stdio",
    "spawn",
    "stop_server",
    "wind_down",
]
