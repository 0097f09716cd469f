"""``jsoncontract rules``: list the lint rules, or print one rule's documentation."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

import typer

from jsoncontract.cli.options import ColorOpt, OutputOpt, output_stream


class RulesFormat(StrEnum):
    """Formats of ``rules``."""

    text = "text"
    json = "json"


def register(app: typer.Typer) -> None:
    """Add the command to the root app."""
    app.command("rules", no_args_is_help=False)(rules_cli)


# fmt: off
def rules_cli(
    code: Annotated[str | None, typer.Argument(
        help="A rule code (JC020) or name (additional-properties-allowed).",
        show_default=False)] = None,
    *,
    profile: Annotated[list[str] | None, typer.Option(
        "--profile", "-p", help="List only the rules these profiles run (comma-separated).",
        show_default=False)] = None,
    mcp_version: Annotated[str | None, typer.Option(
        help="MCP protocol version for the mcp profile.", show_default=False)] = None,
    format: Annotated[RulesFormat, typer.Option(
        "--format", "-f", help="Output format.")] = RulesFormat.text,
    output: OutputOpt = None,
    color: ColorOpt = None,
) -> int:
    # fmt: on
    """List the lint rules, or print the documentation of one rule."""
    import orjson

    from jsoncontract.errors import UsageError
    from jsoncontract.lint.codes import NOT_LINT_RULES, REDIRECTS, all_rules, lookup
    from jsoncontract.lint.profiles import DEFAULT_MCP_VERSION
    from jsoncontract.lint.settings import check_mcp_version, parse_profiles

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
