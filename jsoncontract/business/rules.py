"""Loading business rules files: TOML, checked against ``schemas/rules.schema.json``.

A rules file holds reference data (``[data.NAME]``) and, per tool, a list of rules
(``[[tools.NAME]]``). Loading reads every file, validates it, loads the datasets, compiles
every CEL expression (type-checked) and imports every Python rule, so anything wrong stops
the run before the first payload, with the file, line and column (exit 2). A rule for a
tool the tool set does not know is only a warning (with the closest name), because rules
files are often shared by several tool sets.
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
from jsoncontract.errors import ConfigError
from jsoncontract.model import Hop, Severity, Source
from jsoncontract.pointer import pointer_tokens

if TYPE_CHECKING:
    from jsoncontract.business._cel import CelEnvironment, Expression
    from jsoncontract.business.data import Dataset
    from jsoncontract.business.python import PythonRunner

DEFAULT_PYTHON_TIMEOUT: Final = 1.0
_MAX_RULES_BYTES: Final = 8 * 1024 * 1024


class RulesError(ConfigError):
    """A rules file, a rule or its reference data cannot be used (exit 2)."""


@dataclass(slots=True)
class Rule:
    """One compiled rule of one tool.

    ``scope`` is the JSON Pointer ``self`` is bound to (``*`` tokens match every item);
    ``field_path`` is relative to it. Exactly one of ``expression`` (CEL) and ``runner``
    (Python) is set.
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
    python_timeout: float = DEFAULT_PYTHON_TIMEOUT,
) -> RuleSet:
    """Load, validate and compile rules files.

    Arguments:
        paths: rules files (TOML).
        data: datasets declared outside the rules files (the ``[business.data]`` config).
        data_base: the directory their paths are relative to (the config file's).
        data_label: where they were declared, for messages.
        tool_names: the known tools; rules for other tools give a warning.
        python_timeout: default time limit of Python rules, in seconds.

    Raises:
        RulesError: a file is unreadable, not TOML or breaks the schema; a dataset is missing
            or unparseable; an expression does not compile; a Python rule cannot be imported.
    """
    from jsoncontract.business._cel import CelEnvironment

    parsed = [_parse(Path(p)) for p in paths]
    datasets = _load_datasets(parsed, data or {}, data_base or Path.cwd(), data_label)
    environment = CelEnvironment(datasets)
    known = list(tool_names) if tool_names is not None else None
    ruleset = RuleSet({}, datasets, environment, [p.label for p in parsed])
    for item in parsed:
        for tool, entries in item.document.get("tools", {}).items():
            if known is not None and tool not in known:
                guess = did_you_mean(tool, known)
                tip = f"; did you mean {guess!r}?" if guess else ""
                line = item.index.line(("tools", tool))
                ruleset.warnings.append(
                    f"{item.label}:{line}: rules for tool {tool!r}, which no tools file "
                    f"defines{tip} (its {len(entries)} rule(s) will never run)"
                )
            seen = {r.id for r in ruleset.for_tool(tool)}
            for position, entry in enumerate(entries):
                rule = _compile_rule(item, tool, position, entry, environment, python_timeout)
                if rule.id in seen:
                    raise RulesError(
                        f"rule id {rule.id!r} is used twice for tool {tool!r}; ids must be "
                        "unique per tool (they become the finding code)",
                        file=item.label,
                        line=rule.source.line,
                    )
                seen.add(rule.id)
                ruleset.rules.setdefault(tool, []).append(rule)
    return ruleset


def _parse(path: Path) -> _Parsed:
    label = str(path)
    try:
        size = path.stat().st_size
        if size > _MAX_RULES_BYTES:
            raise RulesError(f"rules file is {size} bytes; the limit is 8 MiB", file=label)
        raw = path.read_bytes()
    except FileNotFoundError:
        raise RulesError("rules file not found", file=label) from None
    except IsADirectoryError:
        raise RulesError("is a directory; name rules files (TOML)", file=label) from None
    except OSError as exc:
        raise RulesError(f"cannot read rules file: {exc.strerror or exc}", file=label) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RulesError(f"rules file is not UTF-8 (byte {exc.start})", file=label) from None
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line, column, message = _toml_error(exc)
        raise RulesError(
            f"not valid TOML: {message}", file=label, line=line, column=column
        ) from None
    index = TomlIndex(text)
    _validate(document, label, index)
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
            sources = [k for k in ("csv", "json", "sqlite", "values") if k in node]
            if "sqlite" in node and "query" not in node:
                return f"{where}: sqlite = needs query = (the SQL that reads the rows)"
            return (
                f"{where}: name exactly one source: csv =, json =, sqlite = (with query =) "
                f"or values = (found {', '.join(sources) or 'none'})"
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
    parsed: list[_Parsed], config_data: Mapping[str, Any], config_base: Path, config_label: str
) -> dict[str, Dataset]:
    from jsoncontract.business.data import load_dataset

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
            raise RulesError(
                f"dataset {name!r} is declared twice (first at {declared[name]}); give one "
                "of them another name",
                file=file,
                line=line,
            )
        declared[name] = where
        try:
            datasets[name] = load_dataset(name, spec, base=base, origin=where)
        except ConfigError as exc:
            raise RulesError(exc.message, file=file, line=line) from None
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
    python_timeout: float,
) -> Rule:
    from jsoncontract.business._cel import CelCompileError

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
            timeout=float(entry.get("timeout", python_timeout)),
            label=f"{tool}/{rule_id}",
        )
    return rule


def _cel_error(
    item: _Parsed,
    base: tuple[Any, ...],
    key: str,
    rule_id: str,
    tool: str,
    source: str,
    exc: Any,
) -> RulesError:
    """Place a CEL error in the file: the line of the ``rule =`` key plus the expression's
    own line, and the column inside the file when the expression sits on one line."""
    at = item.index.position((*base, key))
    line, column = at if at is not None else (item.index.line(base), None)
    text = item.text.splitlines()
    if at is not None and line is not None and column is not None:
        opening = text[line - 1][column - 1 : column + 2] if line - 1 < len(text) else ""
        if opening in ("'''", '"""'):
            rest = text[line - 1][column + 2 :]
            first_on_next = not rest.strip()
            line = line + exc.line - (0 if first_on_next else 1)
            column = exc.column if (first_on_next or exc.line > 1) else column + 3 + exc.column - 1
        elif exc.line == 1:
            column = column + exc.column  # one quote, then the expression
        else:  # pragma: no cover - a newline inside a one-line string is an escape
            line, column = line, None
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
    )
