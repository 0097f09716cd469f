"""``jsoncontract rules``: list the lint rules, or print one rule's documentation."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from jsoncontract.cli.options import ColorOpt, OutputOpt, format_choices, output_stream

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
        help="A rule code (JC020) or name (additional-properties-allowed).",
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
    """List the lint rules, or print the documentation of one rule."""
    from jsoncontract.errors import UsageError
    from jsoncontract.lint.codes import all_rules, lookup
    from jsoncontract.lint.docs import RuleListing
    from jsoncontract.lint.profiles import DEFAULT_MCP_VERSION
    from jsoncontract.lint.settings import check_mcp_version, parse_profiles
    from jsoncontract.reporters import ReportOptions, render

    version = check_mcp_version(mcp_version or DEFAULT_MCP_VERSION)
    if code is not None:
        try:
            listing = RuleListing((lookup(code),), detail=True)
        except LookupError as exc:
            raise UsageError(exc.args[0]) from None
    else:
        rules = list(all_rules().values())
        if profile:
            chosen = parse_profiles(profile, origin="--profile")
            rules = [r for r in rules if r.severity_for(chosen, version)[0] is not None]
        listing = RuleListing(tuple(rules))
    with output_stream(output) as stream:
        render("rules", format, stream, ReportOptions(color=color), listing)
    return 0
