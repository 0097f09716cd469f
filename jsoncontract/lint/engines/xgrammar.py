"""XGrammar 0.2.8 (the wheel on PyPI; source: mlc-ai/xgrammar, ``cpp/json_schema_converter.cc``
and ``cpp/regex_converter.cc``), as vLLM runs it by default: ``compile_json_schema`` in strict
mode (an object without ``additionalProperties`` is closed).

Measured on the wheel with the corpus of ``tests/lint/engines/``: it refuses an empty
``enum``, a non-integer bound on an integer, lookbehind, backreferences, ``\\b`` and ``\\p{…}``
in a pattern, and an array whose ``minItems`` (or ``minContains``) asks for more items than its
``prefixItems`` hold when it has no ``items``. It compiles, without enforcing them, ``not``,
``uniqueItems``, ``contains``, dependencies, conditionals, ``multipleOf`` on numbers,
lookahead, more than one ``allOf`` branch, ``minLength``/``maxLength`` beside a ``format``,
and the formats outside its table. The wheel needs PyTorch, which the ``engines`` extra does
not install; ``--engine-check`` uses it where vLLM installed it.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Final

from jsoncontract.lint.engines import Judgement, Kind, Verdict
from jsoncontract.lint.engines.schema import resolve, scan, subschemas, types_of

if TYPE_CHECKING:
    from jsoncontract.lint.limits import Limits

FORMATS: Final = frozenset(
    {
        "date-time",
        "date",
        "time",
        "duration",
        "email",
        "hostname",
        "ipv4",
        "ipv6",
        "uri",
        "uri-reference",
        "uri-template",
        "uuid",
        "json-pointer",
        "relative-json-pointer",
    }
)
#: Keywords it compiles and does not enforce, whatever the type.
IGNORED: Final = (
    "not",
    "uniqueItems",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
    "$dynamicRef",
)
_HINT = "the model can violate it; check it in the tool (jsoncontract check still does)"


class XGrammar:
    name: Final = "xgrammar"
    title: Final = "XGrammar 0.2.8"
    distribution: Final = "xgrammar"
    sources: Final = (
        "xgrammar 0.2.8 on PyPI, measured on the corpus of tests/lint/engines/ "
        "(Grammar.from_json_schema, strict_mode=True)",
        "mlc-ai/xgrammar: cpp/json_schema_converter.cc, cpp/regex_converter.cc",
        "vLLM: vllm/v1/structured_output/backend_xgrammar.py",
    )

    def judge(self, schema: Any, limits: Limits) -> list[Judgement]:
        out: list[Judgement] = []
        self._walk(schema, schema, "", out, set())
        return out

    def _walk(self, root: Any, node: Any, path: str, out: list[Judgement], seen: set[str]) -> None:
        if not isinstance(node, dict) or path in seen:
            return
        seen.add(path)
        types = types_of(node)
        self._node(node, path, types, out)
        for key, sub_path, sub in subschemas(node, path):
            if key not in IGNORED and key not in ("$defs", "definitions", "contains"):
                self._walk(root, sub, sub_path, out, seen)
        target = resolve(root, node.get("$ref"))
        if target is not None:
            self._walk(root, target[1], target[0], out, seen)

    def _node(
        self, node: dict[str, Any], path: str, types: frozenset[str], out: list[Judgement]
    ) -> None:
        def add(verdict: Verdict, kind: Kind, key: str, reason: str, hint: str) -> None:
            out.append(Judgement(verdict, kind, path, key, reason, hint))

        if node.get("enum") == []:
            add(
                Verdict.REJECTED,
                Kind.KEYWORD,
                "enum",
                "enum array must not be empty",
                "list the values, or remove the property",
            )
        if types == {"integer"}:
            for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
                value = node.get(key)
                if isinstance(value, float) and not value.is_integer():
                    add(
                        Verdict.REJECTED,
                        Kind.KEYWORD,
                        key,
                        "Integer constraint must be a whole number",
                        "round the bound",
                    )
        if types == {"array"} and "items" not in node:
            prefix = node.get("prefixItems")
            count = len(prefix) if isinstance(prefix, list) else 0
            wanted = node.get("minItems", 0)
            if "contains" in node and isinstance(node.get("minContains"), int):
                wanted = max(wanted, node["minContains"]) if isinstance(wanted, int) else wanted
            key = "minItems" if "minItems" in node else "minContains"
            if isinstance(wanted, int) and wanted > count and key in node:
                add(
                    Verdict.REJECTED,
                    Kind.KEYWORD,
                    key,
                    "minItems is greater than the number of prefixItems, but additional items "
                    f"are not allowed: {wanted} > {count}",
                    'give the array its "items" schema',
                )
        pattern = node.get("pattern")
        if isinstance(pattern, str) and "string" in types:
            facts = scan(pattern)
            problem = (
                "Lookbehind"
                if facts.lookbehind
                else "Backreference"
                if facts.backreference
                else "Word boundary"
                if facts.word_boundary
                else "Unicode character class escape sequence"
                if facts.unicode_property
                else None
            )
            if problem is not None:
                add(
                    Verdict.REJECTED,
                    Kind.PATTERN,
                    "pattern",
                    f"Regex parsing error: {problem} is not supported yet",
                    "rewrite the pattern without it",
                )
            elif facts.lookahead:
                add(
                    Verdict.IGNORED,
                    Kind.PATTERN,
                    "pattern",
                    "Lookahead assertion is not supported and is ignored",
                    _HINT,
                )
            elif (
                not (facts.carets == [0] or not facts.carets)
                or not (facts.dollars == [-1] or not facts.dollars)
                or (bool(facts.carets) != bool(facts.dollars))
            ):
                add(
                    Verdict.IGNORED,
                    Kind.PATTERN,
                    "pattern",
                    "an anchor on one side only (or inside) leaves xgrammar no string to write "
                    '(measured: ^x accepts neither "xa" nor "ax")',
                    "anchor it ^…$, or not at all",
                )
        fmt = node.get("format")
        if isinstance(fmt, str) and "string" in types:
            if fmt not in FORMATS:
                add(
                    Verdict.IGNORED,
                    Kind.FORMAT,
                    "format",
                    f"format {fmt!r} is not in XGrammar's table: any string compiles",
                    _HINT,
                )
            else:
                for key in ("minLength", "maxLength"):
                    if key in node:
                        add(
                            Verdict.IGNORED,
                            Kind.KEYWORD,
                            key,
                            "format combined with minLength/maxLength is not supported; "
                            f"ignoring {key}",
                            _HINT,
                        )
        if "multipleOf" in node and "number" in types:
            add(
                Verdict.IGNORED,
                Kind.KEYWORD,
                "multipleOf",
                "multipleOf is not supported for type:number; ignoring multipleOf",
                _HINT,
            )
        branches = node.get("allOf")
        if isinstance(branches, list) and len(branches) > 1:
            add(
                Verdict.IGNORED,
                Kind.KEYWORD,
                "allOf",
                "Support for allOf with multiple options is still ongoing",
                _HINT,
            )
        if "contains" in node:
            add(
                Verdict.IGNORED,
                Kind.KEYWORD,
                "contains",
                "XGrammar compiles contains and does not enforce it",
                _HINT,
            )
        for key in IGNORED:
            if key in node:
                add(
                    Verdict.IGNORED,
                    Kind.KEYWORD,
                    key,
                    f"XGrammar compiles {key} and does not enforce it",
                    _HINT,
                )

    def compile(self, schema: Any) -> str | None:
        import xgrammar

        try:
            xgrammar.Grammar.from_json_schema(json.dumps(schema), strict_mode=True)
        except RuntimeError as exc:
            return str(exc).strip().splitlines()[-1][:300]
        return None


ENGINE: Final = XGrammar()
