"""``jsoncontract mcp tools``: a server's tools, every page of ``tools/list``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from jsoncontract.cli.mcp.options import (
    ClientOptions,
    ServerArg,
    ServerOptions,
    fetch_listing,
    report_problems,
    split_server,
)
from jsoncontract.cli.options import (
    ColorOpt,
    ConfigOpt,
    NoConfigOpt,
    OutputOpt,
    format_choices,
    grouped,
    output_stream,
)

if TYPE_CHECKING:
    ToolsFormat = str
else:
    ToolsFormat = format_choices("mcp tools")  # the formats of its reporter table


# fmt: off
@grouped
def tools_cli(
    server: ServerArg = None,
    *,
    format: Annotated[ToolsFormat, typer.Option(
        "--format", "-f", help="text, or json: the tools/list result (every page), which "
        "check --tools, lint, pin and fixtures read unchanged.")] = "text",
    output: OutputOpt = None,
    reach: ServerOptions,
    client: ClientOptions,
    color: ColorOpt = None,
    config: ConfigOpt = None,
    no_config: NoConfigOpt = False,
) -> int:
    # fmt: on
    """List a server's tools (every page of tools/list).

    Exit 1 when the server lists a tool that cannot be used (no name, no inputSchema) or
    writes something else than JSON-RPC to stdout; 2 when it cannot be reached.
    """
    from jsoncontract.config import load_config
    from jsoncontract.reporters import ReportOptions, render

    cfg = load_config(config, discover=not no_config)
    spec = reach.resolve(*split_server(server), cfg)
    options = reach.connect_options(cfg, spec, client)
    listing = fetch_listing(spec, options)
    report_problems(listing)
    with output_stream(output) as stream:
        render("mcp tools", format, stream, ReportOptions(color=color), listing)
    return 1 if listing.problems else 0
