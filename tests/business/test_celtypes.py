"""Types from JSON Schemas: kinds, presence, bounds, $ref, unions, nullable values."""

from __future__ import annotations

from typing import Any

from jsoncontract.business.celtypes import (
    DYN,
    INT,
    STRING,
    Kind,
    join,
    list_of,
    schema_type,
    scope_type,
)


def _type(schema: Any) -> Any:
    return schema_type(schema)


def test_scalars() -> None:
    assert _type({"type": "string"}).kind is Kind.STRING
    assert _type({"type": "integer"}).kind is Kind.INT
    assert _type({"type": "number"}).kind is Kind.NUMBER
    assert _type({"type": "boolean"}).kind is Kind.BOOL
    assert _type({"type": "null"}).kind is Kind.NULL
    assert _type({"type": ["integer", "number"]}).kind is Kind.NUMBER
    assert _type(True).kind is Kind.DYN
    assert _type({}).kind is Kind.DYN
    assert _type({"type": ["string", "integer"]}).kind is Kind.DYN


def test_nullable_forms() -> None:
    for schema in (
        {"type": ["string", "null"]},
        {"type": "string", "nullable": True},
        {"anyOf": [{"type": "string"}, {"type": "null"}]},
        {"oneOf": [{"type": "null"}, {"type": "string"}]},
    ):
        found = _type(schema)
        assert found.kind is Kind.STRING and found.nullable, schema
    assert not _type({"type": "string"}).nullable


def test_string_bounds() -> None:
    assert _type({"type": "string", "maxLength": 12}).max_size == 12
    assert _type({"type": "string", "enum": ["a", "abc"]}).max_size == 3
    assert _type({"type": "string", "pattern": "^ORD-[0-9]{6}$"}).max_size == 10
    assert _type({"type": "string", "pattern": "ORD-[0-9]{6}"}).max_size is None
    assert _type({"type": "string", "pattern": "^a+$"}).max_size is None
    assert _type({"type": "string", "format": "date"}).max_size == 10
    assert _type({"type": "string", "maxLength": 5, "pattern": "^[a-z]{1,9}$"}).max_size == 5
    assert _type({"type": "string"}).max_size is None


def test_arrays() -> None:
    found = _type({"type": "array", "items": {"type": "integer"}, "maxItems": 4})
    assert found.kind is Kind.LIST and found.elem is not None
    assert found.elem.kind is Kind.INT and found.max_size == 4
    assert _type({"type": "array"}).elem is DYN
    pair = _type({"type": "array", "prefixItems": [{"type": "string"}], "items": False})
    assert pair.max_size == 1 and pair.elem is not None and pair.elem.kind is Kind.STRING
    mixed = _type(
        {"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "integer"}}
    )
    assert mixed.elem is not None and mixed.elem.kind is Kind.DYN


def test_objects_closed_open_and_maps() -> None:
    closed = _type(
        {
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
            "required": ["a"],
            "additionalProperties": False,
        }
    )
    assert closed.kind is Kind.OBJECT and closed.closed
    assert closed.fields["a"].required and not closed.fields["b"].required
    assert closed.member("c") is None
    opened = _type({"type": "object", "properties": {"a": {"type": "string"}}})
    assert not opened.closed and opened.member("c") is DYN
    typed_extra = _type(
        {
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "additionalProperties": {"type": "integer"},
        }
    )
    extra = typed_extra.member("zzz")
    assert extra is not None and extra.kind is Kind.INT
    mapping = _type({"type": "object", "additionalProperties": {"type": "string"}})
    assert mapping.kind is Kind.MAP and mapping.elem is not None
    assert mapping.elem.kind is Kind.STRING
    implied = _type({"properties": {"a": {"type": "string"}}, "required": ["a"]})
    assert implied.kind is Kind.OBJECT and implied.fields["a"].required


def test_refs_and_recursion() -> None:
    schema = {
        "type": "object",
        "$defs": {
            "node": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "child": {"$ref": "#/$defs/node"}},
                "required": ["name"],
                "additionalProperties": False,
            }
        },
        "properties": {"root": {"$ref": "#/$defs/node"}},
    }
    root = _type(schema).fields["root"].type
    grandchild = root.fields["child"].type.fields["child"].type
    assert grandchild.kind is Kind.OBJECT and grandchild.fields["name"].required
    assert grandchild.member("nope") is None


def test_all_of_combines() -> None:
    found = _type(
        {
            "allOf": [
                {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                {"properties": {"b": {"type": "integer"}}, "required": ["b"]},
            ]
        }
    )
    assert found.fields["a"].required and found.fields["b"].required


def test_one_of_objects_join() -> None:
    found = _type(
        {
            "type": "object",
            "properties": {"kind": {"type": "string"}},
            "required": ["kind"],
            "oneOf": [
                {
                    "properties": {"card": {"type": "string"}, "kind": {"const": "card"}},
                    "required": ["card"],
                },
                {
                    "properties": {"iban": {"type": "string"}, "kind": {"const": "bank"}},
                    "required": ["iban"],
                },
            ],
            "additionalProperties": False,
        }
    )
    assert found.kind is Kind.OBJECT and found.closed
    assert found.fields["kind"].required
    assert not found.fields["card"].required and not found.fields["iban"].required
    assert found.fields["kind"].type.enum == ("card", "bank")
    assert found.member("other") is None


def test_unions_of_kinds() -> None:
    assert _type({"anyOf": [{"type": "integer"}, {"type": "number"}]}).kind is Kind.NUMBER
    assert _type({"anyOf": [{"type": "integer"}, {"type": "string"}]}).kind is Kind.DYN
    strings = _type({"anyOf": [{"type": "string", "maxLength": 3}, {"type": "string"}]})
    assert strings.kind is Kind.STRING and strings.max_size is None


def test_impossible_schemas_are_dynamic() -> None:
    assert _type({"allOf": [{"type": "string"}, {"type": "integer"}]}).kind is Kind.DYN
    assert _type(False).kind is Kind.DYN


def test_join() -> None:
    assert join(INT, STRING) is DYN
    assert join(list_of(INT), list_of(INT)).kind is Kind.LIST
    assert join(STRING, _type({"type": "null"})).nullable


def test_scope_type() -> None:
    schema = {
        "type": "object",
        "properties": {
            "lines": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"sku": {"type": "string"}},
                    "additionalProperties": False,
                },
            },
            "address": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "additionalProperties": False,
            },
        },
        "additionalProperties": False,
    }
    args = _type(schema)
    assert scope_type(args, ("lines", "*")).type.kind is Kind.OBJECT
    assert scope_type(args, ("lines", "0", "sku")).type.kind is Kind.STRING
    wrong = scope_type(args, ("adress", "city"))
    assert wrong.missing == "adress" and wrong.at == 0 and "address" in wrong.options
    deep = scope_type(args, ("address", "cty"))
    assert deep.missing == "cty" and deep.at == 1
    assert scope_type(args, ("address", "city", "x")).missing == "x"


TEXT = {"type": "string"}


def test_a_field_required_in_one_any_of_branch_is_optional() -> None:
    """Required only where every branch requires it: a rule must test ``has()`` first."""
    found = _type(
        {
            "type": "object",
            "anyOf": [
                {
                    "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
                    "required": ["a"],
                },
                {
                    "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
                    "required": ["b"],
                },
                {"properties": {"a": {"type": "string"}}, "required": ["a"]},
            ],
        }
    )
    assert found.kind is Kind.OBJECT
    assert not found.fields["a"].required and not found.fields["b"].required
    both = _type(
        {
            "type": "object",
            "anyOf": [
                {"properties": {"a": {"type": "string"}}, "required": ["a"]},
                {"properties": {"a": {"type": "string"}}, "required": ["a"]},
            ],
        }
    )
    assert both.fields["a"].required
