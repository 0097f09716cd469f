"""``jsoncontract mcp record``: the traffic between a host and a server, recorded, with faults
injected on request."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from jsoncontract.cli.mcp.options import (
    EnvOpt,
    FaultOptions,
    HostConfigOpt,
    NameOpt,
    ServerArg,
    ServerOptions,
    quiet_sdk_logs,
    split_server,
)
from jsoncontract.cli.options import ConfigOpt, NoConfigOpt, grouped


# fmt: off
@grouped
def record_cli(
    server: ServerArg = None,
    *,
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", help="The trace to append frames to (JSON Lines, read by check, diff "
        "and fixtures --capture).", dir_okay=False, show_default=False)] = None,
    faults: FaultOptions,
    listen: Annotated[str | None, typer.Option(
        help="Proxy Streamable HTTP: listen on HOST:PORT (port 0: any free port; the URL is "
        "printed on stderr).", show_default=False)] = None,
    upstream: Annotated[str | None, typer.Option(
        help="With --listen: the server's endpoint URL.", show_default=False)] = None,
    max_frame: Annotated[int, typer.Option(
        "--max-frame", min=1, metavar="MB", help="The longest frame recorded whole, in MB; "
        "a longer one is passed on as it comes and recorded as too_large (stdio).")] = 64,
    env: EnvOpt = None,
    name: NameOpt = None,
    mcp_config: HostConfigOpt = None,
    config: ConfigOpt = None,
    no_config: NoConfigOpt = False,
) -> int:
    # fmt: on
    """Record the traffic between an MCP host and a server, and inject faults into it.

    Put it in the host's config in place of the server command:
    jsoncontract mcp record -o trace.jsonl -- COMMAND ARGS...  Every byte is forwarded
    unchanged in both directions; nothing but the server's output is written to stdout; the
    exit code is the server's. For HTTP servers: --listen 127.0.0.1:PORT --upstream URL.
    """
    from jsoncontract.config import load_config
    from jsoncontract.errors import UsageError

    injector = faults.injector()
    if (listen is None) != (upstream is None):
        raise UsageError("an HTTP proxy needs both --listen HOST:PORT and --upstream URL")
    if output is None and not injector.active:
        raise UsageError("name the trace with -o TRACE.jsonl (or give --inject rules to only "
                         "inject faults)")
    if listen is not None and upstream is not None:
        if server:
            raise UsageError("--upstream names the server; give no SERVER with --listen")
        if not upstream.startswith(("http://", "https://")):
            raise UsageError(f"--upstream {upstream!r} is not an http(s):// URL")
        from jsoncontract.live.record import record_http
        from jsoncontract.live.server import safe_url

        def ready(url: str) -> None:
            sys.stderr.write(f"jsoncontract: recording {safe_url(upstream)} at {url}\n")
            sys.stderr.flush()

        quiet_sdk_logs()
        return record_http(upstream, listen, trace=output, label=safe_url(upstream),
                           on_ready=ready, injector=injector)
    cfg = load_config(config, discover=not no_config)
    reach = ServerOptions(env=env, name=name, mcp_config=mcp_config)
    spec = reach.resolve(*split_server(server), cfg)
    if not spec.command:
        raise UsageError(f"{spec.label} is an HTTP server: record it with --listen "
                         f"127.0.0.1:PORT --upstream {spec.endpoint}")
    from jsoncontract.live.record import record_stdio

    def say(text: str) -> None:
        sys.stderr.write(f"jsoncontract: {text}\n")

    return record_stdio(spec, trace=output, injector=injector, max_frame=max_frame * 2**20,
                        on_message=say)
