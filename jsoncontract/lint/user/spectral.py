"""Spectral rulesets (``lint --ruleset FILE``): the rules people already write for Spectral,
run over tool files.

A ruleset is YAML or JSON, read as Spectral 6 reads it (``@stoplight/spectral-core``):
``rules`` by name, each with ``given`` (a JSONPath, or a list of them, over the whole file:
``$`` is the file's root), ``then`` (one or a list of ``field``, ``function``,
``functionOptions``), ``severity`` (``error``, ``warn``, ``info``, ``hint``, ``off``, or 0 to
3; ``warn`` when left out), ``message`` (with ``{{error}}``, ``{{property}}``, ``{{path}}``,
``{{value}}``, ``{{description}}``), ``description`` and ``recommended``; ``extends`` of
local ruleset files (a path, or ``[path, "all" | "recommended" | "off"]``), whose rules a
later one overrides or switches on and off (``name: off``, ``name: false``); ``aliases``
(``#Name`` in a ``given``).

What Spectral runs as JavaScript, or fetches, is refused when the ruleset loads, with a line
saying so: custom functions (``functions``, ``functionsDir``, or a ``function`` that is not a
core one), ``extends`` of a URL, a package or Spectral's own ``spectral:oas``/
``spectral:asyncapi``, and ``#{{...}}`` message expressions other than ``print(...)``. So is
what would select nothing in a tool file: ``formats``, ``overrides``, aliases by format.

Rules run over the file as written (Spectral's ``resolved: false``; a path through a
``$ref`` is not followed). A finding's code is the rule's name, and its pointer is where
Spectral puts it: the match plus the ``field`` as far as it exists, the first element out of
order for ``alphabetical``, the match plus the instance path for ``schema``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Final

from jsoncontract.errors import ConfigError
from jsoncontract.lint.rule import FileRule, Issue
from jsoncontract.lint.user import UserRule, make_rule
from jsoncontract.lint.user.functions import FUNCTIONS, UNDEFINED, Result, print_value
from jsoncontract.model import Severity
from jsoncontract.pointer import escape_pointer_token

if TYPE_CHECKING:
    from jsoncontract.lint.context import FileCtx, ToolCtx
    from jsoncontract.lint.user.jsonpath import JsonPath, Tokens

#: Spectral's severities: name or number -> jsoncontract's (``None``: off).
SEVERITIES: Final[dict[Any, Severity | None]] = {
    "error": Severity.ERROR,
    "warn": Severity.WARNING,
    "info": Severity.INFO,
    "hint": Severity.INFO,
    "off": None,
    0: Severity.ERROR,
    1: Severity.WARNING,
    2: Severity.INFO,
    3: Severity.INFO,
    -1: None,
}
#: What a rule may hold, besides ``x-`` extensions.
_RULE_KEYS: Final = frozenset(
    {
        "given", "then", "severity", "message", "description", "recommended", "resolved",
        "documentationUrl", "tags", "type", "extensions", "formats",
    }
)  # fmt: skip
#: What a ruleset may hold.
_RULESET_KEYS: Final = frozenset(
    {
        "rules", "extends", "aliases", "description", "documentationUrl", "formats",
        "functions", "functionsDir", "overrides", "parserOptions",
    }
)  # fmt: skip
_ALIAS: Final = re.compile(r"^#([A-Za-z0-9_-]+)")
_EVALUATED: Final = re.compile(r"#\{\{([^}\n]+)\}\}")
_PLAIN: Final = re.compile(r"\{\{([^}\n]+)\}\}")
_PRINT: Final = re.compile(r"""\s*print\(\s*(["'])(\w+)\1\s*\)\s*""")


@dataclass(slots=True)
class _Then:
    field: str | None
    function: str
    options: Any


@dataclass(slots=True)
class _Definition:
    """A rule as the rulesets leave it (before it runs): Spectral's ``Rule``."""

    name: str
    source: str
    given: list[JsonPath]
    then: list[_Then]
    severity: Severity | None = Severity.WARNING
    message: str | None = None
    description: str | None = None
    recommended: bool = True
    enabled: bool = True
    raw: dict[str, Any] = field(default_factory=dict)


class SpectralRule(UserRule, FileRule):
    """A rule of a Spectral ruleset, run over each tool file."""

    given: ClassVar[tuple[JsonPath, ...]]
    then: ClassVar[tuple[_Then, ...]]
    message: ClassVar[str | None] = None
    description: ClassVar[str | None] = None

    def check(self, file: FileCtx, active: frozenset[str]) -> Iterator[Issue]:
        document = file.document
        seen: set[tuple[str, str]] = set()
        for given in self.given:
            if not isinstance(document, dict | list) and given.text != "$":
                continue
            for tokens, value in given.find(document):
                for then in self.then:
                    for pointer, text in self._node(document, tokens, value, then):
                        if (pointer, text) in seen:
                            continue
                        seen.add((pointer, text))
                        yield Issue(text, pointer, tool=_owner(file, pointer))

    def _node(
        self, document: Any, tokens: Tokens, value: Any, then: _Then
    ) -> Iterator[tuple[str, str]]:
        function = FUNCTIONS[then.function].run
        for target_path, target in _targets(value, then.field):
            path = (*tokens, *target_path)
            for result in function(target, then.options, path):
                yield self._located(document, result, path)

    def _located(self, document: Any, result: Result, path: Tokens) -> tuple[str, str]:
        wanted = result.path if result.path is not None else path
        closest, value = _closest(document, wanted)
        if len(wanted) > len(closest):
            prop = _dotted(wanted[len(closest) - 1 :] if closest else wanted[-1:])
        else:
            prop = str(closest[-1]) if closest else ""
        pointer = "".join("/" + escape_pointer_token(t) for t in closest)
        variables: dict[str, Any] = {
            "property": prop,
            "error": result.message,
            "path": "#" + pointer,
            "description": self.description,
            "value": value,
        }
        text = render(result.message, variables)
        variables["error"] = text
        if self.message is not None:
            text = render(self.message, variables)
        elif self.description is not None:
            text = self.description
        return pointer, text.strip()


def _targets(value: Any, at: str | None) -> list[tuple[Tokens, Any]]:
    """Spectral's ``getLintTargets``: the values a ``then`` looks at inside a match."""
    if at is None or not isinstance(value, dict | list):
        return [((), value)]
    if at == "@key":
        keys: list[str | int] = list(value) if isinstance(value, dict) else list(range(len(value)))
        found: list[tuple[Tokens, Any]] = [((k,), str(k)) for k in keys]
    elif at.startswith("$"):
        from jsoncontract.lint.user.jsonpath import parse

        found = list(parse(at).find(value))
    else:
        tokens = tuple(_lodash_path(at))
        found = [(tokens, _lodash_get(value, tokens))]
    return found or [((), UNDEFINED)]


def _lodash_path(text: str) -> list[str]:
    """lodash's ``toPath``: ``a.b[0]['c.d']`` -> ``a``, ``b``, ``0``, ``c.d``."""
    out: list[str] = []
    for match in re.finditer(
        r"""[^.[\]]+|\[(?:([^"'][^[]*)|(["'])((?:(?!\2)[^\\]|\\.)*?)\2)\]|(?=(?:\.|\[\])(?:\.|\[\]|$))""",
        text,
    ):
        if match.group(3) is not None:
            out.append(re.sub(r"\\(\\)?", r"\1", match.group(3)))
        elif match.group(1) is not None:
            out.append(match.group(1).strip())
        else:
            out.append(match.group(0))
    return out


def _lodash_get(value: Any, tokens: Tokens) -> Any:
    for token in tokens:
        if isinstance(value, dict) and str(token) in value:
            value = value[str(token)]
        elif isinstance(value, list) and str(token).isdigit() and int(token) < len(value):
            value = value[int(token)]
        else:
            return UNDEFINED
    return value


def _closest(document: Any, tokens: Tokens) -> tuple[Tokens, Any]:
    """The longest start of ``tokens`` that exists in ``document``, and its value (Spectral
    reports a missing field at its closest existing parent)."""
    found: list[str | int] = []
    value = document
    for token in tokens:
        if isinstance(value, dict) and str(token) in value:
            value = value[str(token)]
            found.append(str(token))
        elif isinstance(value, list) and str(token).isdigit() and int(token) < len(value):
            value = value[int(token)]
            found.append(int(token))
        else:
            break
    return tuple(found), value


def _dotted(tokens: Tokens) -> str:
    """Spectral's dot notation of a path (``a.b[0]['c d']``)."""
    out = ""
    for index, token in enumerate(tokens):
        text = str(token)
        if isinstance(token, int) or (text and _numeric(text)):
            out += f"[{text}]"
        elif text == "":
            out += "['']"
        elif re.search(r"\s", text):
            out += f"['{text}']"
        else:
            out += ("." if index else "") + text
    return out


def _numeric(text: str) -> bool:
    from jsoncontract.lint.user.jsonpath import js_number

    return js_number(text) == js_number(text)


def _owner(file: FileCtx, pointer: str) -> ToolCtx | None:
    best: ToolCtx | None = None
    for tool in file.tools:
        base = tool.pointer
        if (pointer == base or pointer.startswith(base + "/") or base == "") and (
            best is None or len(base) > len(best.pointer)
        ):
            best = tool
    return best


def render(template: str, variables: Mapping[str, Any]) -> str:
    """A message with Spectral's placeholders filled in: ``{{name}}`` and
    ``#{{print("name")}}``."""

    def evaluated(match: re.Match[str]) -> str:
        call = _PRINT.fullmatch(match.group(1))
        assert call is not None  # checked when the rule loaded
        name = call.group(2)
        if name == "property":
            prop = variables.get("property")
            return f'"{prop}" property ' if prop not in (None, "") else "The document "
        if name == "value":
            return print_value(variables.get("value", UNDEFINED))
        found = variables.get(name)
        return "" if found is None else _js_string(found)

    def plain(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in variables:
            return ""
        return _js_string(variables[name])

    return _PLAIN.sub(plain, _EVALUATED.sub(evaluated, template))


def _js_string(value: Any) -> str:
    """JavaScript's ``String(value)`` of a JSON value."""
    import json

    if value is UNDEFINED:
        return "undefined"
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, dict):
        return "[object Object]"
    if isinstance(value, list):
        return ",".join("" if v is None else _js_string(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return value if isinstance(value, str) else json.dumps(value)


# -- loading -----------------------------------------------------------------------------------


def spectral_rules(path: Path) -> list[UserRule]:
    """The enabled rules of the ruleset at ``path`` (its ``extends`` merged in).

    Raises:
        ConfigError: what Spectral would refuse, and what jsoncontract refuses (named).
        InputError: the ruleset or a file it extends cannot be read.
    """
    rules = _Loader().load(path.resolve(), "recommended", explicit=False, stack=[])
    out: list[UserRule] = []
    for rule in rules.values():
        if not rule.enabled or rule.severity is None:
            continue
        summary = rule.description or rule.message or f"Spectral rule {rule.name}"
        summary = " ".join(summary.replace("{{", "").replace("}}", "").split())
        out.append(
            make_rule(
                SpectralRule,
                code=rule.name,
                summary=summary.rstrip("."),
                severity=rule.severity,
                origin=rule.source,
                definition=_definition(rule),
                given=tuple(rule.given),
                then=tuple(rule.then),
                message=rule.message,
                description=rule.description,
            )
        )
    return out


def _definition(rule: _Definition) -> str:
    import json

    return "```json\n" + json.dumps(rule.raw, indent=2, default=str) + "\n```"


class _Loader:
    def load(
        self, path: Path, severity: str, *, explicit: bool, stack: list[Path]
    ) -> dict[str, _Definition]:
        from jsoncontract._files import load_document

        label = str(path)
        document, _ = load_document(path)
        if not isinstance(document, dict):
            raise ConfigError("a Spectral ruleset is an object (rules, extends...)", file=label)
        self._refuse(document, label)
        aliases = self._aliases(document.get("aliases"), label)
        rules: dict[str, _Definition] = {}
        stack = [*stack, path]
        for item in _listed(document.get("extends")):
            target, level = self._extension(item, label)
            resolved = (path.parent / target).resolve()
            if resolved in stack:
                continue  # Spectral leaves out a ruleset that extends itself
            inherited = self.load(resolved, level, explicit=isinstance(item, list), stack=stack)
            for rule in inherited.values():
                if explicit:
                    rule.enabled = _enabled(rule, severity)
                rules[rule.name] = rule
        own = document.get("rules") or {}
        if not isinstance(own, dict):
            raise ConfigError("rules is an object of rules by name", file=label)
        for name, value in own.items():
            where = f"{label}: rule {name!r}"
            existing = rules.get(name)
            rule = self._merge(existing, name, value, where, label, aliases)
            if existing is None:  # defined here: on as this ruleset's severity says
                rule.enabled = _enabled(rule, severity)
            rules[name] = rule
        return rules

    def _refuse(self, document: Mapping[str, Any], label: str) -> None:
        unknown = [k for k in document if k not in _RULESET_KEYS]
        if unknown:
            raise ConfigError(f"a Spectral ruleset has no {unknown[0]!r}", file=label)
        if document.get("functions") or document.get("functionsDir"):
            raise ConfigError(
                "custom JavaScript functions (functions, functionsDir) are not run by "
                "jsoncontract; use the core functions, or a [[lint.rules]] CEL rule",
                file=label,
            )
        if document.get("formats"):
            raise ConfigError(
                "formats selects OpenAPI, AsyncAPI or JSON Schema documents; a tool file is "
                "none of them, so no rule would run: remove formats",
                file=label,
            )
        if document.get("overrides"):
            raise ConfigError(
                "overrides are not supported: use [[lint.suppress]] in the project config "
                "(per tool and rule, with a reason)",
                file=label,
            )

    def _aliases(self, value: Any, label: str) -> dict[str, list[str]]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise ConfigError("aliases is an object of JSONPaths by name", file=label)
        out: dict[str, list[str]] = {}
        for name, target in value.items():
            paths = [target] if isinstance(target, str) else target
            if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
                raise ConfigError(
                    f"alias {name!r}: aliases by format (targets) are not supported; give "
                    "the JSONPaths",
                    file=label,
                )
            out[name] = paths
        return out

    def _extension(self, item: Any, label: str) -> tuple[str, str]:
        level = "recommended"
        if isinstance(item, list):
            if len(item) != 2 or item[1] not in ("all", "recommended", "off"):
                raise ConfigError(
                    "extends takes a ruleset, or [ruleset, all | recommended | off]", file=label
                )
            item, level = item
        if not isinstance(item, str) or not item:
            raise ConfigError("extends takes the paths of ruleset files", file=label)
        if item.startswith("spectral:"):
            raise ConfigError(
                f"extends {item!r}: Spectral's built-in rulesets lint OpenAPI, AsyncAPI and "
                "Arazzo documents, not tool files; extend a local file",
                file=label,
            )
        if re.match(r"^[a-z][a-z0-9+.-]*://", item, re.IGNORECASE):
            raise ConfigError(
                f"extends {item!r}: jsoncontract never fetches a ruleset; download it and "
                "extend the local file",
                file=label,
            )
        if not item.startswith((".", "/")) and not re.search(r"\.(ya?ml|json)$", item):
            raise ConfigError(
                f"extends {item!r}: a ruleset from a package is not loaded; extend its file "
                "by path",
                file=label,
            )
        return item, level

    def _merge(
        self,
        existing: _Definition | None,
        name: str,
        value: Any,
        where: str,
        label: str,
        aliases: Mapping[str, list[str]],
    ) -> _Definition:
        if isinstance(value, bool):
            rule = self._existing(existing, where)
            rule.enabled = value
            return rule
        if isinstance(value, str | int) and not isinstance(value, bool):
            rule = self._existing(existing, where)
            if value not in SEVERITIES:
                raise ConfigError(f"{where}: unknown severity {value!r}")
            rule.severity = SEVERITIES[value]
            rule.enabled = value not in ("off", -1)
            return rule
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: a rule is an object, a severity or true/false")
        if existing is None:
            for key in ("given", "then"):
                if key not in value:
                    raise ConfigError(f"{where}: the rule must have at least given and then")
            rule = _Definition(name, label, [], [])
            rule.raw = dict(value)
        else:
            rule = existing
            rule.raw = {**rule.raw, **value}
        self._fill(rule, value, where, aliases)
        if existing is not None:
            rule.enabled = True
        return rule

    def _existing(self, rule: _Definition | None, where: str) -> _Definition:
        if rule is None:
            raise ConfigError(f"{where}: cannot extend a rule no ruleset defines")
        return rule

    def _fill(
        self,
        rule: _Definition,
        value: Mapping[str, Any],
        where: str,
        aliases: Mapping[str, list[str]],
    ) -> None:
        unknown = [k for k in value if k not in _RULE_KEYS and not str(k).startswith("x-")]
        if unknown:
            raise ConfigError(f"{where}: a rule has no {unknown[0]!r}")
        if value.get("formats"):
            raise ConfigError(
                f"{where}: formats selects OpenAPI, AsyncAPI or JSON Schema documents; a tool "
                "file is none of them, so the rule would never run: remove formats"
            )
        if "severity" in value:
            level = value["severity"]
            if isinstance(level, bool) or level not in SEVERITIES:
                raise ConfigError(
                    f"{where}: unknown severity {level!r} (error, warn, info, hint, off)"
                )
            rule.severity = SEVERITIES[level]
        for key in ("message", "description"):
            if key in value:
                text = value[key]
                if not isinstance(text, str):
                    raise ConfigError(f"{where}: {key} is a string")
                if key == "message":
                    _check_message(text, where)
                setattr(rule, key, text)
        if "recommended" in value:
            if not isinstance(value["recommended"], bool):
                raise ConfigError(f"{where}: recommended is true or false")
            rule.recommended = value["recommended"]
        if "given" in value:
            rule.given = _givens(value["given"], where, aliases)
        if "then" in value:
            rule.then = [_then(item, where) for item in _listed(value["then"])]
            if not rule.then:
                raise ConfigError(f"{where}: then names at least one function")


def _enabled(rule: _Definition, severity: str) -> bool:
    return severity == "all" or (severity == "recommended" and rule.recommended)


def _listed(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _givens(value: Any, where: str, aliases: Mapping[str, list[str]]) -> list[JsonPath]:
    from jsoncontract.lint.user.jsonpath import JsonPathError, parse

    texts = _listed(value)
    if not texts or not all(isinstance(t, str) for t in texts):
        raise ConfigError(f"{where}: given is a JSONPath or a list of them")
    out: list[JsonPath] = []
    for text in texts:
        for expanded in _expand(text, where, aliases, ()):
            try:
                out.append(parse(expanded))
            except JsonPathError as exc:
                raise ConfigError(
                    f"{where}: given {text!r} is not a JSONPath jsoncontract reads: {exc}"
                ) from None
    return out


def _expand(
    text: str, where: str, aliases: Mapping[str, list[str]], seen: tuple[str, ...]
) -> list[str]:
    found = _ALIAS.match(text)
    if found is None:
        return [text]
    name = found.group(1)
    if name not in aliases or name in seen:
        why = "refers to itself" if name in seen else "is not defined in aliases"
        raise ConfigError(f"{where}: alias #{name} {why}")
    rest = text[found.end() :]
    out: list[str] = []
    for target in aliases[name]:
        out.extend(_expand(target + rest, where, aliases, (*seen, name)))
    return out


def _then(item: Any, where: str) -> _Then:
    from jsoncontract.lint.user.functions import OptionsError, check_options

    if not isinstance(item, dict):
        raise ConfigError(f"{where}: then is an object (field, function, functionOptions)")
    unknown = [k for k in item if k not in ("field", "function", "functionOptions")]
    if unknown:
        raise ConfigError(f"{where}: then has no {unknown[0]!r}")
    at = item.get("field")
    if at is not None and not isinstance(at, str):
        raise ConfigError(f"{where}: field is a string")
    if isinstance(at, str) and at.startswith("$"):
        from jsoncontract.lint.user.jsonpath import JsonPathError, parse

        try:
            parse(at)
        except JsonPathError as exc:
            raise ConfigError(
                f"{where}: field {at!r} is not a JSONPath jsoncontract reads: {exc}"
            ) from None
    name = item.get("function")
    if not isinstance(name, str):
        raise ConfigError(f"{where}: then names a function")
    if name not in FUNCTIONS:
        raise ConfigError(
            f"{where}: function {name!r} is not a Spectral core function, and custom JavaScript "
            f"functions are not run by jsoncontract (core functions: {', '.join(FUNCTIONS)})"
        )
    try:
        options = check_options(name, item.get("functionOptions"))
    except OptionsError as exc:
        raise ConfigError(f"{where}: functionOptions: {exc}") from None
    return _Then(at, name, options)


def _check_message(text: str, where: str) -> None:
    for match in _EVALUATED.finditer(text):
        if _PRINT.fullmatch(match.group(1)) is None:
            raise ConfigError(
                f"{where}: message {match.group(0)!r} evaluates JavaScript; only "
                '#{{print("property")}} and #{{print("value")}} are supported'
            )


__all__ = ["SEVERITIES", "SpectralRule", "render", "spectral_rules"]
