"""``jsoncontract test``: run fixture suites, asserting where and why each case fails."""

from __future__ import annotations

import sys
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
    RulesOpt,
    exit_code,
    format_choices,
    load_baseline,
    report_root,
    reports,
    stderr_is_terminal,
    tool_paths,
)

if TYPE_CHECKING:
    from jsoncontract.business.gate import BusinessRules
    from jsoncontract.config import Config
    from jsoncontract.tools.toolset import ToolSet

    TestFormat = str
else:
    TestFormat = format_choices("test")  # the formats of the reporter table


def register(app: typer.Typer) -> None:
    """Add the command to the root app."""
    app.command("test", no_args_is_help=False)(test_cli)


def load_gate(
    cfg: Config,
    rules: list[Path] | None,
    context: str | None,
    tools: ToolSet,
    show_values: bool,
) -> BusinessRules:
    """The business gate of the project (``--rules``, ``--context``, the config's
    ``[business]``), its load-time warnings written to stderr."""
    from jsoncontract.business import load_business
    from jsoncontract.business.context import parse_context

    gate = load_business(
        rules,
        config=cfg,
        context=parse_context(context) if context is not None else None,
        tools=tools,
        show_values=show_values,
    )
    for warning in gate.warnings:
        sys.stderr.write(f"jsoncontract: warning: {warning}\n")
    return gate


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
    progress: Annotated[bool, typer.Option(
        help="Show a progress bar on stderr (only when stderr is a terminal).")] = True,
    config: ConfigOpt = None,
    no_config: NoConfigOpt = False,
) -> int:
    # fmt: on
    """Run fixture suites through the check pipeline; each case asserts the stage, the
    code or keyword, and the path it fails at.

    A negative case the contract accepts is reported as a contract weakness. Exit 1 when
    a case fails, shows a weakness, or a suite's tool no longer exists.
    """
    from jsoncontract.cli.fixtures import suite_dir
    from jsoncontract.cli.progress import fewer_gc_passes, item_progress
    from jsoncontract.config import load_config
    from jsoncontract.errors import UsageError
    from jsoncontract.reporters import ReportOptions, render_many
    from jsoncontract.suites.format import find_suite_files
    from jsoncontract.suites.runner import SuiteRunner
    from jsoncontract.suites.select import Selector
    from jsoncontract.suites.update import apply_updates
    from jsoncontract.tools.toolset import ToolSet

    cfg = load_config(config, discover=not no_config)
    section = cfg.section("fixtures")
    fmt = format or _configured_format(cfg)
    select = Selector(keyword) if keyword is not None else None
    files = find_suite_files(suites or [suite_dir(cfg, None)])
    toolset = ToolSet.from_paths(tool_paths(tools, cfg), tool_name=tool)
    gate = load_gate(cfg, rules, context, toolset, show_values)
    runner = SuiteRunner(
        toolset,
        business=gate.fresh,
        show_values=show_values,
        max_depth=section.get("max_depth"),
    )
    options = ReportOptions(
        color=color, verbose=verbose, quiet=quiet, root=report_root(cfg), show_values=show_values
    )
    with fewer_gc_passes():
        try:
            with item_progress("testing", enabled=progress and stderr_is_terminal()) as tick:
                report = runner.run_files(files, select=select, progress=tick)
        finally:
            gate.close()
        if not report.outcomes:
            raise UsageError(_nothing_selected(keyword, len(files)))
        if update:
            report = apply_updates(report)
        against = load_baseline(baseline, "test", cfg)
        if against is not None:
            against.mark_test(report)
        with reports(fmt, output, options) as targets:
            render_many("test", targets, report)
    threshold = (fail_on.value if fail_on else None) or cfg.get("fail_on", "error")
    failed = report.new_failures if baseline is not None else not report.ok
    return exit_code("error" if failed else None, threshold)


def _nothing_selected(keyword: str | None, files: int) -> str:
    """Why a run that tested nothing could not do its job (pytest exits 5 for it)."""
    where = "1 suite file" if files == 1 else f"{files} suite files"
    if keyword is not None:
        return f"-k {keyword!r} selects no case in {where}; nothing was tested"
    held = "the suite file holds" if files == 1 else f"the {files} suite files hold"
    return f"{held} no case; nothing was tested"


def _configured_format(cfg: Config) -> str:
    """``[test] format``, or its deprecated old name ``[fixtures] test_format``, or text.

    Raises:
        ConfigError: both are set.
    """
    from jsoncontract.errors import ConfigError

    new = cfg.section("test").get("format")
    old = cfg.section("fixtures").get("test_format")
    where = str(cfg.path) if cfg.path is not None else "config"
    if old is None:
        return str(new or "text")
    if new is not None:
        raise ConfigError(
            "sets both [test] format and [fixtures] test_format (its old name): keep "
            "[test] format only",
            file=where,
        )
    sys.stderr.write(
        f"jsoncontract: warning: {where}: [fixtures] test_format is the old name of [test] "
        "format; it still works, but move it\n"
    )
    return str(old)
