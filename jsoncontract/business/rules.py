"""Loading business rules files: TOML, checked against ``schemas/rules.schema.json``.

A rules file holds reference data (``[data.NAME]``) and, per tool, a list of rules
(``[[tools.NAME]]``). Loading reads every file, validates it, loads the datasets, compiles
every CEL expression (type-checked, and checked against its tool's schema when the tools
are known: :mod:`jsoncontract.business.static`) and imports every Python rule, so anything
wrong stops the run before the first payload, with the file, line and column (exit 2). A
rule for a tool the tool set does not know is only a warning (with the closest name),
because rules files are often shared by several tool sets.

:func:`check_rules` is the same load in another mode: every problem of every file is kept
as a :class:`~jsoncontract.business.diagnostics.RuleDiagnostic` instead of stopping at the
first, and a rule for an unknown tool is an error (``jsoncontract rules --check``).
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import orjson

from jsoncontract import codes
from jsoncontract._spelling import did_you_mean
from jsoncontract.business._toml import TomlIndex
from jsoncontract.business.cost import DEFAULT_BUDGET
from jsoncontract.business.diagnostics import RuleDiagnostic
from jsoncontract.errors import ConfigError
from jsoncontract.model import Hop, Severity, Source
from jsoncontract.pointer import pointer_tokens

if TYPE_CHECKING:
    from jsoncontract.business._cel import CelEnvironment, Expression
    from jsoncontract.business.data import Dataset
    from jsoncontract.business.python import PythonRunner
    from jsoncontract.business.static import RuleTypes, ToolTypes
    from jsoncontract.tools.toolset import ToolSet

DEFAULT_PYTHON_TIMEOUT: Final = 1.0
_UNREADABLE: Final = "rules.unreadable"
_MAX_RULES_BYTES: Final = 8 * 1024 * 1024


class RulesError(ConfigError):
    """A rules file, a rule or its reference data cannot be used (exit 2).

    ``code`` is the diagnostic code ``rules --check`` reports it under
    (``rules.unreadable``: the file cannot be read at all, so it cannot be checked).
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        column: int | None = None,
        code: str = codes.RULES_INVALID,
    ) -> None:
        super().__init__(message, file=file, line=line, column=column)
        self.code = code


@dataclass(slots=True)
class Rule:
    """One compiled rule of one tool.

    ``scope`` is the JSON Pointer ``self`` is bound to (``*`` tokens match every item);
    ``field_path`` is relative to it. Exactly one of ``expression`` (CEL) and ``runner``
    (Python) is set. A rule that reads ``result`` runs only on calls whose capture holds a
    successful result with a JSON value.
    """

    id: str
    tool: str
    severity: Severity
    source: Source
    scope: str = ""
    field_path: str = ""
    message: str | None = None
    message_expression: Expression | None = None
    expression: Expression | None = None
    runner: PythonRunner | None = None
    reason: str | None = None
    hint: str | None = None
    hops: frozenset[Hop] | None = None
    scope_tokens: tuple[str, ...] = field(default=(), init=False)
    bound: bool = field(default=False, init=False)
    #: the rule (or its message) reads ``result``: it runs only on calls with a result
    reads_result: bool = field(default=False, init=False)

    def __post_init__(self) -> None:
        from jsoncontract.business._cel import scope_binds

        self.scope_tokens = tuple(pointer_tokens(self.scope))
        self.bound = scope_binds(self.scope_tokens)

    @property
    def code(self) -> str:
        """The finding code: ``business.<id>``."""
        return codes.business_code(self.id)

    @property
    def text(self) -> str:
        """What the rule says, for default messages: its expression or its function."""
        if self.expression is not None:
            return self.expression.source
        return "python rule"


@dataclass(slots=True)
class RuleSet:
    """Every loaded rule, by tool, with the environment that compiled them.

    ``warnings`` are load-time remarks that do not stop the run (a rule for an unknown
    tool); the CLI prints them on stderr.
    """

    rules: dict[str, list[Rule]]
    datasets: dict[str, Dataset]
    environment: CelEnvironment
    files: list[str]
    warnings: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return sum(len(r) for r in self.rules.values())

    def for_tool(self, name: str) -> list[Rule]:
        """The rules of one tool (empty when it has none)."""
        return self.rules.get(name, [])

    def close(self) -> None:
        """Stop the worker threads of Python rules."""
        for rules in self.rules.values():
            for rule in rules:
                if rule.runner is not None:
                    rule.runner.close()


@cache
def rules_schema() -> dict[str, Any]:
    """The JSON Schema of a rules file (published as ``jsoncontract/schemas/rules.schema.json``)."""
    path = resources.files("jsoncontract") / "schemas" / "rules.schema.json"
    schema: dict[str, Any] = orjson.loads(path.read_bytes())
    return schema


@cache
def _validator() -> Any:
    import jsonschema_rs

    return jsonschema_rs.validator_for(rules_schema())


@dataclass(slots=True)
class _Parsed:
    path: Path
    label: str
    text: str
    document: dict[str, Any]
    index: TomlIndex


def load_rules(
    paths: Iterable[str | Path],
    *,
    data: Mapping[str, Any] | None = None,
    data_base: Path | None = None,
    data_label: str = "config",
    tool_names: Iterable[str] | None = None,
    tools: ToolSet | None = None,
    python_timeout: float = DEFAULT_PYTHON_TIMEOUT,
    cost_budget: int | None = DEFAULT_BUDGET,
) -> RuleSet:
    """Load, validate and compile rules files.

    With ``tools``, each rule is also checked against its tool's input schema (fields,
    types, presence, worst-case cost); see :func:`check_rules` for the whole report.

    Arguments:
        paths: rules files (TOML).
        data: datasets declared outside the rules files (the ``[business.data]`` config).
        data_base: the directory their paths are relative to (the config file's).
        data_label: where they were declared, for messages.
        tool_names: the known tools, when no tool set is given; rules for other tools give
            a warning.
        tools: the tool set: rules for tools it lacks give a warning, the others are
            checked against their schemas.
        python_timeout: default time limit of Python rules, in seconds.
        cost_budget: the most cost units one expression may be estimated at (``None``: no
            limit).

    Raises:
        RulesError: a file is unreadable, not TOML or breaks the schema; a dataset is missing
            or unparseable; an expression does not compile or does not fit its tool's
            schema; an expression is over the cost budget; a Python rule cannot be imported.
    """
    loader = _Loader(
        tools=tools,
        tool_names=tool_names,
        budget=cost_budget,
        python_timeout=python_timeout,
        collect=False,
    )
    ruleset = loader.load(paths, data or {}, data_base or Path.cwd(), data_label)
    ruleset.warnings.extend(d.text() for d in loader.diagnostics)
    return ruleset


def check_rules(
    paths: Iterable[str | Path],
    *,
    tools: ToolSet,
    data: Mapping[str, Any] | None = None,
    data_base: Path | None = None,
    data_label: str = "config",
    python_timeout: float = DEFAULT_PYTHON_TIMEOUT,
    cost_budget: int | None = DEFAULT_BUDGET,
) -> RulesCheck:
    """Check rules files against a tool set without any traffic: every problem of every
    file, not only the first (the report of ``jsoncontract rules --check``).

    A rule for a tool the set does not define is an error here (``rules.unknown-tool``):
    the rule fell behind its catalog.

    Raises:
        RulesError: a rules file named does not exist or cannot be read (nothing to check).
    """
    loader = _Loader(
        tools=tools,
        tool_names=None,
        budget=cost_budget,
        python_timeout=python_timeout,
        collect=True,
    )
    ruleset = loader.load(paths, data or {}, data_base or Path.cwd(), data_label)
    ruleset.close()
    return RulesCheck(
        files=ruleset.files,
        diagnostics=sorted(loader.diagnostics, key=_reading_order),
        rules=len(ruleset) + loader.failed_rules,
        tools=len(loader.tools_seen),
        budget=cost_budget,
        costs=loader.costs,
    )


def _reading_order(item: RuleDiagnostic) -> tuple[str, int, int]:
    return (item.file, item.line or 0, item.column or 0)


@dataclass(frozen=True, slots=True)
class ExpressionCost:
    """The estimate of one expression of one rule."""

    file: str
    line: int | None
    tool: str
    rule: str
    key: str
    cost: int
    iterations: int

    def to_dict(self) -> dict[str, Any]:
        """As in the JSON report."""
        return {
            "file": self.file,
            "line": self.line,
            "tool": self.tool,
            "rule": self.rule,
            "expression": self.key,
            "cost": self.cost,
            "iterations": self.iterations,
        }


@dataclass(slots=True)
class RulesCheck:
    """What :func:`check_rules` found."""

    files: list[str]
    diagnostics: list[RuleDiagnostic]
    rules: int
    tools: int
    budget: int | None
    costs: list[ExpressionCost] = field(default_factory=list)

    @property
    def stale(self) -> list[RuleDiagnostic]:
        """The diagnostics that say a rule fell behind its tool (tool gone, field renamed)."""
        return [d for d in self.diagnostics if d.stale]

    def worst(self) -> Severity | None:
        """The most severe diagnostic's severity."""
        return Severity.worst(d.severity for d in self.diagnostics)

    def summary(self) -> dict[str, Any]:
        """Counts for the reports."""
        by_severity = {s.value: 0 for s in Severity}
        by_code: dict[str, int] = {}
        for item in self.diagnostics:
            by_severity[item.severity.value] += 1
            by_code[item.code] = by_code.get(item.code, 0) + 1
        return {
            "files": len(self.files),
            "tools": self.tools,
            "rules": self.rules,
            "diagnostics": len(self.diagnostics),
            "by_severity": by_severity,
            "by_code": dict(sorted(by_code.items())),
            "stale": len(self.stale),
            "cost_budget": self.budget,
        }


class _Loader:
    """Loads rules files, reporting problems as diagnostics: in load mode the first error
    is raised, in check mode (``collect``) every problem is kept and loading goes on."""

    def __init__(
        self,
        *,
        tools: ToolSet | None,
        tool_names: Iterable[str] | None,
        budget: int | None,
        python_timeout: float,
        collect: bool,
    ) -> None:
        self.tools = tools
        names = tools.names() if tools is not None else tool_names
        # no tools (a check that takes each call's tools from its capture): any name may come
        self.known = list(names) if names else None
        self.budget = budget
        self.python_timeout = python_timeout
        self.collect = collect
        self.diagnostics: list[RuleDiagnostic] = []
        self.costs: list[ExpressionCost] = []
        self.failed_rules = 0
        self.tools_seen: set[str] = set()
        self._types: dict[str, ToolTypes] = {}

    def report(self, diagnostic: RuleDiagnostic) -> None:
        """Keep a diagnostic; in load mode an error stops the load."""
        if diagnostic.severity is Severity.ERROR and not self.collect:
            who = (
                f"rule {diagnostic.rule!r} (tool {diagnostic.tool}): "
                if diagnostic.rule is not None
                else ""
            )
            hint = f"; {diagnostic.hint}" if diagnostic.hint else ""
            raise RulesError(
                who + diagnostic.message + hint,
                file=diagnostic.file,
                line=diagnostic.line,
                column=diagnostic.column,
            )
        self.diagnostics.append(diagnostic)

    def failure(self, exc: RulesError, code: str = codes.RULES_INVALID, **where: Any) -> None:
        """A problem that stops a file or a rule (raised as is in load mode)."""
        if not self.collect:
            raise exc
        self.diagnostics.append(
            RuleDiagnostic(
                code,
                Severity.ERROR,
                exc.message,
                exc.file or "?",
                exc.line,
                exc.column,
                **where,
            )
        )

    def tool_types(self, tool: str) -> ToolTypes | None:
        """The schema types of a tool the tool set defines."""
        if self.tools is None:
            return None
        found = self._types.get(tool)
        if found is None:
            contract = self.tools.get(tool)
            if contract is None:
                return None
            from jsoncontract.business.static import ToolTypes

            found = self._types[tool] = ToolTypes(contract)
        return found

    def load(
        self,
        paths: Iterable[str | Path],
        data: Mapping[str, Any],
        data_base: Path,
        data_label: str,
    ) -> RuleSet:
        from jsoncontract.business._cel import CelEnvironment

        parsed: list[_Parsed] = []
        for path in paths:
            try:
                parsed.append(_parse(Path(path)))
            except RulesError as exc:
                if not self.collect or exc.code == _UNREADABLE:
                    raise
                self.failure(exc)
        datasets = _load_datasets(parsed, data, data_base, data_label, self)
        environment = CelEnvironment(datasets)
        ruleset = RuleSet({}, datasets, environment, [p.label for p in parsed])
        for item in parsed:
            for tool, entries in item.document.get("tools", {}).items():
                self.tools_seen.add(tool)
                self._unknown_tool(item, tool, entries)
                seen = {r.id for r in ruleset.for_tool(tool)}
                for position, entry in enumerate(entries):
                    try:
                        rule = _compile_rule(item, tool, position, entry, environment, self)
                    except RulesError as exc:
                        self.failed_rules += 1
                        self.failure(exc, exc.code, tool=tool, rule=entry.get("id"))
                        continue
                    if rule.id in seen:
                        self.failed_rules += 1
                        self.failure(
                            RulesError(
                                f"rule id {rule.id!r} is used twice for tool {tool!r}; ids must "
                                "be unique per tool (they become the finding code)",
                                file=item.label,
                                line=rule.source.line,
                            ),
                            tool=tool,
                            rule=rule.id,
                        )
                        continue
                    seen.add(rule.id)
                    ruleset.rules.setdefault(tool, []).append(rule)
        return ruleset

    def _unknown_tool(self, item: _Parsed, tool: str, entries: list[Any]) -> None:
        known = self.known
        if known is None or tool in known:
            return
        guess = did_you_mean(tool, known)
        tip = f"; did you mean {guess!r}?" if guess else ""
        self.report(
            RuleDiagnostic(
                codes.RULES_UNKNOWN_TOOL,
                Severity.ERROR if self.collect else Severity.WARNING,
                f"rules for tool {tool!r}, which no tools file defines{tip} (its "
                f"{len(entries)} rule(s) will never run)",
                item.label,
                item.index.line(("tools", tool)),
                tool=tool,
                subject=tool,
                suggestion=guess,
            )
        )


def _parse(path: Path) -> _Parsed:
    label = str(path)
    try:
        size = path.stat().st_size
        if size > _MAX_RULES_BYTES:
            raise RulesError(
                f"rules file is {size} bytes; the limit is 8 MiB", file=label, code=_UNREADABLE
            )
        with path.open("rb") as stream:  # a device or a pipe has no size: read to the limit
            raw = stream.read(_MAX_RULES_BYTES + 1)
        if len(raw) > _MAX_RULES_BYTES:
            raise RulesError("rules file is over the 8 MiB limit", file=label, code=_UNREADABLE)
    except FileNotFoundError:
        raise RulesError("rules file not found", file=label, code=_UNREADABLE) from None
    except IsADirectoryError:
        raise RulesError(
            "is a directory; name rules files (TOML)", file=label, code=_UNREADABLE
        ) from None
    except OSError as exc:
        raise RulesError(
            f"cannot read rules file: {exc.strerror or exc}", file=label, code=_UNREADABLE
        ) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RulesError(f"rules file is not UTF-8 (byte {exc.start})", file=label) from None
    try:
        document = tomllib.loads(text)
        index = TomlIndex(text)
        _validate(document, label, index)
    except tomllib.TOMLDecodeError as exc:
        line, column, message = _toml_error(exc)
        raise RulesError(
            f"not valid TOML: {message}", file=label, line=line, column=column
        ) from None
    except RecursionError:
        raise RulesError("rules file is nested too deeply to read", file=label) from None
    return _Parsed(path, label, text, document, index)


def _toml_error(exc: tomllib.TOMLDecodeError) -> tuple[int | None, int | None, str]:
    line = getattr(exc, "lineno", None)
    column = getattr(exc, "colno", None)
    message = str(getattr(exc, "msg", "") or exc)
    if line is None:
        import re

        found = re.search(r"\(at line (\d+), column (\d+)\)", message)
        if found:
            line, column = int(found.group(1)), int(found.group(2))
            message = message[: found.start()].strip()
    return line, column, message


def _validate(document: dict[str, Any], label: str, index: TomlIndex) -> None:
    errors = list(_validator().iter_errors(document))
    if not errors:
        return
    error = max(errors, key=lambda e: len(list(e.instance_path)))
    path = tuple(error.instance_path)
    line = index.line(path)
    if error.kind.name == "additionalProperties":
        unexpected = error.kind.as_dict().get("unexpected") or [None]
        line = index.line((*path, unexpected[0])) or line
    raise RulesError(_explain(error, document, path, rules_schema()), file=label, line=line)


def _where(path: tuple[Any, ...]) -> str:
    if len(path) >= 3 and path[0] == "tools":
        return f"rule {path[2] + 1} of tool {path[1]!r}"
    if len(path) >= 2 and path[0] == "data":
        return f"dataset {path[1]!r}"
    return "top level"


def _explain(error: Any, document: Any, path: tuple[Any, ...], schema: dict[str, Any]) -> str:
    """A message a person can act on, for the first schema error."""
    node: Any = document
    for token in path:
        node = node[token]
    where = _where(path[:3] if path and path[0] == "tools" else path[:2])
    kind = error.kind.name
    details = error.kind.as_dict()
    key = path[-1] if path else None
    if kind == "additionalProperties":
        unexpected = details.get("unexpected", ["?"])[0]
        allowed = _allowed_keys(path, schema)
        guess = did_you_mean(str(unexpected), allowed)
        tip = f"; did you mean {guess!r}?" if guess else f" (known keys: {', '.join(allowed)})"
        return f"{where}: unknown key {unexpected!r}{tip}"
    if kind == "oneOf" and isinstance(node, dict):
        if len(path) >= 3 and path[0] == "tools":
            return (
                f"{where}: a rule needs exactly one of rule = (a CEL expression) or "
                "python = (module:function)"
            )
        if len(path) >= 2 and path[0] == "data":
            sources = [k for k in ("csv", "json", "yaml", "sqlite", "values") if k in node]
            if "sqlite" in node and "query" not in node:
                return f"{where}: sqlite = needs query = (the SQL that reads the rows)"
            return (
                f"{where}: name exactly one source: csv =, json =, yaml =, sqlite = (with "
                f"query =) or values = (found {', '.join(sources) or 'none'})"
            )
    if kind == "type" and len(path) == 2 and path[0] == "tools":
        return (
            f"tools.{path[1]} must be a list of rules: write [[tools.{path[1]}]] (double "
            "brackets) above each rule"
        )
    if kind == "type" and len(path) == 2 and path[0] == "data":
        return (
            f"dataset {path[1]!r} must be a table such as [data.{path[1]}] with csv = ..., "
            "json = ..., sqlite = ... or values = [...]"
        )
    if kind == "required":
        return f"{where}: missing {details.get('property', '?')!r}"
    if kind == "pattern" and key == "id":
        return (
            f"{where}: id {node!r} must be lower case letters, digits, '-', '_' or '.', "
            "starting with a letter or digit (it becomes the code business.<id>)"
        )
    if kind == "pattern" and key == "python":
        return f"{where}: python = {node!r} must look like 'module:function'"
    if kind == "pattern" and key in ("scope", "fieldPath"):
        return f"{where}: {key} {node!r} must be a JSON Pointer ('' or starting with '/')"
    label = f"{key}" if isinstance(key, str) else "value"
    return f"{where}: {label}: {error.message}"


def _allowed_keys(path: tuple[Any, ...], schema: dict[str, Any]) -> list[str]:
    defs = schema["$defs"]
    if len(path) >= 3 and path[0] == "tools":
        return list(defs["rule"]["properties"])
    if len(path) >= 2 and path[0] == "data":
        return list(defs["dataset"]["properties"])
    return list(schema["properties"])


def _load_datasets(
    parsed: list[_Parsed],
    config_data: Mapping[str, Any],
    config_base: Path,
    config_label: str,
    loader: _Loader,
) -> dict[str, Dataset]:
    from jsoncontract.business.data import Dataset, load_dataset

    datasets: dict[str, Dataset] = {}
    declared: dict[str, str] = {}
    sources: list[tuple[str, Mapping[str, Any], Path, str, int | None]] = []
    if config_data:
        _check_config_data(config_data, config_label)
        sources.extend((n, s, config_base, config_label, None) for n, s in config_data.items())
    for item in parsed:
        for name, spec in item.document.get("data", {}).items():
            sources.append(
                (name, spec, item.path.parent, item.label, item.index.line(("data", name)))
            )
    for name, spec, base, file, line in sources:
        where = f"{file}:{line}" if line is not None else file
        if name in declared:
            loader.failure(
                RulesError(
                    f"dataset {name!r} is declared twice (first at {declared[name]}); give "
                    "one of them another name",
                    file=file,
                    line=line,
                )
            )
            continue
        declared[name] = where
        try:
            datasets[name] = load_dataset(name, spec, base=base, origin=where)
        except ConfigError as exc:
            loader.failure(RulesError(exc.message, file=file, line=line))
            # an empty stand-in, so that the expressions naming it still compile
            datasets[name] = Dataset(name, frozenset(), None, where)
    return datasets


def _check_config_data(data: Mapping[str, Any], label: str) -> None:
    """Config datasets have the same shape as a rules file's ``[data]``."""
    wrapper = {"data": dict(data)}
    for error in _validator().iter_errors(wrapper):
        path = tuple(error.instance_path)
        message = _explain(error, wrapper, path, rules_schema())
        raise RulesError(f"[business.data] {message}", file=label)


def _compile_rule(
    item: _Parsed,
    tool: str,
    position: int,
    entry: dict[str, Any],
    environment: CelEnvironment,
    loader: _Loader,
) -> Rule:
    from jsoncontract.business._cel import CelCompileError, reads

    base = ("tools", tool, position)
    line = item.index.line(base)
    rule_id = entry["id"]
    if rule_id == "idempotency" or rule_id.startswith("idempotency."):
        raise RulesError(
            f"rule id {rule_id!r} is reserved: business.idempotency.* are the trace-level "
            "checks; choose another id",
            file=item.label,
            line=item.index.line((*base, "id")),
        )
    if "python" in entry:
        for key in ("scope", "messageExpression"):
            if key in entry:
                raise RulesError(
                    f"rule {rule_id!r} (tool {tool}): {key} applies to CEL rules; a Python "
                    "rule receives the whole arguments and returns its own messages and paths",
                    file=item.label,
                    line=item.index.line((*base, key)),
                )
    hops = entry.get("hops")
    rule = Rule(
        id=rule_id,
        tool=tool,
        severity=Severity(entry.get("severity", "error")),
        source=Source(item.label, line),
        scope=entry.get("scope", ""),
        field_path=entry.get("fieldPath", ""),
        message=entry.get("message"),
        reason=entry.get("reason"),
        hint=entry.get("hint"),
        hops=frozenset(Hop(h) for h in hops) if hops else None,
    )
    types = _rule_types(item, base, rule, loader)
    for key in ("rule", "messageExpression"):
        source = entry.get(key)
        if source is None:
            continue
        try:
            expression = environment.compile(source, rule.scope_tokens)
        except CelCompileError as exc:
            raise _cel_error(item, base, key, rule_id, tool, source, exc) from None
        if key == "rule":
            if expression.result_type not in ("BOOL", "DYN"):
                raise _type_error(item, base, key, rule_id, tool, expression, "a bool")
            rule.expression = expression
        else:
            if expression.result_type not in ("STRING", "DYN"):
                raise _type_error(item, base, key, rule_id, tool, expression, "a string")
            rule.message_expression = expression
        if types is not None:
            _check_against_schema(item, base, key, rule, expression, types, environment, loader)
        if reads(expression, "result"):
            rule.reads_result = True
    target = entry.get("python")
    if target is not None:
        from jsoncontract.business.python import PythonRunner, import_function

        try:
            function = import_function(target, near=item.path.parent)
        except ConfigError as exc:
            raise RulesError(
                f"rule {rule_id!r} (tool {tool}): {exc.message}",
                file=item.label,
                line=item.index.line((*base, "python")),
            ) from None
        rule.runner = PythonRunner(
            function,
            timeout=float(entry.get("timeout", loader.python_timeout)),
            label=f"{tool}/{rule_id}",
        )
    return rule


def _rule_types(
    item: _Parsed, base: tuple[Any, ...], rule: Rule, loader: _Loader
) -> RuleTypes | None:
    """The variables of a rule typed from its tool's schema (``None`` when the tool is not
    in the tool set); reports a scope or fieldPath the schema cannot have."""
    from jsoncontract.business.celtypes import scope_type

    tool_types = loader.tool_types(rule.tool)
    if tool_types is None:
        return None
    types, scoped = tool_types.for_scope(rule.scope_tokens, rule.bound or not rule.scope_tokens)
    if scoped.missing is not None:
        guess = did_you_mean(scoped.missing, scoped.options) if scoped.options else None
        tip = f"; did you mean {guess!r}?" if guess else ""
        at = "/" + "/".join(rule.scope_tokens[: scoped.at])
        line, column = item.index.position((*base, "scope")) or (rule.source.line, None)
        loader.report(
            RuleDiagnostic(
                codes.RULES_UNKNOWN_FIELD,
                Severity.ERROR,
                f"scope {rule.scope!r}: {rule.tool}'s input schema has no "
                f"{scoped.missing!r} at {at if at != '/' else 'the top level'}{tip} (the rule "
                "would never run)",
                item.label,
                line,
                column,
                tool=rule.tool,
                rule=rule.id,
                subject=rule.scope,
                suggestion=guess,
            )
        )
        return types
    if rule.field_path:
        tokens = tuple(pointer_tokens(rule.field_path))
        pointed = scope_type(scoped.type, tokens) if scoped.type.kind.value != "dyn" else None
        if pointed is not None and pointed.missing is not None:
            guess = did_you_mean(pointed.missing, pointed.options) if pointed.options else None
            tip = f"; did you mean {guess!r}?" if guess else ""
            line, column = item.index.position((*base, "fieldPath")) or (rule.source.line, None)
            loader.report(
                RuleDiagnostic(
                    codes.RULES_FIELD_PATH,
                    Severity.WARNING,
                    f"fieldPath {rule.field_path!r}: the schema has no {pointed.missing!r} "
                    f"there, so findings would point at nothing{tip}",
                    item.label,
                    line,
                    column,
                    tool=rule.tool,
                    rule=rule.id,
                    subject=rule.field_path,
                    suggestion=guess,
                )
            )
    return types


def _check_against_schema(
    item: _Parsed,
    base: tuple[Any, ...],
    key: str,
    rule: Rule,
    expression: Expression,
    types: RuleTypes,
    environment: CelEnvironment,
    loader: _Loader,
) -> None:
    from jsoncontract.business.celast import line_column
    from jsoncontract.business.static import check_expression

    outcome = check_expression(
        expression,
        types,
        environment.datasets,
        wanted="bool" if key == "rule" else "string",
        budget=loader.budget,
    )
    if outcome.cost is not None:
        loader.costs.append(
            ExpressionCost(
                item.label,
                item.index.line((*base, key)),
                rule.tool,
                rule.id,
                key,
                outcome.cost,
                outcome.iterations or 0,
            )
        )
    for problem in outcome.problems:
        line_in, column_in = line_column(expression.source, problem.offset)
        line, column = _place(item, base, key, line_in, column_in)
        loader.report(
            RuleDiagnostic(
                codes.RULES_PROBLEMS[problem.code],
                problem.severity,
                problem.message if key == "rule" else f"{key}: {problem.message}",
                item.label,
                line,
                column,
                tool=rule.tool,
                rule=rule.id,
                hint=problem.hint,
                subject=problem.subject,
                suggestion=problem.suggestion,
            )
        )


def _place(
    item: _Parsed, base: tuple[Any, ...], key: str, line_in: int, column_in: int
) -> tuple[int | None, int | None]:
    """The line and column in the file of a position inside the expression of ``key``: the
    line of the ``key =`` plus the expression's own line, and the column inside the file
    when the expression sits on one line."""
    at = item.index.position((*base, key))
    line, column = at if at is not None else (item.index.line(base), None)
    text = item.text.splitlines()
    if at is not None and line is not None and column is not None:
        opening = text[line - 1][column - 1 : column + 2] if line - 1 < len(text) else ""
        if opening in ("'''", '"""'):
            rest = text[line - 1][column + 2 :]
            first_on_next = not rest.strip()
            line = line + line_in - (0 if first_on_next else 1)
            column = column_in if (first_on_next or line_in > 1) else column + 3 + column_in - 1
        elif line_in == 1:
            column = column + column_in  # one quote, then the expression
        else:  # pragma: no cover - a newline inside a one-line string is an escape
            column = None
    return line, column


def _cel_error(
    item: _Parsed,
    base: tuple[Any, ...],
    key: str,
    rule_id: str,
    tool: str,
    source: str,
    exc: Any,
) -> RulesError:
    """Place a CEL error in the file (see :func:`_place`)."""
    line, column = _place(item, base, key, exc.line, exc.column)
    more = f" (and {exc.more} more)" if exc.more else ""
    kind = "syntax" if "Syntax error" in exc.message else "type"
    message = exc.message.replace("Syntax error: ", "")
    spot = f"line {exc.line}, column {exc.column}" if exc.line > 1 else f"column {exc.column}"
    shown = " ".join(source.split())
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    return RulesError(
        f"rule {rule_id!r} (tool {tool}): CEL {kind} error in {key} at {spot}: "
        f"{message}{more}: {shown}",
        file=item.label,
        line=line,
        column=column,
        code=codes.RULES_SYNTAX if kind == "syntax" else codes.RULES_UNDECLARED,
    )


def _type_error(
    item: _Parsed,
    base: tuple[Any, ...],
    key: str,
    rule_id: str,
    tool: str,
    expression: Expression,
    wanted: str,
) -> RulesError:
    found = expression.result_type.lower()
    return RulesError(
        f"rule {rule_id!r} (tool {tool}): {key} must give {wanted}, but it gives {found}: "
        f"{expression.source}",
        file=item.label,
        line=item.index.line((*base, key)),
        code=codes.RULES_RESULT_TYPE,
    )
