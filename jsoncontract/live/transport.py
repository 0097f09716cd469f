"""The SDK's transports, opened for a :class:`~jsoncontract.live.client.Connection`: a stdio
server spawned in a process group of its own (and what is left of the group ended after
it), or Streamable HTTP; a network error as one line naming the server; and a message the
transports write exactly as given (a malformed request the SDK's types would not build)."""

from __future__ import annotations

import os
import signal
import tempfile
from contextlib import AsyncExitStack
from contextvars import ContextVar
from functools import cache
from typing import IO, TYPE_CHECKING, Any, Final

from jsoncontract.errors import ServerError

if TYPE_CHECKING:
    from jsoncontract.live.server import ServerSpec
    from jsoncontract.live.wire import ConnectOptions

#: Seconds the rest of a stdio server's process group gets between SIGTERM and SIGKILL.
_GROUP_GRACE: Final = 2.0
#: The process ids of the stdio servers the SDK starts in this task (see :func:`_spawns`).
_SPAWNED: ContextVar[list[int] | None] = ContextVar("jsoncontract_spawned", default=None)


def unwrapped_error(group: BaseExceptionGroup[Any], spec: ServerSpec) -> BaseException:
    """The one error worth reporting from the task groups the SDK and the tap run in: an
    error of this library first (it says what went wrong), then a network error (as a
    :class:`ServerError`), else the only error there is."""
    from jsoncontract.errors import JsoncontractError

    leaves: list[BaseException] = []
    stack: list[BaseException] = [group]
    while stack:
        item = stack.pop()
        if isinstance(item, BaseExceptionGroup):
            stack.extend(item.exceptions)
        else:
            leaves.append(item)
    for leaf in leaves:
        if isinstance(leaf, KeyboardInterrupt | JsoncontractError):
            return leaf
    for leaf in leaves:
        if isinstance(leaf, Exception) and _network(leaf):
            return reported_error(leaf, spec)
    return leaves[0] if len(leaves) == 1 else group


def _network(exc: Exception) -> bool:
    """Whether ``exc`` is the transport failing to reach the server."""
    if isinstance(exc, OSError):
        return True
    module = type(exc).__module__.split(".")[0]
    return module in ("httpx2", "httpcore2", "httpx", "httpcore")


def reported_error(exc: Exception, spec: ServerSpec) -> Exception:
    """A network error as one line naming the server (never its headers)."""
    if not _network(exc):
        return exc
    reason = str(exc) or type(exc).__name__
    return ServerError(f"{spec.label}: cannot reach the server at {spec.endpoint}: {reason}")


def verbatim_message(text: str, request_id: int | None) -> Any:
    """A message the SDK's transports write as ``text`` exactly (stdio writes
    ``model_dump_json()``, Streamable HTTP posts ``model_dump()``): a malformed request the
    SDK's own types would refuse to build."""
    from mcp.shared.message import SessionMessage

    message = _verbatim_type().model_construct(
        jsonrpc="2.0", id=request_id if request_id is not None else 0, method="(verbatim)"
    )
    message._text = text
    return SessionMessage(message)


@cache
def _verbatim_type() -> Any:
    import orjson
    from mcp_types import JSONRPCRequest
    from pydantic import PrivateAttr

    class Verbatim(JSONRPCRequest):
        _text: str = PrivateAttr(default="")

        def model_dump_json(self, **kwargs: Any) -> str:
            return self._text

        def model_dump(self, **kwargs: Any) -> dict[str, Any]:
            value: dict[str, Any] = orjson.loads(self._text)
            return value

    return Verbatim


def implementation(name: str) -> Any:
    from mcp_types import Implementation

    from jsoncontract._version import __version__

    return Implementation(name=name, version=__version__)


async def open_transport(
    spec: ServerSpec, options: ConnectOptions, stack: AsyncExitStack
) -> tuple[Any, Any, IO[bytes] | None]:
    """The read and write streams of a server's transport, opened on ``stack``, and the
    file a stdio server's stderr is kept in (``None``: let through, or an HTTP server)."""
    if spec.command:
        return await _open_stdio(spec, options, stack)
    read, write = await _open_http(spec, options, stack)
    return read, write, None


async def _open_stdio(
    spec: ServerSpec, options: ConnectOptions, stack: AsyncExitStack
) -> tuple[Any, Any, IO[bytes] | None]:
    import sys

    from mcp.client.stdio import StdioServerParameters, stdio_client

    kept: IO[bytes] | None = None
    if options.show_stderr:
        errlog: Any = sys.stderr if _has_fileno(sys.stderr) else sys.__stderr__
    else:
        errlog = kept = stack.enter_context(tempfile.TemporaryFile())  # noqa: SIM115 - entered
    params = StdioServerParameters.model_construct(
        command=spec.command[0],
        args=list(spec.command[1:]),
        env=dict(spec.env) or None,
        cwd=spec.cwd,
        # bytes that are not UTF-8 reach the tap as lone surrogates, which it names (the
        # SDK's choices, strict or replace, end the read loop or change the text silently)
        encoding_error_handler="surrogateescape",
    )
    spawned: list[int] = []
    # run after the SDK has stopped the server: the rest of its process group goes too
    stack.push_async_callback(_end_groups, spawned)
    _spawns()
    token = _SPAWNED.set(spawned)
    try:
        streams: tuple[Any, Any] = await stack.enter_async_context(
            stdio_client(params, errlog=errlog)
        )
    except FileNotFoundError:
        raise ServerError(
            f"{spec.label}: cannot start the server: {spec.command[0]}: command not found"
        ) from None
    except PermissionError:
        raise ServerError(
            f"{spec.label}: cannot start the server: {spec.command[0]}: permission denied"
        ) from None
    except (OSError, ValueError) as exc:
        raise ServerError(f"{spec.label}: cannot start the server: {exc}") from None
    finally:
        _SPAWNED.reset(token)
    return streams[0], streams[1], kept


@cache
def _spawns() -> None:
    """Have the SDK's stdio transport say which process it starts (in :data:`_SPAWNED` of
    the task that starts it). The SDK stops a server's whole process group only when the
    server outlives its stdin closing; a server that exits at once leaves its helpers
    running, which :func:`_end_groups` ends."""
    import mcp.client.stdio as transport

    spawn = getattr(transport, "_create_platform_compatible_process", None)
    if spawn is None:  # pragma: no cover - another SDK layout: its own cleanup only
        return

    async def spawned(*args: Any, **kwargs: Any) -> Any:
        process = await spawn(*args, **kwargs)
        started = _SPAWNED.get()
        if started is not None:
            started.append(process.pid)
        return process

    transport._create_platform_compatible_process = spawned


async def _end_groups(pids: list[int]) -> None:
    """End what is left of each process group (a stdio server is the leader of its own):
    SIGTERM, then SIGKILL after :data:`_GROUP_GRACE` seconds."""
    import anyio

    if os.name != "posix":  # pragma: no cover - the SDK ends a Windows job itself
        return
    with anyio.CancelScope(shield=True):
        for pid in pids:
            if not _signal_group(pid, signal.SIGTERM):
                continue
            with anyio.move_on_after(_GROUP_GRACE):
                while _signal_group(pid, 0):
                    await anyio.sleep(0.02)
                continue
            _signal_group(pid, signal.SIGKILL)


def _signal_group(pgid: int, sig: int) -> bool:
    """Send ``sig`` to a process group; whether the group still exists."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:  # members we may not signal: nothing more to do
        return False
    return True


def _has_fileno(stream: Any) -> bool:
    try:
        stream.fileno()
    except (AttributeError, OSError, ValueError):
        return False
    return True


async def _open_http(
    spec: ServerSpec, options: ConnectOptions, stack: AsyncExitStack
) -> tuple[Any, Any]:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    assert spec.url is not None
    client = httpx2.AsyncClient(
        headers=dict(spec.headers),
        timeout=httpx2.Timeout(options.timeout, read=max(options.timeout, 300.0)),
        follow_redirects=False,
    )
    await stack.enter_async_context(client)
    streams: tuple[Any, Any] = await stack.enter_async_context(
        streamable_http_client(spec.url, http_client=client)
    )
    return streams
