"""The types business rules see, derived from a tool's JSON Schema.

A rule reads JSON values: the runtime hands it maps, lists, strings, numbers, booleans and
null. :func:`schema_type` says, for a (sub)schema, which of those a value can be and what
it holds, so that :mod:`jsoncontract.business.celcheck` can tell a misspelt field or a
string added to a number before any call is checked. Only the argument values that passed
the schema reach a rule, so whatever the schema guarantees, the rule can count on.

The mapping, in short:

- ``string`` is a string (``format: date`` is still a string: convert it with ``date()``);
  ``integer`` an int; ``number`` an int *or* a double, as the JSON text was written (``5``
  or ``5.5``); ``boolean`` a bool; ``null`` null; ``array`` a list of its ``items``;
- an ``object`` with ``properties`` is an *object type*: its declared fields, which of them
  are required, and whether others may appear (``additionalProperties: false`` closes it;
  a schema for ``additionalProperties`` types the others). An object with no properties
  and an ``additionalProperties`` schema is a map;
- ``$ref`` (inside the document) is followed, and ``allOf`` members are combined, as the
  suite generator reads them (:class:`jsoncontract._schema_walk.Resolver`);
- ``anyOf`` / ``oneOf``: each branch is read together with the schema around it, and the
  results are joined: object branches give an object whose fields are those of every
  branch (required only where every branch requires them; closed only if every branch
  is); branches of one kind give that kind; ``null`` beside one other kind makes that kind
  nullable; ``integer`` beside ``number`` gives a number; anything else is dynamic;
- ``type: [T, "null"]``, a ``null`` branch, or OpenAPI's ``nullable: true`` make a value
  nullable;
- a schema without ``type`` is read from its keywords (``properties`` mean an object...);
  with none of them, and for ``true`` or ``{}``, the value is dynamic: anything goes, and
  nothing about it is checked at load.

Bounds travel with the types for cost estimation (:mod:`jsoncontract.business.cost`):
``maxLength`` (or the longest ``enum`` value, or the longest match of a ``pattern``
anchored at both ends, or the fixed length of ``format: date``), ``maxItems`` and
``maxProperties``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Final

#: Branch combinations read for one schema at most (``anyOf`` inside ``anyOf``...); past
#: that the value is dynamic, which never gives a false error.
MAX_UNION_READS: Final = 256
#: Object types read for one root schema at most.
MAX_TYPES: Final = 20_000
#: Length of a ``format: date`` string (``2025-10-31``).
DATE_LENGTH: Final = 10
#: Longest ``format: date-time`` string allowed for cost estimates (RFC 3339 with a
#: nanosecond fraction and an offset is 35 characters).
DATETIME_LENGTH: Final = 64


class Kind(StrEnum):
    """What a value is at run time (``number``: an int or a double)."""

    DYN = "dyn"
    NULL = "null"
    BOOL = "bool"
    INT = "int"
    UINT = "uint"
    DOUBLE = "double"
    NUMBER = "number"
    STRING = "string"
    BYTES = "bytes"
    TIMESTAMP = "timestamp"
    DURATION = "duration"
    LIST = "list"
    MAP = "map"
    OBJECT = "object"
    OPTIONAL = "optional"
    TYPE = "type"
    EMPTY = "empty"  # the element type of an empty list literal: joins as nothing


NUMERIC: Final = frozenset({Kind.INT, Kind.UINT, Kind.DOUBLE, Kind.NUMBER})


@dataclass(frozen=True, slots=True)
class Field:
    """A declared member of an object type."""

    type: CelType
    required: bool


class Fields(Mapping[str, Field]):
    """The declared members of an object type, typed on first read (schemas recurse)."""

    __slots__ = ("_done", "_order", "_pending", "_typer")

    def __init__(
        self,
        pending: Mapping[str, tuple[Any, str, bool]] | None = None,
        typer: SchemaTyper | None = None,
        done: Mapping[str, Field] | None = None,
    ) -> None:
        self._pending = dict(pending or {})
        self._typer = typer
        self._done: dict[str, Field] = dict(done or {})
        self._order = tuple(dict.fromkeys([*self._pending, *self._done]))

    def __getitem__(self, name: str) -> Field:
        found = self._done.get(name)
        if found is not None:
            return found
        schema, path, required = self._pending[name]
        assert self._typer is not None
        made = Field(self._typer.type_of(schema, path), required)
        self._done[name] = made
        return made

    def __iter__(self) -> Iterator[str]:
        return iter(self._order)  # as declared

    def __len__(self) -> int:
        return len(self._order)

    def __contains__(self, name: object) -> bool:
        return name in self._done or name in self._pending

    def __hash__(self) -> int:  # identity: a type's members are never compared by value
        return id(self)

    def __eq__(self, other: object) -> bool:
        return other is self

    def required(self, name: str) -> bool:
        """Whether ``name`` is declared and required (without typing it)."""
        found = self._done.get(name)
        if found is not None:
            return found.required
        pending = self._pending.get(name)
        return pending is not None and pending[2]


_NO_FIELDS: Final = Fields()


@dataclass(frozen=True, slots=True, eq=False)
class CelType:
    """The type of a value a rule reads.

    ``elem`` is the item type of a list, the value type of a map and the value of an
    optional; ``key`` the key type of a map. An object type has ``fields``, is ``closed``
    when no other member may appear, and types undeclared members as ``extra``.
    ``max_size`` is the largest ``size()`` the schema allows (characters, bytes, items or
    members; ``None``: unbounded), ``nullable`` says null is allowed too, and ``enum``
    lists the only values allowed.
    """

    kind: Kind
    elem: CelType | None = None
    key: CelType | None = None
    fields: Fields = _NO_FIELDS
    closed: bool = False
    extra: CelType | None = None
    max_size: int | None = None
    nullable: bool = False
    enum: tuple[Any, ...] | None = None
    format: str | None = None
    min_json: int = 1  # the fewest bytes a value of this type takes in JSON
    origin: str | None = None  # where in the schema the type comes from (``#/properties/x``)

    def field(self, name: str) -> Field | None:
        """A declared member of an object type."""
        return self.fields.get(name)

    def member(self, name: str) -> CelType | None:
        """The type of member ``name`` of an object or map; ``None`` when the type cannot
        have it (a closed object without that field)."""
        if self.kind is Kind.OBJECT:
            declared = self.field(name)
            if declared is not None:
                return declared.type
            if self.closed:
                return None
            return self.extra or DYN
        if self.kind is Kind.MAP:
            return self.elem or DYN
        return DYN

    def member_types(self) -> CelType:
        """The type of any member of an object (its fields and, when open, the others)."""
        joined: CelType = EMPTY
        for name in self.fields:
            joined = join(joined, self.fields[name].type)
        if not self.closed:
            joined = join(joined, self.extra or DYN)
        return DYN if joined.kind is Kind.EMPTY else joined

    def non_null(self) -> CelType:
        """This type without null."""
        return replace(self, nullable=False) if self.nullable else self

    def name(self) -> str:
        """The type as CEL writes it (``list(string)``), with ``object`` and ``number``."""
        kind = self.kind
        if kind is Kind.LIST:
            text = f"list({self.elem.name() if self.elem else 'dyn'})"
        elif kind is Kind.MAP:
            key = self.key.name() if self.key else "dyn"
            text = f"map({key}, {self.elem.name() if self.elem else 'dyn'})"
        elif kind is Kind.OPTIONAL:
            text = f"optional({self.elem.name() if self.elem else 'dyn'})"
        elif kind is Kind.EMPTY:
            text = "dyn"
        else:
            text = kind.value
        return f"{text} or null" if self.nullable and kind is not Kind.NULL else text

    def describe(self) -> str:
        """The type with an article, for messages: ``a string``, ``an int or a double``."""
        kind = self.kind
        if kind is Kind.NUMBER:
            text = "a number (an int or a double, as the JSON was written)"
        elif kind is Kind.OBJECT:
            text = "an object"
        elif kind is Kind.NULL:
            return "null"
        elif kind is Kind.BYTES:
            text = "bytes"
        elif kind in (Kind.INT, Kind.UINT, Kind.OPTIONAL):
            text = f"an {self.name().removesuffix(' or null')}"
        else:
            text = f"a {self.name().removesuffix(' or null')}"
        return f"{text} or null" if self.nullable else text


DYN: Final = CelType(Kind.DYN)
NULL: Final = CelType(Kind.NULL, min_json=4)
BOOL: Final = CelType(Kind.BOOL, min_json=4)
INT: Final = CelType(Kind.INT)
UINT: Final = CelType(Kind.UINT)
DOUBLE: Final = CelType(Kind.DOUBLE)
NUMBER: Final = CelType(Kind.NUMBER)
STRING: Final = CelType(Kind.STRING, min_json=2)
BYTES: Final = CelType(Kind.BYTES, min_json=2)
TIMESTAMP: Final = CelType(Kind.TIMESTAMP)
DURATION: Final = CelType(Kind.DURATION)
TYPE: Final = CelType(Kind.TYPE)
EMPTY: Final = CelType(Kind.EMPTY)


def list_of(elem: CelType, max_size: int | None = None) -> CelType:
    """``list(elem)``."""
    return CelType(Kind.LIST, elem=elem, max_size=max_size, min_json=2)


def map_of(key: CelType, value: CelType, max_size: int | None = None) -> CelType:
    """``map(key, value)``."""
    return CelType(Kind.MAP, elem=value, key=key, max_size=max_size, min_json=2)


def optional_of(value: CelType) -> CelType:
    """``optional(value)``."""
    return CelType(Kind.OPTIONAL, elem=value)


def object_of(
    fields: Mapping[str, Field],
    *,
    closed: bool = True,
    extra: CelType | None = None,
    max_size: int | None = None,
) -> CelType:
    """An object type with members typed already (for variables such as ``call``)."""
    minimum = 2 + sum(len(n) + 3 + f.type.min_json for n, f in fields.items() if f.required)
    return CelType(
        Kind.OBJECT,
        fields=Fields(done=fields),
        closed=closed,
        extra=extra,
        max_size=max_size,
        min_json=minimum,
    )


# -- join (one of two types) ----------------------------------------------------------------


def _bound(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else max(a, b)


def join(a: CelType, b: CelType) -> CelType:
    """The type of a value that is of type ``a`` or of type ``b``."""
    if a.kind is Kind.EMPTY:
        return b
    if b.kind is Kind.EMPTY:
        return a
    if a.kind is Kind.DYN or b.kind is Kind.DYN:
        return DYN
    if a.kind is Kind.NULL:
        return replace(b, nullable=True)
    if b.kind is Kind.NULL:
        return replace(a, nullable=True)
    nullable = a.nullable or b.nullable
    minimum = min(a.min_json, b.min_json)
    if a.kind is not b.kind:
        if a.kind in NUMERIC and b.kind in NUMERIC:
            return CelType(Kind.NUMBER, nullable=nullable, min_json=minimum)
        return DYN
    enum = (*a.enum, *b.enum) if a.enum is not None and b.enum is not None else None
    size = _bound(a.max_size, b.max_size)
    if a.kind is Kind.LIST or a.kind is Kind.OPTIONAL:
        elem = join(a.elem or DYN, b.elem or DYN)
        return CelType(a.kind, elem=elem, max_size=size, nullable=nullable, min_json=minimum)
    if a.kind is Kind.MAP:
        return CelType(
            Kind.MAP,
            key=join(a.key or DYN, b.key or DYN),
            elem=join(a.elem or DYN, b.elem or DYN),
            max_size=size,
            nullable=nullable,
            min_json=minimum,
        )
    if a.kind is Kind.OBJECT:
        return _join_objects(a, b, size, nullable, minimum)
    fmt = a.format if a.format == b.format else None
    return CelType(
        a.kind, max_size=size, nullable=nullable, enum=enum, format=fmt, min_json=minimum
    )


def _join_objects(
    a: CelType, b: CelType, size: int | None, nullable: bool, minimum: int
) -> CelType:
    done: dict[str, Field] = {}
    for name in dict.fromkeys([*a.fields, *b.fields]):
        left, right = a.field(name), b.field(name)
        if left is not None and right is not None:
            done[name] = Field(join(left.type, right.type), left.required and right.required)
            continue
        present = left or right
        assert present is not None
        other = b if left is not None else a
        kind = present.type if other.closed else join(present.type, other.extra or DYN)
        done[name] = Field(kind, False)
    closed = a.closed and b.closed
    extra = None if closed else join(a.extra or DYN, b.extra or DYN)
    return CelType(
        Kind.OBJECT,
        fields=Fields(done=done),
        closed=closed,
        extra=extra,
        max_size=size,
        nullable=nullable,
        min_json=minimum,
    )


# -- from JSON Schema -----------------------------------------------------------------------


class SchemaTyper:
    """Types the subschemas of one root schema (a tool's input schema).

    Arguments:
        root: the root schema, against which ``$ref`` resolves.
    """

    def __init__(self, root: Any) -> None:
        from jsoncontract._schema_walk import Resolver

        self.root = root
        self.resolver = Resolver(root)
        self._made = 0

    def type_of(self, schema: Any, path: str = "#") -> CelType:
        """The type of values valid against ``schema``."""
        return self._type(schema, path, [], 0)

    def _type(self, schema: Any, path: str, context: list[Any], reads: int) -> CelType:
        from jsoncontract._schema_walk import CannotGenerate, Unsatisfiable

        self._made += 1
        if self._made > MAX_TYPES:
            return DYN
        members = [*context, schema]
        try:
            effective = self.resolver.effective({"allOf": members}, path)
        except (Unsatisfiable, CannotGenerate, RecursionError):
            return DYN
        if effective.unions:
            union, rest = effective.unions[0], effective.unions[1:]
            if reads + len(union.branches) > MAX_UNION_READS:
                return DYN
            around = dict(effective.schema)
            around.pop("type", None)
            if effective.types is not None:
                around["type"] = list(effective.types)
            nested: list[Any] = [around, *({u.keyword: u.branches} for u in rest)]
            result = EMPTY
            for index, branch in enumerate(union.branches):
                branch_type = self._type(
                    branch,
                    f"{union.schema_path}/{index}",
                    nested,
                    reads + len(union.branches),
                )
                result = join(result, branch_type)
                if result.kind is Kind.DYN:
                    return DYN
            return DYN if result.kind is Kind.EMPTY else result
        return self._plain(effective, path)

    def _plain(self, effective: Any, path: str) -> CelType:
        from jsoncontract._schema_walk import schema_types

        schema = effective.schema
        types = schema_types(effective)
        nullable = bool(schema.get("nullable") is True)
        if types is None:
            return DYN
        kinds = [t for t in types if t != "null"]
        if len(kinds) < len(types):
            nullable = True
        if not kinds:
            return NULL
        if set(kinds) <= {"integer", "number"}:
            kind = "integer" if kinds == ["integer"] else "number"
        elif len(kinds) == 1:
            kind = kinds[0]
        else:
            return DYN
        made = self._of_kind(kind, schema, effective, path)
        return replace(made, nullable=nullable or made.nullable, origin=path)

    def _of_kind(self, kind: str, schema: dict[str, Any], effective: Any, path: str) -> CelType:
        enum = _enum(schema)
        if kind == "integer":
            return CelType(Kind.INT, enum=enum)
        if kind == "number":
            return CelType(Kind.NUMBER, enum=enum)
        if kind == "boolean":
            return BOOL
        if kind == "string":
            return self._string(schema, effective.patterns, enum)
        if kind == "array":
            return self._array(schema, path)
        if kind == "object":
            return self._object(schema, path)
        return DYN

    def _string(self, schema: dict[str, Any], patterns: list[str], enum: Any) -> CelType:
        from jsoncontract._regex_sample import longest_match

        bounds: list[int] = []
        declared = schema.get("maxLength")
        if isinstance(declared, int) and not isinstance(declared, bool):
            bounds.append(max(declared, 0))
        if enum is not None and all(isinstance(v, str) for v in enum):
            bounds.append(max((len(v) for v in enum), default=0))
        fmt = schema.get("format") if isinstance(schema.get("format"), str) else None
        if fmt == "date":
            bounds.append(DATE_LENGTH)
        elif fmt == "date-time":
            bounds.append(DATETIME_LENGTH)
        for pattern in patterns:
            longest = longest_match(pattern)
            if longest is not None:
                bounds.append(longest)
        return CelType(
            Kind.STRING,
            max_size=min(bounds) if bounds else None,
            enum=enum,
            format=fmt,
            min_json=2,
        )

    def _array(self, schema: dict[str, Any], path: str) -> CelType:
        item: CelType = EMPTY
        prefix = schema.get("prefixItems")
        items = schema.get("items")
        if isinstance(items, list):  # draft 4-2019: a tuple
            prefix, items = items, schema.get("additionalItems", True)
        if isinstance(prefix, list):
            for index, member in enumerate(prefix):
                item = join(item, self.type_of(member, f"{path}/prefixItems/{index}"))
        if items is not False:
            extra = self.type_of(items if items is not None else True, f"{path}/items")
            item = join(item, extra)
        if item.kind is Kind.EMPTY:
            item = DYN
        declared = schema.get("maxItems")
        size = max(declared, 0) if isinstance(declared, int) else None
        if items is False and isinstance(prefix, list):
            size = len(prefix) if size is None else min(size, len(prefix))
        return list_of(item, size)

    def _object(self, schema: dict[str, Any], path: str) -> CelType:
        properties = schema.get("properties")
        properties = properties if isinstance(properties, dict) else {}
        required = schema.get("required")
        needed = set()
        if isinstance(required, list):
            needed = {r for r in required if isinstance(r, str)}
        declared = schema.get("maxProperties")
        size = max(declared, 0) if isinstance(declared, int) else None
        additional = schema.get("additionalProperties", True)
        patterned = schema.get("patternProperties")
        closed = (
            additional is False or schema.get("unevaluatedProperties") is False
        ) and not patterned
        extra: CelType | None = None
        if not closed:
            extra = DYN
            if isinstance(additional, dict) and not patterned:
                extra = self.type_of(additional, f"{path}/additionalProperties")
        pending = {
            name: (sub, f"{path}/properties/{name}", name in needed)
            for name, sub in properties.items()
            if sub is not False
        }
        if not pending and extra is not None and extra.kind is not Kind.DYN:
            return map_of(STRING, extra, size)
        minimum = 2 + sum(len(n) + 4 for n in needed if n in pending)
        return CelType(
            Kind.OBJECT,
            fields=Fields(pending, self),
            closed=closed,
            extra=extra,
            max_size=len(pending) if closed and size is None else size,
            min_json=minimum,
        )


def _enum(schema: dict[str, Any]) -> tuple[Any, ...] | None:
    if "const" in schema:
        return (schema["const"],)
    values = schema.get("enum")
    return tuple(values) if isinstance(values, list) else None


def schema_type(schema: Any, root: Any = None) -> CelType:
    """The type of values valid against ``schema`` (a subschema of ``root``, if given)."""
    return SchemaTyper(schema if root is None else root).type_of(schema)


@dataclass(frozen=True, slots=True)
class Scoped:
    """What ``self`` is for a rule scope: its type, or why the scope cannot select
    anything the schema allows (``missing`` holds the token, ``options`` the members it
    could have been)."""

    type: CelType
    missing: str | None = None
    at: int = 0
    options: tuple[str, ...] = field(default=())


def scope_type(args: CelType, tokens: tuple[str, ...]) -> Scoped:
    """Follow a rule's scope (``*`` for every item or member) through a type."""
    current = args
    for index, token in enumerate(tokens):
        current = current.non_null()
        kind = current.kind
        if kind is Kind.DYN:
            return Scoped(DYN)
        if token == "*":
            if kind is Kind.LIST or kind is Kind.MAP:
                current = current.elem or DYN
            elif kind is Kind.OBJECT:
                current = current.member_types()
            else:
                return Scoped(DYN, missing=token, at=index)
            continue
        if kind is Kind.LIST:
            if token.isdigit():
                current = current.elem or DYN
                continue
            return Scoped(DYN, missing=token, at=index)
        if kind is Kind.OBJECT or kind is Kind.MAP:
            member = current.member(token)
            if member is None:
                return Scoped(DYN, missing=token, at=index, options=tuple(current.fields))
            current = member
            continue
        return Scoped(DYN, missing=token, at=index)
    return Scoped(current.non_null())
