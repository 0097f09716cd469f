"""Mapping files: the transforms the adapter layer is *expected* to make between two hops.

A mapping file (JSON, checked against ``jsoncontract/schemas/diff-mapping.json``) lists,
per tool and pair of hops, transforms in the style of JSON Patch operations::

    {"version": 1, "mappings": [{
        "tool": "searchInvoices", "from": "mcp", "to": "downstream",
        "transforms": [
            {"op": "rename", "path": "/startDate", "to": "/from",
             "convert": {"type": "date", "from": "%Y-%m-%d", "to": "%d.%m.%Y"}},
            {"op": "drop", "path": "/debug"},
            {"op": "default", "path": "/limit", "value": 20},
            {"op": "convert", "path": "/amount", "convert": {"type": "scale", "factor": 100}}
        ],
        "arrays": {"/lines": {"key": "sku"}, "/tags": "set"},
        "ignore": ["/traceId"]
    }]}

A transform that is found in the payloads becomes an *expected* difference; whatever the
transforms do not account for stays unexpected; a transform whose source is there but whose
result is not (the rename did not happen) is a finding. Paths are checked against the
tool's schemas when the file is loaded: a path no schema allows is a warning, with the
closest name.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import orjson

from jsoncontract import codes
from jsoncontract._files import load_document, positions_of, read_bytes, refuse_anomalies
from jsoncontract._json import short_repr
from jsoncontract._regex import InvalidPattern, search
from jsoncontract._spelling import did_you_mean
from jsoncontract.diff.compare import ArrayRule
from jsoncontract.diff.model import HOP_RANK
from jsoncontract.diff.paths import PathRules, PathSet, wildcards
from jsoncontract.errors import ConfigError
from jsoncontract.model import Finding, Hop, Severity, Source
from jsoncontract.pointer import ABSENT, escape_pointer_token, get, parent, pointer_tokens

if TYPE_CHECKING:
    from jsoncontract._files import Positions

_HOPS: Final = {h.value: h for h in Hop}
_TYPE_CONVERSIONS: Final = frozenset(
    {"string", "number", "integer", "boolean", "json-text", "json-value", "upper", "lower"}
)
_SAMPLE_DATE: Final = datetime(2024, 11, 23, 17, 45, 9)


class ConversionError(ValueError):
    """A value the declared conversion cannot convert."""


@dataclass(frozen=True, slots=True)
class Conversion:
    """A declared value conversion (``string``, ``date``, ``map``, ``scale``...)."""

    kind: str
    options: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        """A short phrase for messages: ``date %Y-%m-%d → %d.%m.%Y``."""
        if self.kind == "date":
            return f"date {self.options.get('from', 'iso')} → {self.options['to']}"
        if self.kind == "scale":
            return f"scale ×{self.options['factor']}"
        if self.kind == "map":
            return f"map of {len(self.options['values'])} values"
        return self.kind

    def apply(self, value: Any) -> Any:
        """The converted value.

        Raises:
            ConversionError: the value cannot be converted this way (including a value out
                of range, such as a timestamp beyond the calendar).
        """
        try:
            return self._apply(value)
        except ConversionError:
            raise
        except (ArithmeticError, OSError, ValueError) as exc:
            raise ConversionError(f"{short_repr(value)} cannot be converted: {exc}") from None

    def _apply(self, value: Any) -> Any:
        kind = self.kind
        if kind == "string":
            if isinstance(value, str):
                return value
            if isinstance(value, dict | list):
                raise ConversionError(f"{short_repr(value)} is not a scalar")
            return _json_text(value)
        if kind in ("number", "integer"):
            return _to_number(value, integer=kind == "integer")
        if kind == "boolean":
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower() if not isinstance(value, dict | list) else ""
            if text in ("true", "1"):
                return True
            if text in ("false", "0"):
                return False
            raise ConversionError(f"{short_repr(value)} is not a boolean")
        if kind == "json-text":
            return _json_text(value)
        if kind == "json-value":
            if not isinstance(value, str):
                raise ConversionError(f"{short_repr(value)} is not JSON text")
            try:
                return orjson.loads(value)
            except orjson.JSONDecodeError:
                raise ConversionError(f"{short_repr(value)} is not JSON text") from None
        if kind in ("upper", "lower"):
            if not isinstance(value, str):
                raise ConversionError(f"{short_repr(value)} is not a string")
            return value.upper() if kind == "upper" else value.lower()
        if kind == "map":
            values = self.options["values"]
            if isinstance(value, str) and value in values:
                return values[value]
            key = _json_text(value) if not isinstance(value, str) else value
            if key in values:
                return values[key]
            raise ConversionError(f"{short_repr(value)} is not one of the mapped values")
        if kind == "scale":
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ConversionError(f"{short_repr(value)} is not a number")
            scaled = value * self.options["factor"]
            whole = round(scaled)
            if abs(scaled - whole) < 1e-9:  # 12.34 * 100 is 1233.9999999999998
                return int(whole)
            return round(scaled, 10)
        if kind == "date":
            return _convert_date(value, self.options.get("from", "iso"), self.options["to"])
        raise ConversionError(f"unknown conversion {kind!r}")  # pragma: no cover - schema


def _json_text(value: Any) -> str:
    """Compact JSON text, integers beyond 64 bits included (orjson refuses them)."""
    try:
        return orjson.dumps(value).decode()
    except (orjson.JSONEncodeError, TypeError):
        try:
            return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        except RecursionError:
            raise ConversionError(f"{short_repr(value)} is nested too deeply") from None


def _to_number(value: Any, *, integer: bool) -> Any:
    if value is None or isinstance(value, bool | dict | list):
        raise ConversionError(f"{short_repr(value)} is not a number")
    if isinstance(value, str):
        try:
            number: Any = orjson.loads(value.strip())
        except orjson.JSONDecodeError:
            raise ConversionError(f"{short_repr(value)} is not a number") from None
        if isinstance(number, bool) or not isinstance(number, int | float):
            raise ConversionError(f"{short_repr(value)} is not a number")
    else:
        number = value
    if integer:
        if isinstance(number, float) and not number.is_integer():
            raise ConversionError(f"{short_repr(value)} is not an integer")
        return int(number)
    return number


def _parse_date(value: Any, fmt: str) -> datetime:
    if fmt in ("epoch", "epoch-ms"):
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise ConversionError(f"{short_repr(value)} is not a timestamp")
        try:
            seconds = float(value) / (1000 if fmt == "epoch-ms" else 1)
        except ValueError:
            raise ConversionError(f"{short_repr(value)} is not a timestamp") from None
        return datetime.fromtimestamp(seconds, UTC)
    if not isinstance(value, str):
        raise ConversionError(f"{short_repr(value)} is not a date string")
    try:
        if fmt == "iso":
            return datetime.fromisoformat(value)
        return datetime.strptime(value, fmt)
    except ValueError:
        shown = "ISO 8601" if fmt == "iso" else fmt
        raise ConversionError(f"{short_repr(value)} is not a date in the format {shown}") from None


def _convert_date(value: Any, source: str, target: str) -> Any:
    moment = _parse_date(value, source)
    if target in ("epoch", "epoch-ms"):
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        seconds = moment.timestamp()
        return int(seconds * 1000) if target == "epoch-ms" else int(seconds)
    if target == "iso":
        return moment.isoformat()
    return moment.strftime(target)


@dataclass(frozen=True, slots=True)
class Transform:
    """One declared transform; ``origin`` is ``file#/mappings/0/transforms/1``."""

    op: str
    path: str
    to: str | None = None
    value: Any = None
    convert: Conversion | None = None
    origin: str = ""
    line: int | None = None

    def describe(self) -> str:
        """``rename /startDate → /from (date %Y-%m-%d → %d.%m.%Y)``."""
        text = f"{self.op} {self.path}"
        if self.to is not None:
            text += f" → {self.to}"
        if self.op == "default":
            text += f" = {short_repr(self.value, 40)}"
        if self.convert is not None:
            text += f" ({self.convert.describe()})"
        return text


@dataclass(frozen=True, slots=True)
class Mapping:
    """The transforms of one tool between two hops, and its array and ignore rules."""

    tool: str
    from_hop: Hop
    to_hop: Hop
    transforms: tuple[Transform, ...]
    arrays: PathRules[ArrayRule]
    ignore: PathSet
    origin: str
    source: Source

    def covers(self, tool: str | None, a: Hop, b: Hop) -> bool:
        """Whether this mapping applies to ``tool`` when comparing hop ``a`` with ``b``."""
        if self.tool != "*" and self.tool != tool:
            return False
        return HOP_RANK[a] <= HOP_RANK[self.from_hop] and HOP_RANK[self.to_hop] <= HOP_RANK[b]


class MappingSet:
    """Every loaded mapping, looked up by tool and pair of hops.

    ``warnings`` holds what loading found doubtful (a path no schema allows); ``used``
    counts how often each transform matched, so a run can name transforms that never did.
    """

    def __init__(self, mappings: Iterable[Mapping] = (), warnings: Iterable[Finding] = ()):
        self.mappings = tuple(mappings)
        self.warnings = list(warnings)
        self.used: Counter[str] = Counter()
        self._pairs: dict[tuple[str | None, Hop, Hop], list[Transform]] = {}
        self._rules: dict[str | None, tuple[PathRules[ArrayRule], PathSet]] = {}

    def __bool__(self) -> bool:
        return bool(self.mappings)

    def transforms(self, tool: str | None, a: Hop, b: Hop) -> list[Transform]:
        """The transforms that apply between hops ``a`` and ``b`` (in hop, then file order)."""
        key = (tool, a, b)
        found = self._pairs.get(key)
        if found is None:
            chosen = [m for m in self.mappings if m.covers(tool, a, b)]
            chosen.sort(key=lambda m: HOP_RANK[m.from_hop])
            found = self._pairs[key] = [t for m in chosen for t in m.transforms]
        return found

    def rules(self, tool: str | None) -> tuple[PathRules[ArrayRule], PathSet]:
        """The array rules and ignored paths the mappings declare for a tool."""
        found = self._rules.get(tool)
        if found is None:
            arrays: PathRules[ArrayRule] = PathRules()
            ignore = PathSet(())
            for m in self.mappings:
                if m.tool in ("*", tool):
                    arrays = arrays.merged(m.arrays)
                    ignore = ignore.merged(m.ignore)
            found = self._rules[tool] = (arrays, ignore)
        return found

    def unused(self) -> list[Finding]:
        """A warning for every transform that matched no member in the whole run."""
        return [
            Finding(
                code=codes.DIFF_MAPPING_UNUSED,
                severity=Severity.WARNING,
                message=f"{t.describe()} ({m.tool}, {m.from_hop.value} → {m.to_hop.value}) "
                "matched no member in any compared call",
                path=t.path,
                tool=None if m.tool == "*" else m.tool,
                source=Source(m.source.file, t.line),
                hint="check the path and the tool name, or remove the transform",
            )
            for m in self.mappings
            for t in m.transforms
            if not self.used[t.origin]
        ]


# -- loading -------------------------------------------------------------------------------


@cache
def mapping_schema() -> dict[str, Any]:
    """The JSON Schema of mapping files."""
    data = (resources.files("jsoncontract") / "schemas" / "diff-mapping.json").read_bytes()
    schema: dict[str, Any] = orjson.loads(data)
    return schema


@cache
def _validator() -> Any:
    import jsonschema_rs

    return jsonschema_rs.validator_for(mapping_schema())


SchemaLookup = Callable[[str, Hop], Any]


def load_mappings(
    paths: Iterable[str | Path], *, schema_of: SchemaLookup | None = None
) -> MappingSet:
    """Load and check mapping files.

    Arguments:
        paths: mapping files (JSON).
        schema_of: ``(tool, hop) -> JSON Schema or None``, to warn about paths that no
            schema allows.

    Raises:
        InputError: a file cannot be read or is not JSON.
        ConfigError: a file breaks the mapping format (named with its line).
    """
    mappings: list[Mapping] = []
    warnings: list[Finding] = []
    for path in paths:
        name = str(path)
        data = read_bytes(path)
        document, anomalies = load_document(path, data)
        index = positions_of(path, data)
        refuse_anomalies(
            name,
            anomalies,
            ("invalid_utf8", "lone_surrogate", "duplicate_key"),
            index,
            "a mapping file must be JSON that every parser reads the same",
        )

        def line_of(pointer: str, index: Positions = index) -> int | None:
            position = index.position(pointer)
            return position[0] if position else None

        _check_format(document, name, line_of)
        assert isinstance(document, dict)
        for m_index, raw in enumerate(document["mappings"]):
            mapping = _read_mapping(raw, f"/mappings/{m_index}", name, line_of)
            mappings.append(mapping)
            if schema_of is not None:
                warnings.extend(_check_paths(mapping, schema_of))
    return MappingSet(mappings, warnings)


def _check_format(document: Any, name: str, line_of: Callable[[str], int | None]) -> None:
    errors = sorted(
        _validator().iter_errors(document),
        key=lambda e: (-len(list(e.instance_path)), str(e.instance_path)),
    )
    if not errors:
        return
    error = errors[0]
    pointer = "".join("/" + escape_pointer_token(str(t)) for t in error.instance_path)
    message = error.message.splitlines()[0] if error.message else "invalid"
    kind = error.kind.name
    if kind == "additionalProperties":
        unexpected = error.kind.as_dict().get("unexpected", ["?"])
        message = f"unknown member {unexpected[0]!r}"
    elif kind in ("oneOf", "anyOf") and "/convert" in pointer:
        message = (
            "not a conversion: use a name (string, number, integer, boolean, json-text, "
            'json-value, upper, lower) or an object such as {"type": "date", "to": "%d.%m.%Y"}'
        )
    elif kind == "enum":
        options = error.kind.as_dict().get("options", [])
        message = f"{short_repr(error.instance)} is not one of: " + ", ".join(
            o if isinstance(o, str) else short_repr(o) for o in options
        )
    elif kind == "falseSchema":
        member = pointer.rsplit("/", 1)[-1]
        message = f"{member!r} does not belong in this op"
    raise ConfigError(
        f"mapping file {pointer or '/'}: {message}",
        file=name,
        line=line_of(pointer) if pointer else 1,
    )


def _read_mapping(
    raw: dict[str, Any], pointer: str, name: str, line_of: Callable[[str], int | None]
) -> Mapping:
    tool = raw["tool"]
    from_hop = _HOPS[raw.get("from", "mcp")]
    to_hop = _HOPS[raw.get("to", "downstream")]
    if HOP_RANK[from_hop] >= HOP_RANK[to_hop]:
        raise ConfigError(
            f"mapping file {pointer}: 'from' ({from_hop.value}) must come before 'to' "
            f"({to_hop.value}); hops run model → mcp → downstream",
            file=name,
            line=line_of(pointer),
        )
    transforms = []
    for t_index, item in enumerate(raw.get("transforms", ())):
        where = f"{pointer}/transforms/{t_index}"
        transforms.append(_read_transform(item, where, name, line_of(where)))
    arrays = []
    for path, spec in raw.get("arrays", {}).items():
        origin = f"{name}#{pointer}/arrays/{escape_pointer_token(path)}"
        if isinstance(spec, str):
            arrays.append((path, ArrayRule(spec, (), origin)))
        else:
            keys = spec["key"]
            keys = (keys,) if isinstance(keys, str) else tuple(keys)
            arrays.append((path, ArrayRule("key", keys, origin)))
    return Mapping(
        tool=tool,
        from_hop=from_hop,
        to_hop=to_hop,
        transforms=tuple(transforms),
        arrays=PathRules(arrays),
        ignore=PathSet(raw.get("ignore", ())),
        origin=f"{name}#{pointer}",
        source=Source(name, line_of(pointer)),
    )


def _read_transform(item: dict[str, Any], where: str, name: str, line: int | None) -> Transform:
    op = item["op"]
    path = item["path"]
    to = item.get("to")
    if to is not None and wildcards(to) != wildcards(path):
        raise ConfigError(
            f"mapping file {where}: 'to' has {wildcards(to)} '*' tokens but 'path' has "
            f"{wildcards(path)}; each * in 'to' stands for the member its * in 'path' matched",
            file=name,
            line=line,
        )
    if op == "rename" and to is not None and parent(to) != parent(path):
        raise ConfigError(
            f"mapping file {where}: a rename keeps the member in its object ({parent(path) or '/'}"
            f'); {path} → {to} changes the object, so use "op": "move"',
            file=name,
            line=line,
        )
    convert = _read_conversion(item.get("convert"), where, name, line)
    return Transform(
        op=op,
        path=path,
        to=to,
        value=item.get("value"),
        convert=convert,
        origin=f"{name}#{where}",
        line=line,
    )


def _read_conversion(raw: Any, where: str, name: str, line: int | None) -> Conversion | None:
    if raw is None:
        return None
    if isinstance(raw, str):
        return Conversion(raw)
    kind = raw["type"]
    options = {k: v for k, v in raw.items() if k != "type"}
    if kind == "date":
        for key in ("from", "to"):
            fmt = options.get(key, "iso")
            if fmt in ("iso", "epoch", "epoch-ms"):
                continue
            if "%" not in fmt:
                raise ConfigError(
                    f"mapping file {where}/convert/{key}: {fmt!r} is not a date format; use "
                    "strftime directives (%Y-%m-%d, %d.%m.%Y...) or iso, epoch, epoch-ms",
                    file=name,
                    line=line,
                )
            try:
                datetime.strptime(_SAMPLE_DATE.strftime(fmt), fmt)
            except ValueError as exc:
                raise ConfigError(
                    f"mapping file {where}/convert/{key}: {fmt!r} cannot be read back ({exc})",
                    file=name,
                    line=line,
                ) from None
    if kind in _TYPE_CONVERSIONS:
        options = {}
    return Conversion(kind, options)


def _check_paths(mapping: Mapping, schema_of: SchemaLookup) -> list[Finding]:
    """Warnings for transform paths that the hop's schema does not allow."""
    if mapping.tool == "*":
        return []
    out = []
    for t in mapping.transforms:
        checks: list[tuple[str, Hop]] = []
        if t.op in ("rename", "move", "drop", "convert"):
            checks.append((t.path, mapping.from_hop))
        if t.op in ("rename", "move") and t.to is not None:
            checks.append((t.to, mapping.to_hop))
        if t.op in ("default", "convert"):
            checks.append((t.path, mapping.to_hop))
        for path, hop in checks:
            schema = schema_of(mapping.tool, hop)
            if schema is None:
                continue
            problem = _missing_in_schema(schema, pointer_tokens(path))
            if problem is None:
                continue
            token, known = problem
            guess = did_you_mean(token, known)
            hint = f"did you mean {guess!r}?" if guess else None
            if hint is None and known:
                hint = "the schema has: " + ", ".join(known[:12])
            out.append(
                Finding(
                    code=codes.DIFF_MAPPING_UNKNOWN_PATH,
                    severity=Severity.WARNING,
                    message=f"{t.describe()}: the {hop.value} schema of {mapping.tool} has no "
                    f"member {token!r} at {path}, so this transform can never match",
                    path=path,
                    hop=hop,
                    tool=mapping.tool,
                    source=Source(mapping.source.file, t.line),
                    hint=hint,
                )
            )
    return out


def _missing_in_schema(schema: Any, tokens: list[str]) -> tuple[str, list[str]] | None:
    """``(token, known names)`` when the schema cannot hold the path, else ``None``."""
    return _walk_schema(schema, tokens, schema, 0)


def _walk_schema(
    node: Any, tokens: list[str], root: Any, depth: int
) -> tuple[str, list[str]] | None:
    if not tokens or depth > 64 or not isinstance(node, dict):
        return None
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#"):
        target = get(root, ref[1:])
        if target is not ABSENT:
            found = _walk_schema(target, tokens, root, depth + 1)
            if found is not None:
                return found
    for keyword in ("allOf",):
        for branch in node.get(keyword, ()) if isinstance(node.get(keyword), list) else ():
            found = _walk_schema(branch, tokens, root, depth + 1)
            if found is not None:
                return found
    for keyword in ("anyOf", "oneOf"):
        branches = node.get(keyword)
        if isinstance(branches, list) and branches:
            results = [_walk_schema(b, tokens, root, depth + 1) for b in branches]
            if all(r is not None for r in results):
                return results[0]
            return None
    token, rest = tokens[0], tokens[1:]
    properties = node.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    if token == "*":
        return None
    if token in properties:
        return _walk_schema(properties[token], rest, root, depth + 1)
    pattern_properties = node.get("patternProperties")
    if isinstance(pattern_properties, dict):
        for pattern, sub in pattern_properties.items():
            try:
                if search(pattern, token):
                    return _walk_schema(sub, rest, root, depth + 1)
            except InvalidPattern:
                return None
    items = node.get("items")
    if token.isdigit() and isinstance(items, dict):
        return _walk_schema(items, rest, root, depth + 1)
    closed = node.get("additionalProperties") is False or node.get("unevaluatedProperties") is False
    if closed and properties:
        return token, list(properties)
    if isinstance(node.get("additionalProperties"), dict):
        return _walk_schema(node["additionalProperties"], rest, root, depth + 1)
    return None


__all__ = [
    "Conversion",
    "ConversionError",
    "Mapping",
    "MappingSet",
    "Transform",
    "load_mappings",
    "mapping_schema",
]
