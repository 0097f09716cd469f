"""outlines-core 0.2.14 (the wheel on PyPI; source: dottxt-ai/outlines-core at tag 0.2.14,
``src/json_schema/parsing.rs`` and ``types.rs``), as Outlines and vLLM's ``outlines`` backend
run it: the schema becomes one regular expression, then a DFA.

A schema object is read by the first of these members it holds, and every other member is
ignored: ``properties`` (an object), ``allOf``, ``anyOf``, ``oneOf``, ``prefixItems``, ``enum``,
``const``, ``$ref``, ``type``. A non-empty object with none of them (a property schema with only
a ``description``, ``not``, a bare ``maxLength``) and a ``true``/``false`` subschema are
refused ("Unsupported JSON Schema structure"). Numeric bounds, ``multipleOf``,
``uniqueItems``, ``contains``, ``min/maxProperties`` beside ``properties``, dependencies and
conditionals compile and are not enforced. Strings take ``minLength``/``maxLength`` first, else
``pattern``, else ``format`` (six formats). A pattern is inlined: lookaround, backreferences and
``\\b`` fail to build the DFA, and an anchor left inside it (``^x``, ``x$``) leaves no string to
write.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Final

from jsoncontract.lint.engines import Judgement, Kind, Verdict
from jsoncontract.lint.engines.schema import join, resolve, scan
from jsoncontract.lint.rule import Edit, Fix

if TYPE_CHECKING:
    from jsoncontract.lint.limits import Limits

FORMATS: Final = frozenset({"date-time", "date", "time", "uuid", "uri", "email"})
#: The members that decide how a schema object is read, in outlines' order.
DISPATCH: Final = (
    "properties",
    "allOf",
    "anyOf",
    "oneOf",
    "prefixItems",
    "enum",
    "const",
    "$ref",
    "type",
)
#: Constraints that compile without effect, by the type that has them.
IGNORED_BY_TYPE: Final = {
    "number": ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
    "integer": ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
    "array": ("uniqueItems", "contains", "minContains", "maxContains", "unevaluatedItems"),
    "object": (
        "required", "patternProperties", "propertyNames", "dependentRequired",
        "dependentSchemas", "dependencies", "unevaluatedProperties",
    ),
}  # fmt: skip
#: Constraints a schema with ``properties`` leaves unread.
IGNORED_BESIDE_PROPERTIES: Final = (
    "minProperties", "maxProperties", "dependentRequired", "dependentSchemas", "dependencies",
    "propertyNames", "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "enum", "const",
)  # fmt: skip
#: Constraints a combinator or enum leaves unread (they are its siblings).
CONSTRAINTS: Final = frozenset(
    {
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
        "minLength", "maxLength", "pattern", "format", "minItems", "maxItems", "uniqueItems",
        "contains", "items", "prefixItems", "properties", "required", "additionalProperties",
        "patternProperties", "propertyNames", "minProperties", "maxProperties",
        "dependentRequired", "dependentSchemas", "not", "if", "then", "else", "allOf",
        "anyOf", "oneOf", "enum", "const", "$ref",
    }
)  # fmt: skip
_UNSUPPORTED = "Unsupported JSON Schema structure"
_IGNORED_HINT = "the model can violate it; check it in the tool (jsoncontract check still does)"


class Outlines:
    name: Final = "outlines"
    title: Final = "outlines-core 0.2.14"
    distribution: Final = "outlines-core"
    sources: Final = (
        "outlines-core 0.2.14 on PyPI (the wheel the tests compile with)",
        "dottxt-ai/outlines-core 0.2.14: src/json_schema/parsing.rs (to_regex and the parse_* "
        "functions), src/json_schema/types.rs (FormatType)",
        "vLLM: vllm/v1/structured_output/backend_outlines.py",
    )

    def judge(self, schema: Any, limits: Limits) -> list[Judgement]:
        out: list[Judgement] = []
        self._visit(schema, schema, "", out, set())
        return out

    def _visit(
        self, root: Any, node: Any, path: str, out: list[Judgement], active: set[str]
    ) -> None:
        if path in active:
            return  # outlines cuts recursion at a depth; a loop is walked once here
        if isinstance(node, bool):
            fix = None
            if node is True:
                fix = Fix("write true as {} (the same: any value)", (Edit("set", path, {}),))
            out.append(
                Judgement(
                    Verdict.REJECTED,
                    Kind.KEYWORD,
                    path,
                    None,
                    f"{_UNSUPPORTED} {json.dumps(node)}",
                    "write a schema object ({} for any value)",
                    fix=fix,
                    refused=None if fix else "false has no object form outlines reads",
                )
            )
            return
        if not isinstance(node, dict) or not node:
            return
        active = active | {path}
        leading = next((key for key in DISPATCH if key in node), None)
        if leading is None:
            out.append(
                Judgement(
                    Verdict.REJECTED,
                    Kind.KEYWORD,
                    path,
                    None,
                    f"{_UNSUPPORTED} (a schema with none of type, properties, enum, const, "
                    "$ref, allOf, anyOf, oneOf, prefixItems)",
                    'give it a "type" ({} accepts any value)',
                    refused="which type it should have is the contract's choice",
                )
            )
            return
        if leading == "properties":
            self._properties(root, node, path, out, active)
        elif leading in ("allOf", "anyOf", "oneOf", "prefixItems"):
            self._ignored(node, path, out, CONSTRAINTS - {leading}, f"{leading} is read first")
            branches = node[leading]
            if isinstance(branches, list):
                if leading == "allOf" and len(branches) > 1:
                    out.append(
                        Judgement(
                            Verdict.IGNORED,
                            Kind.KEYWORD,
                            path,
                            "allOf",
                            "outlines writes the allOf branches one after the other: the "
                            "model's value is not an instance of the schema",
                            "merge the branches into one schema",
                        )
                    )
                for index, sub in enumerate(branches):
                    self._visit(root, sub, join(path, leading, index), out, active)
        elif leading in ("enum", "const"):
            self._ignored(
                node, path, out, CONSTRAINTS - {"enum", "const"}, f"{leading} is read first"
            )
        elif leading == "$ref":
            self._ignored(node, path, out, CONSTRAINTS - {"$ref"}, "$ref is read first")
            target = resolve(root, node["$ref"])
            if target is not None:
                self._visit(root, target[1], target[0], out, active)
        else:
            self._typed(root, node, path, out, active)

    def _properties(
        self, root: Any, node: dict[str, Any], path: str, out: list[Judgement], active: set[str]
    ) -> None:
        self._ignored(node, path, out, IGNORED_BESIDE_PROPERTIES, "properties is read first")
        props = node["properties"]
        if isinstance(props, dict):
            for name, sub in props.items():
                self._visit(root, sub, join(path, "properties", name), out, active)

    def _typed(
        self, root: Any, node: dict[str, Any], path: str, out: list[Judgement], active: set[str]
    ) -> None:
        kinds = node["type"]
        kinds = [kinds] if isinstance(kinds, str) else kinds if isinstance(kinds, list) else []
        for kind in kinds:
            if kind in IGNORED_BY_TYPE:
                self._ignored(
                    node,
                    path,
                    out,
                    IGNORED_BY_TYPE[kind],
                    f"outlines does not enforce it on {kind}s",
                )
            if kind == "string":
                self._string(node, path, out)
            elif kind == "array":
                self._array(root, node, path, out, active)
            elif kind == "object":
                self._object(root, node, path, out, active)

    def _string(self, node: dict[str, Any], path: str, out: list[Judgement]) -> None:
        if "minLength" in node or "maxLength" in node:
            self._ignored(
                node, path, out, ("pattern", "format"), "minLength/maxLength is read first"
            )
            return
        pattern = node.get("pattern")
        if isinstance(pattern, str):
            self._ignored(node, path, out, ("format",), "pattern is read first")
            why = pattern_problem(pattern)
            if why is not None:
                out.append(
                    Judgement(
                        Verdict.REJECTED,
                        Kind.PATTERN,
                        path,
                        "pattern",
                        f"Failed to build DFA: {why}",
                        "rewrite the pattern as a plain regular expression, anchored ^…$ or not "
                        "at all",
                    )
                )
            return
        fmt = node.get("format")
        if isinstance(fmt, str) and fmt not in FORMATS:
            out.append(
                Judgement(
                    Verdict.REJECTED,
                    Kind.FORMAT,
                    path,
                    "format",
                    f"Format {fmt} is not supported by Outlines",
                    f"use a pattern, or one of {', '.join(sorted(FORMATS))}",
                    refused="a format is a constraint; dropping it accepts more values",
                )
            )

    def _array(
        self, root: Any, node: dict[str, Any], path: str, out: list[Judgement], active: set[str]
    ) -> None:
        if node.get("maxItems") == 0:
            return
        items = node.get("items")
        if items is not None:
            self._visit(root, items, join(path, "items"), out, active)

    def _object(
        self, root: Any, node: dict[str, Any], path: str, out: list[Judgement], active: set[str]
    ) -> None:
        if node.get("maxProperties") == 0:
            return
        extra = node.get("additionalProperties")
        if extra is not None and extra is not True:
            self._visit(root, extra, join(path, "additionalProperties"), out, active)

    def _ignored(
        self, node: dict[str, Any], path: str, out: list[Judgement], keys: Any, why: str
    ) -> None:
        out.extend(
            Judgement(
                Verdict.IGNORED,
                Kind.KEYWORD,
                path,
                key,
                f"outlines compiles {key} and does not enforce it ({why})",
                _IGNORED_HINT,
            )
            for key in node
            if key in keys
        )

    def compile(self, schema: Any) -> str | None:
        import outlines_core
        from outlines_core.json_schema import build_regex_from_schema

        try:
            regex = build_regex_from_schema(json.dumps(schema))
        except ValueError as exc:
            return str(exc).splitlines()[0]
        if "pattern" not in json.dumps(schema):
            return None  # only a schema's own pattern can fail to build the DFA
        chars = set(json.dumps(schema, ensure_ascii=False)) | {chr(c) for c in range(32, 127)}
        vocabulary = outlines_core.Vocabulary(0, {c: [i + 1] for i, c in enumerate(sorted(chars))})
        try:
            outlines_core.Index(regex, vocabulary)
        except ValueError as exc:
            return str(exc).splitlines()[0][:300]
        return None


def pattern_problem(pattern: str) -> str | None:
    """Why outlines cannot build a DFA from a pattern (or no string passes it)."""
    facts = scan(pattern)
    if facts.lookahead or facts.lookbehind:
        return "lookaround"
    if facts.backreference:
        return "a backreference"
    if facts.word_boundary:
        return "a Unicode word boundary (\\b, \\B)"
    stripped = pattern.startswith("^") and pattern.endswith("$")
    carets = facts.carets[1:] if stripped else facts.carets
    dollars = facts.dollars[:-1] if stripped else facts.dollars
    if carets or dollars:
        return "an anchor inside the string (^ and $ are stripped only when both end the pattern)"
    return None


ENGINE: Final = Outlines()
