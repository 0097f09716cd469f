"""``[[lint.rules]]``: a project's lint rules in CEL.

    [[lint.rules]]
    code = "write-without-idempotency-key"
    given = "$"
    expr = '''!tool.name.matches('^(create|update|delete)_')
              || 'idempotency_key' in tool.input_schema.properties'''
    severity = "error"
    message = "a write tool takes no idempotency_key"
    hint = "add a required idempotency_key string parameter"

``given`` is a JSONPath over each tool definition as written in its file (``$`` is the
tool: ``{"type": "function", "function": {...}}`` in OpenAI Chat, ``{"name": ...,
"inputSchema": ...}`` in MCP); ``expr`` is evaluated on every match, and a match where it is
false is a finding at the match. Its variables:

- ``self``: the matched value;
- ``key``: the member name (a string) or index (an int) it sits under, ``null`` for ``$``;
- ``path``: its JSON Pointer inside the tool definition;
- ``tool``: the tool as every dialect reads it: ``name``, ``description``, ``dialect``,
  ``input_schema``, ``output_schema`` and ``annotations`` (``null`` when it has none).

Expressions compile and are checked when the rules load, with the business rules' CEL
environment and checker (:mod:`jsoncontract.business.assertions`): a syntax error, an
undeclared variable, a ``tool`` field that does not exist (``tool.nme``) or a result that is
not a bool stops the run. An evaluation that fails on a value (``self.name`` on an object
without ``name``) is a finding of the rule, never a pass.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Final

from jsoncontract.errors import ConfigError
from jsoncontract.lint.rule import Issue, ToolRule
from jsoncontract.lint.user import UserRule, make_rule
from jsoncontract.model import Severity
from jsoncontract.pointer import escape_pointer_token

if TYPE_CHECKING:
    from jsoncontract.business.assertions import Assertion, Assertions
    from jsoncontract.lint.context import ToolCtx
    from jsoncontract.lint.user.jsonpath import JsonPath

#: The variables of an expression, besides ``self`` (a JSON value of any kind).
VARIABLES: Final = ("self", "key", "path", "tool")


def _environment() -> Assertions:
    from jsoncontract.business.assertions import Assertions
    from jsoncontract.business.celtypes import DYN, STRING, CelType, Field, Kind, object_of

    maybe_text = CelType(Kind.STRING, nullable=True)
    tool = object_of(
        {
            "name": Field(STRING, True),
            "description": Field(maybe_text, True),
            "dialect": Field(STRING, True),
            "input_schema": Field(DYN, True),
            "output_schema": Field(DYN, True),
            "annotations": Field(DYN, True),
        }
    )
    return Assertions({"self": DYN, "key": DYN, "path": STRING, "tool": tool})


class CelRule(UserRule, ToolRule):
    """A ``[[lint.rules]]`` rule: a JSONPath and a CEL assertion over each tool."""

    given: ClassVar[JsonPath]
    assertion: ClassVar[Assertion]
    environment: ClassVar[Assertions]
    message: ClassVar[str | None] = None
    hint: ClassVar[str | None] = None

    def check(self, tool: ToolCtx, active: frozenset[str]) -> Iterator[Issue]:
        contract = tool.contract
        view = {
            "name": contract.name,
            "description": contract.description,
            "dialect": str(contract.dialect),
            "input_schema": contract.input_schema,
            "output_schema": contract.output_schema,
            "annotations": contract.annotations,
        }
        for tokens, value in self.given.find(contract.definition):
            inside = "".join("/" + escape_pointer_token(t) for t in tokens)
            values = {
                "self": value,
                "key": tokens[-1] if tokens else None,
                "path": inside,
                "tool": view,
            }
            result, error = self.environment.evaluate(self.assertion, values)
            if result is True:
                continue
            if result is False:
                yield Issue(
                    self.message or f"{self.assertion.source} is false",
                    tool.pointer + inside,
                    hint=self.hint,
                )
                continue
            why = error if error is not None else f"it gives {_kind(result)}, not a bool"
            yield Issue(
                f"{self.code}: the expression cannot be evaluated here: {why}",
                tool.pointer + inside,
                hint="guard what a value may lack with has() (has(self.x) && self.x ...), "
                "or narrow given to the values that have it",
            )


def _kind(value: Any) -> str:
    if isinstance(value, str):
        return "a string"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return "a number"
    if value is None:
        return "null"
    if isinstance(value, list | tuple):
        return "a list"
    return "a map" if isinstance(value, dict | Mapping) else type(value).__name__


def cel_rules(entries: Sequence[Mapping[str, Any]], origin: str) -> list[UserRule]:
    """One rule per ``[[lint.rules]]`` table, compiled and checked.

    Raises:
        ConfigError: the rule's code, and what is wrong with its ``given`` or ``expr``.
    """
    from jsoncontract.business.assertions import AssertionError_
    from jsoncontract.lint.user.jsonpath import JsonPathError, parse

    environment = _environment()
    out: list[UserRule] = []
    for index, entry in enumerate(entries):
        code = str(entry["code"])
        where = f"{origin} {index + 1} ({code!r})"
        try:
            given = parse(str(entry["given"]))
        except JsonPathError as exc:
            raise ConfigError(
                f"{where}: given is not a JSONPath jsoncontract reads: {exc}"
            ) from None
        source = str(entry["expr"])
        try:
            assertion = environment.compile(source)
        except AssertionError_ as exc:
            spot = (
                f"line {exc.line}, column {exc.column}" if exc.line > 1 else f"column {exc.column}"
            )
            shown = " ".join(source.split())
            shown = shown if len(shown) <= 80 else shown[:77] + "..."
            what = {"syntax": "CEL syntax error", "type": "CEL type error"}.get(exc.kind, "expr")
            raise ConfigError(f"{where}: {what} at {spot}: {exc.message}: {shown}") from None
        message = entry.get("message")
        summary = str(message) if message else f"{given.text}: {' '.join(source.split())}"
        out.append(
            make_rule(
                CelRule,
                code=code,
                summary=summary.rstrip("."),
                severity=Severity(entry.get("severity", "error")),
                origin=f"{origin} {index + 1}",
                definition=f"given = {given.text}\n\nexpr = {source}",
                given=given,
                assertion=assertion,
                environment=environment,
                message=message,
                hint=entry.get("hint"),
            )
        )
    return out


__all__ = ["VARIABLES", "CelRule", "cel_rules"]
