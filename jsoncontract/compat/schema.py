"""Two versions of a JSON Schema compared by what they accept, keyword by keyword.

The walk goes down both schemas at once. At each pair of nodes, local ``$ref``s are
followed on both sides (a node and the definition it points at read as one node; a
reference is never fetched), then each keyword is compared by a handler of its kind, which
says what the change does to the set of accepted values (:class:`~.model.Effect`). A
keyword no handler knows is a change of unknown effect; a keyword a handler knows whose
text changed without a change of meaning is an equivalent rewrite. Subschemas are compared
by the same walk (properties, items, branches...), a ``not`` with its effects flipped.

What the walk promises: a change that can make a value that was accepted be refused is
reported as narrowing (or of unknown effect), never as nothing, and the reverse for
widening. What it gives up: precision where the question is hard (two patterns, an
``if`` that changed, overlapping ``oneOf`` branches): those are of unknown effect.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from random import Random
from typing import Any, Final
from urllib.parse import unquote

from jsoncontract import codes
from jsoncontract.compat.model import CompatClass, Effect
from jsoncontract.pin import canonical, text_change
from jsoncontract.pointer import escape_pointer_token, get, is_within

#: A keyword absent from a schema.
MISSING: Final[Any] = type("Missing", (), {"__repr__": lambda self: "MISSING"})()
#: Subschemas followed (``$ref``s included) before the rest is left unclassified.
MAX_DEPTH: Final = 64
#: Draft 2020-12, which a schema without ``$schema`` is read as.
DEFAULT_DIALECT: Final = "json-schema.org/draft/2020-12/schema"
#: Formats jsoncontract's validator asserts (a test checks each is refused on a bad value).
ASSERTED_FORMATS: Final = frozenset(
    {
        "date",
        "date-time",
        "time",
        "duration",
        "email",
        "idn-email",
        "hostname",
        "idn-hostname",
        "ipv4",
        "ipv6",
        "uri",
        "uri-reference",
        "iri",
        "iri-reference",
        "uuid",
        "uri-template",
        "json-pointer",
        "relative-json-pointer",
        "regex",
    }
)
#: ``(narrower, wider)``: every string of the first format is one of the second.
FORMAT_INCLUSIONS: Final = frozenset(
    {
        ("email", "idn-email"),
        ("hostname", "idn-hostname"),
        ("uri", "iri"),
        ("uri", "uri-reference"),
        ("uri", "iri-reference"),
        ("iri", "iri-reference"),
        ("uri-reference", "iri-reference"),
    }
)
#: Every JSON type (``integer`` is within ``number``).
JSON_TYPES: Final = ("null", "boolean", "object", "array", "number", "string", "integer")
#: Draft URIs (less scheme and final ``#``) whose ``$ref`` hides its siblings.
_LEGACY_DRAFTS: Final = (
    "json-schema.org/draft-03/schema",
    "json-schema.org/draft-04/schema",
    "json-schema.org/draft-06/schema",
    "json-schema.org/draft-07/schema",
)
#: Keywords that describe a value without constraining it.
ANNOTATIONS: Final = frozenset(
    {"title", "description", "examples", "example", "$comment", "default", "deprecated"}
)
#: Keywords read only at the root (the draft) or only through ``$ref`` (definitions).
_STRUCTURE: Final = frozenset({"$schema", "$defs", "definitions"})


@dataclass(frozen=True, slots=True)
class Raw:
    """One change the walk found, before it is classed: where (a pointer relative to the
    schema's root), the check's code, the effect, the message, the values there, and for
    a check whose class does not depend on the direction, that class."""

    pointer: str
    code: str
    effect: Effect
    message: str
    old: Any = None
    new: Any = None
    fixed: CompatClass | None = None


@dataclass(slots=True)
class _View:
    """A schema node with its ``$ref``s followed: its keywords, where each is written, the
    definitions it went through, whether it refuses everything, and whether a ``$ref``'s
    target said something its siblings contradict."""

    keywords: dict[str, Any]
    where: dict[str, str]
    refs: tuple[str, ...] = ()
    false: bool = False
    conflict: bool = False


def related(one: str, other: str) -> bool:
    """Whether one pointer is the other, or within it."""
    return one == other or is_within(one, other) or is_within(other, one)


def _same(a: Any, b: Any) -> bool:
    if a is MISSING or b is MISSING:
        return a is b
    return type(a) is type(b) and canonical(a) == canonical(b)


def _json_key(value: Any) -> bytes:
    """A key under which two values JSON Schema calls equal are equal (``1`` and ``1.0``)."""

    def norm(v: Any) -> Any:
        if isinstance(v, bool) or v is None or isinstance(v, str):
            return v
        if isinstance(v, float) and v.is_integer():
            return int(v)
        if isinstance(v, dict):
            return {k: norm(x) for k, x in v.items()}
        if isinstance(v, list):
            return [norm(x) for x in v]
        return v

    return canonical(norm(value))


def _json_type(value: Any) -> str:
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


def _short(value: Any, limit: int = 60) -> str:
    from jsoncontract._json import short_repr
    from jsoncontract.masking import masked_value

    return short_repr(masked_value(value), limit)


def _dialect(root: Any) -> str:
    declared = root.get("$schema") if isinstance(root, dict) else None
    if not isinstance(declared, str):
        return DEFAULT_DIALECT
    return declared.split("://", 1)[-1].rstrip("#")


def _resolve(root: Any, ref: str) -> tuple[Any, str] | None:
    """The node a local ``$ref`` names in ``root`` and its pointer, or ``None``."""
    if not ref.startswith("#"):
        return None
    fragment = unquote(ref[1:])
    if fragment == "" or fragment.startswith("/"):
        try:
            return get(root, fragment), fragment
        except (KeyError, IndexError, TypeError, ValueError):
            return None
    return _anchor(root, fragment, "")


def _anchor(node: Any, name: str, pointer: str) -> tuple[Any, str] | None:
    stack: list[tuple[Any, str]] = [(node, pointer)]
    while stack:
        value, at = stack.pop()
        if isinstance(value, dict):
            if value.get("$anchor") == name:
                return value, at
            stack.extend((v, f"{at}/{escape_pointer_token(k)}") for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((v, f"{at}/{i}") for i, v in enumerate(value))
    return None


def _key_pointer(pointer: str, key: str) -> str:
    return f"{pointer}/{escape_pointer_token(key)}"


class SchemaWalk:
    """The comparison of one old schema with one new one (each the root its ``$ref``s are
    resolved in). :meth:`compare` gives every change; :attr:`reached` the definitions
    either side went through."""

    def __init__(self, old_root: Any, new_root: Any) -> None:
        self.roots = (old_root, new_root)
        self.legacy = (
            _dialect(old_root) in _LEGACY_DRAFTS,
            _dialect(new_root) in _LEGACY_DRAFTS,
        )
        self.reached: tuple[set[str], set[str]] = (set(), set())
        self.roots_equal = _same(old_root, new_root)
        self._active: set[tuple[str, str]] = set()
        self._memo: dict[tuple[str, str], list[Raw]] = {}
        self._depth = 0
        self._refers: dict[int, bool] = {}

    def compare(self) -> list[Raw]:
        """Every change between the two roots, each once."""
        out = self.node(self.roots[0], self.roots[1], "", "")
        seen: set[tuple[str, str, str]] = set()
        unique = []
        for raw in out:
            key = (raw.pointer, raw.code, raw.message)
            if key not in seen:
                seen.add(key)
                unique.append(raw)
        return unique

    # -- nodes -------------------------------------------------------------------------

    def view(self, node: Any, side: int, pointer: str) -> _View:
        """``node`` with its ``$ref`` chain followed on ``side`` (0 old, 1 new)."""
        if node is MISSING or node is True:
            return _View({}, {})
        if node is False:
            return _View({}, {}, false=True)
        if not isinstance(node, dict):
            return _View({"\x00invalid": node}, {"\x00invalid": pointer})
        keywords = {k: v for k, v in node.items() if k != "$ref"}
        if self.legacy[side] and "$ref" in node:  # before 2019-09 a $ref hides its siblings
            keywords = {k: v for k, v in keywords.items() if k in ANNOTATIONS}
        where = {k: _key_pointer(pointer, k) for k in keywords}
        refs: list[str] = []
        ref = node.get("$ref")
        conflict = False
        while isinstance(ref, str):
            target = _resolve(self.roots[side], ref)
            if target is None or target[1] in refs:
                keywords["$ref"] = ref
                where["$ref"] = (
                    _key_pointer(refs[-1], "$ref") if refs else _key_pointer(pointer, "$ref")
                )
                break
            found, at = target
            refs.append(at)
            self.reached[side].add(at)
            if found is False:
                return _View({}, {}, tuple(refs), false=True)
            if not isinstance(found, dict):
                break
            for key, value in found.items():
                if key == "$ref" or key in _STRUCTURE or key in ("$id", "$anchor"):
                    continue
                if key not in keywords:
                    keywords[key] = value
                    where[key] = _key_pointer(at, key)
                elif key not in ANNOTATIONS and not _same(keywords[key], value):
                    conflict = True
            ref = found.get("$ref")
        return _View(keywords, where, tuple(refs), conflict=conflict)

    def refers(self, node: Any) -> bool:
        """Whether a subschema holds a ``$ref`` (two equal ones may then differ)."""
        known = self._refers.get(id(node))
        if known is None:
            text = canonical(node) if isinstance(node, dict | list) else b""
            known = self._refers[id(node)] = b'"$ref"' in text
        return known

    def node(self, old: Any, new: Any, old_at: str, new_at: str) -> list[Raw]:
        """The changes between two subschemas (``MISSING``: absent, which accepts all)."""
        if old in (MISSING, True) and new in (MISSING, True):
            return []
        if _same(old, new) and (self.roots_equal or not self.refers(new)):
            return []
        key = (old_at, new_at)
        if key in self._active:
            return []  # the pair is being compared further up: what differs is found there
        known = self._memo.get(key)
        if known is not None:
            return known
        if self._depth >= MAX_DEPTH:
            return [
                Raw(new_at, codes.COMPAT_TOO_DEEP, Effect.UNKNOWN, "nested too deeply to compare")
            ]
        self._active.add(key)
        self._depth += 1
        try:
            out = self._node(old, new, old_at, new_at)
        finally:
            self._depth -= 1
            self._active.discard(key)
        self._memo[key] = out
        return out

    def _node(self, old: Any, new: Any, old_at: str, new_at: str) -> list[Raw]:
        ov = self.view(old, 0, old_at)
        nv = self.view(new, 1, new_at)
        if ov.false or nv.false:
            if ov.false and nv.false:
                return [_equivalent(new_at, old, new)]
            if nv.false:
                if not ov.keywords or _empty_accepting(ov):
                    message = "the schema now refuses every value"
                else:
                    message = "the schema now refuses every value it accepted"
                return [Raw(new_at, codes.COMPAT_SCHEMA_CLOSED, Effect.NARROWS, message, old, new)]
            return [
                Raw(
                    new_at,
                    codes.COMPAT_SCHEMA_OPENED,
                    Effect.WIDENS,
                    "the schema refused every value and now accepts some",
                    old,
                    new,
                )
            ]
        if _same(ov.keywords, nv.keywords):
            if ov.refs != nv.refs:
                via = f"$ref {nv.refs[-1]!r}" if nv.refs else "its definition inlined"
                return [
                    Raw(
                        new_at,
                        codes.COMPAT_REF_EQUIVALENT,
                        Effect.NONE,
                        f"the same schema, now through {via}"
                        if nv.refs
                        else f"the same schema, {via}",
                        old,
                        new,
                        fixed=CompatClass.COSMETIC,
                    )
                ]
            return [] if _same(old, new) else [_equivalent(new_at, old, new)]
        out: list[Raw] = []
        if ov.conflict or nv.conflict:
            out.append(
                Raw(
                    new_at,
                    codes.COMPAT_UNCLASSIFIED,
                    Effect.UNKNOWN,
                    "a $ref and a keyword beside it both set one keyword, differently: the "
                    "change is not classified",
                )
            )
        out.extend(_Keywords(self, ov, nv, old_at, new_at).compare())
        return out


def _empty_accepting(view: _View) -> bool:
    return not any(k not in ANNOTATIONS for k in view.keywords)


def _equivalent(pointer: str, old: Any, new: Any, what: str = "") -> Raw:
    return Raw(
        pointer,
        codes.COMPAT_EQUIVALENT_REWRITE,
        Effect.NONE,
        f"{what or 'the schema'} is written differently with the same meaning",
        None if old is MISSING else old,
        None if new is MISSING else new,
        fixed=CompatClass.COSMETIC,
    )


def aggregate(raws: Iterable[Raw]) -> Effect:
    """The effect of several changes together (those of a fixed class left out)."""
    out = Effect.NONE
    for raw in raws:
        if raw.fixed is None:
            out |= raw.effect
    return out


# -- keywords ----------------------------------------------------------------------------

Handler = Callable[["_Keywords"], list[Raw]]


class _Keywords:
    """The keywords of one pair of views, compared by kind."""

    def __init__(self, walk: SchemaWalk, ov: _View, nv: _View, old_at: str, new_at: str):
        self.walk = walk
        self.ov, self.nv = ov, nv
        self.o, self.n = ov.keywords, nv.keywords
        self.old_at, self.new_at = old_at, new_at
        #: the same definitions on both sides: report where the definition says it
        self.in_place = ov.refs == nv.refs

    def old(self, key: str) -> Any:
        return self.o.get(key, MISSING)

    def new(self, key: str) -> Any:
        return self.n.get(key, MISSING)

    def at(self, key: str) -> str:
        """Where a keyword's change is reported: in the new schema where it is written
        (in the old one when it was removed)."""
        if self.in_place:
            where = self.nv.where.get(key) or self.ov.where.get(key)
            if where is not None:
                return where
        return _key_pointer(self.new_at, key)

    def old_at_key(self, key: str) -> str:
        return self.ov.where.get(key) or _key_pointer(self.old_at, key)

    def new_at_key(self, key: str) -> str:
        return self.nv.where.get(key) or _key_pointer(self.new_at, key)

    def sub(self, key: str, old: Any, new: Any, old_at: str | None = None) -> list[Raw]:
        """The changes of the subschemas at ``key``."""
        return self.walk.node(
            old,
            new,
            old_at if old_at is not None else self.old_at_key(key),
            self.new_at_key(key),
        )

    def raw(
        self,
        key: str,
        code: str,
        effect: Effect,
        message: str,
        old: Any = MISSING,
        new: Any = MISSING,
        fixed: CompatClass | None = None,
    ) -> Raw:
        old = self.old(key) if old is MISSING else old
        new = self.new(key) if new is MISSING else new
        return Raw(
            self.at(key),
            code,
            effect,
            message,
            None if old is MISSING else old,
            None if new is MISSING else new,
            fixed,
        )

    def compare(self) -> list[Raw]:
        out: list[Raw] = []
        walk = self.walk
        for keys, handler in _HANDLERS:
            if any(
                not _same(self.old(k), self.new(k))
                or (not walk.roots_equal and k in self.n and walk.refers(self.n[k]))
                for k in keys
            ):
                out.extend(handler(self))
        for key in sorted(self.o.keys() | self.n.keys()):
            if _same(self.old(key), self.new(key)):
                continue
            if key in _HANDLED:
                at = self.at(key)
                places = [at, self.at("if")] if key in ("then", "else") else [at]
                if not any(related(raw.pointer, p) for raw in out for p in places):
                    out.append(_equivalent(at, self.old(key), self.new(key), key))
            elif key not in _STRUCTURE:
                out.append(
                    self.raw(
                        key,
                        codes.COMPAT_UNKNOWN_KEYWORD,
                        Effect.UNKNOWN,
                        f"{key} changed ({_short(self.old(key))} -> {_short(self.new(key))}); "
                        "its effect is not classified",
                    )
                )
        return out


def _annotations(k: _Keywords) -> list[Raw]:
    out = []
    for key in ("title", "description", "examples", "example", "$comment", "default"):
        old, new = k.old(key), k.new(key)
        if _same(old, new):
            continue
        shown_old = None if old is MISSING else old
        shown_new = None if new is MISSING else new
        if key == "title":
            out.append(
                k.raw(
                    key,
                    codes.COMPAT_TITLE_CHANGED,
                    Effect.NONE,
                    f"title changed: {_short(shown_old)} -> {_short(shown_new)}",
                    fixed=CompatClass.COSMETIC,
                )
            )
        elif key == "description":
            text = text_change(
                shown_old if isinstance(shown_old, str) else None,
                shown_new if isinstance(shown_new, str) else None,
            )
            out.append(
                k.raw(
                    key,
                    codes.COMPAT_DESCRIPTION_CHANGED,
                    Effect.NONE,
                    f"description changed: {text}",
                    fixed=CompatClass.RISKY,
                )
            )
        elif key == "default":
            out.append(
                k.raw(
                    key,
                    codes.COMPAT_DEFAULT_CHANGED,
                    Effect.NONE,
                    f"default changed: {_short(shown_old)} -> {_short(shown_new)}",
                    fixed=CompatClass.RISKY,
                )
            )
        else:
            out.append(
                k.raw(
                    key,
                    codes.COMPAT_EXAMPLE_CHANGED,
                    Effect.NONE,
                    f"{key} changed",
                    fixed=CompatClass.COSMETIC,
                )
            )
    old, new = k.old("deprecated"), k.new("deprecated")
    if not _same(old, new):
        now = "now marked deprecated" if new is True else "no longer marked deprecated"
        out.append(
            k.raw(
                "deprecated",
                codes.COMPAT_DEPRECATED_CHANGED,
                Effect.NONE,
                now if (old is True) != (new is True) else "deprecated respelt",
                fixed=CompatClass.COMPATIBLE,
            )
        )
    return out


def _schema_keyword(k: _Keywords) -> list[Raw]:
    old, new = k.old("$schema"), k.new("$schema")
    names = [
        _dialect({"$schema": v}) if isinstance(v, str) else DEFAULT_DIALECT for v in (old, new)
    ]
    if names[0] == names[1]:
        return [
            k.raw(
                "$schema",
                codes.COMPAT_DIALECT_RESTATED,
                Effect.NONE,
                f"$schema names the same draft ({names[1]})",
                fixed=CompatClass.COSMETIC,
            )
        ]
    return [
        k.raw(
            "$schema",
            codes.COMPAT_DIALECT_CHANGED,
            Effect.UNKNOWN,
            f"the schema is now read as {names[1]} (was {names[0]})",
        )
    ]


def _type_set(value: Any) -> frozenset[str] | None:
    if value is MISSING:
        return None
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(t, str) for t in items):
        raise _Unclassified("type is not a type name or a list of them")
    return frozenset(items)


def _covered(kind: str, types: frozenset[str] | None) -> bool:
    return types is None or kind in types or (kind == "integer" and "number" in types)


def _types(k: _Keywords) -> list[Raw]:
    old, new = _type_set(k.old("type")), _type_set(k.new("type"))
    lost = [t for t in (JSON_TYPES if old is None else old) if not _covered(t, new)]
    gained = [t for t in (JSON_TYPES if new is None else new) if not _covered(t, old)]
    out = []
    if lost:
        out.append(
            k.raw(
                "type",
                codes.COMPAT_TYPE_NARROWED,
                Effect.NARROWS,
                f"type no longer accepts {', '.join(sorted(lost))}",
            )
        )
    if gained:
        out.append(
            k.raw(
                "type",
                codes.COMPAT_TYPE_WIDENED,
                Effect.WIDENS,
                f"type now accepts {', '.join(sorted(gained))}",
            )
        )
    return out


def _allowed(view_keywords: dict[str, Any]) -> dict[bytes, Any] | None:
    """The values ``enum`` and ``const`` allow (of the node's types), or ``None``: any."""
    enum = view_keywords.get("enum", MISSING)
    const = view_keywords.get("const", MISSING)
    values: dict[bytes, Any] | None = None
    if enum is not MISSING:
        if not isinstance(enum, list):
            raise _Unclassified("enum is not a list")
        values = {_json_key(v): v for v in enum}
    if const is not MISSING:
        key = _json_key(const)
        values = {key: const} if values is None or key in values else {}
    if values is None:
        return None
    types = _type_set(view_keywords.get("type", MISSING))
    return {key: v for key, v in values.items() if _covered(_json_type(v), types)}


def _values(k: _Keywords) -> list[Raw]:
    old, new = _allowed(k.o), _allowed(k.n)
    key = "enum" if "enum" in k.n or ("enum" in k.o and "const" not in k.n) else "const"
    if old is None and new is None:
        return []
    if old is None:
        assert new is not None
        return [
            k.raw(
                key,
                codes.COMPAT_VALUE_RESTRICTED,
                Effect.NARROWS,
                f"{key} added: only {_listing(list(new.values()))} accepted",
            )
        ]
    if new is None:
        removed = "enum" if "enum" in k.o else "const"
        return [
            k.raw(
                removed,
                codes.COMPAT_VALUE_UNRESTRICTED,
                Effect.WIDENS,
                f"{removed} removed: any value accepted (was {_listing(list(old.values()))})",
            )
        ]
    out = []
    lost = [v for key_, v in old.items() if key_ not in new]
    gained = [v for key_, v in new.items() if key_ not in old]
    if lost:
        out.append(
            k.raw(
                key,
                codes.COMPAT_ENUM_VALUE_REMOVED,
                Effect.NARROWS,
                f"{key} no longer allows {_listing(lost)}",
            )
        )
    if gained:
        out.append(
            k.raw(
                key,
                codes.COMPAT_ENUM_VALUE_ADDED,
                Effect.WIDENS,
                f"{key} now allows {_listing(gained)}",
            )
        )
    return out


def _listing(values: list[Any]) -> str:
    shown = ", ".join(_short(v, 40) for v in values[:5])
    return shown + (f" and {len(values) - 5} more" if len(values) > 5 else "")


def _number(value: Any, key: str) -> float | int | None:
    if value is MISSING:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _Unclassified(f"{key} is not a number")
    return value


def _bound(k: _Keywords, key: str, *, lower: bool, default: float | int | None) -> list[Raw]:
    old, new = k.old(key), k.new(key)
    if _same(old, new):
        return []
    a, b = _number(old, key), _number(new, key)
    a = default if a is None else a
    b = default if b is None else b
    if a == b:
        return [_equivalent(k.at(key), old, new, key)]
    if a is None or b is None:
        tighter = b is not None
    else:
        tighter = b > a if lower else b < a
    return [
        k.raw(
            key,
            codes.COMPAT_BOUND_TIGHTENED if tighter else codes.COMPAT_BOUND_LOOSENED,
            Effect.NARROWS if tighter else Effect.WIDENS,
            _bound_message(key, old, new),
        )
    ]


def _bound_message(key: str, old: Any, new: Any) -> str:
    if old is MISSING:
        return f"{key} {_short(new)} added"
    if new is MISSING:
        return f"{key} removed (was {_short(old)})"
    return f"{key} changed from {_short(old)} to {_short(new)}"


def _range_end(keywords: dict[str, Any], *, lower: bool) -> tuple[float, bool, str] | None:
    """The lower (or upper) end of a number's range: its value, whether it is excluded,
    and the keyword that sets it; ``None``: unbounded."""
    plain, exclusive = ("minimum", "exclusiveMinimum") if lower else ("maximum", "exclusiveMaximum")
    ends: list[tuple[float, bool, str]] = []
    value = _number(keywords.get(plain, MISSING), plain)
    flag = keywords.get(exclusive, MISSING)
    if value is not None:
        ends.append((value, flag is True, plain))
    if not isinstance(flag, bool):
        strict = _number(flag, exclusive)
        if strict is not None:
            ends.append((strict, True, exclusive))
    if not ends:
        return None

    def tightness(end: tuple[float, bool, str]) -> tuple[float, bool]:
        return (end[0], end[1]) if lower else (-end[0], end[1])

    return max(ends, key=tightness)


def _numbers(k: _Keywords) -> list[Raw]:
    out = []
    for lower in (True, False):
        keys = ("minimum", "exclusiveMinimum") if lower else ("maximum", "exclusiveMaximum")
        if all(_same(k.old(key), k.new(key)) for key in keys):
            continue
        old, new = _range_end(k.o, lower=lower), _range_end(k.n, lower=lower)
        if old is not None and new is not None and old[:2] == new[:2]:
            continue  # the same end, written otherwise: an equivalent rewrite
        if old is None:
            tighter = True
        elif new is None:
            tighter = False
        else:
            sign = 1 if lower else -1
            tighter = (sign * new[0], new[1]) > (sign * old[0], old[1])
        key = (new or old or (0, False, keys[0]))[2]
        what = "lower" if lower else "upper"
        message = (
            f"the {what} bound {'tightened' if tighter else 'loosened'}: "
            f"{_end(old, lower)} -> {_end(new, lower)}"
        )
        out.append(
            k.raw(
                key,
                codes.COMPAT_BOUND_TIGHTENED if tighter else codes.COMPAT_BOUND_LOOSENED,
                Effect.NARROWS if tighter else Effect.WIDENS,
                message,
            )
        )
    out.extend(_multiple_of(k))
    return out


def _end(end: tuple[float, bool, str] | None, lower: bool) -> str:
    if end is None:
        return "none"
    sign = (">" if lower else "<") + ("" if end[1] else "=")
    return f"{sign} {_short(end[0])}"


def _multiple_of(k: _Keywords) -> list[Raw]:
    old, new = k.old("multipleOf"), k.new("multipleOf")
    if _same(old, new):
        return []
    a, b = _number(old, "multipleOf"), _number(new, "multipleOf")
    if a is None:
        effects = [Effect.NARROWS]
    elif b is None:
        effects = [Effect.WIDENS]
    else:
        ratio = Fraction(str(a)) / Fraction(str(b))
        if ratio == 1:
            return [_equivalent(k.at("multipleOf"), old, new, "multipleOf")]
        if ratio.denominator == 1:  # every multiple of the old one is one of the new
            effects = [Effect.WIDENS]
        elif ratio.numerator == 1:  # every multiple of the new one is one of the old
            effects = [Effect.NARROWS]
        else:
            effects = [Effect.NARROWS, Effect.WIDENS]
    message = _bound_message("multipleOf", old, new)
    return [
        k.raw(
            "multipleOf",
            codes.COMPAT_BOUND_TIGHTENED
            if effect is Effect.NARROWS
            else codes.COMPAT_BOUND_LOOSENED,
            effect,
            message,
        )
        for effect in effects
    ]


def _strings(k: _Keywords) -> list[Raw]:
    out = _bound(k, "minLength", lower=True, default=0)
    out += _bound(k, "maxLength", lower=False, default=None)
    out += _pattern(k)
    out += _format(k)
    return out


def _pattern(k: _Keywords) -> list[Raw]:
    old, new = k.old("pattern"), k.new("pattern")
    if _same(old, new):
        return []
    if not isinstance(old, str | type(MISSING)) or not isinstance(new, str | type(MISSING)):
        raise _Unclassified("pattern is not a string")
    if old is MISSING:
        return [
            k.raw(
                "pattern",
                codes.COMPAT_PATTERN_ADDED,
                Effect.NARROWS,
                f"pattern {_short(new)} added",
            )
        ]
    if new is MISSING:
        return [
            k.raw(
                "pattern",
                codes.COMPAT_PATTERN_REMOVED,
                Effect.WIDENS,
                f"pattern removed (was {_short(old)})",
            )
        ]
    refused = _witness(old, new, k.o)
    accepted = _witness(new, old, k.n)
    effect = Effect.NONE
    said = []
    if refused is not None:
        effect |= Effect.NARROWS
        said.append(f"{_short(refused, 40)} matched the old one and not the new")
    if accepted is not None:
        effect |= Effect.WIDENS
        said.append(f"{_short(accepted, 40)} matches the new one and not the old")
    if refused is None or accepted is None:
        effect |= Effect.UNKNOWN
    why = "; ".join(said) if said else "no string was found that tells them apart"
    return [
        k.raw(
            "pattern",
            codes.COMPAT_PATTERN_CHANGED,
            effect,
            f"pattern changed from {_short(old)} to {_short(new)}: {why}",
        )
    ]


#: Strings drawn from a pattern when looking for one the other pattern refuses.
WITNESS_DRAWS: Final = 24
#: Characters put in place of each character of a few drawn strings (the generator picks
#: from the first range of a class only).
_PROBES: Final = "0a9zAZ_-. @/:é"


def _witness(pattern: str, other: str, keywords: dict[str, Any]) -> str | None:
    """A string that ``pattern`` (within the node's lengths) accepts and ``other`` refuses:
    strings drawn from ``pattern``, then those with one character replaced."""
    from jsoncontract._regex import InvalidPattern, search
    from jsoncontract._regex_sample import PatternUnsupported, sample

    low = keywords.get("minLength", 0)
    high = keywords.get("maxLength")
    low = low if isinstance(low, int) and not isinstance(low, bool) else 0
    high = high if isinstance(high, int) and not isinstance(high, bool) else None
    drawn: list[str] = []
    for draw in range(WITNESS_DRAWS):
        try:
            drawn.append(
                sample(pattern, min_length=low, max_length=high,
                       rng=Random(draw) if draw else None, variant=draw)
            )  # fmt: skip
        except PatternUnsupported:
            if draw == 0:
                return None
    varied = [
        text[:at] + probe + text[at + 1 :]
        for text in dict.fromkeys(drawn[:3])
        for at in range(min(len(text), 8))
        for probe in _PROBES
    ]
    try:
        for text in dict.fromkeys(drawn):
            if not search(other, text):
                return text
        for text in varied:
            if search(pattern, text) and not search(other, text):
                return text
    except InvalidPattern:
        return None
    return None


def _format(k: _Keywords) -> list[Raw]:
    old, new = k.old("format"), k.new("format")
    if _same(old, new):
        return []
    asserted = [v in ASSERTED_FORMATS for v in (old, new)]
    if not any(asserted):
        return [
            k.raw(
                "format",
                codes.COMPAT_FORMAT_CHANGED,
                Effect.NONE,
                f"format changed from {_short(old if old is not MISSING else None)} to "
                f"{_short(new if new is not MISSING else None)}, which jsoncontract does not "
                "assert; a server's validator may",
                fixed=CompatClass.RISKY,
            )
        ]
    if not asserted[0]:
        return [
            k.raw(
                "format", codes.COMPAT_FORMAT_ADDED, Effect.NARROWS, f"format {_short(new)} added"
            )
        ]
    if not asserted[1]:
        return [
            k.raw(
                "format",
                codes.COMPAT_FORMAT_REMOVED,
                Effect.WIDENS,
                f"format {_short(old)} removed",
            )
        ]
    if (old, new) in FORMAT_INCLUSIONS:
        effect = Effect.WIDENS
    elif (new, old) in FORMAT_INCLUSIONS:
        effect = Effect.NARROWS
    else:
        effect = Effect.NARROWS | Effect.WIDENS
    return [
        k.raw(
            "format",
            codes.COMPAT_FORMAT_CHANGED,
            effect,
            f"format changed from {_short(old)} to {_short(new)}",
        )
    ]


def _flag(k: _Keywords, key: str, added: str, removed: str, what: str) -> list[Raw]:
    old, new = k.old(key) is True, k.new(key) is True
    if old == new:
        return []
    if new:
        return [k.raw(key, added, Effect.NARROWS, f"{what} now required")]
    return [k.raw(key, removed, Effect.WIDENS, f"{what} no longer required")]


def _arrays(k: _Keywords) -> list[Raw]:
    out = _bound(k, "minItems", lower=True, default=0)
    out += _bound(k, "maxItems", lower=False, default=None)
    out += _flag(
        k,
        "uniqueItems",
        codes.COMPAT_UNIQUE_ITEMS_ADDED,
        codes.COMPAT_UNIQUE_ITEMS_REMOVED,
        "unique items",
    )
    old_prefix, old_rest, old_where = _tuple_form(k.o, k.old_at_key)
    new_prefix, new_rest, new_where = _tuple_form(k.n, k.new_at_key)
    for index in range(max(len(old_prefix), len(new_prefix))):
        old = old_prefix[index] if index < len(old_prefix) else old_rest[0]
        new = new_prefix[index] if index < len(new_prefix) else new_rest[0]
        old_at = old_where(index) if index < len(old_prefix) else old_rest[1]
        new_at = new_where(index) if index < len(new_prefix) else new_rest[1]
        out += k.walk.node(old, new, old_at, new_at)
    out += k.walk.node(old_rest[0], new_rest[0], old_rest[1], new_rest[1])
    out += k.sub("unevaluatedItems", k.old("unevaluatedItems"), k.new("unevaluatedItems"))
    old, new = k.old("contains"), k.new("contains")
    if old is MISSING and new is not MISSING:
        out.append(
            k.raw(
                "contains",
                codes.COMPAT_SUBSCHEMA_ADDED,
                Effect.NARROWS,
                "contains added: an item must match it",
            )
        )
    elif new is MISSING and old is not MISSING:
        out.append(
            k.raw("contains", codes.COMPAT_SUBSCHEMA_REMOVED, Effect.WIDENS, "contains removed")
        )
    elif old is not MISSING:
        out += k.sub("contains", old, new)
    if "contains" in k.o or "contains" in k.n:
        out += _bound(k, "minContains", lower=True, default=1)
        out += _bound(k, "maxContains", lower=False, default=None)
    return out


def _tuple_form(
    keywords: dict[str, Any], where: Callable[[str], str]
) -> tuple[list[Any], tuple[Any, str], Callable[[int], str]]:
    """The positional item schemas, the schema of the items after them (with where it is),
    and where the positional ones are: ``prefixItems`` and ``items``, or the array form of
    ``items`` and ``additionalItems`` of the drafts before 2020-12."""
    items = keywords.get("items", MISSING)
    if isinstance(items, list):
        rest = keywords.get("additionalItems", MISSING)
        return items, (rest, where("additionalItems")), lambda i: f"{where('items')}/{i}"
    prefix = keywords.get("prefixItems", MISSING)
    prefix = prefix if isinstance(prefix, list) else []
    return prefix, (items, where("items")), lambda i: f"{where('prefixItems')}/{i}"


def _objects(k: _Keywords) -> list[Raw]:
    out = _bound(k, "minProperties", lower=True, default=0)
    out += _bound(k, "maxProperties", lower=False, default=None)
    out += _required(k)
    out += _properties(k)
    out += _pattern_properties(k)
    for key in ("additionalProperties", "unevaluatedProperties"):
        out += _closure(k, key)
    out += k.sub("propertyNames", k.old("propertyNames"), k.new("propertyNames"))
    out += _dependencies(k)
    return out


def _strings_of(value: Any, what: str) -> list[str]:
    if value is MISSING:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _Unclassified(f"{what} is not a list of names")
    return value


def _required(k: _Keywords) -> list[Raw]:
    old = _strings_of(k.old("required"), "required")
    new = _strings_of(k.new("required"), "required")
    out = [
        k.raw(
            "required",
            codes.COMPAT_REQUIRED_ADDED,
            Effect.NARROWS,
            f"{_short(name)} is now required",
            old=None,
            new=name,
        )
        for name in new
        if name not in old
    ]
    out += [
        k.raw(
            "required",
            codes.COMPAT_REQUIRED_REMOVED,
            Effect.WIDENS,
            f"{_short(name)} is no longer required",
            old=name,
            new=None,
        )
        for name in old
        if name not in new
    ]
    return out


def _other(k: _Keywords, side: int, name: str) -> tuple[Any, str]:
    """The schema a member ``name`` not in ``properties`` gets on ``side``, and where."""
    from jsoncontract._regex import InvalidPattern, search

    keywords = k.o if side == 0 else k.n
    where = k.old_at_key if side == 0 else k.new_at_key
    patterns = keywords.get("patternProperties", MISSING)
    if isinstance(patterns, dict):
        matching = []
        for pattern, schema in patterns.items():
            try:
                if search(pattern, name):
                    matching.append(
                        (schema, f"{where('patternProperties')}/{escape_pointer_token(pattern)}")
                    )
            except InvalidPattern:
                raise _Unclassified(f"patternProperties {pattern!r} is not readable") from None
        if len(matching) == 1:
            return matching[0]
        if matching:
            return {"allOf": [m[0] for m in matching]}, matching[0][1]
    for key in ("additionalProperties", "unevaluatedProperties"):
        value = keywords.get(key, MISSING)
        if value is not MISSING:
            return value, where(key)
    return MISSING, where("additionalProperties")


def _open(schema: Any) -> bool:
    return schema is MISSING or schema is True or schema == {}


def _properties(k: _Keywords) -> list[Raw]:
    old, new = k.old("properties"), k.new("properties")
    old = {} if old is MISSING else old
    new = {} if new is MISSING else new
    if not isinstance(old, dict) or not isinstance(new, dict):
        raise _Unclassified("properties is not an object")
    out: list[Raw] = []
    base_old, base_new = k.old_at_key("properties"), k.new_at_key("properties")
    for name in sorted(old.keys() | new.keys()):
        old_at = _key_pointer(base_old, name)
        new_at = _key_pointer(base_new, name)
        if name in old and name in new:
            out += k.walk.node(old[name], new[name], old_at, new_at)
            continue
        label = _short(name)
        if name in old:
            schema, at = _other(k, 1, name)
            effect = aggregate(k.walk.node(old[name], schema, old_at, at))
            if effect & Effect.NARROWS:
                said = f"property {label} removed: the object now refuses it"
            else:
                said = f"property {label} removed: it is now unconstrained"
            out.append(Raw(old_at, codes.COMPAT_PROPERTY_REMOVED, effect, said, old[name]))
            continue
        schema, at = _other(k, 0, name)
        effect = aggregate(k.walk.node(schema, new[name], at, new_at))
        if _open(schema) and effect & Effect.NARROWS:
            effect = (effect & ~Effect.NARROWS) | Effect.UNDECLARED
            said = (
                f"property {label} declared in an open object: a call that sent an "
                "undeclared member of that name, of another shape, fails"
            )
        elif effect & Effect.WIDENS:
            said = f"property {label} added: the object refused it before"
        else:
            said = f"property {label} added"
        out.append(Raw(new_at, codes.COMPAT_PROPERTY_ADDED, effect, said, None, new[name]))
    return out


def _pattern_properties(k: _Keywords) -> list[Raw]:
    old, new = k.old("patternProperties"), k.new("patternProperties")
    old = {} if old is MISSING else old
    new = {} if new is MISSING else new
    if not isinstance(old, dict) or not isinstance(new, dict):
        raise _Unclassified("patternProperties is not an object")
    out: list[Raw] = []
    base_old, base_new = k.old_at_key("patternProperties"), k.new_at_key("patternProperties")
    for pattern in sorted(old.keys() | new.keys()):
        old_at = _key_pointer(base_old, pattern)
        new_at = _key_pointer(base_new, pattern)
        if pattern in old and pattern in new:
            out += k.walk.node(old[pattern], new[pattern], old_at, new_at)
            continue
        label = f"members matching {_short(pattern)}"
        if pattern in old:
            rest, at = _rest(k, 1)
            effect = aggregate(k.walk.node(old[pattern], rest, old_at, at))
            out.append(
                Raw(
                    old_at,
                    codes.COMPAT_PROPERTY_REMOVED,
                    effect,
                    f"{label} no longer have a schema of their own",
                    old[pattern],
                )
            )
        else:
            rest, at = _rest(k, 0)
            effect = aggregate(k.walk.node(rest, new[pattern], at, new_at))
            if _open(rest) and effect & Effect.NARROWS:
                effect = (effect & ~Effect.NARROWS) | Effect.UNDECLARED
            out.append(
                Raw(
                    new_at,
                    codes.COMPAT_PROPERTY_ADDED,
                    effect,
                    f"{label} now have a schema of their own",
                    None,
                    new[pattern],
                )
            )
    return out


def _rest(k: _Keywords, side: int) -> tuple[Any, str]:
    keywords = k.o if side == 0 else k.n
    where = k.old_at_key if side == 0 else k.new_at_key
    for key in ("additionalProperties", "unevaluatedProperties"):
        if key in keywords:
            return keywords[key], where(key)
    return MISSING, where("additionalProperties")


def _closure(k: _Keywords, key: str) -> list[Raw]:
    old, new = k.old(key), k.new(key)
    if _same(old, new):
        return []
    closed = [v is False or (isinstance(v, dict) and v.get("not") == {}) for v in (old, new)]
    if closed[1] and not closed[0]:
        return [
            k.raw(
                key,
                codes.COMPAT_ADDITIONAL_PROPERTIES_CLOSED,
                Effect.NARROWS,
                f"{key} is now false: members the object does not declare are refused",
            )
        ]
    if closed[0] and not closed[1]:
        return [
            k.raw(
                key,
                codes.COMPAT_ADDITIONAL_PROPERTIES_OPENED,
                Effect.WIDENS,
                f"{key} is no longer false: members the object does not declare are accepted",
            )
        ]
    return k.sub(key, old, new)


def _dependencies(k: _Keywords) -> list[Raw]:
    required: list[dict[str, Any]] = []
    schemas: list[dict[str, Any]] = []
    for keywords in (k.o, k.n):
        names: dict[str, Any] = dict(keywords.get("dependentRequired") or {})
        subs: dict[str, Any] = dict(keywords.get("dependentSchemas") or {})
        for key, value in (keywords.get("dependencies") or {}).items():
            (names if isinstance(value, list) else subs)[key] = value
        required.append(names)
        schemas.append(subs)
    out: list[Raw] = []
    where = (
        "dependentRequired" if "dependentRequired" in k.n.keys() | k.o.keys() else "dependencies"
    )
    for member in sorted(required[0].keys() | required[1].keys()):
        old = _strings_of(required[0].get(member, []), "dependentRequired")
        new = _strings_of(required[1].get(member, []), "dependentRequired")
        out.extend(
            k.raw(
                where,
                codes.COMPAT_DEPENDENCY_ADDED,
                Effect.NARROWS,
                f"an object with {_short(member)} must now have {_short(name)}",
                old=None,
                new={member: name},
            )
            for name in new
            if name not in old
        )
        out.extend(
            k.raw(
                where,
                codes.COMPAT_DEPENDENCY_REMOVED,
                Effect.WIDENS,
                f"an object with {_short(member)} need no longer have {_short(name)}",
                old={member: name},
                new=None,
            )
            for name in old
            if name not in new
        )
    where = "dependentSchemas" if "dependentSchemas" in k.n.keys() | k.o.keys() else "dependencies"
    for member in sorted(schemas[0].keys() | schemas[1].keys()):
        old = schemas[0].get(member, MISSING)
        new = schemas[1].get(member, MISSING)
        if old is MISSING:
            out.append(
                k.raw(
                    where,
                    codes.COMPAT_DEPENDENCY_ADDED,
                    Effect.NARROWS,
                    f"an object with {_short(member)} must now match a schema",
                    old=None,
                    new=new,
                )
            )
        elif new is MISSING:
            out.append(
                k.raw(
                    where,
                    codes.COMPAT_DEPENDENCY_REMOVED,
                    Effect.WIDENS,
                    f"an object with {_short(member)} need no longer match a schema",
                    old=old,
                    new=None,
                )
            )
        else:
            base = k.at(where)
            out += k.walk.node(
                old, new, _key_pointer(k.old_at_key(where), member), _key_pointer(base, member)
            )
    return out


def _applicators(k: _Keywords) -> list[Raw]:
    out = _all_of(k)
    out += _any_of(k, "anyOf")
    out += _any_of(k, "oneOf")
    out += _not(k)
    out += _condition(k)
    return out


def _entries(k: _Keywords, key: str) -> tuple[list[Any], list[Any]]:
    old, new = k.old(key), k.new(key)
    old = [] if old is MISSING else old
    new = [] if new is MISSING else new
    if not isinstance(old, list) or not isinstance(new, list):
        raise _Unclassified(f"{key} is not a list")
    return old, new


def _pairs(old: list[Any], new: list[Any]) -> tuple[list[tuple[int, int]], list[int], list[int]]:
    """Entries matched: equal ones first, the rest in order; and those left on each side."""
    left_old = list(range(len(old)))
    left_new = list(range(len(new)))
    pairs: list[tuple[int, int]] = []
    for i in list(left_old):
        for j in left_new:
            if _same(old[i], new[j]):
                pairs.append((i, j))
                left_old.remove(i)
                left_new.remove(j)
                break
    while left_old and left_new:
        pairs.append((left_old.pop(0), left_new.pop(0)))
    return pairs, left_old, left_new


def _all_of(k: _Keywords) -> list[Raw]:
    old, new = _entries(k, "allOf")
    if _same(old, new):
        return []
    pairs, gone, added = _pairs(old, new)
    base_old, base_new = k.old_at_key("allOf"), k.new_at_key("allOf")
    out: list[Raw] = []
    for i, j in pairs:
        out += k.walk.node(old[i], new[j], f"{base_old}/{i}", f"{base_new}/{j}")
    for j in added:
        if not _open(new[j]):
            out.append(
                Raw(
                    f"{base_new}/{j}",
                    codes.COMPAT_SUBSCHEMA_ADDED,
                    Effect.NARROWS,
                    "allOf gained a schema every value must match",
                    None,
                    new[j],
                )
            )
    for i in gone:
        if not _open(old[i]):
            out.append(
                Raw(
                    f"{base_old}/{i}",
                    codes.COMPAT_SUBSCHEMA_REMOVED,
                    Effect.WIDENS,
                    "allOf lost a schema every value had to match",
                    old[i],
                )
            )
    return out


def _any_of(k: _Keywords, key: str) -> list[Raw]:
    if _same(k.old(key), k.new(key)):
        return []
    if k.old(key) is MISSING:
        return [
            k.raw(
                key,
                codes.COMPAT_SUBSCHEMA_ADDED,
                Effect.NARROWS,
                f"{key} added: a value must match its branches",
            )
        ]
    if k.new(key) is MISSING:
        return [k.raw(key, codes.COMPAT_SUBSCHEMA_REMOVED, Effect.WIDENS, f"{key} removed")]
    old, new = _entries(k, key)
    pairs, gone, added = _pairs(old, new)
    base_old, base_new = k.old_at_key(key), k.new_at_key(key)
    out: list[Raw] = []
    for i, j in pairs:
        out += k.walk.node(old[i], new[j], f"{base_old}/{i}", f"{base_new}/{j}")
    for j in added:
        out.append(
            Raw(
                f"{base_new}/{j}",
                codes.COMPAT_BRANCH_ADDED,
                Effect.WIDENS,
                f"{key} gained a branch",
                None,
                new[j],
            )
        )
    for i in gone:
        out.append(
            Raw(
                f"{base_old}/{i}",
                codes.COMPAT_BRANCH_REMOVED,
                Effect.NARROWS,
                f"{key} lost a branch",
                old[i],
            )
        )
    if (
        key == "oneOf"
        and aggregate(out)
        and not (_disjoint(k.walk, old, 0) and _disjoint(k.walk, new, 1))
    ):
        out.append(
            k.raw(
                key,
                codes.COMPAT_BRANCHES_OVERLAP,
                Effect.UNKNOWN,
                "oneOf changed and its branches may overlap: a value may match two",
            )
        )
    return out


def _disjoint(walk: SchemaWalk, branches: list[Any], side: int) -> bool:
    """Whether no value can match two of the branches: told apart by their types, or by a
    required member whose ``const``/``enum`` values differ."""
    views = [walk.view(b, side, "") for b in branches]
    for a in range(len(views)):
        for b in range(a + 1, len(views)):
            if not _apart(views[a].keywords, views[b].keywords):
                return False
    return True


def _apart(one: dict[str, Any], other: dict[str, Any]) -> bool:
    try:
        types = [_type_set(x.get("type", MISSING)) for x in (one, other)]
    except _Unclassified:
        return False
    if types[0] is not None and types[1] is not None:
        overlap = any(_covered(t, types[1]) for t in types[0]) or any(
            _covered(t, types[0]) for t in types[1]
        )
        if not overlap:
            return True
    props: list[dict[str, Any]] = [
        x["properties"] if isinstance(x.get("properties"), dict) else {} for x in (one, other)
    ]
    required = [set(x.get("required") or ()) for x in (one, other)]
    for name in required[0] & required[1] & props[0].keys() & props[1].keys():
        try:
            values = [_allowed(p[name]) if isinstance(p[name], dict) else None for p in props]
        except _Unclassified:
            continue
        if values[0] is not None and values[1] is not None and not values[0].keys() & values[1]:
            return True
    return False


def _not(k: _Keywords) -> list[Raw]:
    old, new = k.old("not"), k.new("not")
    if _same(old, new):
        return []
    if old is MISSING:
        return [
            k.raw(
                "not",
                codes.COMPAT_SUBSCHEMA_ADDED,
                Effect.NARROWS,
                "not added: values it matches are refused",
            )
        ]
    if new is MISSING:
        return [k.raw("not", codes.COMPAT_SUBSCHEMA_REMOVED, Effect.WIDENS, "not removed")]
    from dataclasses import replace

    return [replace(raw, effect=raw.effect.flipped()) for raw in k.sub("not", old, new)]


def _condition(k: _Keywords) -> list[Raw]:
    old_if, new_if = k.old("if"), k.new("if")
    branches = [
        any(x.get(key, MISSING) not in (MISSING, True) for key in ("then", "else"))
        for x in (k.o, k.n)
    ]
    if old_if is MISSING and new_if is MISSING:
        return []
    if old_if is MISSING or new_if is MISSING:
        added = old_if is MISSING
        if not branches[1 if added else 0]:
            return []
        code = codes.COMPAT_CONDITION_ADDED if added else codes.COMPAT_CONDITION_REMOVED
        effect = Effect.NARROWS if added else Effect.WIDENS
        said = "added" if added else "removed"
        keywords = k.n if added else k.o
        return [
            k.raw(key, code, effect, f"a condition (if/then/else) was {said}")
            for key in ("if", "then", "else")
            if key in keywords
        ]
    out: list[Raw] = []
    if not _same(old_if, new_if):
        tested = k.sub("if", old_if, new_if)
        if aggregate(tested) and (branches[0] or branches[1]):
            return [
                k.raw(
                    "if",
                    codes.COMPAT_CONDITION_CHANGED,
                    Effect.UNKNOWN,
                    "the if of a condition changed: other values take its branches",
                )
            ]
        out += [r for r in tested if r.fixed is not None]
    out += k.sub("then", k.old("then"), k.new("then"))
    out += k.sub("else", k.old("else"), k.new("else"))
    return out


def _unresolved_ref(k: _Keywords) -> list[Raw]:
    return [
        k.raw(
            "$ref",
            codes.COMPAT_REF_CHANGED,
            Effect.UNKNOWN,
            f"$ref {_short(k.old('$ref') if k.old('$ref') is not MISSING else None)} -> "
            f"{_short(k.new('$ref') if k.new('$ref') is not MISSING else None)} cannot be "
            "followed (never fetched)",
        )
    ]


class _Unclassified(Exception):
    """A keyword whose value is not what its draft says (the validator would refuse the
    schema): the change is not classified."""


def _guarded(handler: Handler, keys: tuple[str, ...]) -> Handler:
    def run(k: _Keywords) -> list[Raw]:
        try:
            return handler(k)
        except _Unclassified as exc:
            return [k.raw(keys[0], codes.COMPAT_UNCLASSIFIED, Effect.UNKNOWN, str(exc))]

    return run


_GROUPS: Final[tuple[tuple[tuple[str, ...], Handler], ...]] = (
    (
        ("title", "description", "examples", "example", "$comment", "default", "deprecated"),
        _annotations,
    ),
    (("$schema",), _schema_keyword),
    (("type",), _types),
    (("enum", "const", "type"), _values),
    (("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"), _numbers),
    (("minLength", "maxLength", "pattern", "format"), _strings),
    (
        (
            "items",
            "prefixItems",
            "additionalItems",
            "minItems",
            "maxItems",
            "uniqueItems",
            "contains",
            "minContains",
            "maxContains",
            "unevaluatedItems",
        ),
        _arrays,
    ),
    (
        (
            "properties",
            "patternProperties",
            "additionalProperties",
            "unevaluatedProperties",
            "required",
            "propertyNames",
            "minProperties",
            "maxProperties",
            "dependentRequired",
            "dependentSchemas",
            "dependencies",
        ),
        _objects,
    ),
    (("allOf", "anyOf", "oneOf", "not", "if", "then", "else"), _applicators),
    (("$ref",), _unresolved_ref),
)
_HANDLERS: Final = tuple((keys, _guarded(handler, keys)) for keys, handler in _GROUPS)
#: Every keyword a handler classifies.
_HANDLED: Final = frozenset(key for keys, _ in _GROUPS for key in keys)
#: Every keyword the checks know (the others are of unknown effect).
KNOWN_KEYWORDS: Final = _HANDLED | _STRUCTURE
