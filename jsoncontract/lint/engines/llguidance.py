"""llguidance 1.9.1 (the wheel on PyPI; source: guidance-ai/llguidance,
``parser/src/json/schema.rs``, ``formats.rs``), as vLLM's ``guidance`` backend, SGLang and
llama.cpp builds with ``LLAMA_LLGUIDANCE`` run it: strict, not lenient.

It compiles the keywords it implements and *refuses* every other known keyword ("Unimplemented
keys"), whatever its value (``uniqueItems: false``, ``dependentRequired: {}``); min/max
properties only when every listed property is required; the formats of its table; Rust
regex syntax without lookaround, backreferences or ``\\b``. A schema no value can satisfy
(an enum none of whose values has the type, a required property the object cannot hold)
is refused too: "Unsatisfiable schema". It ignores nothing it accepts.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Final, TypeGuard

from jsoncontract.lint.engines import Judgement, Kind, Verdict
from jsoncontract.lint.engines.schema import (
    admits,
    join,
    no_effect_fix,
    pattern_fix,
    resolve,
    scan,
    subschemas,
    types_of,
)

if TYPE_CHECKING:
    from jsoncontract.lint.limits import Limits

#: Known keywords llguidance does not implement (``schema.rs``: known to the draft, not in
#: ``IMPLEMENTED`` nor ``META_AND_ANNOTATIONS``).
UNIMPLEMENTED: Final = frozenset(
    {
        "not", "if", "then", "else", "uniqueItems", "contains", "minContains", "maxContains",
        "dependentRequired", "dependentSchemas", "dependencies", "propertyNames",
        "unevaluatedItems", "unevaluatedProperties", "$dynamicRef", "$dynamicAnchor",
        "$recursiveRef", "$recursiveAnchor",
    }
)  # fmt: skip
#: ``formats.rs``.
FORMATS: Final = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid", "uri"}
)
_HINT_KEYWORD = "check it in the tool (jsoncontract check still validates the full schema)"


class Llguidance:
    name: Final = "llguidance"
    title: Final = "llguidance 1.9.1"
    distribution: Final = "llguidance"
    sources: Final = (
        "llguidance 1.9.1 on PyPI (the wheel the tests compile with)",
        "guidance-ai/llguidance: parser/src/json/schema.rs (IMPLEMENTED, "
        "META_AND_ANNOTATIONS, min/maxProperties), parser/src/json/formats.rs",
        "vLLM: vllm/v1/structured_output/backend_guidance.py",
    )

    def judge(self, schema: Any, limits: Limits) -> list[Judgement]:
        out: list[Judgement] = []
        seen: set[str] = set()
        self._walk(schema, schema, "", out, seen)
        reason = _unsatisfiable(schema, schema, "", 0)
        if reason is not None:
            path, why = reason
            out.append(
                Judgement(
                    Verdict.REJECTED,
                    Kind.UNSATISFIABLE,
                    path,
                    None,
                    f"Unsatisfiable schema: {why}",
                    "make the schema satisfiable: give the value a type its enum or const "
                    "allows, or declare the required property",
                )
            )
        return out

    def _walk(self, root: Any, node: Any, path: str, out: list[Judgement], seen: set[str]) -> None:
        if not isinstance(node, dict) or path in seen:
            return
        seen.add(path)
        for key in node:
            if key in UNIMPLEMENTED:
                fix = no_effect_fix(node, path, key)
                out.append(
                    Judgement(
                        Verdict.REJECTED,
                        Kind.KEYWORD,
                        path,
                        key,
                        f'Unimplemented keys: ["{key}"]',
                        _HINT_KEYWORD if fix is None else "remove it: its value has no effect",
                        fix=fix,
                        refused=None
                        if fix
                        else f"{key} is a constraint; dropping it accepts more values",
                    )
                )
        if ("minProperties" in node or "maxProperties" in node) and not _all_required(node):
            key = "minProperties" if "minProperties" in node else "maxProperties"
            out.append(
                Judgement(
                    Verdict.REJECTED,
                    Kind.KEYWORD,
                    path,
                    key,
                    'min/maxProperties only supported when all keys listed in "properties" are '
                    "required",
                    "list every property in required, or check the count in the tool",
                    refused="making properties required changes the contract",
                )
            )
        fmt = node.get("format")
        if isinstance(fmt, str) and fmt not in FORMATS and _may_be_string(node):
            out.append(
                Judgement(
                    Verdict.REJECTED,
                    Kind.FORMAT,
                    path,
                    "format",
                    f"Unknown format: {fmt}",
                    f"use a pattern, or one of {', '.join(sorted(FORMATS))}",
                    refused="a format is a constraint; dropping it accepts more values",
                )
            )
        pattern = node.get("pattern")
        if isinstance(pattern, str):
            why = pattern_problem(pattern)
            if why is not None:
                out.append(
                    Judgement(
                        Verdict.REJECTED,
                        Kind.PATTERN,
                        path,
                        "pattern",
                        f"regex parse error: {why} is not supported",
                        "rewrite the pattern without lookaround, backreferences or \\b",
                        fix=pattern_fix(
                            join(path, "pattern"), pattern, shorthands=False, anchor=False
                        ),
                    )
                )
        for key, sub_path, sub in subschemas(node, path):
            if key in UNIMPLEMENTED or key in ("$defs", "definitions"):
                continue  # refused already, or compiled only when referenced
            self._walk(root, sub, sub_path, out, seen)
        target = resolve(root, node.get("$ref"))
        if target is not None:
            self._walk(root, target[1], target[0], out, seen)

    def compile(self, schema: Any) -> str | None:
        import llguidance

        matcher = llguidance.LLMatcher
        grammar = matcher.grammar_from_json_schema(json.dumps(schema))
        failed, messages = matcher.validate_grammar_with_warnings(grammar)
        return ("; ".join(messages) or "refused") if failed else None


def pattern_problem(pattern: str) -> str | None:
    """What Rust's regex refuses in a pattern: lookaround, backreferences, ``\\b``."""
    facts = scan(pattern)
    if facts.lookahead or facts.lookbehind:
        return "look-around"
    if facts.backreference:
        return "a backreference"
    if facts.word_boundary:
        return "a word boundary (\\b, \\B)"
    return None


def _all_required(node: dict[str, Any]) -> bool:
    props = node.get("properties")
    required = node.get("required")
    names = set(required) if isinstance(required, list) else set()
    return not isinstance(props, dict) or all(name in names for name in props)


def _may_be_string(node: dict[str, Any]) -> bool:
    types = types_of(node)
    return not types or "string" in types


def _unsatisfiable(root: Any, node: Any, path: str, depth: int) -> tuple[str, str] | None:
    """Where and why no value can satisfy ``node`` (llguidance refuses the whole schema
    when that reaches the root through required members), or ``None``."""
    if depth > 50:
        return None
    if node is False:
        return path, "false schema"
    if not isinstance(node, dict):
        return None
    types = types_of(node)
    for key in ("enum", "const"):
        if key not in node:
            continue
        values = node[key] if key == "enum" else [node[key]]
        if isinstance(values, list) and not any(admits(types, v) for v in values):
            label = "enum" if key == "enum" else "const"
            return path, f"no {label} value has the type {'/'.join(sorted(types))}" if types else (
                f"{label} is empty"
            )
    for low, high in (("minLength", "maxLength"), ("minItems", "maxItems"), ("minimum", "maximum")):
        lo, hi = node.get(low), node.get(high)
        if _number(lo) and _number(hi) and lo > hi:
            return path, f"{low} {lo} is above {high} {hi}"
    if types == {"integer"}:
        lo, hi = node.get("minimum"), node.get("maximum")
        if _number(lo) and _number(hi) and int(-(-lo // 1)) > int(hi // 1):
            return path, f"no integer lies between {lo} and {hi}"
    target = resolve(root, node.get("$ref"))
    if target is not None:
        found = _unsatisfiable(root, target[1], target[0], depth + 1)
        if found is not None:
            return found
    branches = node.get("allOf")
    if isinstance(branches, list):
        for index, branch in enumerate(branches):
            found = _unsatisfiable(root, branch, join(path, "allOf", index), depth + 1)
            if found is not None:
                return found
    for key in ("anyOf", "oneOf"):
        branches = node.get(key)
        if isinstance(branches, list) and branches:
            each = [
                _unsatisfiable(root, b, join(path, key, i), depth + 1)
                for i, b in enumerate(branches)
            ]
            if all(each):
                return each[0]
    if types == {"object"}:
        found = _object(root, node, path, depth)
        if found is not None:
            return found
    if types == {"array"}:
        items = node.get("items")
        minimum = node.get("minItems", 0)
        prefix = node.get("prefixItems")
        count = len(prefix) if isinstance(prefix, list) else 0
        if isinstance(minimum, int) and minimum > count and items is not None:
            found = _unsatisfiable(root, items, join(path, "items"), depth + 1)
            if found is not None:
                return found
    return None


def _object(root: Any, node: dict[str, Any], path: str, depth: int) -> tuple[str, str] | None:
    props = node.get("properties")
    props = props if isinstance(props, dict) else {}
    required = node.get("required")
    if not isinstance(required, list):
        return None
    closed = node.get("additionalProperties") is False and not node.get("patternProperties")
    for name in required:
        if not isinstance(name, str):
            continue
        if name in props:
            found = _unsatisfiable(root, props[name], join(path, "properties", name), depth + 1)
            if found is not None:
                return found[0], f"required property '{name}' is unsatisfiable"
        elif closed:
            return join(path, "required"), f"required property '{name}' is unsatisfiable"
    return None


def _number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


ENGINE: Final = Llguidance()
