"""The differential corpus of ``compat``: real schemas, seeded mutations, and arguments
drawn valid under the old schema.

The schemas are the input schemas of a pinned sample of BFCL's function docs
(``fixtures/compat/corpus-bfcl.json``) and of every tool of the real MCP servers the tests
run (``fixtures/compat/corpus-mcp.json``); ``benchmarks/compat_fixtures.py`` wrote both.
Each mutation changes one node of a schema in one way, and says what the change does: a
``narrowing`` refuses values that were accepted, a ``widening`` accepts values that were
refused and refuses none, a ``rewrite`` accepts the same values (or only changes a
description). The arguments are drawn by ``hypothesis-jsonschema`` from the old schema,
deterministically, and kept when jsoncontract's validator accepts them.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "fixtures" / "compat"

NARROWING = "narrowing"
WIDENING = "widening"
REWRITE = "rewrite"


def schemas() -> list[tuple[str, dict[str, Any]]]:
    """``(label, input schema)`` for every tool of the corpus, in file order."""
    out = []
    for name in ("corpus-bfcl.json", "corpus-mcp.json"):
        document = json.loads((CORPUS / name).read_text())
        for tool in document["tools"]:
            label = f"{tool.get('server', 'bfcl')}:{tool['name']}"
            schema = tool["inputSchema"]
            if len(out) % 2 and _object(schema) and "$defs" not in schema:
                schema = _referring(schema)  # a mutation may then land in a definition
            out.append((label, schema))
    return out


def _referring(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with its first property's schema moved to ``$defs`` and referred to."""
    out = copy.deepcopy(schema)
    name = next(iter(out["properties"]))
    out["$defs"] = {"First": out["properties"][name]}
    out["properties"][name] = {"$ref": "#/$defs/First"}
    return out


@dataclass(frozen=True)
class Mutant:
    """A schema changed in one place: the operator, its kind, and where."""

    operator: str
    kind: str
    pointer: str
    schema: dict[str, Any]


def nodes(schema: Any, pointer: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every subschema a value can reach through properties and items, and the
    definitions of ``$defs``."""
    if not isinstance(schema, dict):
        return
    yield pointer, schema
    for name, sub in (schema.get("$defs") or {}).items():
        yield from nodes(sub, f"{pointer}/$defs/{name}")
    for name, sub in (schema.get("properties") or {}).items():
        yield from nodes(sub, f"{pointer}/properties/{name.replace('~', '~0').replace('/', '~1')}")
    if isinstance(schema.get("items"), dict):
        yield from nodes(schema["items"], f"{pointer}/items")


def _types(node: dict[str, Any]) -> list[str]:
    kind = node.get("type")
    return [kind] if isinstance(kind, str) else list(kind) if isinstance(kind, list) else []


def _object(node: dict[str, Any]) -> bool:
    return isinstance(node.get("properties"), dict) and bool(node["properties"])


def _string(node: dict[str, Any]) -> bool:
    return _types(node) == ["string"] and "enum" not in node and "const" not in node


def _sample(kind: str) -> Any:
    return {"string": "zz-new", "integer": 987654, "number": 98765.5, "boolean": True}.get(kind)


# Each operator: (name, kind, applies to node?, change the node in place)
Operator = tuple[
    str, str, Callable[[dict[str, Any]], bool], Callable[[dict[str, Any], random.Random], None]
]


def _add_required(node: dict[str, Any], rng: random.Random) -> None:
    free = sorted(set(node["properties"]) - set(node.get("required") or []))
    node["required"] = [*(node.get("required") or []), rng.choice(free)]


def _drop_required(node: dict[str, Any], rng: random.Random) -> None:
    required = list(node["required"])
    required.remove(rng.choice(required))
    if required:
        node["required"] = required
    else:
        del node["required"]


def _drop_enum_value(node: dict[str, Any], rng: random.Random) -> None:
    values = list(node["enum"])
    values.pop(rng.randrange(len(values)))
    node["enum"] = values


def _add_enum_value(node: dict[str, Any], rng: random.Random) -> None:
    kinds = _types(node) or ["string"]
    node["enum"] = [
        *node["enum"],
        _sample(rng.choice([k for k in kinds if _sample(k) is not None])),
    ]


def _has_free_property(node: dict[str, Any]) -> bool:
    return _object(node) and bool(set(node["properties"]) - set(node.get("required") or []))


def _enum_addable(node: dict[str, Any]) -> bool:
    return isinstance(node.get("enum"), list) and any(
        _sample(k) is not None for k in _types(node) or ["string"]
    )


def _drop_open_property(node: dict[str, Any], rng: random.Random) -> None:
    name = rng.choice(sorted(set(node["properties"]) - set(node.get("required") or [])))
    del node["properties"][name]


def _drop_closed_property(node: dict[str, Any], rng: random.Random) -> None:
    _drop_open_property(node, rng)


def _add_closed_property(node: dict[str, Any], rng: random.Random) -> None:
    node["properties"]["zz_added"] = {"type": "string"}


def _to_ref(node: dict[str, Any], rng: random.Random) -> None:
    name = rng.choice(sorted(node["properties"]))
    node.setdefault("$defs", {})["Moved"] = node["properties"][name]
    node["properties"][name] = {"$ref": "#/$defs/Moved"}


OPERATORS: list[Operator] = [
    # narrowings
    ("add-required", NARROWING, _has_free_property, _add_required),
    (
        "drop-enum-value",
        NARROWING,
        lambda n: isinstance(n.get("enum"), list) and len(n["enum"]) >= 2,
        _drop_enum_value,
    ),
    ("add-enum", NARROWING, _string, lambda n, r: n.update(enum=["a", "b"])),
    (
        "add-max-length",
        NARROWING,
        _string,
        lambda n, r: n.update(maxLength=min(n.get("maxLength", 3), 3)),
    ),
    (
        "add-min-length",
        NARROWING,
        _string,
        lambda n, r: n.update(minLength=max(n.get("minLength", 0), 4)),
    ),
    (
        "add-pattern",
        NARROWING,
        lambda n: _string(n) and "pattern" not in n,
        lambda n, r: n.update(pattern="^[a-z]*$"),
    ),
    (
        "add-format",
        NARROWING,
        lambda n: _string(n) and "format" not in n,
        lambda n, r: n.update(format="email"),
    ),
    (
        "integer-only",
        NARROWING,
        lambda n: _types(n) == ["number"],
        lambda n, r: n.update(type="integer"),
    ),
    (
        "add-maximum",
        NARROWING,
        lambda n: _types(n) in (["number"], ["integer"]) and "enum" not in n,
        lambda n, r: n.update(maximum=min(n.get("maximum", 10), 10)),
    ),
    (
        "close-object",
        NARROWING,
        lambda n: _object(n) and "additionalProperties" not in n,
        lambda n, r: n.update(additionalProperties=False),
    ),
    (
        "drop-closed-property",
        NARROWING,
        lambda n: _has_free_property(n) and n.get("additionalProperties") is False,
        _drop_closed_property,
    ),
    (
        "add-min-items",
        NARROWING,
        lambda n: _types(n) == ["array"] and "minItems" not in n,
        lambda n, r: n.update(minItems=2),
    ),
    (
        "add-unique-items",
        NARROWING,
        lambda n: _types(n) == ["array"] and not n.get("uniqueItems"),
        lambda n, r: n.update(uniqueItems=True),
    ),
    # widenings
    (
        "drop-required",
        WIDENING,
        lambda n: bool(n.get("required")) and isinstance(n.get("required"), list),
        _drop_required,
    ),
    ("add-enum-value", WIDENING, _enum_addable, _add_enum_value),
    ("drop-enum", WIDENING, lambda n: "enum" in n, lambda n, r: n.pop("enum")),
    ("drop-max-length", WIDENING, lambda n: "maxLength" in n, lambda n, r: n.pop("maxLength")),
    ("drop-minimum", WIDENING, lambda n: "minimum" in n, lambda n, r: n.pop("minimum")),
    ("drop-maximum", WIDENING, lambda n: "maximum" in n, lambda n, r: n.pop("maximum")),
    ("drop-pattern", WIDENING, lambda n: "pattern" in n, lambda n, r: n.pop("pattern")),
    ("drop-format", WIDENING, lambda n: "format" in n, lambda n, r: n.pop("format")),
    (
        "number-too",
        WIDENING,
        lambda n: _types(n) == ["integer"],
        lambda n, r: n.update(type="number"),
    ),
    (
        "null-too",
        WIDENING,
        lambda n: len(_types(n)) == 1 and "enum" not in n and "const" not in n,
        lambda n, r: n.update(type=[*_types(n), "null"]),
    ),
    (
        "open-object",
        WIDENING,
        lambda n: n.get("additionalProperties") is False,
        lambda n, r: n.pop("additionalProperties"),
    ),
    (
        "drop-open-property",
        WIDENING,
        lambda n: _has_free_property(n) and n.get("additionalProperties") in (None, True),
        _drop_open_property,
    ),
    (
        "add-closed-property",
        WIDENING,
        lambda n: (
            _object(n)
            and n.get("additionalProperties") is False
            and "zz_added" not in n["properties"]
        ),
        _add_closed_property,
    ),
    ("drop-min-items", WIDENING, lambda n: "minItems" in n, lambda n, r: n.pop("minItems")),
    # rewrites
    (
        "reword",
        REWRITE,
        lambda n: isinstance(n.get("description"), str),
        lambda n, r: n.update(description=n["description"] + " (reworded)"),
    ),
    ("retitle", REWRITE, lambda n: True, lambda n, r: n.update(title="Renamed")),
    (
        "reorder-enum",
        REWRITE,
        lambda n: isinstance(n.get("enum"), list) and len(n["enum"]) >= 2,
        lambda n, r: n.update(enum=list(reversed(n["enum"]))),
    ),
    ("to-ref", REWRITE, lambda n: _object(n) and "$defs" not in n, _to_ref),
]


def mutants(schema: dict[str, Any], rng: random.Random, per_schema: int) -> list[Mutant]:
    """Up to ``per_schema`` mutants of ``schema``, each one operator at one node, chosen
    at random among those that apply (operators first, then the node)."""
    sites = list(nodes(schema))
    out: list[Mutant] = []
    operators = list(OPERATORS)
    rng.shuffle(operators)
    for name, kind, applies, change in operators:
        found = [pointer for pointer, node in sites if applies(node)]
        if not found:
            continue
        pointer = rng.choice(found)
        mutated = copy.deepcopy(schema)
        node = dict(nodes(mutated))[pointer]
        change(node, rng)
        if mutated != schema:
            out.append(Mutant(name, kind, pointer, mutated))
        if len(out) >= per_schema:
            break
    return out
