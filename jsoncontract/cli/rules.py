"""``jsoncontract rules``: list the lint rules, or print the documentation of one rule or
of any finding code."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from jsoncontract.cli.options import ColorOpt, OutputOpt, format_choices

if TYPE_CHECKING:
    RulesFormat = str
else:
    RulesFormat = format_choices("rules")  # the formats of the reporter table


def register(app: typer.Typer) -> None:
    """Add the command to the root app."""
    app.command("rules", no_args_is_help=False)(rules_cli)


# fmt: off
def rules_cli(
    code: Annotated[str | None, typer.Argument(
        help="A rule code (JC020) or name (additional-properties-allowed), or the code of "
        "any finding (parse.code_fence, schema.enum, pin.tool_added).",
        show_default=False)] = None,
    *,
    profile: Annotated[list[str] | None, typer.Option(
        "--profile", "-p", help="List only the rules these profiles run (comma-separated).",
        show_default=False)] = None,
    mcp_version: Annotated[str | None, typer.Option(
        help="MCP protocol version for the mcp profile.", show_default=False)] = None,
    format: Annotated[RulesFormat, typer.Option(
        "--format", "-f", help="Output format.")] = "text",
    output: OutputOpt = None,
    color: ColorOpt = None,
) -> int:
    # fmt: on
    """List the lint rules, or print the documentation of one rule or of any finding code
    (parse.code_fence, schema.enum, business.idempotency.conflict, dropped, pin.tool_added)."""
    from jsoncontract.cli.options import write_report
    from jsoncontract.lint.docs import listing
    from jsoncontract.reporters.interface import ReportOptions
    from jsoncontract.settings import ReportSettings

    shown = listing(code, profiles=profile, mcp_version=mcp_version)
    write_report("rules", ReportSettings(format, output, ReportOptions(color=color)), shown)
    return 0
