"""``jsoncontract lint``: check tool definitions against the rule catalog."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

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
    among,
    exit_code,
    format_choices,
    load_baseline,
    note_skipped,
    report_root,
    reports,
)

if TYPE_CHECKING:
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
             "anthropic, anthropic-strict, gemini, mcp, or all (default: generic).",
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
    import gc

    # A short-lived process holding a whole catalog in memory: the cyclic collector would
    # re-scan millions of live objects for cycles that do not matter here.
    gc.disable()
    from jsoncontract.config import load_config
    from jsoncontract.errors import UsageError
    from jsoncontract.lint.engine import Linter
    from jsoncontract.lint.settings import build_settings
    from jsoncontract.reporters import ReportOptions, render_many

    cfg = load_config(config, discover=not no_config)
    section = cfg.section("lint")
    targets: list[Any] = list(paths or cfg.paths(cfg.get("tools")))
    if changed:
        targets = among(list(paths or ()), cfg.paths(cfg.get("tools")))
        if not targets:
            sys.stderr.write("jsoncontract: no changed tool definition file to lint\n")
            return 0
    if not targets:
        raise UsageError(
            "no tool definitions: name files or directories, or list them under tools = [...] "
            "in jsoncontract.toml"
        )
    if fix and diff:
        raise UsageError("--fix writes the fixes and --diff only shows them; choose one")
    if fix and any(str(t) == "-" for t in targets):
        raise UsageError("--fix cannot write back to stdin; use --diff, or name the files")
    settings = build_settings(
        section,
        config_file=str(cfg.path) if cfg.path else "config",
        profiles=_split(profile),
        mcp_version=mcp_version,
        select=_split(select),
        ignore=_split(ignore),
        limits=limit or (),
        tool_name=tool,
    )
    for note in settings.warnings:
        sys.stderr.write(f"jsoncontract: warning: {note}\n")
    _warn_unused_selection(settings)
    linter = Linter(settings)
    fixed = 0
    if fix or diff:
        fixed, changed = _fix(linter, targets, write=fix)
        if diff:
            return 1 if changed else 0
    report = linter.lint_paths(
        targets, exclude=(*cfg.get("exclude", ()), *(exclude or ())), lenient=changed
    )
    note_skipped(report.skipped, "tool definition")
    against = load_baseline(baseline, "lint", cfg)
    if against is not None:
        against.mark_lint(report)
    report.fixed = fixed
    fmt = format or section.get("format", "text")
    threshold = (fail_on.value if fail_on else None) or cfg.get("fail_on", "error")
    options = ReportOptions(
        color=color,
        quiet=quiet,
        statistics=statistics,
        fail_on=threshold,
        root=report_root(cfg),
    )
    with reports(fmt, output, options) as targets:
        render_many("lint", targets, report)
    worst = report.worst()
    return exit_code(worst.value if worst else None, threshold)


def _split(values: list[str] | None) -> list[str] | None:
    """``--select a,b --select c`` -> [a, b, c]; ``None`` when the option was not given."""
    if values is None:
        return None
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def _warn_unused_selection(settings: Any) -> None:
    """Say when an explicitly selected rule does not run in any selected profile."""
    from jsoncontract.lint.codes import all_rules

    if settings.select is None or len(settings.select) > 5:
        return
    for code in sorted(settings.select):
        rule = all_rules()[code]
        severity, _ = rule.severity_for(settings.profiles, settings.mcp_version)
        if severity is None:
            sys.stderr.write(
                f"jsoncontract: warning: {code} ({rule.name}) does not run in the profiles "
                f"{', '.join(settings.profiles)}; jsoncontract rules {code} says where it does\n"
            )


def _fix(linter: Any, targets: list[Any], *, write: bool) -> tuple[int, bool]:
    """Fix (or, with ``write`` false, diff) every file; returns (fixes applied, changed)."""
    from jsoncontract._files import expand, read_bytes
    from jsoncontract._yaml import is_yaml
    from jsoncontract.lint.fix import fix_source, write_fixed
    from jsoncontract.tools.loader import TOOL_SUFFIXES

    applied = 0
    changed = False
    for path in expand(targets, TOOL_SUFFIXES, what="tool definition"):
        if is_yaml(str(path)):
            sys.stderr.write(f"jsoncontract: note: {path}: --fix edits JSON files, not YAML\n")
            continue
        result = fix_source(linter, str(path), read_bytes(path))
        if not result.changed:
            continue
        changed = True
        applied += result.applied
        if write:
            write_fixed(result)
            sys.stderr.write(f"jsoncontract: fixed {result.applied} in {result.path}\n")
        else:
            sys.stdout.write(result.diff())
    if not write:
        noun = "fix" if applied == 1 else "fixes"
        sys.stderr.write(
            f"jsoncontract: {applied} {noun} would be applied (run with --fix to write them)\n"
            if changed
            else "jsoncontract: nothing to fix\n"
        )
    return applied, changed
