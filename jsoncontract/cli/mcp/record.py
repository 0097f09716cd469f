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
    ProxyOptions,
    ServerArg,
    ServerOptions,
    split_server,
)
from jsoncontract.cli.options import ConfigOpt, NoConfigOpt, grouped, quiet_sdk_logs


# fmt: off
@grouped
def record_cli(
    server: ServerArg = None,
    *,
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", help="The trace to append frames to (JSON Lines, read by check, diff "
        "and fixtures --capture).", dir_okay=False, show_default=False)] = None,
    faults: FaultOptions,
    proxy: ProxyOptions,
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
    upstream = proxy.http_upstream(server)
    if output is None and not injector.active:
        raise UsageError("name the trace with -o TRACE.jsonl (or give --inject rules to only "
                         "inject faults)")
    def say(text: str) -> None:
        sys.stderr.write(f"jsoncontract: {text}\n")
        sys.stderr.flush()

    if upstream is not None:
        from jsoncontract.live.record import record_http
        from jsoncontract.live.server import safe_url

        def ready(url: str) -> None:
            say(f"recording {safe_url(upstream)} at {url}")

        quiet_sdk_logs()
        return record_http(upstream, str(proxy.listen), trace=output,
                           label=safe_url(upstream), on_ready=ready, injector=injector,
                           on_message=say, max_frame=proxy.frame_bytes)
    cfg = load_config(config, discover=not no_config)
    reach = ServerOptions(env=env, name=name, mcp_config=mcp_config)
    spec = reach.resolve(*split_server(server), cfg)
    if not spec.command:
        raise UsageError(f"{spec.label} is an HTTP server: record it with --listen "
                         f"127.0.0.1:PORT --upstream {spec.endpoint}")
    from jsoncontract.live.record import record_stdio

    return record_stdio(spec, trace=output, injector=injector, max_frame=proxy.frame_bytes,
                        on_message=say)
