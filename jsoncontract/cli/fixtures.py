"""``jsoncontract fixtures``: generate fixture suites from the tool schemas."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from jsoncontract.cli.options import (
    ColorOpt,
    ConfigOpt,
    ContextOpt,
    FailOnOpt,
    NoConfigOpt,
    OutputOpt,
    ProgressOpt,
    RulesOpt,
    format_choices,
    kind_choices,
)

if TYPE_CHECKING:
    FixturesFormat = str
    Kind = str
else:
    FixturesFormat = format_choices("fixtures")  # the formats of the reporter table
    Kind = kind_choices()  # the kinds the generator derives


def register(app: typer.Typer) -> None:
    """Add the command to the root app."""
    app.command("fixtures", no_args_is_help=False)(fixtures_cli)


# fmt: off
def fixtures_cli(
    suite_dir_arg: Annotated[Path | None, typer.Argument(
        metavar="SUITE_DIR", help="The directory to write the suites to (required unless "
        "the config sets fixtures.suite_dir).", show_default=False)] = None,
    *,
    tools: Annotated[list[Path] | None, typer.Option(
        "--tools", "-t", help="Tool definition file or directory (repeatable).",
        show_default=False)] = None,
    tool: Annotated[str | None, typer.Option(
        help="The name of a tool given as a bare JSON Schema.", show_default=False)] = None,
    seed: Annotated[int | None, typer.Option(
        help="Build values with this seed (default: each suite keeps its own; new ones 0, "
             "the canonical choices).", min=0, show_default=False)] = None,
    kind: Annotated[list[Kind] | None, typer.Option(
        "--kind", help="Only these case kinds (repeatable; default: all).",
        show_default=False)] = None,
    rules: RulesOpt = None,
    context: ContextOpt = None,
    capture: Annotated[list[Path] | None, typer.Option(
        "--capture", help="Record regression cases from the calls in this capture "
        "(repeatable): the tool and argument fields each call must keep.",
        show_default=False)] = None,
    prune: Annotated[bool, typer.Option(
        help="Remove stale generated cases that were never edited.")] = False,
    check: Annotated[bool, typer.Option(
        "--check", help="Write nothing; exit 1 when a suite is missing or out of date.")] = False,
    max_depth: Annotated[int | None, typer.Option(
        help="Nesting to build to before a recursive schema counts as unsatisfiable "
             "(default: 16).", min=1, max=64, show_default=False)] = None,
    format: Annotated[FixturesFormat | None, typer.Option(
        "--format", "-f", help="Report format (default: text).", show_default=False)] = None,
    output: OutputOpt = None,
    fail_on: FailOnOpt = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the totals.")] = False,
    color: ColorOpt = None,
    progress: ProgressOpt = True,
    config: ConfigOpt = None,
    no_config: NoConfigOpt = False,
) -> int:
    # fmt: on
    """Generate fixture suites from the tool schemas: valid, missing-field, wrong-enum,
    wrong-type, extra-field, out-of-range, malformed-JSON and string-arguments cases.

    One `<tool>.suite.json` per tool. Regenerating keeps hand-edited cases, adds new ones
    and reports stale ones. Exit 1 when a tool admits no valid instance, when a --capture
    call names no known tool, or (with --check) when a suite would change.
    """
    from jsoncontract.cli.options import (
        business_gate,
        exit_code,
        item_progress,
        stderr_is_terminal,
        write_report,
    )
    from jsoncontract.config import load_config
    from jsoncontract.model import Severity
    from jsoncontract.suites.generate import generate_suites
    from jsoncontract.suites.rule_cases import violation_sources
    from jsoncontract.suites.settings import fixtures_settings
    from jsoncontract.tools.toolset import ToolSet

    settings = fixtures_settings(
        load_config(config, discover=not no_config),
        directory=suite_dir_arg, tools=tools, tool=tool, seed=seed, kinds=kind, rules=rules,
        context=context, captures=capture, prune=prune, check=check, max_depth=max_depth,
        format=format, output=output, fail_on=fail_on, quiet=quiet, color=color,
    )  # fmt: skip
    toolset = ToolSet.from_paths(settings.tools, tool_name=settings.tool)
    with (
        business_gate(settings.business, toolset) as gate,
        item_progress("generating", enabled=progress and stderr_is_terminal()) as tick,
    ):
        report = generate_suites(
            toolset, settings.directory, seed=settings.seed, default_seed=settings.default_seed,
            kinds=settings.kinds, prune=settings.prune, check=settings.check,
            sources=violation_sources(gate, toolset), captures=settings.captures,
            max_depth=settings.max_depth, progress=tick, business=gate.fresh,
        )  # fmt: skip
    write_report("fixtures", settings.report, report)
    return exit_code(Severity.worst(f.severity for f in report.findings()), settings.report.fail_on)
