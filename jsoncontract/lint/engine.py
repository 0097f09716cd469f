"""The lint engine: load each file, walk each schema once, dispatch nodes to rules.

A rule runs once per node whatever the number of selected profiles; the profiles only decide
whether it runs and how severe its findings are. Node rules are dispatched by keyword and
node kind (``pattern`` rules see only nodes with a ``pattern``), which keeps a catalog of
dozens of rules near the cost of one walk.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jsoncontract import codes
from jsoncontract._files import find, read_bytes
from jsoncontract._gc import collector_paused
from jsoncontract.errors import InputError, JsoncontractError, NotThisKind, ToolLoadError
from jsoncontract.lint.context import FileCtx, Node, RunCtx, Site, ToolCtx, require_writable
from jsoncontract.lint.profiles import MCP, STRICT_PROFILES
from jsoncontract.lint.report import LintFinding, LintReport
from jsoncontract.lint.rule import FileRule, Issue, NodeRule, Rule, RunRule, ToolRule
from jsoncontract.lint.user import UserRule
from jsoncontract.lint.walk import walk
from jsoncontract.masking import masked
from jsoncontract.model import Severity
from jsoncontract.pointer import get
from jsoncontract.tools.loader import TOOL_SUFFIXES, load_tool_file

if TYPE_CHECKING:
    from jsoncontract.lint.context import LintSettings
    from jsoncontract.model import SchemaLocation

_NUMBERS = frozenset({"number", "integer"})
_KINDS = ("@object", "@string", "@number", "@array", "@property")
#: Why a finding in a YAML file is not fixable (fixes edit JSON text).
_YAML_FIX = "--fix edits JSON files; this one is YAML"
#: Node shapes remembered per route before the cache starts over.
_ROUTE_CACHE = 20_000


@dataclass(slots=True)
class _Entry:
    rule: Rule
    severity: Severity
    active: frozenset[str]
    #: ``active`` in the order of the selected profiles (what findings list)
    profiles: tuple[str, ...] = ()


@dataclass(slots=True)
class _Plan:
    """The enabled rules for one set of profiles, ready for dispatch."""

    entries: dict[str, _Entry] = field(default_factory=dict)
    #: (site kind, openapi) -> trigger -> entries
    dispatch: dict[tuple[str, bool], dict[str, list[_Entry]]] = field(default_factory=dict)
    tool: list[_Entry] = field(default_factory=list)
    file: list[_Entry] = field(default_factory=list)
    run: list[_Entry] = field(default_factory=list)
    routes: dict[tuple[str, bool], _Route] = field(default_factory=dict)

    def route(self, kind: str, openapi: bool) -> _Route:
        """The dispatcher of one kind of site."""
        route = self.routes.get((kind, openapi))
        if route is None:
            route = self.routes[(kind, openapi)] = _Route(self.dispatch.get((kind, openapi), {}))
        return route


class Linter:
    """Lints tool files against the enabled rules.

    Arguments:
        settings: profiles, selection, severities, limits and suppressions.
        rules: the catalog to draw from (default: every registered rule).
    """

    def __init__(self, settings: LintSettings, rules: Sequence[Rule] | None = None) -> None:
        from jsoncontract.lint.codes import all_rules

        self.settings = settings
        catalog = (
            list(rules) if rules is not None else [*all_rules().values(), *settings.user_rules]
        )
        selected = settings.select
        self.rules = [
            r
            for r in catalog
            if (selected is None or r.code in selected) and r.code not in settings.ignore
        ]
        self._plans: dict[frozenset[str], _Plan] = {}
        #: files found in a directory: their load errors are findings, not the end
        self._lenient: frozenset[str] = frozenset()
        self._unreadable: list[tuple[str, JsoncontractError]] = []

    # -- plans -------------------------------------------------------------------------

    def _plan(self, profiles: frozenset[str]) -> _Plan:
        plan = self._plans.get(profiles)
        if plan is not None:
            return plan
        plan = _Plan()
        ordered = [p for p in self.settings.profiles if p in profiles]
        for rule in self.rules:
            severity, active = rule.severity_for(ordered, self.settings.mcp_version)
            if severity is None:
                continue
            entry = _Entry(rule, severity, frozenset(active), tuple(active))
            plan.entries[rule.code] = entry
            if isinstance(rule, NodeRule):
                for kind in ("input", "output"):
                    if kind not in rule.sites:
                        continue
                    for openapi in (False, True):
                        if rule.openapi is not None and rule.openapi is not openapi:
                            continue
                        table = plan.dispatch.setdefault((kind, openapi), {})
                        for trigger in rule.triggers:
                            table.setdefault(trigger, []).append(entry)
            elif isinstance(rule, ToolRule):
                plan.tool.append(entry)
            elif isinstance(rule, FileRule):
                plan.file.append(entry)
            elif isinstance(rule, RunRule):
                plan.run.append(entry)
        self._plans[profiles] = plan
        return plan

    # -- running -----------------------------------------------------------------------

    def lint_paths(
        self, paths: Iterable[str | Path], *, exclude: Sequence[str] = (), lenient: bool = False
    ) -> LintReport:
        """Lint every tool file named (directories: every ``*.json``, ``*.yaml`` and
        ``*.yml`` below them), less what ``exclude`` matches.

        A file found in a directory (any file, with ``lenient``: the changed files a hook
        passes) that holds no tool definition (a ``package.json``) is skipped
        (``LintReport.skipped``); one that cannot be read or loaded is an
        ``input.unreadable`` finding, and the other files are still linted.

        Raises:
            InputError: a named file cannot be read or is not JSON.
            ToolLoadError: a named file is in no known dialect, or a definition is broken.
        """
        found = find(paths, TOOL_SUFFIXES, what="tool definition", exclude=exclude)
        lenient_files = frozenset(str(item.path) for item in found if lenient or not item.named)

        def sources() -> Iterator[tuple[str, bytes]]:
            for item in found:
                name = str(item.path)
                if name in lenient_files:
                    try:
                        data = read_bytes(item.path)
                    except InputError as exc:
                        self._unreadable.append((name, exc))
                        continue
                    yield name, data
                else:
                    yield name, read_bytes(item.path)

        self._lenient = lenient_files
        self._unreadable = []
        try:
            return self.lint_sources(sources())
        finally:
            self._lenient = frozenset()

    def lint_sources(self, sources: Iterable[tuple[str, bytes]]) -> LintReport:
        """Lint ``(file name, content)`` pairs; the library entry point for in-memory files.

        The cyclic garbage collector is paused while it runs (:mod:`jsoncontract._gc`): a
        large catalog allocates millions of short-lived nodes that hold no cycles worth
        finding.
        """
        with collector_paused():
            return self._lint_sources(sources)

    def _lint_sources(self, sources: Iterable[tuple[str, bytes]]) -> LintReport:
        settings = self.settings
        report = LintReport(
            settings.profiles, settings.mcp_version if MCP in settings.profiles else None
        )
        report.user_rules = {
            rule.code: rule.meta() for rule in self.rules if isinstance(rule, UserRule)
        }
        run = RunCtx(settings)
        out = _Collector(settings, report)
        run_plan = self._plan(frozenset(settings.profiles))
        clock = time.perf_counter
        for name, data in sources:
            started = clock()
            try:
                file = self._load(name, data)
            except (InputError, ToolLoadError) as exc:
                if name not in self._lenient:
                    raise
                if isinstance(exc, NotThisKind):
                    report.skipped.append((name, exc.message))
                else:
                    self._unreadable.append((name, exc))
                continue
            run.files.append(file)
            report.files.append(name)
            report.tools += len(file.tools)
            report.tools_by_file[name] = [tool.name for tool in file.tools]
            spent = report.tool_seconds[name] = []
            for tool in file.tools:
                begun = clock()
                self._lint_tool(tool, out)
                spent.append(clock() - begun)
            for entry in run_plan.file:
                rule = entry.rule
                assert isinstance(rule, FileRule)
                for issue in rule.check(file, entry.active):
                    out.add(entry, issue, file, issue.tool)
            report.file_seconds[name] = clock() - started
        for name, error in self._unreadable:
            report.files.append(name)
            report.findings.append(unreadable(name, error))
        self._unreadable = []
        for entry in run_plan.run:
            rule = entry.rule
            assert isinstance(rule, RunRule)
            for issue in rule.check(run, entry.active):
                owner = issue.tool
                out.add(entry, issue, owner.file if owner else run.files[0], owner)
        out.finish()
        return report

    def _load(self, name: str, data: bytes) -> FileCtx:
        file = FileCtx(name, data)
        settings = self.settings
        requested = frozenset(settings.profiles)
        contracts = load_tool_file(
            name, data=data, tool_name=settings.tool_name, positions=file.index, duplicates=True
        )
        require_writable(name, data, file.index)
        for contract in contracts:
            profiles = requested
            for profile, dialects in STRICT_PROFILES.items():
                if (
                    profile in profiles
                    and contract.dialect in dialects
                    and contract.strict is False
                ):
                    profiles = profiles - {profile}
            pointer = contract.source.pointer or ""
            tool = ToolCtx(contract, file, pointer, profiles, settings)
            tool.sites = _sites(tool)
            file.tools.append(tool)
        return file

    def _lint_tool(self, tool: ToolCtx, out: _Collector) -> None:
        plan = self._plan(tool.profiles)
        limits = self.settings.limits.schema
        for site in tool.sites:
            route = plan.route(site.kind, site.openapi)
            bool_rules = route.table.get("@bool")
            for node in walk(site, max_depth=limits.max_depth, max_nodes=limits.max_nodes):
                value = node.value
                if isinstance(value, dict):
                    if "$ref" in value:
                        site.refs.append(node)
                    if "$anchor" in value or "$id" in value:
                        _anchor(site, node)
                    if "description" in value or "title" in value:
                        site.texts.append(node)
                    found = route.entries(node, value)
                elif bool_rules:
                    found = bool_rules
                else:
                    continue
                for entry in found:
                    rule = entry.rule
                    assert isinstance(rule, NodeRule)
                    for issue in rule.check(node, entry.active):
                        out.add(entry, issue, tool.file, tool)
        for entry in plan.tool:
            rule = entry.rule
            assert isinstance(rule, ToolRule)
            for issue in rule.check(tool, entry.active):
                out.add(entry, issue, tool.file, tool)


class _Route:
    """Which node rules see which node: by its keywords and kinds, cached per shape.

    Many nodes of a catalog share a shape (the same keywords, the same kind), so the rules
    for a shape are worked out once and reused.
    """

    __slots__ = ("_cache", "table")

    def __init__(self, table: dict[str, list[_Entry]]) -> None:
        self.table = table
        self._cache: dict[tuple[Any, ...], list[_Entry]] = {}

    def entries(self, node: Node, value: dict[str, Any]) -> list[_Entry]:
        types = node.types
        named = node.prop is not None
        shape = (
            *value,
            node.is_object,
            named and "string" in types,
            named and not types.isdisjoint(_NUMBERS),
            "array" in types or "items" in value,
            named,
        )
        found = self._cache.get(shape)
        if found is None:
            if len(self._cache) > _ROUTE_CACHE:
                self._cache.clear()
            found = self._cache[shape] = self._compute(shape, len(value))
        return found

    def _compute(self, shape: tuple[Any, ...], keys: int) -> list[_Entry]:
        table = self.table
        found: list[_Entry] = list(table.get("@any", ()))
        for key in shape[:keys]:
            found.extend(table.get(key, ()))
        for flag, kind in zip(shape[keys:], _KINDS, strict=True):
            if flag:
                found.extend(table.get(kind, ()))
        return list({id(e): e for e in found}.values())


def _anchor(site: Site, node: Node) -> None:
    value = node.value
    for key in ("$anchor", "$id"):
        name = value.get(key)
        if isinstance(name, str) and name:
            site.anchors.setdefault(name.lstrip("#") if key == "$anchor" else name, node.path)


def _sites(tool: ToolCtx) -> list[Site]:
    """The tool's input and output schemas, where the loader found them in its file."""
    contract = tool.contract
    sites = [_site(tool, "input", contract.input_schema, contract.input_location)]
    if contract.output_schema is not None:
        sites.append(_site(tool, "output", contract.output_schema, contract.output_location))
    return sites


def _site(tool: ToolCtx, kind: str, schema: Any, location: SchemaLocation | None) -> Site:
    if location is None:  # made up by the loader: no place in the file
        return Site(tool, kind, schema, None)
    if not location.openapi:
        return Site(tool, kind, schema, location.pointer)
    written = get(tool.contract.definition, location.pointer[len(tool.pointer) :])
    return Site(tool, kind, schema, location.pointer, openapi=True, raw=written)


class _Collector:
    """Turns issues into located findings, applying overrides and suppressions."""

    __slots__ = ("_used", "report", "settings")

    def __init__(self, settings: LintSettings, report: LintReport) -> None:
        self.settings = settings
        self.report = report
        self._used: set[int] = set()

    def add(self, entry: _Entry, issue: Issue, file: FileCtx, tool: ToolCtx | None) -> None:
        rule = entry.rule
        settings = self.settings
        if issue.profiles is not None:
            narrowed = tuple(p for p in entry.profiles if p in issue.profiles)
            severity, profiles = rule.severity_for(narrowed, settings.mcp_version)
            if severity is None:
                return
        else:
            severity = entry.severity
            profiles = entry.profiles
        if issue.severity is not None and issue.severity.rank < severity.rank:
            severity = issue.severity
        override = settings.severities.get(rule.code)
        if override is not None:
            severity = override
        position = file.position(issue.pointer)
        line, column = position if position is not None else (None, None)
        item = LintFinding(
            rule.code,
            severity,
            masked(issue.message),  # a rule may quote a default, an example, a description
            issue.pointer,
            rule=rule.name,
            profiles=profiles,
            file=file.path,
            line=line,
            column=column,
            tool=tool.name if tool is not None else None,
            keyword=issue.keyword,
            schema_path=issue.schema_path,
            hint=None if issue.hint is None else masked(issue.hint),
            fix=issue.fix if not file.yaml else None,
            refused=_YAML_FIX if file.yaml and issue.fix is not None else issue.refused,
        )
        if settings.suppressions:
            finding = item.finding
            for index, suppression in enumerate(settings.suppressions):
                if suppression.matches(finding):
                    self._used.add(index)
                    self.report.suppressed.append((item, suppression))
                    return
        self.report.findings.append(item)

    def finish(self) -> None:
        report = self.report
        report.unused_suppressions = [
            s for i, s in enumerate(self.settings.suppressions) if i not in self._used
        ]
        report.findings.sort(key=_order)


#: The code of a file found in a directory that could not be read or loaded.
UNREADABLE = codes.INPUT_UNREADABLE


def unreadable(name: str, error: JsoncontractError) -> LintFinding:
    """A file that could not be read or loaded, as a finding on it."""
    return LintFinding(
        UNREADABLE,
        Severity.ERROR,
        error.message,
        "",
        rule="unreadable-file",
        profiles=(),
        file=name,
        line=error.line,
        column=error.column,
        hint="fix the file, or leave it out with --exclude; the other files were linted",
    )


def _order(item: LintFinding) -> tuple[Any, ...]:
    return (item.file, item.line or 0, item.column or 0, item.code)


__all__ = ["Linter", "Node"]
