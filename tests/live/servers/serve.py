"""Serving a test server over stdio or Streamable HTTP (on 127.0.0.1, an ephemeral port).

    python SERVER.py [--http URL_FILE] [--token TOKEN] [server options...]

With ``--http``, the server listens on a port the system picks, writes its URL to URL_FILE
when it is ready, and serves until it is terminated. ``--token`` makes every HTTP request
without ``Authorization: Bearer TOKEN`` answer 401; ``--auth-metadata`` makes that 401 lead to
a token as MCP authorization says (``WWW-Authenticate`` with ``resource_metadata``, the
protected-resource metadata and the authorization server's, on the server's origin);
``--any-token`` accepts every bearer token (a server that does not check the audience).
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
    parser.add_argument("--auth-metadata", action="store_true", help="serve RFC 9728 metadata")
    parser.add_argument("--any-token", action="store_true", help="accept any bearer token")


def started(options: argparse.Namespace) -> None:
    """Write the process id where ``--pid-file`` says (tests check the process is gone)."""
    import os

    if options.pid_file:
        Path(options.pid_file).write_text(str(os.getpid()))


def serve(server: Any, options: argparse.Namespace) -> None:
    """Run a ``Server`` or ``MCPServer`` over the transport the options name."""
    if options.http:
        started(options)
        _serve_http(server, Path(options.http), options.token, options)
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


def _serve_http(
    server: Any, url_file: Path, token: str | None, options: argparse.Namespace
) -> None:
    import uvicorn
    from starlette.responses import JSONResponse
    from starlette.types import ASGIApp, Receive, Scope, Send

    app: ASGIApp = server.streamable_http_app()
    if token is not None:
        inner = app
        expected = f"Bearer {token}".encode()

        async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http":
                await inner(scope, receive, send)
                return
            headers = dict(scope["headers"])
            origin = "http://" + headers.get(b"host", b"").decode()
            path = scope["path"]
            if options.auth_metadata and path == "/.well-known/oauth-protected-resource/mcp":
                document = {"resource": f"{origin}/mcp", "authorization_servers": [origin]}
                await JSONResponse(document)(scope, receive, send)
                return
            if options.auth_metadata and path == "/.well-known/oauth-authorization-server":
                document = {
                    "issuer": origin,
                    "authorization_endpoint": f"{origin}/authorize",
                    "token_endpoint": f"{origin}/token",
                }
                await JSONResponse(document)(scope, receive, send)
                return
            given = headers.get(b"authorization", b"")
            if given != expected and not (options.any_token and given.startswith(b"Bearer ")):
                extra = {}
                if options.auth_metadata:
                    metadata = f"{origin}/.well-known/oauth-protected-resource/mcp"
                    extra["WWW-Authenticate"] = f'Bearer resource_metadata="{metadata}"'
                await JSONResponse({"error": "unauthorized"}, 401, headers=extra)(
                    scope, receive, send
                )
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
