"""``jsoncontract rules``: list the lint rules, print one rule's documentation, or check
business rules files against the tool schemas (``--check``)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from jsoncontract.cli.options import (
    ColorOpt,
    ConfigOpt,
    FailOnOpt,
    NoConfigOpt,
    OutputOpt,
    output_stream,
)


class RulesFormat(StrEnum):
    """Formats of ``rules`` (sarif and github: ``--check`` only)."""

    text = "text"
    json = "json"
    sarif = "sarif"
    github = "github"


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
        "--format", "-f", help="Output format (sarif and github: with --check).")
    ] = RulesFormat.text,
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
    import orjson

    from jsoncontract.errors import UsageError
    from jsoncontract.lint.codes import NOT_LINT_RULES, REDIRECTS, all_rules, lookup
    from jsoncontract.lint.profiles import DEFAULT_MCP_VERSION
    from jsoncontract.lint.settings import check_mcp_version, parse_profiles

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
            fmt=format.value, output=output, fail_on=fail_on.value if fail_on else None,
            verbose=verbose, quiet=quiet, color=color, config=config, no_config=no_config,
        )  # fmt: skip
    if format in (RulesFormat.sarif, RulesFormat.github):
        raise UsageError(f"--format {format.value} applies to --check; the catalog is text or json")
    if targets is not None and len(targets) > 1:
        raise UsageError(
            "name one rule (a code or a name); to check business rules files, add --check"
        )
    code = targets[0] if targets else None
    version = check_mcp_version(mcp_version or DEFAULT_MCP_VERSION)
    if code is not None:
        try:
            rule = lookup(code)
        except LookupError as exc:
            raise UsageError(exc.args[0]) from None
        with output_stream(output) as stream:
            if format is RulesFormat.json:
                entry = _entry(rule)
                from jsoncontract.lint.docs import rule_markdown

                entry["documentation"] = rule_markdown(rule)
                body = {"version": 1, "summary": {"rules": 1}, "rules": [entry]}
                stream.write(orjson.dumps(body, option=orjson.OPT_APPEND_NEWLINE))
            else:
                _print_doc(rule, stream, color)
        return 0
    rules = list(all_rules().values())
    if profile:
        chosen = parse_profiles(profile, origin="--profile")
        rules = [r for r in rules if r.severity_for(chosen, version)[0] is not None]
    with output_stream(output) as stream:
        if format is RulesFormat.json:
            families: dict[str, int] = {}
            for rule in rules:
                families[rule.family.value] = families.get(rule.family.value, 0) + 1
            body = {
                "version": 1,
                "summary": {"rules": len(rules), "by_family": families},
                "rules": [_entry(r) for r in rules],
                "redirects": REDIRECTS,
                "not_lint_rules": NOT_LINT_RULES,
            }
            stream.write(orjson.dumps(body, option=orjson.OPT_APPEND_NEWLINE))
        else:
            _print_table(rules, stream, color)
    return 0


def _entry(rule: Any) -> dict[str, Any]:
    from jsoncontract.lint.docs import DOCS_URL, profiles_of
    from jsoncontract.lint.profiles import MCP_VERSIONS, PROFILES
    from jsoncontract.lint.rule import ALL

    table = rule.profiles
    default = table.get(ALL)
    return {
        "code": rule.code,
        "name": rule.name,
        "family": rule.family.value,
        "summary": rule.summary,
        "severity": rule.default_severity.value,
        "severities": {
            p: (level.value if level is not None else None)
            for p in PROFILES
            for level in [table.get(p, default)]
        },
        "profiles": profiles_of(rule),
        "mcp_versions": [v for v in MCP_VERSIONS if v in rule.mcp_versions]
        if rule.mcp_versions is not None
        else None,
        "fixable": rule.fixable,
        "added": rule.added,
        "status": rule.status,
        "docs_url": DOCS_URL.format(code=rule.code),
    }


def _print_table(rules: list[Any], stream: Any, color: bool | None) -> None:
    from jsoncontract.lint.docs import severities
    from jsoncontract.reporters import ReportOptions
    from jsoncontract.reporters.check_text import LineWriter

    out = LineWriter(stream, ReportOptions(color=color))
    width = max((len(r.name) for r in rules), default=4)
    lines = []
    for rule in rules:
        mark = "[*]" if rule.fixable else "   "
        lines.append(
            [
                (rule.code, "bold"),
                (f" {mark} ", "green"),
                (f"{rule.name:<{width}}", "cyan"),
                (f"  {rule.summary}", ""),
                (f"  ({severities(rule)})", "dim"),
            ]
        )
    lines.append([])
    lines.append(
        [
            (f"{len(rules)} rules; [*] fixable with --fix. ", "dim"),
            ("jsoncontract rules CODE explains one.", "dim"),
        ]
    )
    out.write(lines)
    out.close()


def _print_doc(rule: Any, stream: Any, color: bool | None) -> None:
    from jsoncontract.lint.docs import rule_markdown
    from jsoncontract.reporters.interface import wants_color

    text = rule_markdown(rule)
    if not wants_color(stream, color):
        stream.write(text.encode("utf-8"))
        return
    import io

    from rich.console import Console
    from rich.markdown import Markdown

    wrapper = io.TextIOWrapper(stream, encoding="utf-8", write_through=True)
    Console(file=wrapper, force_terminal=True).print(Markdown(text))
    wrapper.flush()
    wrapper.detach()


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
    """``rules --check``: run :func:`jsoncontract.business.rules.check_rules` and render it."""
    from jsoncontract.business import cost_budget as budget_of
    from jsoncontract.business.rules import check_rules
    from jsoncontract.cli.options import exit_code, tool_paths
    from jsoncontract.config import load_config
    from jsoncontract.errors import UsageError
    from jsoncontract.reporters import RULES_CHECK_REPORTERS, ReportOptions
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
        RULES_CHECK_REPORTERS[fmt](stream, options).close(report)
    worst = report.worst()
    return exit_code(worst.value if worst else None, threshold)
