"""``jsoncontract rules``: list the lint rules, print the documentation of one rule or of
any finding code, or check business rules files against the tool schemas (``--check``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from jsoncontract.cli.options import (
    ColorOpt,
    ConfigOpt,
    FailOnOpt,
    NoConfigOpt,
    OutputOpt,
    format_choices,
)

if TYPE_CHECKING:
    RulesFormat = str
else:
    RulesFormat = format_choices("rules")  # the formats of the reporter table

#: The formats of the rule catalog (the others write only ``--check`` reports).
CATALOG_FORMATS = ("text", "json")


def register(app: typer.Typer) -> None:
    """Add the command to the root app."""
    app.command("rules", no_args_is_help=False)(rules_cli)


# fmt: off
def rules_cli(
    targets: Annotated[list[str] | None, typer.Argument(
        metavar="[CODE | RULES_FILE...]",
        help="A rule code (JC020) or name (additional-properties-allowed), or any finding "
             "code (parse.code_fence); with --check, business rules files (default: the "
             "config's business.rules).",
        show_default=False)] = None,
    *,
    check: Annotated[bool, typer.Option(
        "--check", help="Check business rules files against the tool schemas without "
        "traffic: fields, types, optional reads, worst-case cost, and rules that fell "
        "behind their tools.")] = False,
    tools: Annotated[list[Path] | None, typer.Option(
        "--tools", "-t", help="With --check: tool definition file or directory (repeatable; "
        "default: the config's tools).", show_default=False)] = None,
    tool: Annotated[str | None, typer.Option(
        help="With --check: the name of a tool given as a bare JSON Schema.",
        show_default=False)] = None,
    cost_budget: Annotated[int | None, typer.Option(
        "--cost-budget", min=1, help="With --check: the most cost units one expression may "
        "be estimated at (default: the config's business.cost_budget, or 1000000).",
        show_default=False)] = None,
    profile: Annotated[list[str] | None, typer.Option(
        "--profile", "-p", help="List only the rules these profiles run (comma-separated).",
        show_default=False)] = None,
    mcp_version: Annotated[str | None, typer.Option(
        help="MCP protocol version for the mcp profile.", show_default=False)] = None,
    format: Annotated[RulesFormat, typer.Option(
        "--format", "-f", help="Output format: text, json, sarif or github (sarif and "
        "github with --check).")] = "text",
    output: OutputOpt = None,
    fail_on: FailOnOpt = None,
    verbose: Annotated[bool, typer.Option(
        "--verbose", "-v", help="With --check: also list the estimated cost of every "
        "expression.")] = False,
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="With --check: print only the summary.")] = False,
    color: ColorOpt = None,
    config: ConfigOpt = None,
    no_config: NoConfigOpt = False,
) -> int:
    # fmt: on
    """List the lint rules, print the documentation of one rule or of any finding code
    (parse.code_fence, schema.enum, pin.tool_added), or check business rules files
    (--check)."""
    from jsoncontract.cli.options import exit_code, write_report
    from jsoncontract.config import load_config
    from jsoncontract.errors import UsageError

    check_only = {"--tools": tools, "--tool": tool, "--cost-budget": cost_budget,
                  "--fail-on": fail_on, "--verbose": verbose, "--quiet": quiet}  # fmt: skip
    catalog_only = {"--profile": profile, "--mcp-version": mcp_version}
    stray = [n for n, v in (catalog_only if check else check_only).items() if v]
    if stray:
        where = "the rule catalog, not to --check" if check else "--check"
        raise UsageError(f"{stray[0]} applies to {where}")
    if check:
        from jsoncontract.business.settings import rules_check_settings
        from jsoncontract.tools.toolset import ToolSet

        settings = rules_check_settings(
            load_config(config, discover=not no_config),
            files=targets, tools=tools, tool=tool, cost_budget=cost_budget, format=format,
            output=output, fail_on=fail_on, verbose=verbose, quiet=quiet, color=color,
        )  # fmt: skip
        report = settings.check(ToolSet.from_paths(settings.tools, tool_name=settings.tool))
        write_report("rules", settings.report, report)
        return exit_code(report.worst(), settings.report.fail_on)
    from jsoncontract.lint.docs import listing
    from jsoncontract.settings import ReportOptions, ReportSettings

    if str(format) not in CATALOG_FORMATS:
        raise UsageError(
            f"--format {format} applies to --check; the catalog is "
            f"{' or '.join(CATALOG_FORMATS)}"
        )
    if targets is not None and len(targets) > 1:
        raise UsageError(
            "name one rule (a code or a name); to check business rules files, add --check"
        )
    shown = listing(targets[0] if targets else None, profiles=profile, mcp_version=mcp_version)
    write_report("rules", ReportSettings(format, output, ReportOptions(color=color)), shown)
    return 0
