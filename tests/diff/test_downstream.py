"""Downstream contracts: a JSON Schema file, or a request body inside an OpenAPI document."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jsoncontract.diff.downstream import DownstreamSchemas, load_downstream_schema, parse_ref
from jsoncontract.errors import InputError, SchemaLoadError, UsageError

Write = Callable[[str, object], Path]
OPERATION = "#/paths/~1invoices~1search/post"


def test_the_bundled_openapi_operation_gives_its_request_body_schema(repo: Path) -> None:
    ref = str(repo / "fixtures" / "diff" / "billing-openapi.json") + OPERATION
    schema, compiled = load_downstream_schema(ref)
    assert schema["required"] == ["startDate", "endDate"]
    assert "components" in schema  # carried along: $ref resolves
    assert compiled.is_valid({"startDate": "2025-10-01", "endDate": "2025-10-31", "limit": 5})
    assert not compiled.is_valid({"startDate": "2025-10-01", "endDate": "2025-10-31", "limit": "5"})
    # OpenAPI 3.0 nullable: true became a null in the type (through a $ref)
    assert compiled.is_valid({"startDate": "2025-10-01", "endDate": "2025-10-31", "status": None})
    assert not compiled.is_valid({"startDate": "2025-10-01", "endDate": "x", "status": "late"})


@pytest.mark.parametrize(
    "pointer",
    [
        OPERATION,
        OPERATION + "/requestBody",
        OPERATION + "/requestBody/content/application~1json/schema",
        "#/components/schemas/InvoiceSearch",
    ],
)
def test_any_pointer_down_to_the_schema_works(repo: Path, pointer: str) -> None:
    schema, _ = load_downstream_schema(str(repo / "fixtures/diff/billing-openapi.json") + pointer)
    assert schema["required"] == ["startDate", "endDate"]


def test_a_plain_json_schema_file(write: Write) -> None:
    path = write("body.json", {"type": "object", "required": ["a"]})
    _, compiled = load_downstream_schema(str(path))
    assert compiled.is_valid({"a": 1}) and not compiled.is_valid({})


def test_a_definition_inside_a_schema_bundle(write: Write) -> None:
    bundle = {
        "$defs": {
            "Body": {"type": "object", "properties": {"n": {"$ref": "#/$defs/N"}}},
            "N": {"type": "integer"},
        }
    }
    path = write("bundle.json", bundle)
    _, compiled = load_downstream_schema(f"{path}#/$defs/Body")
    assert compiled.is_valid({"n": 1}) and not compiled.is_valid({"n": "1"})


def test_swagger_2_body_parameter(write: Write) -> None:
    document = {
        "swagger": "2.0",
        "paths": {
            "/x": {
                "post": {
                    "parameters": [
                        {"in": "query", "name": "q", "type": "string"},
                        {"in": "body", "name": "b", "schema": {"$ref": "#/definitions/B"}},
                    ]
                }
            }
        },
        "definitions": {
            "B": {
                "type": "object",
                "properties": {"n": {"type": "integer", "minimum": 0, "exclusiveMinimum": True}},
            }
        },
    }
    path = write("swagger.json", document)
    _, compiled = load_downstream_schema(f"{path}#/paths/~1x/post")
    assert compiled.is_valid({"n": 1}) and not compiled.is_valid({"n": 0})


@pytest.mark.parametrize(
    ("document", "fragment", "message"),
    [
        (
            {"openapi": "3.1.0", "paths": {"/a": {"post": {"requestBody": {}}}}},
            "",
            "name the operation",
        ),
        ({"openapi": "3.1.0", "paths": {}}, "#/paths/~1nope/post", "nothing at"),
        (
            {
                "openapi": "3.1.0",
                "paths": {"/a": {"post": {"requestBody": {"content": {"text/plain": {}}}}}},
            },
            "#/paths/~1a/post",
            "no JSON request body",
        ),
        ({"type": "object"}, "#/nope", "nothing at #/nope"),
        ({"properties": {"a": 5}}, "#/properties/a", "not a schema"),
        ([1, 2], "", "must be a JSON object"),
    ],
)
def test_bad_references_say_what_is_wrong(
    write: Write, document: Any, fragment: str, message: str
) -> None:
    path = write("api.json", document)
    with pytest.raises(SchemaLoadError) as info:
        load_downstream_schema(f"{path}{fragment}")
    assert message in str(info.value)


def test_yaml_is_read_and_missing_files_are_refused(write: Write) -> None:
    api = write(
        "api.yaml",
        "openapi: 3.1.0\npaths:\n  /a:\n    post:\n      requestBody:\n"
        "        content:\n          application/json:\n            schema:\n"
        "              type: object\n              required: [id]\n",
    )
    schema, compiled = load_downstream_schema(f"{api}#/paths/~1a/post")
    assert schema["required"] == ["id"] and not compiled.is_valid({})
    with pytest.raises(SchemaLoadError, match="this is an OpenAPI document: name the operation"):
        load_downstream_schema(str(api))
    with pytest.raises(InputError, match=r"no such file|cannot read"):
        load_downstream_schema("missing.json")
    with pytest.raises(UsageError):
        load_downstream_schema("#/paths")


def test_refs_name_a_tool_or_every_tool(write: Write) -> None:
    assert parse_ref("searchInvoices=api.json#/paths/~1a/post") == (
        "searchInvoices",
        "api.json#/paths/~1a/post",
    )
    assert parse_ref("api.json#/paths/~1a=b/post") == (None, "api.json#/paths/~1a=b/post")
    assert parse_ref("dir/x=y.json") == (None, "dir/x=y.json")
    path = write("s.json", {"type": "object"})
    schemas = DownstreamSchemas([("a", str(path)), (None, str(path))])
    assert schemas.get("a") is not None and schemas.get("zzz") is not None
    assert schemas.raw("a") == {"type": "object"}
