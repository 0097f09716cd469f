"""``jsoncontract test``: run fixture suites, asserting where and why each case fails."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from jsoncontract.cli.options import (
    BaselineOpt,
    ColorOpt,
    ConfigOpt,
    ContextOpt,
    FailOnOpt,
    NoConfigOpt,
    OutputOpt,
    ProgressOpt,
    RulesOpt,
    format_choices,
)

if TYPE_CHECKING:
    TestFormat = str
else:
    TestFormat = format_choices("test")  # the formats of the reporter table


def register(app: typer.Typer) -> None:
    """Add the command to the root app."""
    app.command("test", no_args_is_help=False)(test_cli)


# fmt: off
def test_cli(
    suites: Annotated[list[Path] | None, typer.Argument(
        metavar="[SUITE_PATH]...", help="Suite files or directories (default: the config's "
        "fixtures.suite_dir, or fixtures).", show_default=False)] = None,
    *,
    tools: Annotated[list[Path] | None, typer.Option(
        "--tools", "-t", help="Tool definition file or directory (repeatable; default: the "
        "config's tools).", show_default=False)] = None,
    tool: Annotated[str | None, typer.Option(
        help="The name of a tool given as a bare JSON Schema.", show_default=False)] = None,
    rules: RulesOpt = None,
    context: ContextOpt = None,
    keyword: Annotated[str | None, typer.Option(
        "-k", help="Only cases whose name, tool or tag matches: words with and, or, not, "
        "parentheses (as pytest -k).", show_default=False)] = None,
    update: Annotated[bool, typer.Option(
        "--update", help="Accept the current outcome of every failing case as its "
        "expectation, rewrite the suite files, and show what changed.")] = False,
    format: Annotated[TestFormat | None, typer.Option(
        "--format", "-f", help="Report format (default: text).", show_default=False)] = None,
    output: OutputOpt = None,
    fail_on: FailOnOpt = None,
    show_values: Annotated[bool, typer.Option(
        help="Quote values of sensitive-looking fields instead of hashing them.")] = False,
    verbose: Annotated[bool, typer.Option(
        "--verbose", "-v", help="List passing and skipped cases too.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the totals.")] = False,
    baseline: BaselineOpt = None,
    color: ColorOpt = None,
    progress: ProgressOpt = True,
    config: ConfigOpt = None,
    no_config: NoConfigOpt = False,
) -> int:
    # fmt: on
    """Run fixture suites through the check pipeline; each case asserts the stage, the
    code or keyword, and the path it fails at.

    A negative case the contract accepts is reported as a contract weakness. Exit 1 when
    a case fails, shows a weakness, or a suite's tool no longer exists.
    """
    from jsoncontract.cli.options import (
        business_gate,
        exit_code,
        item_progress,
        load_baseline,
        stderr_is_terminal,
        warn,
        write_report,
    )
    from jsoncontract.config import load_config
    from jsoncontract.errors import UsageError
    from jsoncontract.suites.format import find_suite_files
    from jsoncontract.suites.runner import SuiteRunner
    from jsoncontract.suites.settings import testing_settings
    from jsoncontract.suites.update import apply_updates
    from jsoncontract.tools.toolset import ToolSet

    settings = testing_settings(
        load_config(config, discover=not no_config),
        suites=suites, tools=tools, tool=tool, rules=rules, context=context, keyword=keyword,
        update=update, show_values=show_values, format=format, output=output,
        fail_on=fail_on, verbose=verbose, quiet=quiet, color=color, baseline=baseline,
    )  # fmt: skip
    warn(settings.warnings)
    files = find_suite_files(settings.suites)
    toolset = ToolSet.from_paths(settings.tools, tool_name=settings.tool)
    with (
        business_gate(settings.business, toolset) as gate,
        item_progress("testing", enabled=progress and stderr_is_terminal()) as tick,
    ):
        runner = SuiteRunner(
            toolset, business=gate.fresh, show_values=settings.show_values,
            max_depth=settings.max_depth,
        )  # fmt: skip
        report = runner.run_files(files, select=settings.select, progress=tick)
    if not report.outcomes:
        raise UsageError(_nothing_selected(keyword, len(files)))
    if settings.update:
        report = apply_updates(report)
    known = load_baseline(settings.report.baseline, "test", settings.report.root)
    if known is not None:
        report.mark_baseline(known)
    write_report("test", settings.report, report)
    # with a baseline, only the cases that fail anew fail the run
    failed = report.new_failures if known is not None else not report.ok
    return exit_code("error" if failed else None, settings.report.fail_on)


def _nothing_selected(keyword: str | None, files: int) -> str:
    """Why a run that tested nothing could not do its job (pytest exits 5 for it)."""
    where = "1 suite file" if files == 1 else f"{files} suite files"
    if keyword is not None:
        return f"-k {keyword!r} selects no case in {where}; nothing was tested"
    held = "the suite file holds" if files == 1 else f"the {files} suite files hold"
    return f"{held} no case; nothing was tested"
