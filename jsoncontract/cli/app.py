"""The root typer application. Each command lives in its own module and is added here."""

from __future__ import annotations

from contextvars import ContextVar
from importlib import import_module
from typing import Annotated, Any, Final

import typer

from jsoncontract._version import __version__

#: Command modules, in the order ``--help`` lists them. Each defines ``register(app)``.
COMMAND_MODULES: Final = (
    "check",
    "diff",
    "lint",
    "rules",
    "fixtures",
    "test",
    "pin",
    "compat",
    "redact",
    "mcp",
)
#: The arguments of the run being built: click keeps no trace of where ``--`` stood, and
#: ``mcp`` commands take the words after it as a server's command line.
INVOKED: ContextVar[tuple[str, ...]] = ContextVar("jsoncontract_invoked", default=())

HELP = (
    "Test the JSON contracts between AI agents, the tools they call, and the systems behind "
    "them.\n\n"
    "Exit codes: 0 clean; 1 findings at or above --fail-on; 2 could not do the job."
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"jsoncontract {__version__}")
        raise typer.Exit(0)


def build(args: list[str] | None = None) -> Any:
    """The click command behind the typer app.

    When ``args`` start with a command name, only that command is registered: typer reads
    each command's signature when it builds the app, and a run needs just one. The full
    list is built for ``--help`` and anything else.
    """
    INVOKED.set(tuple(args or ()))
    app = typer.Typer(
        name="jsoncontract",
        help=HELP,
        no_args_is_help=True,
        add_completion=True,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
        context_settings={"help_option_names": ["-h", "--help"]},
    )

    @app.callback()
    def root(
        version: Annotated[
            bool,
            typer.Option(
                "--version",
                "-V",
                help="Print the version and exit.",
                callback=_version,
                is_eager=True,
            ),
        ] = False,
    ) -> None:
        """Test the JSON contracts between AI agents, their tools and the systems behind them."""

    wanted = [args[0]] if args and args[0] in COMMAND_MODULES else COMMAND_MODULES
    for name in wanted:
        import_module(f"jsoncontract.cli.{name}").register(app)
    from jsoncontract.cli.help import polish

    return polish(typer.main.get_command(app))
