"""``rules --format text | json``: the lint rule catalog, or one rule's documentation.

``text`` lists one rule per line (code, ``[*]`` when ``--fix`` repairs it, name, summary,
severities), or prints the documentation page of a rule or of a finding code of another
command: Markdown as is when piped, rendered on a terminal. ``json`` is
``{"version": 1, "summary": {...}, "rules": [...]}``; each rule carries its severity in every
profile, and its documentation when one was asked for (a finding code: its family,
severity, the commands that report it, and its page).

Given the report of ``rules --check`` instead, both write it as
:mod:`jsoncontract.reporters.rules_check` does (which also has its ``sarif`` and
``github`` formats).
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any, Never

import orjson

from jsoncontract.reporters.interface import Reporter
from jsoncontract.reporters.text import Line, LineWriter, Style, wants_color

if TYPE_CHECKING:
    from jsoncontract.business.rules import RulesCheck
    from jsoncontract.lint.docs import RuleListing
    from jsoncontract.lint.rule import Rule


class TextRulesReporter(Reporter[Never, "RuleListing | RulesCheck"]):
    """The rule table, documentation pages, or the ``--check`` report."""

    def close(self, listing: RuleListing | RulesCheck) -> None:
        """Write the pages asked for, or the table (or the checked rules)."""
        from jsoncontract.lint.docs import RuleListing

        if not isinstance(listing, RuleListing):
            from jsoncontract.reporters.rules_check import TextRulesCheckReporter

            TextRulesCheckReporter(self.stream, self.options).close(listing)
            return
        if listing.detail:
            from jsoncontract.codes import CATALOG, code_markdown
            from jsoncontract.lint.docs import rule_markdown

            for rule in listing.rules:
                self._page(rule_markdown(rule))
            for code in listing.codes:
                entry = CATALOG.get(code)
                assert entry is not None
                self._page(code_markdown(entry, code))
        else:
            self._table(listing.rules)

    def _table(self, rules: tuple[Rule, ...]) -> None:
        from jsoncontract.lint.docs import severities

        out = LineWriter(self.stream, self.options.color, self.options.width)
        width = max((len(r.name) for r in rules), default=4)
        lines: list[Line] = []
        for rule in rules:
            mark = "[*]" if rule.fixable else "   "
            lines.append(
                [
                    (rule.code, Style.CODE),
                    (f" {mark} ", Style.GOOD),
                    (f"{rule.name:<{width}}", "cyan"),
                    (f"  {rule.summary}", ""),
                    (f"  ({severities(rule)})", Style.DIM),
                ]
            )
        lines.append([])
        lines.append(
            [
                (f"{len(rules)} rules; [*] fixable with --fix. ", Style.DIM),
                ("jsoncontract rules CODE explains one.", Style.DIM),
            ]
        )
        out.write(lines)
        out.close()

    def _page(self, text: str) -> None:
        if not wants_color(self.stream, self.options.color):
            self.stream.write(text.encode("utf-8"))
            return
        from rich.console import Console
        from rich.markdown import Markdown

        wrapper = io.TextIOWrapper(self.stream, encoding="utf-8", write_through=True)
        Console(file=wrapper, force_terminal=True, width=self.options.width).print(Markdown(text))
        wrapper.flush()
        wrapper.detach()


class JsonRulesReporter(Reporter[Never, "RuleListing | RulesCheck"]):
    """The rules as JSON: the catalog with its redirects, or the rules asked for with their
    documentation (or the ``--check`` report)."""

    def close(self, listing: RuleListing | RulesCheck) -> None:
        """Write the report object."""
        from jsoncontract.lint.codes import NOT_LINT_RULES, REDIRECTS
        from jsoncontract.lint.docs import RuleListing, rule_markdown

        if not isinstance(listing, RuleListing):
            from jsoncontract.reporters.rules_check import JsonRulesCheckReporter

            JsonRulesCheckReporter(self.stream, self.options).close(listing)
            return

        rules = listing.rules
        body: dict[str, Any]
        if listing.detail:
            entries = [{**rule_entry(r), "documentation": rule_markdown(r)} for r in rules]
            entries += [code_entry(code) for code in listing.codes]
            body = {"version": 1, "summary": {"rules": len(entries)}, "rules": entries}
        else:
            families: dict[str, int] = {}
            for rule in rules:
                families[rule.family.value] = families.get(rule.family.value, 0) + 1
            body = {
                "version": 1,
                "summary": {"rules": len(rules), "by_family": families},
                "rules": [rule_entry(r) for r in rules],
                "redirects": REDIRECTS,
                "not_lint_rules": NOT_LINT_RULES,
            }
        self.stream.write(orjson.dumps(body, option=orjson.OPT_APPEND_NEWLINE))


def rule_entry(rule: Rule) -> dict[str, Any]:
    """One rule as the JSON report writes it."""
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


def code_entry(code: str) -> dict[str, Any]:
    """A finding code of the catalog as the JSON report writes it (with its page)."""
    from jsoncontract.codes import CATALOG, DOCS_URL, code_markdown, describe

    entry = CATALOG.get(code)
    assert entry is not None
    return {
        "code": code,
        "pattern": entry.code if entry.pattern else None,
        "family": entry.family.name,
        "summary": describe(code),
        "severity": entry.severity.value,
        "reported_by": list(entry.family.commands),
        "docs_url": f"{DOCS_URL}#{entry.anchor}",
        "documentation": code_markdown(entry, code),
    }
