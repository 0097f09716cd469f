"""Rule documentation: Markdown pages generated from the rules' docstrings.

``docs/rules/<CODE>.md`` and ``docs/rules/README.md`` are generated, never edited: a test
fails when they drift from the code. Regenerate them with::

    python -m jsoncontract.lint.docs docs/rules

``jsoncontract rules CODE`` prints the same page in the terminal (and, for the code of a
finding of another command, its entry in :mod:`jsoncontract.codes`: :func:`listing`), and
SARIF reports carry it as each rule's help.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from jsoncontract.codes import PROJECT_URL, RuleMeta
from jsoncontract.lint.codes import NOT_LINT_RULES, REDIRECTS, all_rules
from jsoncontract.lint.profiles import (
    DEFAULT_MCP_VERSION,
    ENGINE_PROFILES,
    MCP_VERSIONS,
    PROFILE_HELP,
    PROFILES,
)
from jsoncontract.lint.rule import ALL, Rule

DOCS_URL: Final = PROJECT_URL + "/blob/main/docs/rules/{code}.md"


def severities(rule: Rule) -> str:
    """``warning; error in openai-strict, anthropic-strict`` (the rule's severity table)."""
    table = rule.profiles
    default = table.get(ALL)
    if default is None:
        parts: dict[str, list[str]] = {}
        for profile in (*PROFILES, *ENGINE_PROFILES):
            level = table.get(profile)
            if level is not None:
                parts.setdefault(level.value, []).append(profile)
        return "; ".join(f"{level} in {', '.join(ps)}" for level, ps in parts.items())
    overrides: dict[str, list[str]] = {}
    for profile in PROFILES:
        if profile in table and table[profile] != default:
            override = table[profile]
            overrides.setdefault(override.value if override else "off", []).append(profile)
    text = default.value
    for name, ps in overrides.items():
        text += f"; {name} in {', '.join(ps)}"
    return text


def profiles_of(rule: Rule) -> list[str]:
    """The profiles that run the rule (the engine profiles where it names them)."""
    table = rule.profiles
    default = table.get(ALL)
    named = [p for p in ENGINE_PROFILES if table.get(p) is not None]  # by name only
    return [p for p in PROFILES if (table.get(p, default)) is not None] + named


@dataclass(frozen=True, slots=True)
class RuleListing:
    """What ``jsoncontract rules`` shows: catalog rules in a table, or (``detail``) each
    with its whole documentation page, then the pages of the finding codes asked for
    (``codes``: codes of :data:`jsoncontract.codes.CATALOG`)."""

    rules: tuple[Rule, ...]
    detail: bool = False
    codes: tuple[str, ...] = ()


def listing(
    word: str | None = None,
    *,
    profiles: Sequence[str] | None = None,
    mcp_version: str | None = None,
) -> RuleListing:
    """What ``jsoncontract rules`` shows: the page of ``word`` (a lint rule's code or name,
    or any finding code of :data:`jsoncontract.codes.CATALOG`), else the lint rules of
    ``profiles`` (all of them by default).

    Raises:
        UsageError: an unknown code, profile or MCP version (with the closest one).
    """
    from jsoncontract.codes import find
    from jsoncontract.errors import UsageError
    from jsoncontract.lint.codes import lookup
    from jsoncontract.lint.settings import check_mcp_version, parse_profiles

    version = check_mcp_version(mcp_version or DEFAULT_MCP_VERSION)
    if word is not None:
        try:
            return RuleListing((lookup(word),), detail=True)
        except LookupError as exc:
            lint_error = exc.args[0]
        if _lint_like(word):
            raise UsageError(lint_error) from None
        try:
            return RuleListing((), detail=True, codes=(find(word),))
        except LookupError as exc:
            raise UsageError(exc.args[0]) from None
    rules = list(all_rules().values())
    if profiles:
        chosen = parse_profiles(profiles, origin="--profile")
        rules = [r for r in rules if r.severity_for(chosen, version)[0] is not None]
    return RuleListing(tuple(rules))


def _lint_like(word: str) -> bool:
    """Whether ``word`` reads as a lint rule (a ``JC`` code, or a kebab-case name) rather
    than as a finding code (``parse.code_fence``, ``dropped``)."""
    from jsoncontract.codes import CATALOG

    key = word.strip()
    if key.upper().startswith("JC") and key[2:].isdigit():
        return True
    return "." not in key and CATALOG.get(key.lower()) is None


def rule_meta(rule: Rule) -> RuleMeta:
    """The rule as reports describe it."""
    tags = [rule.family.value, *profiles_of(rule)]
    if rule.security_severity is not None:
        tags.insert(0, "security")
    return RuleMeta(
        code=rule.code,
        name=rule.name,
        summary=rule.summary,
        severity=rule.default_severity,
        help_markdown=rule_markdown(rule),
        help_uri=DOCS_URL.format(code=rule.code),
        tags=tuple(dict.fromkeys(tags)),
        security_severity=rule.security_severity,
        description=what_it_does(rule),
    )


def what_it_does(rule: Rule) -> str:
    """The "What it does" section of the rule's documentation as one paragraph of plain
    text (SARIF's full description), else the summary with the rule's family."""
    doc = rule.doc()
    head = "## What it does"
    if head in doc:
        body = doc.split(head, 1)[1].split("\n## ", 1)[0]
        text = " ".join(body.split()).replace("`", "")
        if text:
            return text
    return f"{rule.summary} ({rule.family.value} rules)."


def rule_markdown(rule: Rule) -> str:
    """The documentation page of one rule."""
    runs_in = profiles_of(rule)
    rows = [
        ("Code", f"`{rule.code}`"),
        ("Name", f"`{rule.name}`"),
        ("Family", rule.family.value),
        ("Severity", severities(rule)),
        ("Profiles", "every profile" if len(runs_in) == len(PROFILES) else ", ".join(runs_in)),
    ]
    if rule.mcp_versions is not None:
        versions = [v for v in MCP_VERSIONS if v in rule.mcp_versions]
        rows.append(("MCP versions", ", ".join(versions)))
    rows.append(("Fix", "available with `--fix` (where it keeps the meaning)"
                 if rule.fixable else "none"))  # fmt: skip
    rows.append(("Added", f"{rule.added} ({rule.status})"))
    table = "| | |\n|---|---|\n" + "".join(f"| {k} | {v} |\n" for k, v in rows)
    return f"# {rule.code} {rule.name}\n\n{rule.summary}.\n\n{table}\n{rule.doc()}\n"


def index_markdown() -> str:
    """``docs/rules/README.md``: every rule, the profiles, and retired codes."""
    lines = [
        "# Lint rules",
        "",
        "Generated from the rule docstrings by `python -m jsoncontract.lint.docs docs/rules`;"
        " do not edit.",
        "`jsoncontract rules` lists the same catalog, `jsoncontract rules CODE` prints a page.",
        "",
        "## Profiles",
        "",
        "| profile | target |",
        "|---|---|",
    ]
    lines.extend(f"| `{p}` | {PROFILE_HELP[p]} |" for p in PROFILES)
    lines += [
        "",
        "Every profile runs the `generic` rules and adds its own. `--mcp-version` "
        f"({', '.join(MCP_VERSIONS)}) selects the MCP rules of that protocol version.",
        "",
        "## Rules",
        "",
        "| code | name | family | severity | fix | summary |",
        "|---|---|---|---|---|---|",
    ]
    for code, rule in all_rules().items():
        fix = "yes" if rule.fixable else ""
        lines.append(
            f"| [{code}]({code}.md) | `{rule.name}` | {rule.family.value} | "
            f"{severities(rule)} | {fix} | {rule.summary} |"
        )
    lines += ["", "## Redirected codes", "", "| code | now |", "|---|---|"]
    lines.extend(f"| {old} | [{new}]({new}.md) |" for old, new in REDIRECTS.items())
    lines += [
        "",
        "## Codes that are not lint rules",
        "",
        "Some checks of the first proposal need traffic, not definitions: `jsoncontract check`",
        "runs them on captured calls. Others moved to their own command.",
        "",
        "| code | where it went |",
        "|---|---|",
    ]
    lines.extend(f"| {code} | {why} |" for code, why in NOT_LINT_RULES.items())
    return "\n".join(lines) + "\n"


def expected_pages() -> dict[str, str]:
    """File name -> content of every generated page."""
    pages = {f"{code}.md": rule_markdown(rule) for code, rule in all_rules().items()}
    pages["README.md"] = index_markdown()
    return pages


def drift(directory: Path) -> list[str]:
    """Pages that are missing, stale, or left over in ``directory``."""
    expected = expected_pages()
    out = []
    for name, content in expected.items():
        path = directory / name
        if not path.is_file() or path.read_text(encoding="utf-8") != content:
            out.append(name)
    if directory.is_dir():
        out.extend(p.name for p in sorted(directory.glob("*.md")) if p.name not in expected)
    return out


def write_docs(directory: Path) -> list[str]:
    """Regenerate every page in ``directory``; returns the names written or removed."""
    directory.mkdir(parents=True, exist_ok=True)
    changed = drift(directory)
    expected = expected_pages()
    for name in changed:
        path = directory / name
        if name in expected:
            path.write_text(expected[name], encoding="utf-8")
        else:
            path.unlink()
    return changed


def main(argv: list[str] | None = None) -> int:
    """``python -m jsoncontract.lint.docs [DIR] [--check]``."""
    args = sys.argv[1:] if argv is None else argv
    check = "--check" in args
    rest = [a for a in args if a != "--check"]
    directory = Path(rest[0] if rest else "docs/rules")
    if check:
        stale = drift(directory)
        for name in stale:
            sys.stdout.write(f"stale: {directory / name}\n")
        return 1 if stale else 0
    for name in write_docs(directory):
        sys.stdout.write(f"wrote {directory / name}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
