"""``jsoncontract mcp resources``: a server's resources and resource templates, every page."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from jsoncontract.cli.mcp.options import (
    ClientOptions,
    ServerArg,
    ServerOptions,
    list_offered,
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
    ResourcesFormat = str
else:
    ResourcesFormat = format_choices("mcp resources")  # the formats of its reporter table


# fmt: off
@grouped
def resources_cli(
    server: ServerArg = None,
    *,
    format: Annotated[ResourcesFormat, typer.Option(
        "--format", "-f", help="text, or json: the resources/list result (every page), with "
        "the templates of resources/templates/list.")] = "text",
    output: OutputOpt = None,
    reach: ServerOptions,
    client: ClientOptions,
    color: ColorOpt = None,
    config: ConfigOpt = None,
    no_config: NoConfigOpt = False,
) -> int:
    # fmt: on
    """List a server's resources and resource templates (every page).

    Exit 1 when the listing breaks its paging; 2 when the server cannot be reached.
    """
    from jsoncontract.reporters import ReportOptions, render

    catalogs = list_offered(server, reach, client, config, no_config, ("resources", "templates"))
    with output_stream(output) as stream:
        render("mcp resources", format, stream, ReportOptions(color=color), catalogs)
    return 1 if any(c.problems for c in catalogs) else 0
