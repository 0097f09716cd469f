"""``jsoncontract mcp``: list, lint, pin, probe and test live MCP servers; record, replay,
break and guard their traffic.

A server is named as ``-- COMMAND ARGS...`` (stdio; the words after ``--``), an
``http(s)://`` URL (Streamable HTTP), or a name from ``[mcp.servers]`` in the project config
(or from the ``mcpServers`` map of the host config files it lists). The commands here only
translate arguments; the work is in :mod:`jsoncontract.live`.

Each subcommand is a module of this package named as the command, whose ``NAME_cli``
function typer reads; the options they share are defined once, in
:mod:`~jsoncontract.cli.mcp.options`. A new subcommand is a module and a word in
:data:`SUBCOMMANDS`.
"""

from __future__ import annotations

from importlib import import_module
from typing import Final

import typer

#: The subcommands, in the order ``mcp --help`` lists them: each is the module of its name.
SUBCOMMANDS: Final = (
    "tools",
    "resources",
    "prompts",
    "lint",
    "pin",
    "probe",
    "test",
    "verify",
    "record",
    "replay",
    "guard",
)

HELP = """Live MCP servers: list, lint, pin, probe and test them; record, replay, verify and
guard traffic.

SERVER is -- COMMAND ARGS... (stdio), an http(s):// URL (Streamable HTTP, --header for
credentials), or a name from [mcp.servers.NAME] in jsoncontract.toml. The protocol version
is negotiated (server/discover, then initialize) and shown in every report.
"""


def register(app: typer.Typer) -> None:
    """Add the ``mcp`` command group to the root app."""
    group = typer.Typer(
        name="mcp",
        help=HELP,
        no_args_is_help=True,
        add_completion=False,
        rich_markup_mode=None,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    for name in SUBCOMMANDS:
        module = import_module(f"jsoncontract.cli.mcp.{name}")
        group.command(name, no_args_is_help=True)(getattr(module, f"{name}_cli"))
    app.add_typer(group, name="mcp")
