"""``jsoncontract mcp lint``: what a server advertises, linted with the rule catalog of ``lint``."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from jsoncontract.cli.mcp.options import (
    ClientOptions,
    ServerArg,
    ServerOptions,
    fetch_listing,
    split_server,
)
from jsoncontract.cli.options import (
    ColorOpt,
    ConfigOpt,
    FailOnOpt,
    NoConfigOpt,
    OutputOpt,
    exit_code,
    format_choices,
    grouped,
    output_stream,
    warn,
)

if TYPE_CHECKING:
    LintFormat = str
else:
    LintFormat = format_choices("mcp lint")  # the formats of its reporter table


# fmt: off
@grouped
def lint_cli(
    server: ServerArg = None,
    *,
    profile: Annotated[list[str] | None, typer.Option(
        "--profile", "-p", help="Targets to lint for, as lint takes them (default: mcp).",
        show_default=False)] = None,
    mcp_version: Annotated[str | None, typer.Option(
        help="MCP version the mcp profile checks (default: the negotiated one).",
        show_default=False)] = None,
    select: Annotated[list[str] | None, typer.Option(
        help="Run only these rules: codes, code prefixes, names, families, ALL.",
        show_default=False)] = None,
    ignore: Annotated[list[str] | None, typer.Option(
        help="Skip these rules.", show_default=False)] = None,
    format: Annotated[LintFormat | None, typer.Option(
        "--format", "-f", help="Report format (default: text).", show_default=False)] = None,
    output: OutputOpt = None,
    fail_on: FailOnOpt = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the summary.")] = False,
    engine_check: Annotated[bool, typer.Option(
        "--engine-check", help="Also compile each schema with the installed engine of each "
                               "engine profile (as lint does).")] = False,
    ruleset: Annotated[Path | None, typer.Option(
        "--ruleset", metavar="FILE",
        help="A Spectral ruleset to run over the tools/list result too (as lint does; "
             "default: [lint] ruleset).", show_default=False)] = None,
    reach: ServerOptions,
    client: ClientOptions,
    color: ColorOpt = None,
    config: ConfigOpt = None,
    no_config: NoConfigOpt = False,
) -> int:
    # fmt: on
    """Lint what a server advertises, with the rule catalog of jsoncontract lint.

    Findings name the server, the tool and the JSON Pointer inside the tool. The mcp profile
    checks the negotiated protocol version unless --mcp-version says otherwise.
    """
    from jsoncontract.config import load_config
    from jsoncontract.lint.engine import Linter
    from jsoncontract.lint.settings import build_settings
    from jsoncontract.live.linting import lint_listing, lint_version
    from jsoncontract.reporters import ReportOptions, render
    from jsoncontract.settings import split_values

    cfg = load_config(config, discover=not no_config)
    section = cfg.section("lint")
    # every setting, the project's own rules included, is checked before the server starts
    settings = build_settings(
        section,
        config_file=str(cfg.path) if cfg.path else "config",
        profiles=split_values(profile) or ["mcp"],
        mcp_version=mcp_version,
        select=split_values(select),
        ignore=split_values(ignore),
        engine_check=engine_check,
        ruleset=ruleset,
        root=cfg.root,
    )
    spec = reach.resolve(*split_server(server), cfg)
    options = reach.connect_options(cfg, spec, client)
    listing = fetch_listing(spec, options, offered=True)
    version, note = lint_version(listing.negotiated.version, mcp_version)
    if note:
        warn([note])
    settings = replace(settings, mcp_version=version)
    warn(settings.warnings)
    linter = Linter(settings)
    report = lint_listing(linter, listing)
    fmt = format or section.get("format", "text")
    from jsoncontract.settings import fail_threshold

    threshold = fail_threshold(fail_on, cfg)
    view = ReportOptions(color=color, quiet=quiet, fail_on=threshold)
    with output_stream(output) as stream:
        render("mcp lint", fmt, stream, view, report)
    worst = report.worst()
    return exit_code(worst.value if worst else None, threshold)
