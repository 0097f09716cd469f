"""``jsoncontract fixtures``: generate fixture suites from the tool schemas."""

from __future__ import annotations

from enum import StrEnum
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
    RulesOpt,
    exit_code,
    format_choices,
    output_stream,
    stderr_is_terminal,
    tool_paths,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from jsoncontract.business.gate import BusinessRules
    from jsoncontract.config import Config
    from jsoncontract.suites.generate import GenerationReport
    from jsoncontract.suites.hooks import ViolationSource
    from jsoncontract.tools.toolset import ToolSet

    FixturesFormat = str
else:
    FixturesFormat = format_choices("fixtures")  # the formats of the reporter table

#: Where ``test`` looks for suites when neither the command line nor the config says.
DEFAULT_SUITE_DIR = "fixtures"


class Kind(StrEnum):
    """Case kinds ``--kind`` can choose."""

    valid = "valid"
    missing_field = "missing-field"
    wrong_enum = "wrong-enum"
    wrong_type = "wrong-type"
    extra_field = "extra-field"
    out_of_range = "out-of-range"
    malformed = "malformed"
    string_arguments = "string-arguments"
    result_valid = "result-valid"
    result_missing_field = "result-missing-field"
    result_wrong_type = "result-wrong-type"
    business = "business"


def register(app: typer.Typer) -> None:
    """Add the command to the root app."""
    app.command("fixtures", no_args_is_help=False)(fixtures_cli)


def suite_dir(cfg: Config, given: Path | None, *, required: bool = False) -> Path:
    """The suite directory: the argument, the config's ``[fixtures] suite_dir``, or (unless
    ``required``) ``fixtures``.

    Raises:
        UsageError: ``required`` and neither the argument nor the config names one.
    """
    if given is not None:
        return given
    configured = cfg.section("fixtures").get("suite_dir")
    if isinstance(configured, str) and configured:
        return cfg.root / configured
    if required:
        from jsoncontract.errors import UsageError

        where = cfg.path if cfg.path is not None else "jsoncontract.toml"
        raise UsageError(
            "no suite directory given: name it (jsoncontract fixtures --tools PATH SUITE_DIR), "
            f"or set suite_dir under [fixtures] in {where}"
        )
    return Path(DEFAULT_SUITE_DIR)


def violation_sources(gate: BusinessRules, tools: ToolSet) -> Sequence[ViolationSource]:
    """The writers of business-rule cases: the rules engine's, when rules are loaded."""
    if gate.rules is None:
        return ()
    from jsoncontract.suites.rule_cases import RuleViolations

    return (RuleViolations(gate, tools),)


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
    progress: Annotated[bool, typer.Option(
        help="Show a progress bar on stderr (only when stderr is a terminal).")] = True,
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
    from jsoncontract.cli.progress import item_progress
    from jsoncontract.cli.test import load_gate
    from jsoncontract.config import load_config
    from jsoncontract.reporters import ReportOptions, render
    from jsoncontract.suites.generate import generate_suites
    from jsoncontract.suites.instance import DEFAULT_MAX_DEPTH
    from jsoncontract.suites.model import DERIVED_KINDS, CaseKind
    from jsoncontract.tools.toolset import ToolSet

    cfg = load_config(config, discover=not no_config)
    section = cfg.section("fixtures")
    chosen = [k.value for k in kind] if kind else section.get("kinds")
    kinds = [CaseKind(k) for k in chosen] if chosen else list(DERIVED_KINDS)
    directory = suite_dir(cfg, suite_dir_arg, required=True)
    toolset = ToolSet.from_paths(tool_paths(tools, cfg), tool_name=tool)
    # business rules contribute cases, and regression cases record their outcome through
    # the same gates `test` will use
    gate = load_gate(cfg, rules, context, toolset, False)
    try:
        with item_progress("generating", enabled=progress and stderr_is_terminal()) as tick:
            report = generate_suites(
                toolset,
                directory,
                seed=seed,
                default_seed=int(section.get("seed", 0)),
                kinds=kinds,
                prune=prune,
                check=check,
                sources=violation_sources(gate, toolset),
                captures=list(capture or ()),
                max_depth=max_depth or int(section.get("max_depth", DEFAULT_MAX_DEPTH)),
                progress=tick,
                business=gate.fresh,
            )
    finally:
        gate.close()
    options = ReportOptions(color=color, quiet=quiet)
    with output_stream(output) as stream:
        render("fixtures", format or "text", stream, options, report)
    threshold = (fail_on.value if fail_on else None) or cfg.get("fail_on", "error")
    return exit_code(_worst(report), threshold)


def _worst(report: GenerationReport) -> str | None:
    """The most severe of the run's findings: tools without cases, capture calls left
    unrecorded (and, with ``--check``, suites out of date) are errors; stale and skipped
    cases are warnings."""
    from jsoncontract.model import Severity

    worst = Severity.worst(f.severity for f in report.findings())
    return worst.value if worst is not None else None
