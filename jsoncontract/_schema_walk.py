"""Reading a tool's input schema the way the fixture generator and the business rules' type
checker need it: one effective schema per node.

A subschema may say what it means through ``$ref``, ``allOf`` and unions. :class:`Resolver`
folds ``$ref`` targets and ``allOf`` members into one flat dictionary (types intersected,
bounds tightened, ``required`` joined), keeps ``anyOf`` / ``oneOf`` as a list of unions to
choose from, and says early when the schema admits nothing (``false``, ``not: {}``, an
empty ``enum``, contradictory types or bounds). References resolve inside the document
only, as everywhere in jsoncontract.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from jsoncontract._json import json_type as parse_json_type
from jsoncontract.pointer import ABSENT, escape_pointer_token, get

#: JSON types in the order the generator prefers them when a schema allows several.
TYPE_ORDER: Final = ("object", "array", "string", "integer", "number", "boolean", "null")
_LOWER_BOUNDS: Final = ("minLength", "minItems", "minProperties", "minContains")
_UPPER_BOUNDS: Final = ("maxLength", "maxItems", "maxProperties", "maxContains")
#: Keywords that only describe (they never change what is valid).
_ANNOTATIONS: Final = frozenset(
    {"title", "description", "$comment", "examples", "default", "deprecated", "readOnly",
     "writeOnly", "$id", "$schema", "$anchor", "$dynamicAnchor", "$defs", "definitions",
     "$vocabulary", "contentMediaType", "contentEncoding"}
)  # fmt: skip
_MAX_REF_HOPS: Final = 64
#: Subschemas folded into one effective schema, at most: ``allOf`` members that each
#: reference the same definitions twice double at every level, and would never finish.
MAX_FOLDS: Final = 10_000


class CannotGenerate(Exception):
    """The schema may have instances, but the generator cannot build one here."""

    def __init__(self, reason: str, schema_path: str) -> None:
        super().__init__(f"{reason} (at {schema_path})")
        self.reason = reason
        self.schema_path = schema_path


class Unsatisfiable(Exception):
    """No instance can satisfy the schema here.

    Arguments:
        reason: what makes it impossible, for a person.
        schema_path: where in the tool's schema (``#/properties/x``).
    """

    def __init__(self, reason: str, schema_path: str) -> None:
        super().__init__(f"{reason} (at {schema_path})")
        self.reason = reason
        self.schema_path = schema_path


@dataclass(slots=True)
class Union:
    """An ``anyOf`` / ``oneOf`` still to be chosen from."""

    keyword: str
    branches: list[Any]
    schema_path: str


@dataclass(slots=True)
class Effective:
    """One subschema with its ``$ref`` and ``allOf`` folded in.

    ``schema`` is a fresh dictionary (safe to read, never the caller's); ``patterns`` holds
    every ``pattern`` that applies; ``refs`` the references followed to get here (to see
    recursion: ``recursive`` is set when one of them was already being expanded above this
    node); ``types`` the allowed JSON types, or ``None`` when any type is.
    """

    schema: dict[str, Any]
    schema_path: str
    types: tuple[str, ...] | None = None
    patterns: list[str] = field(default_factory=list)
    unions: list[Union] = field(default_factory=list)
    refs: frozenset[str] = frozenset()
    recursive: bool = False


def _canonical(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def _types_of(schema: dict[str, Any]) -> tuple[str, ...] | None:
    declared = schema.get("type")
    if isinstance(declared, str):
        return (declared,)
    if isinstance(declared, list) and all(isinstance(t, str) for t in declared):
        return tuple(declared)
    return None


def intersect_types(a: tuple[str, ...] | None, b: tuple[str, ...] | None) -> tuple[str, ...] | None:
    if a is None:
        return b
    if b is None:
        return a
    out = []
    for t in a:
        if t in b:
            out.append(t)
        elif (t == "number" and "integer" in b) or (t == "integer" and "number" in b):
            out.append("integer")
    return tuple(dict.fromkeys(out))


class Resolver:
    """Resolves subschemas of one root schema.

    Arguments:
        root: the tool's input schema.
    """

    def __init__(self, root: Any) -> None:
        self.root = root
        self._anchors: dict[str, str] | None = None
        self._folds = 0

    def target(self, ref: str, schema_path: str) -> tuple[Any, str]:
        """The subschema a ``$ref`` points at, and its path.

        Raises:
            Unsatisfiable: the reference does not resolve inside the document (the schema
                compiler refuses those first, so this is only reached for odd documents).
        """
        if ref == "#" or ref == "":
            return self.root, "#"
        if ref.startswith("#/"):
            node = get(self.root, ref[1:])
            if node is ABSENT:
                raise Unsatisfiable(f"$ref {ref!r} does not resolve", schema_path)
            return node, ref
        if ref.startswith("#"):
            pointer = self._anchor_map().get(ref[1:])
            if pointer is not None:
                return self.target("#" + pointer, schema_path)
        raise Unsatisfiable(f"$ref {ref!r} does not resolve inside the schema", schema_path)

    def _anchor_map(self) -> dict[str, str]:
        if self._anchors is None:
            found: dict[str, str] = {}
            stack: list[tuple[Any, str]] = [(self.root, "")]
            while stack:
                node, pointer = stack.pop()
                if isinstance(node, dict):
                    for key in ("$anchor", "$dynamicAnchor"):
                        name = node.get(key)
                        if isinstance(name, str):
                            found.setdefault(name, pointer)
                    for key, value in node.items():
                        if isinstance(value, dict | list):
                            stack.append((value, pointer + "/" + escape_pointer_token(key)))
                elif isinstance(node, list):
                    for i, value in enumerate(node):
                        stack.append((value, f"{pointer}/{i}"))
            self._anchors = found
        return self._anchors

    def effective(
        self, schema: Any, schema_path: str, refs: frozenset[str] = frozenset()
    ) -> Effective:
        """Fold ``$ref`` and ``allOf`` of ``schema`` into one :class:`Effective`.

        Raises:
            Unsatisfiable: the subschema admits no instance.
            CannotGenerate: it folds more than :data:`MAX_FOLDS` subschemas together.
        """
        out = Effective({}, schema_path, refs=refs)
        self._folds = 0
        self._fold(schema, schema_path, out, 0)
        if out.types is not None and not out.types:
            raise Unsatisfiable("the types required by allOf have nothing in common", schema_path)
        return out

    def _fold(self, schema: Any, path: str, out: Effective, hops: int) -> None:
        if schema is True:
            return
        if schema is False:
            raise Unsatisfiable("the schema is false: no value is allowed", path)
        if not isinstance(schema, dict):
            return
        if hops > _MAX_REF_HOPS:
            raise Unsatisfiable("$ref chain too long (a reference loops onto itself)", path)
        self._folds += 1
        if self._folds > MAX_FOLDS:
            raise CannotGenerate(
                f"allOf and $ref here combine more than {MAX_FOLDS:,} subschemas", path
            )
        negated = schema.get("not")
        if negated is True or negated == {}:
            raise Unsatisfiable("`not: {}` forbids every value", path)
        for key in ("$ref", "$dynamicRef"):
            ref = schema.get(key)
            if isinstance(ref, str):
                target, target_path = self.target(ref, path)
                if target_path in out.refs:
                    out.recursive = True
                out.refs = out.refs | {target_path}
                self._fold(target, target_path, out, hops + 1)
        self._merge(schema, path, out)
        members = schema.get("allOf")
        if isinstance(members, list):
            for i, member in enumerate(members):
                self._fold(member, f"{path}/allOf/{i}", out, hops + 1)
        for keyword in ("anyOf", "oneOf"):
            branches = schema.get(keyword)
            if isinstance(branches, list):
                if not branches:
                    raise Unsatisfiable(f"`{keyword}` has no alternatives", path)
                out.unions.append(Union(keyword, branches, f"{path}/{keyword}"))

    def _merge(self, schema: dict[str, Any], path: str, out: Effective) -> None:
        target = out.schema
        types = _types_of(schema)
        if types is not None:
            out.types = intersect_types(out.types, types)
        pattern = schema.get("pattern")
        if isinstance(pattern, str):
            out.patterns.append(pattern)
        for key, value in schema.items():
            if key in _ANNOTATIONS or key in ("$ref", "$dynamicRef", "allOf", "anyOf", "oneOf"):
                if key in ("examples", "default") and key not in target:
                    target[key] = value
                continue
            if key not in target:
                target[key] = (
                    dict(value) if key == "properties" and isinstance(value, dict) else value
                )
                continue
            combine(target, key, value, path)
        if "enum" in target and isinstance(target["enum"], list) and not target["enum"]:
            raise Unsatisfiable("`enum` is empty: no value is allowed", path)


def combine(target: dict[str, Any], key: str, value: Any, path: str) -> None:
    """Tighten ``target[key]`` with another member's ``value``."""
    current = target[key]
    if key == "properties" and isinstance(current, dict) and isinstance(value, dict):
        for name, sub in value.items():
            current[name] = {"allOf": [current[name], sub]} if name in current else sub
    elif key == "required" and isinstance(current, list) and isinstance(value, list):
        target[key] = list(dict.fromkeys([*current, *value]))
    elif key == "enum" and isinstance(current, list) and isinstance(value, list):
        allowed = {_canonical(v) for v in value}
        kept = [v for v in current if _canonical(v) in allowed]
        if not kept:
            raise Unsatisfiable("allOf members allow no common enum value", path)
        target[key] = kept
    elif key == "const":
        if _canonical(current) != _canonical(value):
            raise Unsatisfiable("allOf members require two different constants", path)
    elif key in ("minimum", "exclusiveMinimum", *_LOWER_BOUNDS):
        if isinstance(current, int | float) and isinstance(value, int | float):
            target[key] = max(current, value)
    elif key in ("maximum", "exclusiveMaximum", *_UPPER_BOUNDS):
        if isinstance(current, int | float) and isinstance(value, int | float):
            target[key] = min(current, value)
    elif key in ("additionalProperties", "unevaluatedProperties"):
        if value is False:
            target[key] = False
    elif key == "type":
        return  # intersected in Effective.types
    # any other keyword: the first one read wins; the validator checks the result


def schema_types(effective: Effective) -> tuple[str, ...] | None:
    """The JSON types an effective schema allows, inferred from its keywords when ``type``
    is absent; ``None`` when any type is allowed."""
    if effective.types is not None:
        return effective.types
    schema = effective.schema
    if any(
        k in schema
        for k in (
            "properties",
            "required",
            "additionalProperties",
            "patternProperties",
            "minProperties",
            "maxProperties",
        )
    ):
        return ("object",)
    if any(
        k in schema
        for k in ("items", "prefixItems", "minItems", "maxItems", "contains", "uniqueItems")
    ):
        return ("array",)
    if effective.patterns or any(k in schema for k in ("minLength", "maxLength", "format")):
        return ("string",)
    if any(
        k in schema
        for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
    ):
        return ("number",)
    return None  # fmt: skip


def json_type(value: Any) -> str:
    """The JSON type name of a Python value, ``integer`` for whole numbers (as JSON Schema
    counts ``1.0``)."""
    kind = parse_json_type(value)
    if kind == "number" and value.is_integer():
        return "integer"
    return kind


def type_allows(types: tuple[str, ...] | None, value: Any) -> bool:
    """Whether a value's JSON type is one of ``types``."""
    if types is None:
        return True
    kind = json_type(value)
    return kind in types or (kind == "integer" and "number" in types)
