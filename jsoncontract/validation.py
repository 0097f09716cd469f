"""Compiled JSON Schemas and the violations they report.

Schemas are compiled once, when the tools load, and reused for every call. The engine is
jsonschema-rs: it follows ECMA-262 for ``pattern`` (``\\d`` is ASCII only), computes
``multipleOf`` on decimals correctly, bounds regex backtracking, and validates a typical
tool call in well under a microsecond. Draft 3 schemas, which it does not read, fall back to
python-jsonschema held to the same rules (its regular expressions go through the bounded
engine of :mod:`jsoncontract._regex`). ``$ref`` resolves inside the schema document only, in
every draft: any other reference is refused at load time, and neither the network nor a
file is ever read.

Every violation carries the instance pointer, the schema pointer, the keyword, a message a
person can act on, and, where one exists, a hint (the closest enum value, the property name
that was probably meant, the number that was sent as a string).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Final

import jsonschema_rs
import orjson

from jsoncontract._json import json_type, short_repr
from jsoncontract._spelling import did_you_mean
from jsoncontract.errors import SchemaLoadError
from jsoncontract.masking import (
    hidden_count,
    masked_names,
    may_hold_secret,
    placeholder,
    pointer_is_sensitive,
    redacted,
)
from jsoncontract.pointer import get_in, join_pointer

if TYPE_CHECKING:
    from jsoncontract.model import Source

DRAFT3: Final = "http://json-schema.org/draft-03/schema"
#: Keywords whose failure says little on its own; they sort after the specific ones.
_WEAK: Final = frozenset({"anyOf", "oneOf", "not", "if", "then", "else", "allOf", "falseSchema"})

_MEMBER_KEYWORDS: Final = frozenset({"required", "additionalProperties"})
_JSON_NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_FORMAT_HINTS: Final = {
    "date": "use a full date, YYYY-MM-DD (RFC 3339), e.g. 2024-01-31",
    "date-time": "use an RFC 3339 timestamp with a time zone, e.g. 2024-01-31T09:30:00Z",
    "time": "use an RFC 3339 time with a time zone, e.g. 09:30:00Z",
    "email": "use an address such as name@example.com",
    "uuid": "use a UUID such as 123e4567-e89b-12d3-a456-426614174000",
    "uri": "use an absolute URI with a scheme, e.g. https://example.com/x",
    "ipv4": "use a dotted quad such as 192.0.2.1",
    "ipv6": "use an IPv6 address such as 2001:db8::1",
    "hostname": "use a host name such as api.example.com",
    "duration": "use an ISO 8601 duration such as P3DT4H",
}


@dataclass(frozen=True, slots=True)
class Violation:
    """One way an instance fails its schema."""

    keyword: str
    path: str
    schema_path: str
    message: str
    hint: str | None = None


def _refuse_retrieval(uri: str) -> Any:
    raise ValueError(f"jsoncontract resolves $ref only inside the schema and never fetches {uri!r}")


class CompiledSchema:
    """A JSON Schema compiled once for fast, repeated validation.

    Raises:
        SchemaLoadError: the schema is not a valid schema, declares an unknown ``$schema``,
            or has a ``$ref`` that does not resolve inside the document.
    """

    __slots__ = ("_explained", "_places", "_python", "_validator", "is_valid", "label", "schema")

    def __init__(self, schema: Any, *, label: str = "schema", source: Source | None = None):
        self.schema = schema
        self.label = label
        self._python: Any = None
        self._validator: Any = None
        self._explained: dict[tuple[Any, ...], tuple[list[Violation], list[Violation]]] = {}
        self._places: dict[tuple[Any, ...], _Place] = {}
        declared = schema.get("$schema") if isinstance(schema, dict) else None
        if isinstance(declared, str) and declared.rstrip("#") == DRAFT3:
            self._python = _python_validator(schema, label, source)
            self.is_valid: Callable[[Any], bool] = self._python_is_valid
            return
        try:
            self._validator = jsonschema_rs.validator_for(
                schema, validate_formats=True, retriever=_refuse_retrieval
            )
        except jsonschema_rs.ValidationError as exc:
            raise _schema_error(exc, schema, label, source) from None
        except (jsonschema_rs.ReferencingError, ValueError, TypeError) as exc:
            if "Recursion limit" in str(exc):
                raise SchemaLoadError(
                    f"{label}: the schema is nested too deeply to compile", **_where(source)
                ) from None
            raise SchemaLoadError(f"{label}: {_first_line(str(exc))}", **_where(source)) from None
        self.is_valid = self._validator.is_valid

    def _python_is_valid(self, instance: Any) -> bool:
        try:
            return bool(self._python.is_valid(instance))
        except RecursionError:
            return False
        except Exception as exc:
            raise self._python_failure(exc) from None

    def _python_failure(self, exc: Exception) -> Exception:
        """python-jsonschema's error while validating, as a one-line schema error (a
        ``$ref`` it cannot resolve: the load-time checks leave none, this is the net)."""
        from referencing.exceptions import Unresolvable

        if isinstance(exc, Unresolvable):
            return SchemaLoadError(f"{self.label}: unresolvable $ref: {_first_line(str(exc))}")
        return exc

    def violations(self, instance: Any, *, show_values: bool = False) -> list[Violation]:
        """Every violation, the most relevant first (shallow and specific before deep and
        generic). Empty when the instance is valid."""
        try:
            if self._python is not None:
                try:
                    errors = list(self._python.iter_errors(instance))
                except RecursionError:
                    raise
                except Exception as exc:
                    raise self._python_failure(exc) from None
                found = [_from_python(e, show_values) for e in errors]
            else:
                # each error's violations, and the same each bounded and masked (``None``:
                # not remembered, so not finished alone)
                knowns: list[tuple[list[Violation], list[Violation] | None]] = []
                explained = self._explained
                hidden = hidden_count()
                for error in self._validator.iter_errors(instance):
                    key = _memo_key(error, show_values, hidden)
                    if key is None:
                        knowns.append((_explain(error, self.schema, show_values), None))
                        continue
                    known = explained.get(key)
                    if known is None:
                        place = self._place(key[1], key[2])
                        raw = _explain(error, self.schema, show_values, place)
                        known = (raw, _finished(raw, show_values, hidden))
                        if len(explained) < MAX_EXPLAINED:
                            explained[key] = known
                    knowns.append(known)
                finished: list[Violation] = []
                remembered = True
                for _, done in knowns:
                    if done is None:
                        remembered = False
                        break
                    finished.extend(done)
                if remembered and len(finished) <= MAX_VIOLATIONS:
                    # what the lines below make of the violations: each is bounded and
                    # masked alone, and masking keeps a path's depth (its tokens)
                    if len(finished) > 1:
                        finished.sort(key=_relevance)
                    return finished
                found = [v for raw, _ in knowns for v in raw]
        except (ValueError, RecursionError) as exc:
            # jsonschema-rs cannot hand back an error whose value is over 255 levels deep
            # (and python-jsonschema recurses): a value that deep is refused as such
            if isinstance(exc, ValueError) and "Recursion limit" not in str(exc):
                raise
            return [_TOO_DEEP]
        found.sort(key=_relevance)
        bounded = _bounded(found)
        return bounded if show_values else [_masked_names(v) for v in bounded]

    def _place(self, instance_path: tuple[Any, ...], schema_path: tuple[Any, ...]) -> _Place:
        """What an explanation reads of where a value failed (the JSON Pointers), remembered
        per place: a value explained afresh at a known place fills in its own parts only."""
        places = self._places
        place = places.get((instance_path, schema_path))
        if place is None:
            place = _Place(instance_path, schema_path)
            if len(places) < MAX_EXPLAINED:
                places[instance_path, schema_path] = place
        return place


#: Explanations one schema remembers (see :func:`_memo_key`).
MAX_EXPLAINED: Final = 4096
#: Characters of a string value an explanation is remembered for.
_MEMO_TEXT: Final = 200


def _memo_key(error: Any, show_values: bool, hidden: int) -> tuple[Any, ...] | None:
    """What an engine error's explanation depends on, when that is small enough to
    remember it by: the keyword, where the value is, where in the schema it failed (the
    keyword's parameters are the schema's at that place), and what of the value the
    explainer reads (:data:`_BY_VALUE`: the scalar value itself, a short object or array's
    JSON text; :data:`_BY_PARAMS`: the
    parameter naming the members), and what the run shows or hides of values (``hidden``:
    :func:`~jsoncontract.masking.hidden_count`). ``None``: explained afresh."""
    keyword = error.kind.name
    if keyword in _BY_VALUE:
        value = error.instance
        kind = type(value)
        if kind is str:
            if len(value) > _MEMO_TEXT:
                return None
        elif kind is float:
            value = repr(value)  # -0.0 is shown as such, and equals 0.0
        elif kind is dict or kind is list:
            # an object or an array is only quoted by these keywords: remembered by its
            # JSON text (the same text is the same value, member order and number forms
            # included), when short
            try:
                value = orjson.dumps(value)
            except TypeError:  # an integer past 64 bits, lone surrogates, deep nesting
                return None
            if len(value) > _MEMO_TEXT:
                return None
        elif kind is not int and kind is not bool and value is not None:
            return None
        read: Any = (kind, value)
    elif keyword in _BY_PARAMS:
        read = error.kind.as_dict()[_BY_PARAMS[keyword]]
        if type(read) is list:
            read = tuple(read)
        elif type(read) is not str:
            return None
    elif keyword in _BY_PLACE:
        read = None
    else:
        return None
    return (
        keyword,
        tuple(error.instance_path),
        tuple(error.schema_path),
        read,
        show_values,
        hidden,  # a value hidden since is masked in what is explained next
    )


def _finished(found: list[Violation], show_values: bool, hidden: int) -> list[Violation]:
    """Violations as :meth:`CompiledSchema.violations` hands them out, each alone: its texts
    cut to :data:`MAX_MESSAGE`, and secrets in member names masked (``hidden``: values
    hidden so far, :func:`~jsoncontract.masking.hidden_count`)."""
    out = []
    for v in found:
        if len(v.message) > MAX_MESSAGE or (v.hint is not None and len(v.hint) > MAX_MESSAGE):
            v = _bounded([v])[0]
        # a path that holds no marker of a secret, while no value is hidden, is not masked
        if not show_values and (hidden or _path_may_hold_secret(v.path)):
            v = _masked_names(v)
        out.append(v)
    return out


#: :func:`~jsoncontract.masking.may_hold_secret` of a violation's path, remembered (a
#: path of 9 characters or more is searched for every marker of every pattern).
_path_may_hold_secret: Final = lru_cache(maxsize=4096)(may_hold_secret)


#: Violations listed for one value; past this they are counted in the last one.
MAX_VIOLATIONS: Final = 100
#: Characters of a violation's message or hint (values and patterns are quoted short, but
#: an engine's own message may quote a whole value).
MAX_MESSAGE: Final = 500


def _masked_names(v: Violation) -> Violation:
    """A violation whose path and texts hide secrets in member names (a property an
    ``additionalProperties: false`` refuses is named in both)."""
    path, message, hint = masked_names(v.path, v.message, v.hint)
    if path is v.path:
        return v
    return Violation(v.keyword, path or "", v.schema_path, message or "", hint)


def _bounded(found: list[Violation]) -> list[Violation]:
    """At most :data:`MAX_VIOLATIONS` violations, each message and hint at most
    :data:`MAX_MESSAGE` characters."""
    more = len(found) - MAX_VIOLATIONS
    if more > 0:
        del found[MAX_VIOLATIONS:]
    out = [
        v
        if len(v.message) <= MAX_MESSAGE and (v.hint is None or len(v.hint) <= MAX_MESSAGE)
        else Violation(
            v.keyword,
            v.path,
            v.schema_path,
            _clip(v.message, MAX_MESSAGE),
            None if v.hint is None else _clip(v.hint, MAX_MESSAGE),
        )
        for v in found
    ]
    if more > 0:
        _count_the_rest(out, f"{more} more violations of this value are not listed")
    return out


def _count_the_rest(found: list[Violation], note: str) -> None:
    """Say in the last violation's message how many more were left out."""
    last = found[-1]
    found[-1] = Violation(
        last.keyword, last.path, last.schema_path, f"{last.message} ({note})", last.hint
    )


_TOO_DEEP: Final = Violation(
    "too_deep",
    "",
    "#",
    "the value breaks the schema, and is nested too deeply for its violations to be listed",
    "flatten the payload; no tool argument needs this depth",
)


def _relevance(violation: Violation) -> tuple[bool, int]:
    """Sort key: specific before generic keywords, then shallow before deep.

    ``required`` and ``additionalProperties`` point at a member of the object they judge,
    so they count at the object's depth. Ties keep the engine's order (the sort is stable).
    This is a heuristic; it may change between releases.
    """
    depth = violation.path.count("/")
    if violation.keyword in _MEMBER_KEYWORDS:
        depth -= 1
    return violation.keyword in _WEAK, depth


def _where(source: Source | None) -> dict[str, Any]:
    if source is None:
        return {}
    return {"file": source.file, "line": source.line}


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else text


def _schema_error(exc: Any, schema: Any, label: str, source: Source | None) -> SchemaLoadError:
    message = _first_line(str(exc))
    pointer = join_pointer("", *exc.instance_path)
    if message.startswith("Unknown meta-schema"):
        declared = schema.get("$schema") if isinstance(schema, dict) else None
        return SchemaLoadError(
            f"{label}: unknown $schema {declared!r}; use draft 2020-12, 2019-09, 7, 6, 4 or 3",
            **_where(source),
        )
    if "retrieving it failed" in message or "is not present in a registry" in message:
        ref = message.split("'")[1] if "'" in message else "?"
        return SchemaLoadError(
            f"{label}: $ref {ref!r} does not resolve inside the schema; jsoncontract never "
            "fetches remote or file references, so inline the target under $defs",
            **_where(source),
        )
    if message.startswith("Pointer") and "does not exist" in message:
        return SchemaLoadError(f"{label}: unresolvable $ref: {message}", **_where(source))
    keyword = pointer.rsplit("/", 1)[-1] if pointer else "(root)"
    return SchemaLoadError(
        f"{label}: not a valid JSON Schema at {pointer or '/'} (keyword {keyword!r}): {message}",
        **_where(source),
    )


def _python_validator(schema: Any, label: str, source: Source | None) -> Any:
    """A python-jsonschema Draft 3 validator held to the rules of the default engine: a
    ``$ref`` resolves inside the document or the schema is refused, nothing is ever
    fetched or read, and ``pattern``/``patternProperties`` match in bounded time."""
    import jsonschema

    try:
        jsonschema.Draft3Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise SchemaLoadError(
            f"{label}: not a valid Draft 3 schema at /{'/'.join(map(str, exc.path))}: "
            f"{exc.message}",
            **_where(source),
        ) from None
    except RecursionError:
        raise SchemaLoadError(
            f"{label}: the schema is nested too deeply to compile", **_where(source)
        ) from None
    _check_local_refs(schema, label, source)
    _check_patterns(schema, label, source)
    return _draft3_class()(
        schema,
        format_checker=jsonschema.Draft3Validator.FORMAT_CHECKER,
        registry=_no_retrieval_registry(),
    )


def _walk_schema(schema: Any) -> Any:
    """Every object in a schema document, without recursion."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            yield node
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def _check_local_refs(schema: Any, label: str, source: Source | None) -> None:
    """Refuse a ``$ref`` that leaves the document or points at nothing in it, as the
    default engine does."""
    from jsoncontract.pointer import ABSENT, get

    for node in _walk_schema(schema):
        ref = node.get("$ref")
        if not isinstance(ref, str):
            continue
        if not ref.startswith("#"):
            raise SchemaLoadError(
                f"{label}: $ref {ref!r} does not resolve inside the schema; jsoncontract never "
                "fetches remote or file references, so inline the target under definitions",
                **_where(source),
            )
        fragment = _unquote_fragment(ref[1:])
        if fragment.startswith("/"):
            found = get(schema, fragment) is not ABSENT
        else:  # "#" is the document, "#name" a subschema whose id is "#name"
            found = not fragment or any(n.get("id") == ref for n in _walk_schema(schema))
        if not found:
            raise SchemaLoadError(
                f"{label}: unresolvable $ref {ref!r}: no such place in the schema",
                **_where(source),
            )


def _unquote_fragment(fragment: str) -> str:
    from urllib.parse import unquote

    return unquote(fragment)


def _check_patterns(schema: Any, label: str, source: Source | None) -> None:
    """Refuse a ``pattern`` or ``patternProperties`` key the bounded engine cannot read."""
    from jsoncontract._regex import InvalidPattern, search

    for node in _walk_schema(schema):
        patterns = (
            list(node.get("patternProperties") or ())
            if isinstance(node.get("patternProperties"), dict)
            else []
        )
        if isinstance(node.get("pattern"), str):
            patterns.append(node["pattern"])
        for pattern in patterns:
            try:
                search(pattern, "")
            except InvalidPattern as exc:
                raise SchemaLoadError(f"{label}: {exc}", **_where(source)) from None


@lru_cache(maxsize=1)
def _no_retrieval_registry() -> Any:
    """A ``referencing`` registry that refuses every retrieval (no network, no files)."""
    from referencing import Registry
    from referencing.exceptions import NoSuchResource

    def refuse(uri: str) -> Any:
        raise NoSuchResource(ref=uri)  # type: ignore[call-arg]

    return Registry(retrieve=refuse)  # type: ignore[call-arg]


@lru_cache(maxsize=1)
def _draft3_class() -> Any:
    """Draft 3 with the three keywords that match regular expressions replaced by bounded
    ones (:mod:`jsoncontract._regex`)."""
    import jsonschema
    from jsonschema.exceptions import ValidationError

    from jsoncontract._regex import search

    def pattern(validator: Any, patrn: str, instance: Any, schema: Any) -> Any:
        if isinstance(instance, str) and not search(patrn, instance):
            yield ValidationError(f"{short_repr(instance)} does not match {short_repr(patrn)}")

    def pattern_properties(validator: Any, patterns: Any, instance: Any, schema: Any) -> Any:
        if not isinstance(instance, dict):
            return
        for patrn, subschema in patterns.items():
            for key, value in instance.items():
                if search(patrn, key):
                    yield from validator.descend(value, subschema, path=key, schema_path=patrn)

    def additional_properties(validator: Any, extra: Any, instance: Any, schema: Any) -> Any:
        if not isinstance(instance, dict):
            return
        declared = schema.get("properties") or {}
        patterns = list(schema.get("patternProperties") or {})
        extras = [
            key
            for key in instance
            if key not in declared and not any(search(p, key) for p in patterns)
        ]
        if isinstance(extra, dict):
            for key in extras:
                yield from validator.descend(instance[key], extra, path=key)
        elif extra is False and extras:
            shown = ", ".join(short_repr(key) for key in extras[:5])
            more = f" and {len(extras) - 5} more" if len(extras) > 5 else ""
            yield ValidationError(
                f"Additional properties are not allowed ({shown}{more} unexpected)"
            )

    return jsonschema.validators.extend(
        jsonschema.Draft3Validator,
        {
            "pattern": pattern,
            "patternProperties": pattern_properties,
            "additionalProperties": additional_properties,
        },
    )


def _from_python(error: Any, show_values: bool) -> Violation:
    path = join_pointer("", *error.absolute_path)
    schema_path = join_pointer("#", *error.absolute_schema_path)
    message = error.message
    if _hides(error.instance, path, show_values):
        message = f"the value {_show(error.instance, path, show_values)} fails {error.validator!r}"
    return Violation(str(error.validator), path, schema_path, message)


def _show(value: Any, path: str, show_values: bool) -> str:
    """A value quoted in a message: hashed when its path looks sensitive, and with every
    sensitive-looking member inside it hashed."""
    if not show_values:
        if pointer_is_sensitive(path):
            return placeholder(value)
        value = redacted(value)
    return short_repr(value)


def _hides(value: Any, path: str, show_values: bool) -> bool:
    """Whether :func:`_show` hides any of ``value`` (so a message quoting it must not)."""
    return not show_values and (pointer_is_sensitive(path) or redacted(value) is not value)


# -- explaining an engine error: one explainer per keyword, in one table (as python-jsonschema
# keeps one function per keyword) ----------------------------------------------------------


class _Failure:
    """One error of the engine, with what every explainer reads."""

    __slots__ = (
        "error",
        "keyword",
        "params",
        "path",
        "place",
        "schema",
        "schema_path",
        "schema_tokens",
        "show_values",
    )

    def __init__(
        self, error: Any, schema: Any, show_values: bool, place: _Place | None = None
    ) -> None:
        self.error = error
        self.keyword: str = error.kind.name
        self.params: dict[str, Any] = error.kind.as_dict()
        if place is None:
            place = _Place(error.instance_path, error.schema_path)
        self.place = place
        self.path = place.path
        self.schema_tokens = place.schema_tokens
        self.schema_path = place.schema_path
        self.schema = schema
        self.show_values = show_values

    @property
    def instance(self) -> Any:
        """The value that fails."""
        return self.error.instance

    def shown(self) -> str:
        """The value as a message quotes it, secrets hashed. Only explainers of keywords
        about one value call it: the instance of ``required`` may be the whole payload."""
        return _show(self.error.instance, self.path, self.show_values)

    def violation(self, message: str, hint: str | None = None) -> list[Violation]:
        """This keyword's violation at this place."""
        return [Violation(self.keyword, self.path, self.schema_path, message, hint)]


class _Place:
    """Where a value failed, as explanations read it: its JSON Pointer, the schema path's
    tokens and JSON Pointer, and what an explainer made of the schema there (``allowed``:
    the names ``additionalProperties`` allows, and their listing for a hint)."""

    __slots__ = ("allowed", "path", "schema_path", "schema_tokens")

    def __init__(self, instance_path: Any, schema_path: Any) -> None:
        self.path = join_pointer("", *instance_path)
        self.schema_tokens = [str(t) for t in schema_path]
        self.schema_path = join_pointer("#", *self.schema_tokens)
        self.allowed: tuple[list[str], str] | None = None


def _explain(
    error: Any, schema: Any, show_values: bool, place: _Place | None = None
) -> list[Violation]:
    """The violations one engine error stands for, in words a person can act on (``place``:
    where it failed, when known)."""
    failure = _Failure(error, schema, show_values, place)
    return _EXPLAINERS.get(failure.keyword, _other)(failure)


def _required(f: _Failure) -> list[Violation]:
    name = f.params["property"]
    return [
        Violation(
            "required",
            join_pointer(f.path, name),
            f.schema_path,
            f"required property {name!r} is missing",
            f"add {name!r}; the tool cannot run without it",
        )
    ]


def _additional_properties(f: _Failure) -> list[Violation]:
    known = f.place.allowed
    if known is None:
        parent = get_in(f.schema, f.schema_tokens[:-1])
        names = list(parent.get("properties", {})) if isinstance(parent, dict) else []
        known = f.place.allowed = (names, _listing(names))
    allowed, listed = known
    out: list[Violation] = []
    unexpected = f.params.get("unexpected", [])
    for name in unexpected[:MAX_VIOLATIONS]:
        guess = did_you_mean(name, allowed) if len(out) < _GUESSES else None
        if guess:
            hint = f"did you mean {_quoted(guess)}? the schema allows only: {listed}"
        elif allowed:
            hint = f"remove it; the schema allows only: {listed}"
        else:
            hint = "remove it; this object takes no properties"
        out.append(
            Violation(
                "additionalProperties",
                join_pointer(f.path, name),
                f.schema_path,
                f"property {_quoted(name)} is not allowed here",
                hint,
            )
        )
    more = len(unexpected) - len(out)
    if more > 0:  # counted here: the rest are never explained
        _count_the_rest(out, f"{more} more undeclared members are not listed")
    return out


#: Undeclared members of one object given a "did you mean" (each is a search).
_GUESSES: Final = 20
#: Names a hint lists ("the schema allows only: ...") before saying how many more.
_LISTED: Final = 12


def _listing(names: list[str]) -> str:
    """Names for a hint, at most :data:`_LISTED` of them and each cut short."""
    shown = ", ".join(_clip(n, 60) for n in names[:_LISTED])
    return shown + (f" (and {len(names) - _LISTED} more)" if len(names) > _LISTED else "")


def _quoted(name: str) -> str:
    """A member name quoted in a message, cut to 60 characters."""
    return repr(name) if len(name) <= 60 else repr(name[:57]) + "..."


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _size(f: _Failure) -> list[Violation]:
    """minItems, maxItems, minProperties, maxProperties."""
    instance = f.instance
    size = len(instance) if isinstance(instance, list | dict) else "?"
    what = "items" if "Items" in f.keyword else "properties"
    bound = "at least" if f.keyword.startswith("min") else "at most"
    return f.violation(f"has {size} {what}; {bound} {f.params.get('limit')} allowed")


def _unique_items(f: _Failure) -> list[Violation]:
    return f.violation("array items are not unique")


def _enum(f: _Failure) -> list[Violation]:
    options = f.params.get("options", [])
    listed = ", ".join(short_repr(o, 30) for o in options[:12])
    if len(options) > 12:
        listed += f", ... ({len(options)} values)"
    instance = f.instance
    guess = did_you_mean(instance, options) if isinstance(instance, str) else None
    return f.violation(
        f"{f.shown()} is not one of {listed}",
        f"did you mean {guess!r}?" if guess else "use one of the listed values",
    )


def _type(f: _Failure) -> list[Violation]:
    types = f.params.get("types", [])
    wanted = " or ".join(types)
    hidden = not f.show_values and pointer_is_sensitive(f.path)
    return f.violation(
        f"expected {wanted}, got {json_type(f.instance)} {f.shown()}",
        _type_hint(f.instance, types, hide=hidden),
    )


def _const(f: _Failure) -> list[Violation]:
    expected = short_repr(f.params.get("expected_value"))
    return f.violation(f"{f.shown()} must be exactly {expected}")


def _format(f: _Failure) -> list[Violation]:
    fmt = f.params.get("format", "?")
    return f.violation(f"{f.shown()} is not a valid {fmt}", _FORMAT_HINTS.get(fmt))


def _pattern(f: _Failure) -> list[Violation]:
    if type(f.error.kind).__name__ == "BacktrackLimitExceeded":
        return _backtrack_limit(f)
    return f.violation(
        f"{f.shown()} does not match the pattern {_clip(str(f.params.get('pattern', '?')), 200)}",
        "the pattern is an ECMA-262 regular expression (\\d and \\w are ASCII only)",
    )


_BOUND_WORDS: Final = {
    "minimum": "less than the minimum",
    "maximum": "greater than the maximum",
    "exclusiveMinimum": "not greater than the exclusive minimum",
    "exclusiveMaximum": "not less than the exclusive maximum",
}


def _bound(f: _Failure) -> list[Violation]:
    """minimum, maximum, exclusiveMinimum, exclusiveMaximum."""
    return f.violation(f"{f.shown()} is {_BOUND_WORDS[f.keyword]} {f.params.get('limit')}")


def _length(f: _Failure) -> list[Violation]:
    """minLength, maxLength."""
    instance = f.instance
    size = len(instance) if isinstance(instance, str) else "?"
    rel, bound = ("shorter", "at least") if f.keyword == "minLength" else ("longer", "at most")
    limit = f.params.get("limit")
    return f.violation(f"{f.shown()} is {rel} than allowed ({size} characters; {bound} {limit})")


def _alternatives(f: _Failure) -> list[Violation]:
    """anyOf, oneOf: the branches' types, and why the closest branch fails."""
    keyword = f.keyword
    context = f.params.get("context") or []
    if type(f.error.kind).__name__ == "OneOfMultipleValid":
        return f.violation(
            f"{f.shown()} matches more than one alternative of oneOf",
            "make the branches exclusive",
        )
    branches = get_in(f.schema, f.schema_tokens) or []
    branch_types = [
        b["type"] for b in branches if isinstance(b, dict) and isinstance(b.get("type"), str)
    ]
    message = (
        f"{f.shown()} matches none of the {len(context) or 'listed'} alternatives of {keyword}"
    )
    if branch_types and len(branch_types) == len(context):
        message += f" ({', '.join(branch_types)})"
    hint = None
    best = _best_branch_error(context)
    if best is not None:
        reason = _first_line(best.message)
        where = join_pointer("", *best.instance_path)
        if _hides(best.instance, where, f.show_values):
            reason = f"the value {_show(best.instance, where, f.show_values)} fails "
            reason += repr(best.kind.name)
        hint = f"closest alternative fails because: {reason}"
    return f.violation(message, hint)


def _false_schema(f: _Failure) -> list[Violation]:
    return [
        Violation(
            "false",
            f.path,
            f.schema_path,
            "no value is allowed here (the schema is false)",
            "remove this member",
        )
    ]


def _multiple_of(f: _Failure) -> list[Violation]:
    return f.violation(f"{f.shown()} is not a multiple of {f.params.get('multiple_of')}")


def _backtrack_limit(f: _Failure) -> list[Violation]:
    """A pattern the engine gave up on (reported under the ``pattern`` keyword)."""
    return [
        Violation(
            "pattern",
            f.path,
            f.schema_path,
            "the pattern could not be evaluated within the backtracking limit",
            "simplify the pattern (nested quantifiers backtrack catastrophically)",
        )
    ]


def _other(f: _Failure) -> list[Violation]:
    """Any other keyword: the engine's own message, unless it would quote a secret."""
    message = f.error.message
    if _hides(f.instance, f.path, f.show_values):
        message = f"the value {f.shown()} fails {f.keyword!r}"
    return f.violation(_first_line(message))


#: keyword -> explainer; a keyword not listed gets :func:`_other`.
_EXPLAINERS: Final[dict[str, Callable[[_Failure], list[Violation]]]] = {
    "required": _required,
    "additionalProperties": _additional_properties,
    "minItems": _size,
    "maxItems": _size,
    "minProperties": _size,
    "maxProperties": _size,
    "uniqueItems": _unique_items,
    "enum": _enum,
    "type": _type,
    "const": _const,
    "format": _format,
    "pattern": _pattern,
    "minimum": _bound,
    "maximum": _bound,
    "exclusiveMinimum": _bound,
    "exclusiveMaximum": _bound,
    "minLength": _length,
    "maxLength": _length,
    "anyOf": _alternatives,
    "oneOf": _alternatives,
    "falseSchema": _false_schema,
    "multipleOf": _multiple_of,
}


#: Keywords whose explanation reads, of the value, the value alone (a scalar is remembered).
_BY_VALUE: Final = frozenset(
    {
        "enum",
        "type",
        "const",
        "format",
        "pattern",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
        "multipleOf",
    }
)
#: Keywords whose explanation reads one parameter of the engine's error, and not the value.
_BY_PARAMS: Final = {"required": "property", "additionalProperties": "unexpected"}
#: Keywords whose explanation reads neither the value nor a parameter.
_BY_PLACE: Final = frozenset({"uniqueItems", "falseSchema"})


def _best_branch_error(context: list[list[Any]]) -> Any:
    best = None
    best_key: tuple[int, int] | None = None
    for branch in context:
        if not branch:
            continue
        key = (len(branch), -max(len(list(e.instance_path)) for e in branch))
        if best_key is None or key < best_key:
            best_key, best = key, branch[0]
    return best


def _type_hint(instance: Any, types: list[str], *, hide: bool) -> str | None:
    """What to send instead; ``hide``: the value is sensitive, so do not quote it."""
    if isinstance(instance, str):
        text = instance.strip()
        value = "the value" if hide else text
        if ("integer" in types or "number" in types) and _is_number(text):
            return f"send {value} as a JSON number, not a string"
        if "boolean" in types and text in ("true", "false"):
            return f"send {value} as a JSON boolean, not a string"
        if ("object" in types or "array" in types) and text[:1] in ("{", "["):
            return "this is JSON encoded as a string; send the value itself, not its text"
    if isinstance(instance, float) and "integer" in types and instance.is_integer():
        return f"send {'the value' if hide else int(instance)} without a fractional part"
    if instance is None:
        return "leave the member out instead of sending null, or allow null in the schema"
    return None


def _is_number(text: str) -> bool:
    """Whether ``text`` is a JSON number (``float()`` also takes ``1_000``, ``+5``, ``.5``,
    ``inf`` and other scripts' digits, none of which JSON allows)."""
    return _JSON_NUMBER.fullmatch(text) is not None
