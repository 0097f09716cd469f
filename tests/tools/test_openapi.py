"""Gemini's OpenAPI ``Schema`` subset, translated to JSON Schema, and what the result accepts."""

from __future__ import annotations

from typing import Any

import pytest

from jsoncontract.tools.openapi import openapi_to_json_schema
from jsoncontract.validation import CompiledSchema


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("STRING", "string"),
        ("NUMBER", "number"),
        ("INTEGER", "integer"),
        ("BOOLEAN", "boolean"),
        ("ARRAY", "array"),
        ("OBJECT", "object"),
        ("NULL", "null"),
        ("string", "string"),
        ("Object", "object"),
    ],
)
def test_type_names_are_lower_cased(given: str, expected: str) -> None:
    assert openapi_to_json_schema({"type": given}) == {"type": expected}


def test_type_unspecified_means_any_type() -> None:
    assert openapi_to_json_schema({"type": "TYPE_UNSPECIFIED", "description": "x"}) == {
        "description": "x"
    }


def test_nullable_becomes_a_type_union_and_allows_null_in_enum() -> None:
    assert openapi_to_json_schema({"type": "STRING", "nullable": True}) == {
        "type": ["string", "null"]
    }
    assert openapi_to_json_schema({"type": "STRING", "enum": ["a", "b"], "nullable": True}) == {
        "type": ["string", "null"],
        "enum": ["a", "b", None],
    }
    # null already listed: not added twice
    assert openapi_to_json_schema({"type": "STRING", "enum": ["a", None], "nullable": True}) == {
        "type": ["string", "null"],
        "enum": ["a", None],
    }


def test_nullable_union_gains_a_null_branch() -> None:
    node = {"anyOf": [{"type": "STRING"}, {"type": "INTEGER"}], "nullable": True}
    assert openapi_to_json_schema(node) == {
        "anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]
    }
    schema = CompiledSchema(openapi_to_json_schema(node))
    assert schema.is_valid(None)
    assert schema.is_valid(3)
    assert not schema.is_valid(1.5)


def test_nullable_false_is_dropped_and_changes_nothing() -> None:
    assert openapi_to_json_schema({"type": "INTEGER", "nullable": False}) == {"type": "integer"}


def test_property_ordering_is_dropped() -> None:
    node = {"type": "OBJECT", "properties": {"a": {}, "b": {}}, "propertyOrdering": ["b", "a"]}
    assert openapi_to_json_schema(node) == {"type": "object", "properties": {"a": {}, "b": {}}}


@pytest.mark.parametrize(
    "keyword", ["minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"]
)
def test_int64_counts_written_as_strings_become_integers(keyword: str) -> None:
    assert openapi_to_json_schema({keyword: "12"}) == {keyword: 12}


def test_non_numeric_count_strings_are_left_for_the_schema_check_to_refuse() -> None:
    assert openapi_to_json_schema({"maxLength": "ten"}) == {"maxLength": "ten"}
    assert openapi_to_json_schema({"maxLength": "-1"}) == {"maxLength": "-1"}
    # minimum is a number, not an int64 count: never converted
    assert openapi_to_json_schema({"minimum": "1"}) == {"minimum": "1"}


def test_example_becomes_examples() -> None:
    assert openapi_to_json_schema({"type": "STRING", "example": "Porto"}) == {
        "type": "string",
        "examples": ["Porto"],
    }
    assert openapi_to_json_schema({"example": {"a": 1}}) == {"examples": [{"a": 1}]}


def test_defs_and_ref() -> None:
    node = {
        "type": "OBJECT",
        "properties": {"home": {"ref": "#/defs/Address"}, "other": {"ref": "#/$defs/Address"}},
        "defs": {"Address": {"type": "OBJECT", "properties": {"city": {"type": "STRING"}}}},
    }
    assert openapi_to_json_schema(node) == {
        "type": "object",
        "properties": {"home": {"$ref": "#/$defs/Address"}, "other": {"$ref": "#/$defs/Address"}},
        "$defs": {"Address": {"type": "object", "properties": {"city": {"type": "string"}}}},
    }


def test_translation_reaches_every_nested_schema() -> None:
    node = {
        "type": "OBJECT",
        "properties": {
            "tags": {"type": "ARRAY", "items": {"type": "STRING", "nullable": True}},
            "meta": {"type": "OBJECT", "additionalProperties": {"type": "INTEGER"}},
            "either": {"anyOf": [{"type": "STRING"}, {"type": "NUMBER", "example": 1}]},
        },
    }
    assert openapi_to_json_schema(node) == {
        "type": "object",
        "properties": {
            "tags": {"type": "array", "items": {"type": ["string", "null"]}},
            "meta": {"type": "object", "additionalProperties": {"type": "integer"}},
            "either": {"anyOf": [{"type": "string"}, {"type": "number", "examples": [1]}]},
        },
    }


def test_other_keywords_pass_through_unchanged() -> None:
    node = {
        "type": "STRING",
        "format": "date-time",
        "description": "When.",
        "title": "At",
        "pattern": "^2",
        "default": "2025-01-01T00:00:00Z",
        "additionalProperties": False,
        "required": ["x"],
    }
    out = openapi_to_json_schema(node)
    assert out == dict(node, type="string")


def test_the_input_is_not_modified() -> None:
    node: dict[str, Any] = {"type": "OBJECT", "properties": {"a": {"type": "STRING"}}}
    openapi_to_json_schema(node)
    assert node == {"type": "OBJECT", "properties": {"a": {"type": "STRING"}}}


def test_non_objects_are_returned_as_they_are() -> None:
    assert openapi_to_json_schema(True) is True
    assert openapi_to_json_schema(None) is None
    assert openapi_to_json_schema(["STRING"]) == ["STRING"]


def test_very_deep_schemas_stop_translating_instead_of_recursing_forever() -> None:
    node: dict[str, Any] = {"type": "STRING"}
    for _ in range(5000):
        node = {"type": "ARRAY", "items": node}
    out = openapi_to_json_schema(node)
    assert out["type"] == "array"
    depth = 0
    inner = out
    while isinstance(inner, dict) and "items" in inner and inner["type"] == "array":
        inner = inner["items"]
        depth += 1
    assert depth == 201  # translated down to the limit, the rest left as written
    assert inner["type"] == "ARRAY"


def test_translated_schema_validates_like_the_gemini_contract() -> None:
    schema = CompiledSchema(
        openapi_to_json_schema(
            {
                "type": "OBJECT",
                "properties": {
                    "city": {"type": "STRING", "minLength": "1"},
                    "unit": {"type": "STRING", "enum": ["celsius", "fahrenheit"], "nullable": True},
                    "days": {"type": "INTEGER", "format": "int32", "minimum": 1},
                    "tags": {"type": "ARRAY", "items": {"type": "STRING"}, "maxItems": "2"},
                },
                "required": ["city"],
                "propertyOrdering": ["city", "unit", "days", "tags"],
            }
        )
    )
    assert schema.is_valid({"city": "Porto"})
    assert schema.is_valid({"city": "Porto", "unit": None, "days": 3, "tags": ["a"]})
    assert not schema.is_valid({"city": ""})  # minLength "1" counts
    assert not schema.is_valid({"city": "Porto", "unit": "kelvin"})
    assert not schema.is_valid({"city": "Porto", "days": "3"})
    assert not schema.is_valid({"city": "Porto", "tags": ["a", "b", "c"]})  # maxItems "2"
    assert not schema.is_valid({"unit": "celsius"})
