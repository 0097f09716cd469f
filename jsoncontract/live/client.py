"""A connection to a live MCP server, over the official SDK, that reports what it saw.

The SDK does the transport work: it spawns a stdio server (and kills its whole process
tree when done) or speaks Streamable HTTP, correlates responses, negotiates the protocol
version (``server/discover`` on 2026-07-28 servers, the ``initialize`` handshake before).
Around it, this module adds what a *checker* needs and a host does not:

- every request answers with a :class:`Reply`, never an exception: a result, a JSON-RPC
  error (as the server sent it), a timeout, the connection closing, or an answer the SDK
  could not parse (with what the server actually wrote);
- requests go out as raw JSON-RPC (stamped for the negotiated version, as the SDK stamps
  its own), so a tool list with a broken tool, a result that breaks the spec, or
  arguments that are not an object can be sent and seen as they are;
- what the server writes besides answers (a log line on stdout, a message that is not
  JSON-RPC) is kept as :attr:`Connection.noise`; its stderr is kept for messages.

Nothing here prints. A server that cannot be started, reached or negotiated with raises
:class:`~jsoncontract.errors.ServerError` with one line saying why.
"""

from __future__ import annotations

import math
import os
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, replace
from time import perf_counter
from typing import IO, TYPE_CHECKING, Any, Final

from jsoncontract.errors import ServerError
from jsoncontract.live import unreadable
from jsoncontract.live.capabilities import ClientAnswers, sdk_callbacks
from jsoncontract.live.transport import (
    implementation,
    open_transport,
    reported_error,
    unwrapped_error,
    verbatim_message,
)
from jsoncontract.live.wire import (  # re-exported: the connection's vocabulary
    DEFAULT_TIMEOUT,
    MAX_WAIT,
    ConnectOptions,
    Negotiated,
    Noise,
    Reply,
    ReplyKind,
    cut_short,
    display_name,
    masked_text,
)
from jsoncontract.pipeline.answers import HANDSHAKE_VERSIONS, MODERN_VERSIONS

if TYPE_CHECKING:
    import anyio.abc
    from anyio.streams.memory import MemoryObjectSendStream
    from mcp.client.session import ClientSession
    from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher
    from mcp.shared.message import SessionMessage

    from jsoncontract.live.server import ServerSpec

#: Rounds of a 2026-07-28 ``InputRequiredResult`` answered before a request gives up (the
#: SDKs' own limit).
_INPUT_ROUNDS: Final = 10
#: Bytes of a server's stderr kept for messages (the end of it).
_STDERR_TAIL: Final = 4096
#: Characters of a stray stdout line quoted in a message.
_QUOTED: Final = 120
#: Stray messages remembered (a server printing in a loop must not fill memory).
_NOISE_KEPT: Final = 50
#: The first request id of a connection's own requests.
_FIRST_ID: Final = 1000
#: JSON-RPC method the SDK sends to negotiate on 2026-07-28 servers.
_DISCOVER: Final = "server/discover"
SDK_MISSING: Final = (
    "the mcp commands need the mcp extra (the official MCP SDK): "
    "pip install '.[mcp]' in a clone of jsoncontract"
)


def require_sdk() -> None:
    """Import the SDK, or say how to install it.

    Raises:
        ServerError: the ``mcp`` package is missing (or too old to have what is used).
    """
    try:
        import mcp.client.session
        import mcp.shared.inbound  # noqa: F401
    except ImportError:
        raise ServerError(SDK_MISSING) from None


@dataclass(slots=True)
class _Waiter:
    scope: anyio.CancelScope | None = None
    invalid: Reply | None = None


class Connection:
    """An open connection; see :func:`connect`."""

    def __init__(self, spec: ServerSpec, options: ConnectOptions) -> None:
        self.spec = spec
        self.options = options
        self.negotiated: Negotiated | None = None
        #: what the server wrote that answered nothing
        self.noise: list[Noise] = []
        self.noise_count = 0
        #: notifications the server sent, by method
        self.notifications: dict[str, int] = {}
        self.closed = False
        self._stderr: IO[bytes] | None = None
        self._dispatcher: JSONRPCDispatcher[Any] | None = None
        self._session: ClientSession | None = None
        self._write: MemoryObjectSendStream[SessionMessage] | None = None
        self._waiting: dict[int, _Waiter] = {}
        #: ids this connection gives its requests (the SDK numbers its own from 1, and a
        #: request id must not be reused within a session)
        self._next_id = _FIRST_ID - 1
        self._verbatim: tuple[int | None, _Waiter] | None = None
        self._modern = False
        self._header_maps: dict[str, Any] = {}
        #: what the client answered the server's own requests
        self.answers = ClientAnswers(options.client)
        #: progress notifications received for this connection's requests
        self.progress_seen = 0
        #: requests whose deadline progress extended
        self.extended = 0

    # -- what reports show -----------------------------------------------------------

    @property
    def label(self) -> str:
        """What reports call the server: its given name, else the name it gives itself,
        else its command or URL."""
        return display_name(self.spec, self.negotiated)

    @property
    def version(self) -> str:
        """The negotiated protocol version."""
        assert self.negotiated is not None
        return self.negotiated.version

    def stderr_tail(self, lines: int = 3) -> str:
        """The last lines the server wrote to stderr (empty when shown live or none)."""
        if self._stderr is None:
            return ""
        try:
            fd = self._stderr.fileno()
            size = os.fstat(fd).st_size
            start = max(0, size - _STDERR_TAIL)
            data = os.pread(fd, size - start, start)
        except (OSError, ValueError):
            return ""
        text = data.decode("utf-8", "replace")
        kept = [line.strip() for line in text.splitlines() if line.strip()]
        return masked_text(" | ".join(kept[-lines:]))

    # -- requests ----------------------------------------------------------------------

    def _allocate(self) -> int:
        self._next_id += 1
        return self._next_id

    def _stamp(self, method: str, params: dict[str, Any]) -> dict[str, str]:
        """Stamp a request for the negotiated version, as the SDK stamps its own: the
        2026-07-28 ``_meta`` envelope and routing headers, or the version header."""
        from mcp.shared.inbound import (
            MCP_METHOD_HEADER,
            MCP_NAME_HEADER,
            MCP_PROTOCOL_VERSION_HEADER,
            NAME_BEARING_METHODS,
            encode_header_value,
            mcp_param_headers,
        )

        if self.negotiated is None:
            return {}
        version = self.negotiated.version
        headers = {MCP_PROTOCOL_VERSION_HEADER: version}
        if not self._modern:
            return headers
        from mcp_types import (
            CLIENT_CAPABILITIES_META_KEY,
            CLIENT_INFO_META_KEY,
            PROTOCOL_VERSION_META_KEY,
        )

        meta = params.get("_meta")
        meta = dict(meta) if isinstance(meta, dict) else {}
        meta[PROTOCOL_VERSION_META_KEY] = version
        meta[CLIENT_INFO_META_KEY] = self._client_info()
        meta[CLIENT_CAPABILITIES_META_KEY] = self.options.client.declared()
        params["_meta"] = meta
        headers[MCP_METHOD_HEADER] = method
        key = NAME_BEARING_METHODS.get(method)
        name = params.get(key) if key is not None else None
        if isinstance(name, str):
            headers[MCP_NAME_HEADER] = encode_header_value(name)
            arguments = params.get("arguments")
            header_map = self._header_maps.get(name)
            if method == "tools/call" and header_map and isinstance(arguments, dict):
                headers.update(mcp_param_headers(header_map, arguments))
        return headers

    def _client_info(self) -> dict[str, str]:
        from jsoncontract._version import __version__

        return {"name": self.options.client_name, "version": __version__}

    def learn_tools(self, tools: list[Any]) -> None:
        """Remember the ``x-mcp-header`` maps of listed tools (2026-07-28 over HTTP mirrors
        those arguments into headers, as the SDK does)."""
        if not self._modern:
            return
        from mcp.shared.inbound import find_invalid_x_mcp_header, x_mcp_header_map

        for tool in tools:
            if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
                continue
            schema = tool.get("inputSchema")
            if isinstance(schema, dict) and find_invalid_x_mcp_header(schema) is None:
                self._header_maps[tool["name"]] = x_mcp_header_map(schema)

    async def request(
        self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = None
    ) -> Reply:
        """Send one request and wait for its answer (at most ``timeout`` seconds, restarted
        by each progress notification up to :attr:`ConnectOptions.progress_limit`). A
        2026-07-28 ``InputRequiredResult`` is answered as the client's profile says and the
        request sent again, as a host does; the reply is the last answer."""
        reply = await self._request_once(method, params, timeout)
        rounds = 0
        while reply.kind is ReplyKind.RESULT and _input_required(reply.result):
            rounds += 1
            if rounds > _INPUT_ROUNDS:
                detail = f"the server asked for input {_INPUT_ROUNDS} times; the client gave up"
                return Reply(ReplyKind.INVALID, reply.seconds, raw=reply.result, detail=detail)
            result = reply.result or {}
            again = dict(params or {})
            requests = result.get("inputRequests")
            if isinstance(requests, dict):
                again["inputResponses"] = self._input_responses(requests)
            if isinstance(result.get("requestState"), str):
                again["requestState"] = result["requestState"]
            seconds = reply.seconds
            reply = await self._request_once(method, again, timeout)
            reply = replace(reply, seconds=reply.seconds + seconds)
        return reply

    def _input_responses(self, requests: dict[str, Any]) -> dict[str, Any]:
        """The answers to the input requests of an ``InputRequiredResult``."""
        out: dict[str, Any] = {}
        for key, request in requests.items():
            if not isinstance(request, dict):
                continue
            kind, body = self.answers.answer(str(request.get("method")), request.get("params"))
            out[key] = body if kind == "result" else {"error": body}
        return out

    async def _request_once(
        self, method: str, params: dict[str, Any] | None, timeout: float | None
    ) -> Reply:
        import anyio
        from mcp.shared.exceptions import MCPError

        assert self._dispatcher is not None, "the connection is not open"
        limit = self.options.timeout if timeout is None else timeout
        body = dict(params or {})
        headers = self._stamp(method, body)
        request_id = self._allocate()
        waiter = _Waiter()
        self._waiting[request_id] = waiter
        start = perf_counter()
        reply: Reply | None = None
        hard = start + max(limit, self.options.progress_limit)
        extended = False

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            nonlocal extended
            self.progress_seen += 1
            scope = waiter.scope
            if scope is None:
                return
            wanted = min(anyio.current_time() + limit, _clock(hard))
            if wanted > scope.deadline:
                scope.deadline = wanted
                if not extended:
                    extended = True
                    self.extended += 1

        options: dict[str, Any] = {"request_id": request_id, "on_progress": on_progress}
        if headers:
            options["headers"] = headers
        try:
            with anyio.move_on_after(limit) as scope:
                waiter.scope = scope
                try:
                    raw = await self._dispatcher.send_raw_request(method, body, options)  # type: ignore[arg-type]
                    reply = Reply(ReplyKind.RESULT, perf_counter() - start, result=raw)
                except MCPError as exc:
                    reply = self._error_reply(exc, perf_counter() - start)
        finally:
            self._waiting.pop(request_id, None)
        seconds = perf_counter() - start
        if waiter.invalid is not None:
            return replace(waiter.invalid, seconds=seconds)
        if reply is None:
            waited = _seconds(seconds) if extended else _seconds(limit)
            more = " (progress kept it open until the hard maximum)" if extended else ""
            return Reply(ReplyKind.TIMEOUT, seconds, detail=f"no answer within {waited}{more}")
        return reply

    def _error_reply(self, exc: Any, seconds: float) -> Reply:
        from mcp_types import CONNECTION_CLOSED

        if self.closed and exc.code == CONNECTION_CLOSED:
            tail = self.stderr_tail()
            detail = "the connection closed before an answer (the server exited?)"
            if tail:
                detail += f"; its stderr ends: {cut_short(tail, 200)}"
            return Reply(ReplyKind.CLOSED, seconds, detail=detail)
        error = exc.error.model_dump(by_alias=True, mode="json", exclude_unset=True)
        return Reply(ReplyKind.ERROR, seconds, error=error)

    async def call_tool(self, name: str, arguments: Any, *, timeout: float | None = None) -> Reply:
        """``tools/call`` with ``arguments`` sent as they are (an object, or anything else:
        a probe may send a string on purpose)."""
        return await self.request(
            "tools/call", {"name": name, "arguments": arguments}, timeout=timeout
        )

    def allocate_id(self) -> int:
        """A request id no other request of this connection uses."""
        return self._allocate()

    async def send_verbatim(
        self, text: str, request_id: int | None, *, timeout: float | None = None
    ) -> Reply:
        """Send ``text`` as one message, unchanged (a malformed request carrying
        ``request_id``), and wait for the error that answers it: one with that id, or with a
        null id (a server that could not read the id)."""
        import anyio

        assert self._write is not None, "the connection is not open"
        limit = self.options.timeout if timeout is None else timeout
        waiter = _Waiter()
        self._verbatim = (request_id, waiter)
        start = perf_counter()
        try:
            with anyio.move_on_after(limit) as scope:
                waiter.scope = scope
                await self._write.send(verbatim_message(text, request_id))
                await anyio.sleep_forever()
        finally:
            self._verbatim = None
        seconds = perf_counter() - start
        answer = waiter.invalid
        if answer is not None:
            return replace(answer, seconds=seconds)
        if self.closed:
            return Reply(ReplyKind.CLOSED, seconds, detail="the connection closed")
        return Reply(ReplyKind.TIMEOUT, seconds, detail=f"no answer within {_seconds(limit)}")

    # -- what the tap sees ------------------------------------------------------------------

    def _seen(self, item: Any) -> None:
        """Look at one message from the server before the SDK's dispatcher does."""
        from mcp_types import JSONRPCError, JSONRPCNotification

        if isinstance(item, Exception):
            self._unparsed(item)
            return
        message = item.message
        if isinstance(message, JSONRPCNotification):
            self.notifications[message.method] = self.notifications.get(message.method, 0) + 1
        elif isinstance(message, JSONRPCError) and self._verbatim is not None:
            wanted, waiter = self._verbatim
            if message.id is None or message.id == wanted:
                error = message.error.model_dump(by_alias=True, mode="json", exclude_unset=True)
                self._settle(waiter, Reply(ReplyKind.ERROR, 0.0, error=error))

    @staticmethod
    def _settle(waiter: _Waiter, reply: Reply) -> None:
        waiter.invalid = reply
        if waiter.scope is not None:
            waiter.scope.cancel()

    def _unparsed(self, exc: Exception) -> None:
        """A line (or HTTP body) the SDK could not read as JSON-RPC."""
        raw = unreadable.input_of(exc)
        if isinstance(raw, str) and unreadable.undecoded(raw):
            request_id = unreadable.id_of(raw)
            raw = unreadable.bytes_shown(raw)
            reason = "bytes that are not UTF-8: MCP messages are UTF-8 text"
        elif isinstance(raw, str) and unreadable.too_deep(exc):
            request_id = unreadable.id_of(raw)
            reason = (
                "a JSON message nested more deeply than the MCP SDK reads (about 250 levels): "
                "clients cannot read it"
            )
        else:
            request_id = raw.get("id") if isinstance(raw, dict) else None
            reason = unreadable.why_invalid(raw)
        reply = Reply(ReplyKind.INVALID, 0.0, raw=raw, detail=reason)
        waiter = self._waiting.get(request_id) if isinstance(request_id, int) else None
        if waiter is None and self._verbatim is not None and isinstance(raw, dict):
            wanted, candidate = self._verbatim
            if request_id is None or request_id == wanted:
                waiter = candidate
        if waiter is not None:
            self._settle(waiter, reply)
            return
        self.noise_count += 1
        if len(self.noise) < _NOISE_KEPT:
            self.noise.append(
                Noise(cut_short(masked_text(unreadable.text_of(raw)), _QUOTED), reason)
            )

    # -- opening -----------------------------------------------------------------------

    async def _negotiate(self) -> None:
        import anyio

        session = self._session
        assert session is not None
        protocol = self.options.protocol
        start = perf_counter()
        limit = self.options.connect_seconds
        try:
            with anyio.fail_after(limit):
                if protocol == "auto":
                    fallback = await self._discover_or_none()
                    if fallback is not None:
                        await self._initialize(None)
                        assert self.negotiated is not None
                        self.negotiated.fallback = fallback
                elif protocol in MODERN_VERSIONS:
                    failure = await self._discover_or_none(protocol)
                    if failure is not None:
                        raise ServerError(
                            f"{self.spec.label}: the server does not speak MCP {protocol}: "
                            f"{failure}"
                        )
                else:
                    await self._initialize(None if protocol == "legacy" else protocol)
        except TimeoutError:
            raise ServerError(
                self._failure(f"did not answer {self._stage()} within {_seconds(limit)}")
            ) from None
        assert self.negotiated is not None
        self.negotiated.seconds = perf_counter() - start

    def _stage(self) -> str:
        """What the negotiation sends, for messages."""
        protocol = self.options.protocol
        if protocol == "auto":
            return "server/discover or initialize"
        return "server/discover" if protocol in MODERN_VERSIONS else "initialize"

    async def _discover_or_none(self, version: str | None = None) -> str | None:
        """Negotiate with ``server/discover``; ``None`` when it settled the version, else
        why it did not (the caller falls back to ``initialize``)."""
        from mcp.shared.exceptions import MCPError
        from mcp_types import UNSUPPORTED_PROTOCOL_VERSION, DiscoverResult
        from pydantic import ValidationError

        session = self._session
        assert session is not None
        wanted = version or MODERN_VERSIONS[-1]
        for attempt in range(2):
            try:
                raw = await session.send_discover(wanted)
            except MCPError as exc:
                if self.closed:
                    raise ServerError(
                        self._failure("closed the connection during server/discover")
                    ) from None
                if exc.code == UNSUPPORTED_PROTOCOL_VERSION and attempt == 0 and version is None:
                    supported = _supported(exc.data)
                    mutual = [v for v in MODERN_VERSIONS if v in supported]
                    if mutual:
                        wanted = mutual[-1]
                        continue
                return f"server/discover answered {exc.code} ({cut_short(exc.message)})"
            try:
                result = DiscoverResult.model_validate(raw)
            except ValidationError as exc:
                why = unreadable.first_error(exc)
                return f"the server/discover answer is not a DiscoverResult ({why})"
            if not any(v in result.supported_versions for v in MODERN_VERSIONS):
                return "server/discover lists no 2026 version"
            session.adopt(result)
            self._modern = True
            meta = raw.get("_meta") if isinstance(raw.get("_meta"), dict) else {}
            info = meta.get("io.modelcontextprotocol/serverInfo") if meta else None
            self.negotiated = Negotiated(
                version=session.protocol_version or wanted,
                method=_DISCOVER,
                seconds=0.0,
                server_info=info if isinstance(info, dict) else None,
                capabilities=_plain(raw.get("capabilities")),
                instructions=raw.get("instructions")
                if isinstance(raw.get("instructions"), str)
                else None,
            )
            return None
        return "server/discover did not settle a version"  # pragma: no cover - loop returns

    async def _initialize(self, version: str | None) -> None:
        """The ``initialize`` handshake, offering ``version`` (default: the newest one)."""
        from mcp.shared.exceptions import MCPError
        from mcp_types import InitializedNotification, InitializeResult
        from pydantic import ValidationError

        session = self._session
        dispatcher = self._dispatcher
        assert session is not None and dispatcher is not None
        offered = version or HANDSHAKE_VERSIONS[-1]
        params = {
            "protocolVersion": offered,
            "capabilities": self.options.client.declared(),
            "clientInfo": self._client_info(),
        }
        try:
            raw = await dispatcher.send_raw_request(
                "initialize", params, {"request_id": self._allocate(), "cancel_on_abandon": False}
            )
        except MCPError as exc:
            if self.closed:
                raise ServerError(self._failure("exited during initialize")) from None
            raise ServerError(
                self._failure(
                    f"refused initialize: JSON-RPC error {exc.code} ({cut_short(exc.message)})"
                )
            ) from None
        try:
            result = InitializeResult.model_validate(raw)
        except ValidationError as exc:
            raise ServerError(
                self._failure(
                    f"answered initialize with something that is not an "
                    f"InitializeResult ({unreadable.first_error(exc)})"
                )
            ) from None
        if result.protocol_version not in HANDSHAKE_VERSIONS:
            raise ServerError(
                self._failure(
                    f"chose protocol version {result.protocol_version!r}, which "
                    f"initialize cannot negotiate (known: {', '.join(HANDSHAKE_VERSIONS)})"
                )
            )
        session.adopt(result)
        await session.send_notification(InitializedNotification())
        info = raw.get("serverInfo")
        self.negotiated = Negotiated(
            version=result.protocol_version,
            method="initialize",
            seconds=0.0,
            server_info=info if isinstance(info, dict) else None,
            capabilities=_plain(raw.get("capabilities")),
            instructions=result.instructions,
            offered=offered,
        )

    def _failure(self, what: str) -> str:
        """``<server> <what>`` plus what it said on stderr or stdout."""
        text = f"{self.spec.label}: the server {what}"
        if self.noise:
            first = self.noise[0]
            text += f"; it wrote to stdout: {first.text!r} ({first.reason})"
        tail = self.stderr_tail()
        if tail:
            text += f"; its stderr ends: {cut_short(tail, 240)}"
        return text


@asynccontextmanager
async def connect(
    spec: ServerSpec, options: ConnectOptions | None = None
) -> AsyncIterator[Connection]:
    """Open a connection to ``spec`` and negotiate the protocol version.

    Raises:
        ServerError: the SDK is missing, or the server cannot be started, reached, or
            negotiated with (with the reason, and the end of its stderr).
    """
    require_sdk()
    import anyio
    from mcp.client.session import ClientSession
    from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher
    from mcp.shared.message import SessionMessage

    chosen = options or ConnectOptions()
    conn = Connection(spec, chosen)
    try:
        async with AsyncExitStack() as stack:
            read, write, kept = await open_transport(spec, chosen, stack)
            if kept is not None:
                conn._stderr = kept
            to_sdk, from_tap = anyio.create_memory_object_stream[SessionMessage | Exception](0)
            to_tap, from_sdk = anyio.create_memory_object_stream[SessionMessage](0)
            conn._write = write
            tg = await stack.enter_async_context(anyio.create_task_group())

            async def inbound() -> None:
                async with to_sdk:
                    try:
                        async for item in read:
                            conn._seen(item)
                            await to_sdk.send(item)
                    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                        pass
                conn.closed = True

            async def outbound() -> None:
                async with from_sdk:
                    try:
                        async for item in from_sdk:
                            await write.send(item)
                    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                        pass

            tg.start_soon(inbound)
            tg.start_soon(outbound)
            stack.callback(tg.cancel_scope.cancel)

            async def on_exception(exc: Exception) -> None:
                """Parse failures already went through the tap; nothing more to do."""

            dispatcher: JSONRPCDispatcher[Any] = JSONRPCDispatcher(
                from_tap, to_tap, on_stream_exception=on_exception
            )
            session = ClientSession(
                dispatcher=dispatcher,
                client_info=implementation(chosen.client_name),
                **sdk_callbacks(conn.answers),
            )
            conn._dispatcher = dispatcher
            conn._session = session
            await stack.enter_async_context(session)
            await conn._negotiate()
            yield conn
    except BaseExceptionGroup as group:
        raise unwrapped_error(group, spec) from None
    except Exception as exc:
        raise reported_error(exc, spec) from None


def _input_required(result: Any) -> bool:
    """Whether a result is a 2026-07-28 ``InputRequiredResult``."""
    return isinstance(result, dict) and result.get("resultType") == "input_required"


def _clock(deadline: float) -> float:
    """A :func:`time.perf_counter` deadline on anyio's clock."""
    import anyio

    return anyio.current_time() + (deadline - perf_counter())


# -- helpers ---------------------------------------------------------------------------------


def _seconds(value: float) -> str:
    if value >= 1 and math.isclose(value, round(value)):
        return f"{round(value)} s"
    return f"{value:g} s"


def _plain(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _supported(data: Any) -> list[str]:
    if isinstance(data, dict) and isinstance(data.get("supported"), list):
        return [v for v in data["supported"] if isinstance(v, str)]
    return []


__all__ = [
    "DEFAULT_TIMEOUT",
    "MAX_WAIT",
    "ConnectOptions",
    "Connection",
    "Negotiated",
    "Noise",
    "Reply",
    "ReplyKind",
    "connect",
    "display_name",
    "require_sdk",
    "verbatim_message",
]
