"""What the engine modules share: walking a schema by pointer, local references, what a
``pattern`` uses, and the rewrites of a pattern that keep its meaning."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Final

from jsoncontract.lint.rule import Edit, Fix
from jsoncontract.pointer import escape_pointer_token, unescape_pointer_token

#: JSON types by name, and the Python values of each.
TYPES: Final = ("null", "boolean", "integer", "number", "string", "array", "object")


#: Keywords whose value changes nothing, and so can go: where an engine refuses or ignores
#: one of them, ``--fix`` removes it.
NO_EFFECT: Final[dict[str, Any]] = {
    "uniqueItems": False,
    "dependentRequired": {},
    "dependentSchemas": {},
    "required": [],
}


def no_effect_fix(node: Any, path: str, key: str | None) -> Fix | None:
    """The removal of ``node[key]`` when its value has no effect (``required: []``,
    ``uniqueItems: false``...), else ``None``."""
    if key not in NO_EFFECT or not isinstance(node, dict) or key not in node:
        return None
    value, idle = node[key], NO_EFFECT[key]
    if type(value) is not type(idle) or value != idle:
        return None
    return Fix(f"remove {key} (its value has no effect)", (Edit("remove", join(path, key)),))


def join(path: str, *tokens: str | int) -> str:
    """``path`` with pointer tokens added."""
    return path + "".join("/" + escape_pointer_token(str(t)) for t in tokens)


def resolve(root: Any, ref: Any) -> tuple[str, Any] | None:
    """The (pointer, schema) a local ``#/...`` reference names in ``root``, else ``None``."""
    if not isinstance(ref, str) or not ref.startswith("#"):
        return None
    fragment = ref[1:]
    if fragment and not fragment.startswith("/"):
        return None
    node = root
    for raw in fragment.split("/")[1:] if fragment else ():
        token = unescape_pointer_token(raw)
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return fragment, node


def types_of(node: dict[str, Any]) -> frozenset[str]:
    """The names a node's ``type`` lists (empty: no ``type``)."""
    value = node.get("type")
    if isinstance(value, str):
        return frozenset((value,))
    if isinstance(value, list):
        return frozenset(t for t in value if isinstance(t, str))
    return frozenset()


def json_type(value: Any) -> str:
    """The JSON type of a value (``integer`` for whole numbers)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def admits(types: frozenset[str], value: Any) -> bool:
    """Whether a value of ``value``'s type passes a ``type`` of ``types`` (empty: any)."""
    if not types:
        return True
    kind = json_type(value)
    return kind in types or (kind == "integer" and "number" in types)


# -- patterns ---------------------------------------------------------------------------

#: Escapes that stand for a class of characters, and their ECMA-262 meaning written out.
SHORTHANDS: Final = {
    "d": "0-9",
    "w": "A-Za-z0-9_",
    "s": "\\t\\n\\x0B\\x0C\\r \\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F"
    "\\u3000\\uFEFF",
}
#: Any character at all, written so that ECMA-262 (with or without ``u``), Rust's regex and
#: llama.cpp's converter read it the same: ``.`` and the four line terminators it skips.
ANY: Final = "(?:.|\\n|\\r|\\u2028|\\u2029)*"


@dataclass(slots=True)
class PatternFacts:
    """What a pattern uses, found by one scan of its text."""

    #: Shorthand class escapes (``d``, ``W``...) outside and inside ``[...]``.
    shorthands: set[str] = field(default_factory=set)
    #: Other escapes: the escaped characters, outside (``False``) or inside (``True``) a class.
    escapes: set[tuple[str, bool]] = field(default_factory=set)
    lookahead: bool = False
    lookbehind: bool = False
    backreference: bool = False
    word_boundary: bool = False
    unicode_property: bool = False
    inline_flags: bool = False
    #: ``^`` and ``$`` outside classes, by position.
    carets: list[int] = field(default_factory=list)
    dollars: list[int] = field(default_factory=list)
    #: Top-level ``|`` positions.
    alternations: list[int] = field(default_factory=list)
    max_repeat: int = 0
    #: The ``{n,m}`` counts, in order.
    repeats: list[int] = field(default_factory=list)

    @property
    def anchored(self) -> bool:
        """``^`` first and ``$`` last (what llama.cpp requires)."""
        return bool(self.carets and self.carets[0] == 0 and self.dollars and self.dollars[-1] == -1)


@lru_cache(maxsize=4096)
def scan(pattern: str) -> PatternFacts:
    """What ``pattern`` uses (a scan of its text: escapes, groups, classes, anchors)."""
    facts = PatternFacts()
    i, n, depth, in_class = 0, len(pattern), 0, False
    while i < n:
        char = pattern[i]
        if char == "\\" and i + 1 < n:
            nxt = pattern[i + 1]
            if nxt in "dDwWsS":
                facts.shorthands.add(nxt)
            elif nxt in "bB" and not in_class:
                facts.word_boundary = True
            elif nxt in "pP":
                facts.unicode_property = True
            elif (nxt.isdigit() and nxt != "0" and not in_class) or (
                nxt == "k" and pattern.startswith("<", i + 2)
            ):
                facts.backreference = True
            facts.escapes.add((nxt, in_class))
            i += 2
            continue
        if in_class:
            if char == "]":
                in_class = False
            i += 1
            continue
        if char == "[":
            in_class = True
            if pattern.startswith("[^]", i) or pattern.startswith("[]", i):
                i += 1
            i += 1
            continue
        if char == "(":
            depth += 1
            if pattern.startswith("(?=", i) or pattern.startswith("(?!", i):
                facts.lookahead = True
            elif pattern.startswith("(?<=", i) or pattern.startswith("(?<!", i):
                facts.lookbehind = True
            elif re.match(r"\(\?[a-zA-Z-]+[:)]", pattern[i:]):
                facts.inline_flags = True
        elif char == ")":
            depth -= 1
        elif char == "^":
            facts.carets.append(i)
        elif char == "$":
            facts.dollars.append(-1 if i == n - 1 else i)
        elif char == "|" and depth == 0:
            facts.alternations.append(i)
        elif char == "{":
            found = re.match(r"\{(\d+)(?:,(\d*))?\}", pattern[i:])
            if found:
                counts = [int(found.group(1))]
                if found.group(2):
                    counts.append(int(found.group(2)))
                facts.repeats.extend(counts)
                facts.max_repeat = max(facts.max_repeat, *counts)
                i += found.end()
                continue
        i += 1
    return facts


def expand_shorthands(pattern: str) -> str | None:
    """``pattern`` with ``\\d``, ``\\w``, ``\\s`` (and their negations) written as the
    classes ECMA-262 defines, or ``None`` when one sits where that cannot be written (a
    negated shorthand inside a class, or a pattern the scan cannot follow)."""
    out: list[str] = []
    i, n, in_class = 0, len(pattern), False
    while i < n:
        char = pattern[i]
        if char == "\\" and i + 1 < n:
            nxt = pattern[i + 1]
            if nxt.lower() in SHORTHANDS:
                body = SHORTHANDS[nxt.lower()]
                if in_class:
                    if nxt.isupper():
                        return None
                    out.append(body)
                else:
                    out.append(f"[^{body}]" if nxt.isupper() else f"[{body}]")
            else:
                out.append(pattern[i : i + 2])
            i += 2
            continue
        if char == "[" and not in_class:
            in_class = True
        elif char == "]" and in_class:
            in_class = False
        out.append(char)
        i += 1
    return None if in_class else "".join(out)


def anchored(pattern: str) -> str | None:
    """``pattern`` (searched anywhere, as JSON Schema says) rewritten to match whole
    strings, ``^…$``, with the same strings passing; ``None`` when it cannot be done safely
    (an anchor inside, or a top-level alternation beside an anchor)."""
    facts = scan(pattern)
    starts = bool(facts.carets) and facts.carets[0] == 0
    ends = bool(facts.dollars) and facts.dollars[-1] == -1
    inner_carets = facts.carets[1:] if starts else facts.carets
    inner_dollars = facts.dollars[:-1] if ends else facts.dollars
    if inner_carets or inner_dollars or (facts.alternations and (starts or ends)):
        return None
    body = pattern[1 if starts else 0 : len(pattern) - 1 if ends else len(pattern)]
    head = "^" if starts else "^" + ANY
    tail = "$" if ends else ANY + "$"
    return f"{head}(?:{body}){tail}"


def pattern_fix(pointer: str, pattern: str, *, shorthands: bool, anchor: bool) -> Fix | None:
    """A fix writing ``pattern`` without shorthand escapes and/or anchored, or ``None``."""
    text: str | None = pattern
    steps = []
    if shorthands and text is not None:
        text = expand_shorthands(text)
        steps.append("write \\d, \\w and \\s as the classes they stand for")
    if anchor and text is not None and not scan(text).anchored:
        text = anchored(text)
        steps.append("anchor it as ^…$ (the same strings pass)")
    if text is None or text == pattern:
        return None
    return Fix("; ".join(steps), (Edit("set", pointer, text),))


_SINGLE: Final = frozenset(
    {
        "items", "additionalItems", "additionalProperties", "not", "if", "then", "else",
        "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties",
        "contentSchema",
    }
)  # fmt: skip


def subschemas(node: dict[str, Any], path: str) -> Iterator[tuple[str, str, Any]]:
    """Every subschema of a node: (keyword, pointer, schema), in document order."""
    for key, value in node.items():
        if key in ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas"):
            if isinstance(value, dict):
                for name, sub in value.items():
                    yield key, join(path, key, name), sub
        elif key in ("allOf", "anyOf", "oneOf", "prefixItems"):
            if isinstance(value, list):
                for index, sub in enumerate(value):
                    yield key, join(path, key, index), sub
        elif key == "items" and isinstance(value, list):
            for index, sub in enumerate(value):
                yield key, join(path, key, index), sub
        elif key in _SINGLE and isinstance(value, dict | bool):
            yield key, join(path, key), value
