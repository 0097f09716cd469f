"""``jsoncontract rules``: list the lint rules, print one rule's documentation, or check
business rules files against the tool schemas (``--check``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from jsoncontract.cli.options import (
    ColorOpt,
    ConfigOpt,
    FailOnOpt,
    NoConfigOpt,
    OutputOpt,
    format_choices,
    output_stream,
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
        help="A rule code (JC020) or name (additional-properties-allowed); with --check, "
             "business rules files (default: the config's business.rules).",
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
    """List the lint rules, print the documentation of one rule, or check business rules
    files (--check)."""
    from jsoncontract.errors import UsageError
    from jsoncontract.lint.codes import all_rules, lookup
    from jsoncontract.lint.docs import RuleListing
    from jsoncontract.lint.profiles import DEFAULT_MCP_VERSION
    from jsoncontract.lint.settings import check_mcp_version, parse_profiles
    from jsoncontract.reporters import ReportOptions, render

    check_only = {"--tools": tools, "--tool": tool, "--cost-budget": cost_budget,
                  "--fail-on": fail_on, "--verbose": verbose, "--quiet": quiet}  # fmt: skip
    catalog_only = {"--profile": profile, "--mcp-version": mcp_version}
    stray = [n for n, v in (catalog_only if check else check_only).items() if v]
    if stray:
        where = "the rule catalog, not to --check" if check else "--check"
        raise UsageError(f"{stray[0]} applies to {where}")
    if check:
        return check_cli(
            targets or [], tools=tools, tool=tool, cost_budget=cost_budget,
            fmt=str(format), output=output, fail_on=fail_on.value if fail_on else None,
            verbose=verbose, quiet=quiet, color=color, config=config, no_config=no_config,
        )  # fmt: skip
    if str(format) not in CATALOG_FORMATS:
        raise UsageError(
            f"--format {format} applies to --check; the catalog is "
            f"{' or '.join(CATALOG_FORMATS)}"
        )
    if targets is not None and len(targets) > 1:
        raise UsageError(
            "name one rule (a code or a name); to check business rules files, add --check"
        )
    code = targets[0] if targets else None
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


def check_cli(
    files: list[str],
    *,
    tools: list[Path] | None,
    tool: str | None,
    cost_budget: int | None,
    fmt: str,
    output: Path | None,
    fail_on: str | None,
    verbose: bool,
    quiet: bool,
    color: bool | None,
    config: Path | None,
    no_config: bool,
) -> int:
    """``rules --check``: run :func:`jsoncontract.business.check_rules` and render it."""
    from jsoncontract.business import cost_budget as budget_of
    from jsoncontract.business.rules import check_rules
    from jsoncontract.cli.options import exit_code, tool_paths
    from jsoncontract.config import load_config
    from jsoncontract.errors import UsageError
    from jsoncontract.reporters import ReportOptions, render
    from jsoncontract.tools.toolset import ToolSet

    cfg = load_config(config, discover=not no_config)
    section = cfg.section("business")
    paths: list[Any] = list(files) or list(cfg.paths(section.get("rules")))
    if not paths:
        raise UsageError(
            "no rules files: name them (jsoncontract rules --check rules.toml), or list "
            "them under [business] rules = [...] in jsoncontract.toml"
        )
    toolset = ToolSet.from_paths(tool_paths(tools, cfg), tool_name=tool)
    label = str(cfg.path) if cfg.path is not None else "config"
    report = check_rules(
        paths,
        tools=toolset,
        data=section.get("data") or {},
        data_base=cfg.root,
        data_label=f"{label} [business.data]",
        python_timeout=float(section.get("python_timeout", 1.0)),
        cost_budget=budget_of(section, cost_budget),
    )
    threshold = fail_on or cfg.get("fail_on", "error")
    options = ReportOptions(color=color, verbose=verbose, quiet=quiet)
    with output_stream(output) as stream:
        render("rules", fmt, stream, options, report)
    worst = report.worst()
    return exit_code(worst.value if worst else None, threshold)
