"""llama.cpp (ggml-org/llama.cpp, ``common/json-schema-to-grammar.cpp`` at 011c6c3c and
``src/llama-grammar.cpp`` at 04332939), as llama-server, Ollama and LM Studio run it: the tool
schema becomes a GBNF grammar, which the grammar parser must then read.

The converter reads ``$ref`` (local ``#/…`` only), ``oneOf``/``anyOf`` (as one union), a
``type`` list, ``const``, ``enum``, objects (``properties``, ``required``,
``additionalProperties``), ``allOf`` of object parts, arrays (``items``, ``prefixItems``,
``minItems``, ``maxItems``), then for strings ``pattern``, else the formats ``uuid``, ``date``,
``time``, ``date-time``, else ``minLength``/``maxLength``, and ``minimum``/``maximum`` on
integers; everything else compiles without effect. A pattern must be anchored ``^…$``, and is
copied into the grammar: ``\\d``, ``\\w``, ``\\s`` and any escape GBNF lacks arrive verbatim and
the parser stops ("unknown escape"); lookahead and inline flags are dropped with a warning. A
``true``/``false`` subschema is "Unrecognized schema". The parser refuses a repetition count
of ``MAX_REPETITION_THRESHOLD`` (2,000) or more, and tool-call grammars multiply a count by the
rules it repeats (llama.cpp issues 17473, 26596, 27087): ``llama_cpp.max_repetition``.

No wheel runs this converter: llama-cpp-python compiles llama.cpp from source at install
(minutes of C++ on a two-core machine), and its grammar is only checked against a model's
vocabulary. The table follows the source above.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from jsoncontract.lint.engines import Judgement, Kind, Verdict
from jsoncontract.lint.engines.schema import join, pattern_fix, resolve, scan, types_of

if TYPE_CHECKING:
    from jsoncontract.lint.limits import Limits

FORMATS: Final = frozenset({"uuid", "date", "time", "date-time"})
#: Escapes GBNF reads after ``\\`` (``parse_char``), and those the converter turns into a
#: plain character outside a class (``ESCAPED_IN_REGEXPS_BUT_NOT_IN_LITERALS``).
GBNF_ESCAPES: Final = frozenset('xuUtrn\\"[]-')
LITERAL_ESCAPES: Final = frozenset("^$.[]()|{}*+?")
_HINT = "the model can violate it; check it in the tool (jsoncontract check still does)"
#: Constraints a union, enum or const leaves unread (its siblings).
SIBLINGS: Final = frozenset(
    {
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "pattern",
        "format",
        "minItems",
        "maxItems",
        "uniqueItems",
        "properties",
        "required",
        "additionalProperties",
        "not",
    }
)
#: Constraints the converter never reads.
NEVER: Final = (
    "not",
    "if",
    "then",
    "else",
    "uniqueItems",
    "contains",
    "minContains",
    "maxContains",
    "minProperties",
    "maxProperties",
    "patternProperties",
    "propertyNames",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "multipleOf",
    "unevaluatedItems",
    "unevaluatedProperties",
)


class LlamaCpp:
    name: Final = "llama-cpp"
    title: Final = "llama.cpp (source 011c6c3c)"
    distribution: Final = None
    sources: Final = (
        "ggml-org/llama.cpp common/json-schema-to-grammar.cpp at commit 011c6c3c "
        "(common_schema_converter::visit, _visit_pattern)",
        "ggml-org/llama.cpp src/llama-grammar.cpp at commit 04332939 (parse_char, "
        "MAX_REPETITION_THRESHOLD = 2000)",
        "llama.cpp issues 17473, 26596 and 27087 (repetitions in tool-call grammars)",
    )

    def judge(self, schema: Any, limits: Limits) -> list[Judgement]:
        out: list[Judgement] = []
        self._visit(schema, schema, "", out, set(), limits.llama_cpp.max_repetition)
        return out

    def _visit(
        self, root: Any, node: Any, path: str, out: list[Judgement], seen: set[str], limit: int
    ) -> None:
        def add(
            verdict: Verdict, kind: Kind, key: str | None, reason: str, hint: str, **extra: Any
        ) -> None:
            out.append(Judgement(verdict, kind, path, key, reason, hint, **extra))

        if isinstance(node, bool):
            add(
                Verdict.REJECTED,
                Kind.KEYWORD,
                None,
                f"Unrecognized schema: {str(node).lower()}",
                "write a schema object ({} for any value)",
            )
            return
        if not isinstance(node, dict) or path in seen:
            return
        seen = seen | {path}
        types = types_of(node)
        for key in NEVER:
            if key in node:
                add(
                    Verdict.IGNORED,
                    Kind.KEYWORD,
                    key,
                    f"llama.cpp's converter does not read {key}",
                    _HINT,
                )
        if "$ref" in node:
            ref = node["$ref"]
            target = resolve(root, ref)
            if target is None:
                add(
                    Verdict.REJECTED,
                    Kind.KEYWORD,
                    "$ref",
                    f"Unsupported ref: {ref}",
                    "point it at this schema (#/$defs/...)",
                )
            else:
                self._visit(root, target[1], target[0], out, seen, limit)
            return
        for key in ("oneOf", "anyOf"):
            if key in node and isinstance(node[key], list):
                self._siblings(node, key, add)
                for index, sub in enumerate(node[key]):
                    self._visit(root, sub, join(path, key, index), out, seen, limit)
                return
        for key in ("const", "enum"):
            if key in node:
                self._siblings(node, key, add)
                return
        if (not types or types == {"object"}) and (
            "properties" in node or node.get("additionalProperties", True) is not True
        ):
            props = node.get("properties")
            if isinstance(props, dict):
                for name, sub in props.items():
                    self._visit(root, sub, join(path, "properties", name), out, seen, limit)
            extra = node.get("additionalProperties")
            if isinstance(extra, dict):
                self._visit(root, extra, join(path, "additionalProperties"), out, seen, limit)
            return
        if (not types or types & {"object", "string"} == types) and isinstance(
            node.get("allOf"), list
        ):
            for index, sub in enumerate(node["allOf"]):
                self._visit(root, sub, join(path, "allOf", index), out, seen, limit)
            return
        if (not types or types == {"array"}) and ("items" in node or "prefixItems" in node):
            items = node.get("items", node.get("prefixItems"))
            if isinstance(items, list):
                for index, sub in enumerate(items):
                    self._visit(
                        root,
                        sub,
                        join(path, "items" if "items" in node else "prefixItems", index),
                        out,
                        seen,
                        limit,
                    )
                return
            self._visit(
                root,
                items,
                join(path, "items" if "items" in node else "prefixItems"),
                out,
                seen,
                limit,
            )
            low, high = node.get("minItems", 0), node.get("maxItems")
            # the separator form repeats count-1 times: "(, item){min-1,max-1}"
            self._repetition(add, "minItems", low - 1 if isinstance(low, int) else None, limit, low)
            self._repetition(
                add, "maxItems", high - 1 if isinstance(high, int) else None, limit, high
            )
            return
        if len(types) > 1:
            return  # each type is visited as its own copy; rare in tool schemas
        if (not types or types == {"string"}) and isinstance(node.get("pattern"), str):
            for key in ("minLength", "maxLength", "format"):
                if key in node:
                    add(
                        Verdict.IGNORED,
                        Kind.KEYWORD,
                        key,
                        f"llama.cpp reads the pattern and not {key}",
                        _HINT,
                    )
            self._pattern(node["pattern"], path, add, limit)
            return
        fmt = node.get("format")
        if (
            (not types or types == {"string"})
            and isinstance(fmt, str)
            and fmt in FORMATS | {"uuid1", "uuid2", "uuid3", "uuid4", "uuid5"}
        ):
            for key in ("minLength", "maxLength"):
                if key in node:
                    add(
                        Verdict.IGNORED,
                        Kind.KEYWORD,
                        key,
                        f"llama.cpp reads the format and not {key}",
                        _HINT,
                    )
            return
        if isinstance(fmt, str) and (not types or "string" in types):
            add(
                Verdict.IGNORED,
                Kind.FORMAT,
                "format",
                f"llama.cpp has no rule for format {fmt!r}: any string compiles",
                _HINT,
            )
        if types == {"string"}:
            low, high = node.get("minLength", 0), node.get("maxLength")
            self._repetition(add, "minLength", low, limit, low)
            self._repetition(add, "maxLength", high, limit, high)
        elif types == {"number"}:
            for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
                if key in node:
                    add(
                        Verdict.IGNORED,
                        Kind.KEYWORD,
                        key,
                        f"llama.cpp reads {key} on integers only",
                        _HINT,
                    )
        elif types and not types <= {
            "null",
            "boolean",
            "integer",
            "number",
            "string",
            "array",
            "object",
        }:
            add(
                Verdict.REJECTED,
                Kind.KEYWORD,
                "type",
                f"Unrecognized schema: type {sorted(types)[0]}",
                "use a JSON Schema type",
            )

    @staticmethod
    def _siblings(node: dict[str, Any], key: str, add: Any) -> None:
        for sibling in node:
            if sibling in SIBLINGS and sibling != key and sibling not in NEVER:
                add(
                    Verdict.IGNORED,
                    Kind.KEYWORD,
                    sibling,
                    f"llama.cpp reads {key} and not {sibling} beside it",
                    _HINT,
                )

    @staticmethod
    def _repetition(add: Any, key: str, count: int | None, limit: int, written: Any) -> None:
        if isinstance(count, int) and not isinstance(count, bool) and count >= limit:
            add(
                Verdict.REJECTED,
                Kind.REPETITION,
                key,
                f"{key} {written} asks the grammar for {count} repetitions: number of repetitions "
                f"exceeds sane defaults (llama.cpp refuses {limit} or more)",
                f"lower {key} below {limit} (limit llama_cpp.max_repetition), or check the "
                "length in the tool",
                refused=f"lowering {key} changes the contract",
            )

    def _pattern(self, pattern: str, path: str, add: Any, limit: int) -> None:
        facts = scan(pattern)
        where = join(path, "pattern")
        unknown = sorted(
            {
                c
                for c, in_class in facts.escapes
                if c not in GBNF_ESCAPES and (in_class or c not in LITERAL_ESCAPES)
            }
        )
        expandable = not (set(unknown) - set("dwsDWS"))
        if not facts.anchored:
            fix = pattern_fix(where, pattern, shorthands=expandable and bool(unknown), anchor=True)
            add(
                Verdict.REJECTED,
                Kind.PATTERN,
                "pattern",
                f"Pattern must start with '^' and end with '$' ({pattern!r})",
                "anchor it as ^…$; --fix rewrites it so that the same strings pass",
                fix=fix,
                refused=None if fix else "the pattern has an anchor or | inside; anchor it by hand",
            )
        elif unknown:
            fix = pattern_fix(where, pattern, shorthands=True, anchor=False) if expandable else None
            shown = ", ".join("\\" + c for c in unknown)
            add(
                Verdict.REJECTED,
                Kind.PATTERN,
                "pattern",
                f"{shown} {'reaches' if len(unknown) == 1 else 'reach'} the grammar verbatim: "
                f"unknown escape (GBNF has no {shown})",
                "write the class out ([0-9] for \\d, [A-Za-z0-9_] for \\w); --fix does it",
                fix=fix,
                refused=None if fix else f"{shown} has no GBNF spelling --fix can write",
            )
        elif facts.lookahead or facts.lookbehind or facts.inline_flags:
            add(
                Verdict.IGNORED,
                Kind.PATTERN,
                "pattern",
                "Unsupported pattern syntax: llama.cpp drops lookaround and inline flags (?i)",
                _HINT,
            )
        if facts.max_repeat >= limit:
            add(
                Verdict.REJECTED,
                Kind.REPETITION,
                "pattern",
                f"a repetition of {facts.max_repeat} in the pattern: number of repetitions exceeds "
                f"sane defaults (llama.cpp refuses {limit} or more)",
                f"lower the count below {limit} (limit llama_cpp.max_repetition)",
            )

    def compile(self, schema: Any) -> str | None:
        raise ModuleNotFoundError("llama.cpp's converter has no Python package to compile with")


ENGINE: Final = LlamaCpp()
