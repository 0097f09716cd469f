"""``jsoncontract lint``: check tool definitions against the rule catalog."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from jsoncontract.cli.options import (
    BaselineOpt,
    ChangedOpt,
    ColorOpt,
    ConfigOpt,
    ExcludeOpt,
    FailOnOpt,
    NoConfigOpt,
    OutputOpt,
    format_choices,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from jsoncontract.lint.engine import Linter

    LintFormat = str
else:
    LintFormat = format_choices("lint")  # the formats of the reporter table


def register(app: typer.Typer) -> None:
    """Add the command to the root app."""
    app.command("lint", no_args_is_help=False)(lint_cli)


# fmt: off
def lint_cli(
    paths: Annotated[list[Path] | None, typer.Argument(
        help="Tool definition files or directories (default: tools from the config).",
        show_default=False)] = None,
    *,
    profile: Annotated[list[str] | None, typer.Option(
        "--profile", "-p",
        help="Targets to lint for, comma-separated or repeated: generic, openai-strict, "
             "anthropic, anthropic-strict, gemini, mcp, or all (default: generic); the "
             "engines llguidance, outlines, xgrammar, llama-cpp, or vllm and ollama (the "
             "engines they run).",
        show_default=False)] = None,
    mcp_version: Annotated[str | None, typer.Option(
        help="MCP protocol version for the mcp profile: 2025-06-18, 2025-11-25 or "
             "2026-07-28 (default: 2025-11-25).", show_default=False)] = None,
    select: Annotated[list[str] | None, typer.Option(
        help="Run only these rules: codes, code prefixes (JC02), names, families, ALL.",
        show_default=False)] = None,
    ignore: Annotated[list[str] | None, typer.Option(
        help="Skip these rules (codes, prefixes, names, families).", show_default=False)] = None,
    limit: Annotated[list[str] | None, typer.Option(
        help="Override a provider limit, e.g. openai.max_depth=5 (repeatable).",
        show_default=False)] = None,
    tool: Annotated[str | None, typer.Option(
        help="Name of the tool when a file is a bare JSON Schema.", show_default=False)] = None,
    format: Annotated[LintFormat | None, typer.Option(
        "--format", "-f", help="Report format (default: text).", show_default=False)] = None,
    output: OutputOpt = None,
    fail_on: FailOnOpt = None,
    fix: Annotated[bool, typer.Option(
        "--fix", help="Apply the mechanical fixes to the files, then report what is left.")
    ] = False,
    diff: Annotated[bool, typer.Option(
        "--diff", help="Print the fixes as a unified diff instead of writing them; exit 1 "
                       "when there is something to fix.")] = False,
    engine_check: Annotated[bool, typer.Option(
        "--engine-check", help="Also compile each schema with the installed engine of each "
                               "engine profile, and report where it disagrees with the "
                               "profile (pip install 'jsoncontract[engines]').")] = False,
    ruleset: Annotated[Path | None, typer.Option(
        "--ruleset", metavar="FILE",
        help="A Spectral ruleset (YAML or JSON) to run over the tool files too, with "
             "Spectral's core functions (default: [lint] ruleset).",
        show_default=False)] = None,
    statistics: Annotated[bool, typer.Option(
        help="Count findings per rule in the text report.")] = False,
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="Print only the summary (text).")] = False,
    exclude: ExcludeOpt = None,
    changed: ChangedOpt = False,
    baseline: BaselineOpt = None,
    color: ColorOpt = None,
    config: ConfigOpt = None,
    no_config: NoConfigOpt = False,
) -> int:
    # fmt: on
    """Lint tool definitions: closed objects, closed sets, bounds, idempotency keys,
    descriptions, valid schemas, and what each provider profile accepts.

    `jsoncontract rules` lists the rules; `jsoncontract rules CODE` explains one.
    """
    from jsoncontract.cli.options import (
        exit_code,
        load_baseline,
        note,
        note_skipped,
        warn,
        write_report,
    )
    from jsoncontract.config import load_config
    from jsoncontract.lint.engine import Linter
    from jsoncontract.lint.settings import command_settings

    settings = command_settings(
        load_config(config, discover=not no_config),
        paths=paths, profiles=profile, mcp_version=mcp_version, select=select, ignore=ignore,
        limits=limit, tool=tool, fix=fix, diff=diff, format=format, output=output,
        fail_on=fail_on, statistics=statistics, quiet=quiet, color=color, exclude=exclude,
        changed=changed, baseline=baseline, engine_check=engine_check, ruleset=ruleset,
    )  # fmt: skip
    if not settings.paths:  # --changed, and no changed file is a configured tool file
        note("no changed tool definition file to lint")
        return 0
    warn(settings.lint.warnings)
    linter = Linter(settings.lint)
    fixed = 0
    if settings.fix or settings.diff:
        fixed, edited = _fix(linter, settings.paths, settings.exclude, write=settings.fix)
        if settings.diff:
            return 1 if edited else 0
    report = linter.lint_paths(settings.paths, exclude=settings.exclude, lenient=settings.changed)
    report.fixed = fixed
    note_skipped(report.skipped, "tool definition")
    known = load_baseline(settings.report.baseline, "lint", settings.report.root)
    if known is not None:
        report.mark_baseline(known)
    write_report("lint", settings.report, report)
    return exit_code(report.worst(), settings.report.fail_on)


def _fix(
    linter: Linter, targets: Sequence[str | Path], exclude: Sequence[str], *, write: bool
) -> tuple[int, bool]:
    """Fix (or, with ``write`` false, diff) every file; returns (fixes applied, changed)."""
    from jsoncontract._files import expand, read_bytes
    from jsoncontract._yaml import is_yaml
    from jsoncontract.cli.options import note
    from jsoncontract.lint.fix import fix_source, write_fixed
    from jsoncontract.tools.loader import TOOL_SUFFIXES

    applied = 0
    changed = False
    for path in expand(targets, TOOL_SUFFIXES, what="tool definition", exclude=exclude):
        if is_yaml(str(path)):
            note(f"note: {path}: --fix edits JSON files, not YAML")
            continue
        result = fix_source(linter, str(path), read_bytes(path))
        if not result.changed:
            continue
        changed = True
        applied += result.applied
        if write:
            write_fixed(result)
            note(f"fixed {result.applied} in {result.path}")
        else:
            sys.stdout.write(result.diff())
    if not write:
        noun = "fix" if applied == 1 else "fixes"
        note(
            f"{applied} {noun} would be applied (run with --fix to write them)"
            if changed
            else "nothing to fix"
        )
    return applied, changed
