"""One valid instance of a tool's input schema, and the map of its nodes.

:class:`InstanceBuilder` writes a value from what the schema says a value looks like:
``const``, then ``examples``, ``default`` and ``enum``, then formats, patterns and bounds,
with every declared property filled in so that each one can later be broken on purpose.
It is deterministic: without a random generator it takes the first choice everywhere
(readable values, stable diffs); with one (``--seed``) it varies them reproducibly.

:func:`annotate` walks an instance (built here, or a hand-edited ``valid`` case) alongside
the schema and returns one :class:`Node` per value, each with the effective schema that
applies there and the union, if any, whose failure a change at that node would cause.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from random import Random
from typing import Any, Final

import orjson

from jsoncontract._regex import InvalidPattern, search
from jsoncontract._regex_sample import PatternUnsupported, sample
from jsoncontract._schema_walk import (
    TYPE_ORDER,
    CannotGenerate,
    Effective,
    Resolver,
    Union,
    Unsatisfiable,
    combine,
    intersect_types,
    schema_types,
    type_allows,
)
from jsoncontract.pointer import escape_pointer_token, join_pointer

#: Nesting the generator goes to before it calls a schema unsatisfiable.
DEFAULT_MAX_DEPTH: Final = 16
#: Items put in an array beyond ``minItems`` (one, so that its item schema is exercised).
_EXTRA_ITEMS: Final = 1
#: Values in one valid instance, and characters in one of its strings, at most: a suite
#: file is for review, and a schema that asks for more (a huge ``minItems``,
#: ``minProperties`` or ``minLength``, or nested arrays multiplying them) is not built.
MAX_VALUES: Final = 5_000
MAX_STRING: Final = 10_000
#: Integers a JSON parser keeps exactly (64 bits, signed or not).
_INT_MIN: Final = -(2**63)
_INT_MAX: Final = 2**64 - 1


@dataclass(frozen=True, slots=True)
class Skip:
    """Something not generated, and why: a part of the instance left out (``what`` is its
    JSON Pointer) or a case not written (``what`` is the case name)."""

    what: str
    reason: str


@dataclass(frozen=True, slots=True)
class BuildOptions:
    """How hard the builder tries: each retry of a failed attempt relaxes one of these."""

    use_examples: bool = True
    include_optional: bool = True
    branch_offset: int = 0
    max_depth: int = DEFAULT_MAX_DEPTH


def _copy(value: Any) -> Any:
    if isinstance(value, dict | list):
        return orjson.loads(orjson.dumps(value))
    return value


def _date(v: int) -> str:
    return (date(2024, 1, 15) + timedelta(days=v)).isoformat()


#: Sample values per format; ``v`` shifts them (a seed's offset plus the item index).
_FORMATS: Final[dict[str, Callable[[int], str]]] = {
    "date": _date,
    "date-time": lambda v: _date(v) + "T09:30:00Z",
    "time": lambda v: f"09:{30 + v % 30:02d}:00Z",
    "email": lambda v: f"user{v or ''}@example.com",
    "idn-email": lambda v: f"user{v or ''}@example.com",
    "uuid": lambda v: f"123e4567-e89b-42d3-a456-{426614174000 + v:012d}",
    "uri": lambda v: f"https://example.com/resource/{v + 1}",
    "iri": lambda v: f"https://example.com/resource/{v + 1}",
    "uri-reference": lambda v: f"/resource/{v + 1}",
    "iri-reference": lambda v: f"/resource/{v + 1}",
    "uri-template": lambda v: "https://example.com/{id}",
    "hostname": lambda v: f"api{v or ''}.example.com",
    "idn-hostname": lambda v: f"api{v or ''}.example.com",
    "ipv4": lambda v: f"192.0.2.{1 + v % 250}",
    "ipv6": lambda v: f"2001:db8::{1 + v % 9000:x}",
    "duration": lambda v: f"P{3 + v}D",
    "json-pointer": lambda v: "/example",
    "relative-json-pointer": lambda v: "0/example",
    "regex": lambda v: "^example$",
}
_WORDS: Final = ("alpha", "bravo", "delta", "echo", "kilo", "lima", "oscar", "tango")


class InstanceBuilder:
    """Builds one valid instance of a schema.

    Arguments:
        resolver: the tool's schema, resolved.
        rng: random choices (a seed); ``None`` for the canonical first choices.
        options: what this attempt may use.
    """

    def __init__(self, resolver: Resolver, rng: Random | None, options: BuildOptions) -> None:
        self.resolver = resolver
        self.rng = rng
        self.options = options
        self.skips: list[Skip] = []
        #: One shift for every format sample of the instance, so dates stay in order.
        self.offset = rng.randint(0, 365) if rng is not None else 0
        self._values = 0

    def build(self) -> Any:
        """The instance.

        Raises:
            Unsatisfiable: no instance exists (as far as the schema says plainly).
            CannotGenerate: the generator cannot build the part the instance needs.
        """
        return self._value(self.resolver.root, "#", "", 0, frozenset(), False, 0, None)

    # -- choosing ------------------------------------------------------------------------

    def _pick(self, options: list[Any], variant: int) -> Any:
        if self.rng is not None:
            return options[self.rng.randrange(len(options))]
        return options[variant % len(options)]

    def _choose_union(self, eff: Effective, union: Union, refs: frozenset[str]) -> Effective:
        count = len(union.branches)
        start = self.options.branch_offset
        if self.rng is not None:
            start += self.rng.randrange(count)
        last: Unsatisfiable | None = None
        for step in range(count):
            index = (start + step) % count
            try:
                branch = self.resolver.effective(
                    union.branches[index], f"{union.schema_path}/{index}", refs
                )
                return merge_effective(eff, branch)
            except Unsatisfiable as exc:
                last = exc
        reason = f"no alternative of {union.keyword} can be satisfied"
        if last is not None:
            reason += f" (the last: {last.reason})"
        raise Unsatisfiable(reason, union.schema_path)

    # -- values --------------------------------------------------------------------------

    def _value(
        self,
        schema: Any,
        path: str,
        pointer: str,
        depth: int,
        refs: frozenset[str],
        minimal: bool,
        variant: int,
        name: str | None,
    ) -> Any:
        self._values += 1
        if self._values > MAX_VALUES:
            raise CannotGenerate(
                f"a valid instance would hold more than {MAX_VALUES:,} values (minItems, "
                "minProperties or nesting): too large for a suite file",
                path,
            )
        if depth > self.options.max_depth:
            raise Unsatisfiable(
                f"no instance within {self.options.max_depth} levels of nesting (a schema "
                "that requires itself, or nests deeper than --max-depth)",
                path,
            )
        eff = self.resolver.effective(schema, path, refs)
        minimal = minimal or eff.recursive
        index = 0
        while index < len(eff.unions):  # a chosen branch may add unions of its own
            eff = self._choose_union(eff, eff.unions[index], eff.refs)
            index += 1
        s = eff.schema
        if "const" in s:
            return _copy(s["const"])
        types = schema_types(eff)
        if self.options.use_examples:
            examples = s.get("examples")
            if isinstance(examples, list) and examples:
                fitting = [e for e in examples if type_allows(types, e)]
                if fitting:
                    return _copy(self._pick(fitting, variant))
            if "default" in s and type_allows(types, s["default"]):
                return _copy(s["default"])
        enum = s.get("enum")
        if isinstance(enum, list):
            fitting = [e for e in enum if type_allows(types, e)]
            if not fitting:
                raise Unsatisfiable("no `enum` value has an allowed type", path)
            return _copy(self._pick(fitting, variant))
        kind = _preferred_type(types)
        if kind == "object":
            return self._object(eff, pointer, depth, minimal, variant)
        if kind == "array":
            return self._array(eff, pointer, depth, minimal)
        if kind == "string":
            return self._string(eff, variant, name)
        if kind == "integer":
            return self._number(eff, True, variant)
        if kind == "number":
            return self._number(eff, False, variant)
        if kind == "boolean":
            return True if self.rng is None else self.rng.random() < 0.5
        return None

    def _object(
        self, eff: Effective, pointer: str, depth: int, minimal: bool, variant: int
    ) -> dict[str, Any]:
        s = eff.schema
        path = eff.schema_path
        props = s.get("properties") if isinstance(s.get("properties"), dict) else {}
        assert isinstance(props, dict)
        required = [r for r in s.get("required") or () if isinstance(r, str)]
        optional = self.options.include_optional and not minimal
        wanted = [n for n in props if optional or n in required]
        wanted += [r for r in required if r not in props]
        limit = s.get("maxProperties")
        if isinstance(limit, int) and len(wanted) > limit:
            droppable = [n for n in wanted if n not in required]
            while len(wanted) > limit and droppable:
                wanted.remove(droppable.pop())
        out: dict[str, Any] = {}
        for name in wanted:
            sub, sub_path = member_schema(s, name, path)
            if sub is False:
                if name in required:
                    raise Unsatisfiable(f"{name!r} is required but not allowed", path)
                continue
            try:
                out[name] = self._value(
                    sub,
                    sub_path,
                    join_pointer(pointer, name),
                    depth + 1,
                    eff.refs,
                    minimal,
                    variant,
                    name,
                )
            except (Unsatisfiable, CannotGenerate) as exc:
                if name in required:
                    raise
                self.skips.append(Skip(join_pointer(pointer, name), exc.reason))
        dependent = s.get("dependentRequired")
        if isinstance(dependent, dict):
            for key, names in dependent.items():
                if key in out and isinstance(names, list):
                    for dep in names:
                        if isinstance(dep, str) and dep not in out:
                            sub, sub_path = member_schema(s, dep, path)
                            out[dep] = self._value(
                                sub, sub_path, join_pointer(pointer, dep), depth + 1, eff.refs,
                                True, variant, dep,
                            )  # fmt: skip
        least = s.get("minProperties")
        if isinstance(least, int) and len(out) < least:
            extra = s.get("additionalProperties", True)
            if extra is False:
                raise Unsatisfiable(
                    f"minProperties is {least} but only {len(out)} properties can be sent", path
                )
            n = 1
            while len(out) < least:
                key = f"extra_{n}"
                n += 1
                if key not in out:
                    out[key] = self._value(
                        extra, f"{path}/additionalProperties", join_pointer(pointer, key),
                        depth + 1, eff.refs, True, variant, key,
                    )  # fmt: skip
        return out

    def _array(self, eff: Effective, pointer: str, depth: int, minimal: bool) -> list[Any]:
        s = eff.schema
        path = eff.schema_path
        prefix, items = item_schemas(s)
        least = s.get("minItems") if isinstance(s.get("minItems"), int) else 0
        most = s.get("maxItems") if isinstance(s.get("maxItems"), int) else None
        assert isinstance(least, int)
        count = least
        if self.options.include_optional and not minimal and (most is None or most >= 1):
            count = max(count, _EXTRA_ITEMS)
        contains = s.get("contains")
        if contains is not None:
            count = max(
                count, s.get("minContains", 1) if isinstance(s.get("minContains"), int) else 1
            )
        if most is not None and count > most:
            raise Unsatisfiable(
                f"minItems/contains need {count} items but maxItems is {most}", path
            )
        if items is False and count > len(prefix):
            raise Unsatisfiable(
                f"{count} items are needed but only {len(prefix)} are allowed", path
            )
        out: list[Any] = []
        seen: set[bytes] = set()
        unique = s.get("uniqueItems") is True
        for i in range(count):
            if contains is not None and i < (s.get("minContains") or 1):
                sub, sub_path = contains, f"{path}/contains"
            elif i < len(prefix):
                sub, sub_path = prefix[i], f"{path}/prefixItems/{i}"
            else:
                sub, sub_path = (True if items is None else items), f"{path}/items"
            for attempt in range(6 if unique else 1):
                value = self._value(
                    sub, sub_path, f"{pointer}/{i}", depth + 1, eff.refs, minimal, i + attempt, None
                )
                if not unique:
                    break
                key = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
                if key not in seen:
                    seen.add(key)
                    break
            else:
                raise CannotGenerate("could not build distinct items for uniqueItems", path)
            out.append(value)
        return out

    def _string(self, eff: Effective, variant: int, name: str | None) -> str:
        s = eff.schema
        path = eff.schema_path
        least = s.get("minLength") if isinstance(s.get("minLength"), int) else 0
        most = s.get("maxLength") if isinstance(s.get("maxLength"), int) else None
        assert isinstance(least, int)
        if most is not None and least > most:
            raise Unsatisfiable(f"minLength {least} is above maxLength {most}", path)
        if least > MAX_STRING:
            raise CannotGenerate(
                f"minLength is {least}: a valid string would be too large for a suite file "
                f"(the generator writes at most {MAX_STRING:,} characters)",
                path,
            )
        if eff.patterns:
            try:
                text = sample(
                    eff.patterns[0],
                    min_length=least,
                    max_length=MAX_STRING if most is None else min(most, MAX_STRING),
                    rng=self.rng,
                    variant=variant,
                )
            except PatternUnsupported as exc:
                raise CannotGenerate(str(exc), path) from None
            for other in eff.patterns[1:]:
                try:
                    ok = search(other, text)
                except InvalidPattern:
                    ok = False
                if not ok:
                    raise CannotGenerate(
                        f"cannot build one string matching every pattern ({eff.patterns[0]!r} "
                        f"and {other!r})",
                        path,
                    )
            return text
        fmt = s.get("format")
        maker = _FORMATS.get(fmt) if isinstance(fmt, str) else None
        if maker is not None:
            text = maker(variant + self.offset)
            if len(text) < least or (most is not None and len(text) > most):
                raise CannotGenerate(
                    f"the sample {fmt} {text!r} does not fit the length bounds {least}..{most}",
                    path,
                )
            return text
        if self.rng is not None:
            text = f"{self.rng.choice(_WORDS)}-{self.rng.randint(100, 999)}"
        else:
            suffix = f" {variant + 1}" if variant else ""
            words = [f"example {name}", name, "example"] if name else ["example"]
            fitting = [w + suffix for w in words if most is None or len(w + suffix) <= most]
            text = fitting[0] if fitting else "x" * (most or 0)
        if len(text) < least:
            text += "x" * (least - len(text))
        if most is not None and len(text) > most:
            text = text[:most]
        return text

    def _number(self, eff: Effective, integer: bool, variant: int) -> int | float:
        s = eff.schema
        path = eff.schema_path
        low, low_open = _bound(s, "minimum", "exclusiveMinimum")
        high, high_open = _bound(s, "maximum", "exclusiveMaximum")
        step = s.get("multipleOf")
        step = (
            step
            if isinstance(step, int | float) and not isinstance(step, bool) and step > 0
            else None
        )
        if integer or (step is not None and _float(step).is_integer()):
            lo = None if low is None else (math.floor(low) + 1 if low_open else math.ceil(low))
            hi = None if high is None else (math.ceil(high) - 1 if high_open else math.floor(high))
            if lo is not None and hi is not None and lo > hi:
                raise Unsatisfiable(f"no integer lies between {low} and {high}", path)
            value = self._in_range(lo, hi, variant)
            if step is not None:
                whole = int(step)
                value = -(-value // whole) * whole
                if hi is not None and value > hi:
                    raise Unsatisfiable(
                        f"no multiple of {step} lies between {low} and {high}", path
                    )
            if not _INT_MIN <= value <= _INT_MAX:
                raise CannotGenerate(
                    f"the integer chosen between {low} and {high} does not fit in 64 bits, "
                    "which JSON parsers keep exactly",
                    path,
                )
            return value
        if (
            low is not None
            and high is not None
            and (low > high or (low == high and (low_open or high_open)))
        ):
            raise Unsatisfiable(f"no number lies between {low} and {high}", path)
        if step is not None:
            start = low if low is not None else min(high, step) if high is not None else step
            try:
                candidate = math.ceil(start / step) * step
            except OverflowError:
                raise CannotGenerate(
                    f"no multiple of {step} near {start} can be written as a number", path
                ) from None
            if low_open and low is not None and candidate <= low:
                candidate += step
            if high is not None and (candidate > high or (high_open and candidate >= high)):
                raise Unsatisfiable(f"no multiple of {step} lies between {low} and {high}", path)
            return _tidy(candidate)
        if low is None and high is None:
            return self._in_range(None, None, variant)
        if low is None:
            assert high is not None
            return _tidy(high - 1 if high_open or high < 1 else min(high, 1.0))
        candidate = low + 1 if low_open else low
        if self.rng is not None and high is not None:
            candidate = self.rng.uniform(low, high)
        if (high is not None and (candidate > high or (high_open and candidate >= high))) or (
            low_open and candidate <= low
        ):
            candidate = (low + high) / 2 if high is not None else low + 1
        return _tidy(candidate)

    def _in_range(self, lo: int | None, hi: int | None, variant: int) -> int:
        if self.rng is not None:
            a = lo if lo is not None else (hi - 100 if hi is not None else 1)
            b = hi if hi is not None else a + 100
            return self.rng.randint(a, b)
        if lo is not None:
            return lo + (variant if hi is None or lo + variant <= hi else 0)
        if hi is not None:
            return min(hi, 1 + variant)
        return 1 + variant


def _tidy(value: float) -> int | float:
    return int(value) if _float(value).is_integer() and abs(value) < 2**53 else value


def _bound(schema: dict[str, Any], inclusive: str, exclusive: str) -> tuple[float | None, bool]:
    """A bound and whether it is open, reading both the numeric and the draft-4 forms."""
    value = schema.get(inclusive)
    open_ = schema.get(exclusive)
    if isinstance(open_, bool):  # draft 4: exclusiveMinimum: true modifies minimum
        if isinstance(value, int | float):
            return _finite(value), open_
        return None, False
    best: tuple[float | None, bool] = (None, False)
    if isinstance(value, int | float) and not isinstance(value, bool):
        best = (_finite(value), False)
    if isinstance(open_, int | float):
        tighter = best[0] is None or (
            open_ >= best[0] if inclusive == "minimum" else open_ <= best[0]
        )
        if tighter:
            best = (_finite(open_), True)
    return best


def _float(value: float) -> float:
    """``value`` as a float; an integer too large for one becomes infinite."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def _finite(value: float) -> float | None:
    """A bound as a float, or ``None`` for one too large to be a float (no number a
    parser keeps exactly reaches it: the validator has the last word on the instance)."""
    bound = _float(value)
    return None if math.isinf(bound) else bound


def _preferred_type(types: tuple[str, ...] | None) -> str:
    if types is None:
        return "string"
    for kind in types:
        if kind != "null" and kind in TYPE_ORDER:
            return kind
    return "null" if "null" in types else "string"


def merge_effective(base: Effective, branch: Effective) -> Effective:
    """``base`` tightened by a chosen union branch.

    Raises:
        Unsatisfiable: the branch contradicts the base.
    """
    schema = dict(base.schema)
    if isinstance(schema.get("properties"), dict):
        schema["properties"] = dict(schema["properties"])
    for key, value in branch.schema.items():
        if key not in schema:
            schema[key] = value
        else:
            combine(schema, key, value, branch.schema_path)
    types = intersect_types(base.types, branch.types)
    if types is not None and not types:
        raise Unsatisfiable(
            "the alternative's type contradicts the rest of the schema", branch.schema_path
        )
    return Effective(
        schema,
        base.schema_path,
        types,
        [*base.patterns, *branch.patterns],
        [*base.unions, *branch.unions],
        base.refs | branch.refs,
        base.recursive or branch.recursive,
    )


def member_schema(schema: dict[str, Any], name: str, path: str) -> tuple[Any, str]:
    """The subschema that applies to member ``name`` of an object, and its path."""
    props = schema.get("properties")
    if isinstance(props, dict) and name in props:
        return props[name], f"{path}/properties/{escape_pointer_token(name)}"
    patterns = schema.get("patternProperties")
    if isinstance(patterns, dict):
        for pattern, sub in patterns.items():
            try:
                if search(pattern, name):
                    return sub, f"{path}/patternProperties/{escape_pointer_token(pattern)}"
            except InvalidPattern:
                continue
    extra = schema.get("additionalProperties")
    if extra is not None:
        return extra, f"{path}/additionalProperties"
    return True, path


def item_schemas(schema: dict[str, Any]) -> tuple[list[Any], Any]:
    """``(prefix item schemas, schema of the rest)``, reading 2020-12 and older spellings."""
    prefix = schema.get("prefixItems")
    items = schema.get("items")
    if isinstance(items, list):  # before 2020-12, items as a list is a tuple
        extra = schema.get("additionalItems")
        return list(items), extra
    return (list(prefix) if isinstance(prefix, list) else []), items


# -- annotation ---------------------------------------------------------------------------


@dataclass(slots=True)
class Node:
    """One value of an instance, with what the schema says about it.

    ``eff`` is the effective schema (a chosen union branch merged in). A change at this
    node that breaks keyword ``k`` fails as ``k`` at the node, unless a union is in the
    way: then it fails as that union (``anyOf`` / ``oneOf``) at the union's pointer;
    :meth:`failure` says which.
    """

    pointer: str
    value: Any
    eff: Effective
    base_keys: frozenset[str]
    base_types: tuple[str, ...] | None
    base_required: frozenset[str]
    own_union: Union | None = None
    outer: tuple[str, str] | None = None

    @property
    def types(self) -> tuple[str, ...] | None:
        """The JSON types allowed here (after the union choice)."""
        return schema_types(self.eff)

    def failure(self, keyword: str, path: str, *, member: str | None = None) -> tuple[str, str]:
        """``(keyword, path)`` of the error a change here breaking ``keyword`` produces.

        ``member``: for ``required``, the property whose absence is tested.
        """
        if self.outer is not None:
            return self.outer
        if self.own_union is not None:
            own = (
                member in self.base_required
                if member is not None
                else (keyword == "type" and self.base_types is not None)
                or keyword in self.base_keys
            )
            if not own:
                return self.own_union.keyword, self.pointer
        return keyword, path


def annotate(
    resolver: Resolver, instance: Any, *, max_depth: int = DEFAULT_MAX_DEPTH
) -> list[Node]:
    """Every node of ``instance`` with the effective schema that applies to it.

    Raises:
        Unsatisfiable: a node's schema admits nothing (the instance cannot be valid).
    """
    nodes: list[Node] = []
    _annotate(resolver, resolver.root, "#", "", instance, frozenset(), None, 0, max_depth, nodes)
    return nodes


def _annotate(
    resolver: Resolver,
    schema: Any,
    path: str,
    pointer: str,
    value: Any,
    refs: frozenset[str],
    outer: tuple[str, str] | None,
    depth: int,
    max_depth: int,
    nodes: list[Node],
) -> None:
    if depth > max_depth * 4:
        return
    eff = resolver.effective(schema, path, refs)
    base_keys = frozenset(eff.schema)
    base_types = eff.types
    base_required = frozenset(r for r in eff.schema.get("required") or () if isinstance(r, str))
    base_props = (
        set(eff.schema.get("properties") or ())
        if isinstance(eff.schema.get("properties"), dict)
        else set()
    )
    own: Union | None = eff.unions[0] if eff.unions else None
    index = 0
    while index < len(eff.unions):
        union = eff.unions[index]
        eff = merge_effective(eff, _fitting_branch(resolver, union, value, eff.refs))
        index += 1
    node = Node(pointer, value, eff, base_keys, base_types, base_required, own, outer)
    nodes.append(node)
    children: list[tuple[str, Any, Any, str, tuple[str, str] | None]] = []
    if isinstance(value, dict):
        for name, member in value.items():
            sub, sub_path = member_schema(eff.schema, name, eff.schema_path)
            child_outer = outer
            if child_outer is None and own is not None and name not in base_props:
                child_outer = (own.keyword, pointer)
            children.append((join_pointer(pointer, name), member, sub, sub_path, child_outer))
    elif isinstance(value, list):
        prefix, items = item_schemas(eff.schema)
        child_outer = outer if outer is not None or own is None else (own.keyword, pointer)
        for i, member in enumerate(value):
            if i < len(prefix):
                sub, sub_path = prefix[i], f"{eff.schema_path}/prefixItems/{i}"
            else:
                sub, sub_path = (True if items is None else items), f"{eff.schema_path}/items"
            children.append((f"{pointer}/{i}", member, sub, sub_path, child_outer))
    for child, member, sub, sub_path, child_outer in children:
        _annotate(
            resolver,
            sub,
            sub_path,
            child,
            member,
            eff.refs,
            child_outer,
            depth + 1,
            max_depth,
            nodes,
        )


def _fitting_branch(
    resolver: Resolver, union: Union, value: Any, refs: frozenset[str]
) -> Effective:
    """The first branch the value plausibly matches (its type, const, enum, required keys)."""
    first: Effective | None = None
    for i, branch in enumerate(union.branches):
        try:
            eff = resolver.effective(branch, f"{union.schema_path}/{i}", refs)
        except Unsatisfiable:
            continue
        if first is None:
            first = eff
        if _fits(eff, value):
            return eff
    if first is None:
        raise Unsatisfiable(
            f"no alternative of {union.keyword} can be satisfied", union.schema_path
        )
    return first


def _fits(eff: Effective, value: Any) -> bool:
    s = eff.schema
    if not type_allows(schema_types(eff), value):
        return False
    if "const" in s and orjson.dumps(s["const"]) != orjson.dumps(value):
        return False
    enum = s.get("enum")
    if isinstance(enum, list) and value not in enum:
        return False
    if isinstance(value, dict):
        required = s.get("required") or ()
        if any(isinstance(r, str) and r not in value for r in required):
            return False
        props = s.get("properties")
        if s.get("additionalProperties") is False and isinstance(props, dict):
            return all(k in props for k in value)
    return True
