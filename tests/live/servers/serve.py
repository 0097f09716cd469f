"""Serving a test server over stdio or Streamable HTTP (on 127.0.0.1, an ephemeral port).

    python SERVER.py [--http URL_FILE] [--token TOKEN] [server options...]

With ``--http``, the server listens on a port the system picks, writes its URL to URL_FILE
when it is ready, and serves until it is terminated. ``--token`` makes every HTTP request
without ``Authorization: Bearer TOKEN`` answer 401.
"""

from __future__ import annotations

import argparse
import socket
from pathlib import Path
from typing import Any

import anyio


def transport_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--http``, ``--token`` and ``--pid-file`` to a server's options."""
    parser.add_argument("--http", metavar="URL_FILE", help="serve Streamable HTTP; write the URL")
    parser.add_argument("--token", help="require this bearer token (HTTP)")
    parser.add_argument("--pid-file", help="write the process id here at start")


def started(options: argparse.Namespace) -> None:
    """Write the process id where ``--pid-file`` says (tests check the process is gone)."""
    import os

    if options.pid_file:
        Path(options.pid_file).write_text(str(os.getpid()))


def serve(server: Any, options: argparse.Namespace) -> None:
    """Run a ``Server`` or ``MCPServer`` over the transport the options name."""
    if options.http:
        started(options)
        _serve_http(server, Path(options.http), options.token)
        return
    started(options)
    if hasattr(server, "run_stdio_async"):  # an MCPServer
        anyio.run(server.run_stdio_async)
        return
    from mcp.server.stdio import stdio_server

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)


def _serve_http(server: Any, url_file: Path, token: str | None) -> None:
    import uvicorn
    from starlette.responses import JSONResponse
    from starlette.types import ASGIApp, Receive, Scope, Send

    app: ASGIApp = server.streamable_http_app()
    if token is not None:
        inner = app
        expected = f"Bearer {token}".encode()

        async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != expected:
                await JSONResponse({"error": "unauthorized"}, status_code=401)(scope, receive, send)
                return
            await inner(scope, receive, send)

        app = guarded
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    http = uvicorn.Server(config)

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(http.serve, [sock])
            while not http.started:
                await anyio.sleep(0.01)
            partial = url_file.with_suffix(".partial")
            partial.write_text(f"http://127.0.0.1:{port}/mcp")
            partial.replace(url_file)

    anyio.run(main)
