"""Compiled schemas: messages a person can act on, hints, relevance, and what is refused."""

from __future__ import annotations

import time
from typing import Any

import pytest

from jsoncontract.errors import SchemaLoadError
from jsoncontract.validation import CompiledSchema, Violation

SHIPMENT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "order_id": {"type": "string", "pattern": "^ORD-[0-9]{6}$"},
        "priority": {"type": "string", "enum": ["standard", "expedited", "overnight"]},
        "limit": {"type": "integer", "minimum": 1, "maximum": 100},
        "start": {"type": "string", "format": "date"},
        "key": {"type": "string", "minLength": 8, "maxLength": 10},
        "tags": {"type": "array", "maxItems": 2, "uniqueItems": True},
        "flag": {"type": "boolean"},
        "api_key": {"type": "string", "pattern": "^sk-"},
        "price": {"type": "number", "multipleOf": 0.01, "exclusiveMinimum": 0},
        "kind": {"const": "shipment"},
        "address": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "country": {"type": "string"}},
            "required": ["city"],
            "additionalProperties": False,
        },
    },
    "required": ["order_id", "priority"],
    "additionalProperties": False,
}


def violations(instance: Any, schema: dict[str, Any] = SHIPMENT, **kw: Any) -> list[Violation]:
    return CompiledSchema(schema).violations(instance, **kw)


def one(instance: Any, schema: dict[str, Any] = SHIPMENT) -> Violation:
    found = violations(instance, schema)
    assert len(found) == 1, found
    return found[0]


BASE = {"order_id": "ORD-123456", "priority": "standard"}


@pytest.mark.parametrize(
    ("change", "keyword", "path", "message", "hint"),
    [
        (
            {"priority": "urgent"},
            "enum",
            "/priority",
            '"urgent" is not one of "standard", "expedited", "overnight"',
            "use one of",
        ),
        (
            {"priority": "expidited"},
            "enum",
            "/priority",
            "is not one of",
            "did you mean 'expedited'?",
        ),
        (
            {"priority": "STANDARD"},
            "enum",
            "/priority",
            "is not one of",
            "did you mean 'standard'?",
        ),
        (
            {"limit": "50"},
            "type",
            "/limit",
            'expected integer, got string "50"',
            "send 50 as a JSON number",
        ),
        ({"flag": "true"}, "type", "/flag", "expected boolean", "send true as a JSON boolean"),
        (
            {"address": '{"city": "x"}'},
            "type",
            "/address",
            "expected object",
            "JSON encoded as a string",
        ),
        ({"flag": None}, "type", "/flag", "got null", "leave the member out"),
        ({"limit": 500}, "maximum", "/limit", "500 is greater than the maximum 100", None),
        ({"limit": 0}, "minimum", "/limit", "0 is less than the minimum 1", None),
        (
            {"start": "2024-13-45"},
            "format",
            "/start",
            '"2024-13-45" is not a valid date',
            "YYYY-MM-DD",
        ),
        ({"order_id": "12345"}, "pattern", "/order_id", "does not match the pattern", "ECMA"),
        (
            {"key": "abc"},
            "minLength",
            "/key",
            "shorter than allowed (3 characters; at least 8)",
            None,
        ),
        ({"key": "abcdefghijkl"}, "maxLength", "/key", "longer than allowed", None),
        ({"tags": [1, 2, 3]}, "maxItems", "/tags", "has 3 items; at most 2 allowed", None),
        ({"tags": [1, 1]}, "uniqueItems", "/tags", "not unique", None),
        ({"price": 0.071}, "multipleOf", "/price", "is not a multiple of 0.01", None),
        (
            {"price": 0},
            "exclusiveMinimum",
            "/price",
            "not greater than the exclusive minimum",
            None,
        ),
        ({"kind": "parcel"}, "const", "/kind", 'must be exactly "shipment"', None),
        (
            {"address": {"city": "x", "zip": "1"}},
            "additionalProperties",
            "/address/zip",
            "property 'zip' is not allowed here",
            "the schema allows only: city, country",
        ),
        (
            {"adress": {}},
            "additionalProperties",
            "/adress",
            "not allowed",
            "did you mean 'address'?",
        ),
    ],
)
def test_each_keyword_explains_itself(
    change: dict[str, Any], keyword: str, path: str, message: str, hint: str | None
) -> None:
    v = one({**BASE, **change})
    assert (v.keyword, v.path) == (keyword, path)
    assert message in v.message
    if hint is None:
        assert v.hint is None
    else:
        assert v.hint is not None and hint in v.hint
    assert v.schema_path.startswith("#/")


def test_required_points_at_the_missing_member() -> None:
    v = one({"order_id": "ORD-123456"})
    assert (v.keyword, v.path, v.schema_path) == ("required", "/priority", "#/required")
    assert v.message == "required property 'priority' is missing"


def test_nested_errors_sort_shallow_and_specific_first() -> None:
    found = violations({"priority": "x", "address": {"country": 1}})
    assert [(v.keyword, v.path) for v in found] == [
        ("required", "/order_id"),
        ("enum", "/priority"),
        ("required", "/address/city"),
        ("type", "/address/country"),
    ]


def test_every_unexpected_property_is_its_own_violation() -> None:
    found = violations({**BASE, "a": 1, "b": 2})
    assert sorted(v.path for v in found) == ["/a", "/b"]


@pytest.mark.parametrize("text", ["50", "-0.5", "1e3", "2.5E-3", " 7 "])
def test_a_number_sent_as_a_string(text: str) -> None:
    hint = one({**BASE, "limit": text}).hint
    assert hint == f"send {text.strip()} as a JSON number, not a string"


@pytest.mark.parametrize("text", ["1_000", "+5", ".5", "5.", "0x10", "\u0665", "NaN", "inf", "05"])
def test_a_string_python_reads_as_a_number_but_json_does_not(text: str) -> None:
    assert one({**BASE, "limit": text}).hint is None


def test_sensitive_values_are_hashed_unless_asked() -> None:
    hidden = one({**BASE, "api_key": "pk-live-123"})
    assert "pk-live-123" not in hidden.message
    assert "<redacted sha256:" in hidden.message
    shown = CompiledSchema(SHIPMENT).violations(
        {**BASE, "api_key": "pk-live-123"}, show_values=True
    )[0]
    assert "pk-live-123" in shown.message


def test_any_of_names_the_alternatives_and_the_closest_failure() -> None:
    schema = {"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 10}]}
    v = one(5, schema)
    assert v.keyword == "anyOf"
    assert "string, integer" in v.message
    assert v.hint is not None and "closest alternative" in v.hint


def test_one_of_matching_twice() -> None:
    v = one(5, {"oneOf": [{"type": "integer"}, {"minimum": 0}]})
    assert v.keyword == "oneOf" and "more than one" in v.message


def test_false_schema() -> None:
    v = one({"x": 1}, {"properties": {"x": False}})
    assert (v.keyword, v.path) == ("false", "/x")


def test_pattern_is_ecma_262_so_digits_are_ascii() -> None:
    schema = {"type": "string", "pattern": "^\\d+$"}
    assert CompiledSchema(schema).is_valid("123")
    assert not CompiledSchema(schema).is_valid("١٢٣")  # Arabic-Indic digits


def test_multiple_of_is_exact_on_decimals() -> None:
    assert CompiledSchema({"multipleOf": 0.01}).is_valid(0.07)


def test_catastrophic_pattern_does_not_hang() -> None:
    compiled = CompiledSchema({"type": "string", "pattern": "^(a+)+$"})
    start = time.perf_counter()
    compiled.violations("a" * 5000 + "!")
    assert time.perf_counter() - start < 2


def test_a_pattern_beyond_the_backtracking_limit_says_so() -> None:
    # a back-reference keeps the regex engine from its linear-time path
    (v,) = CompiledSchema({"pattern": "(a*)*\\1b"}).violations("a" * 40)
    assert (v.keyword, v.schema_path) == ("pattern", "#/pattern")
    assert v.message == "the pattern could not be evaluated within the backtracking limit"
    assert v.hint is not None and v.hint.startswith("simplify the pattern")


def test_formats_are_asserted() -> None:
    compiled = CompiledSchema({"type": "string", "format": "email"})
    assert not compiled.is_valid("not-an-email")
    assert CompiledSchema({"format": "uuid"}).violations("nope")[0].keyword == "format"


def test_declared_draft_is_used() -> None:
    draft7 = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "items": [{"type": "string"}],
        "additionalItems": False,
    }
    compiled = CompiledSchema(draft7)
    assert compiled.is_valid(["a"])
    assert not compiled.is_valid(["a", 1])


def test_draft_3_falls_back_to_python_jsonschema() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-03/schema#",
        "properties": {"a": {"type": "string", "required": True}},
    }
    compiled = CompiledSchema(schema)
    assert compiled.is_valid({"a": "x"})
    found = compiled.violations({})
    assert [v.keyword for v in found] == ["required"]


def test_local_refs_resolve() -> None:
    schema = {
        "$defs": {"n": {"type": "integer", "minimum": 0}},
        "properties": {"a": {"$ref": "#/$defs/n"}},
    }
    v = one({"a": -1}, schema)
    assert (v.keyword, v.path, v.schema_path) == ("minimum", "/a", "#/$defs/n/minimum")


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ({"$schema": "https://example.com/mine", "type": "object"}, "unknown $schema"),
        (
            {"properties": {"a": {"$ref": "https://example.com/a.json"}}},
            "never fetches remote or file references",
        ),
        ({"properties": {"a": {"$ref": "other.json#/x"}}}, "does not resolve inside the schema"),
        ({"properties": {"a": {"$ref": "#/$defs/missing"}}}, "unresolvable $ref"),
        ({"properties": {"a": {"type": "strng"}}}, "not a valid JSON Schema at /properties/a/type"),
        ({"properties": {"a": {"pattern": "(unclosed"}}}, "keyword 'pattern'"),
        ({"$schema": "http://json-schema.org/draft-03/schema#", "type": 5}, "Draft 3"),
    ],
)
def test_bad_schemas_are_refused_at_load(schema: dict[str, Any], message: str) -> None:
    with pytest.raises(SchemaLoadError) as caught:
        CompiledSchema(schema, label="tool 'x' input schema")
    assert message in str(caught.value)
    assert "tool 'x' input schema" in str(caught.value)


def test_remote_ref_is_never_fetched() -> None:
    start = time.perf_counter()
    with pytest.raises(SchemaLoadError):
        CompiledSchema({"$ref": "http://10.255.255.1/schema.json"})
    assert time.perf_counter() - start < 1  # no connection attempt to an unroutable host


def test_deeply_nested_schema_is_refused_cleanly() -> None:
    schema: dict[str, Any] = {}
    node = schema
    for _ in range(2000):
        node["items"] = {}
        node = node["items"]
    with pytest.raises(SchemaLoadError, match="nested too deeply"):
        CompiledSchema(schema)


def _deep(levels: int) -> Any:
    value: Any = []
    for _ in range(levels - 1):
        value = [value]
    return value


@pytest.mark.parametrize("levels", [300, 1000])
def test_values_too_deep_to_explain_are_still_refused(levels: int) -> None:
    compiled = CompiledSchema({"type": "object", "properties": {"a": {"type": "string"}}})
    assert not compiled.is_valid({"a": _deep(levels)})
    (found,) = compiled.violations({"a": _deep(levels)})
    assert (found.keyword, found.path) == ("too_deep", "")
    assert "nested too deeply" in found.message
    # a deep value the schema accepts is fine, and a shallow error is explained as usual
    assert CompiledSchema({"type": "object"}).violations({"a": _deep(levels)}) == []
    assert [v.keyword for v in compiled.violations({"a": _deep(200)})] == ["type"]


def test_draft_3_values_too_deep_to_explain_are_still_refused() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-03/schema#",
        "properties": {"a": {"type": "string"}},
    }
    (found,) = CompiledSchema(schema).violations({"a": _deep(1000)})
    assert found.keyword == "too_deep"


LOGIN = {
    "type": "object",
    "properties": {
        "user": {"type": "string"},
        "password": {"type": "string"},
        "pin": {"type": "integer"},
        "profile": {"type": "array"},
    },
    "anyOf": [{"required": ["otp"]}, {"properties": {"password": {"minLength": 12}}}],
}


@pytest.mark.parametrize(
    "instance",
    [
        {"user": "bob", "password": "hunter2"},  # anyOf at the root quotes the whole object
        {"user": "bob", "otp": 1, "profile": {"email": "bob@example.com"}},  # type of a member
        {"user": "bob", "otp": 1, "pin": "4242"},  # a number sent as a string: the hint
        ["x", {"password": "hunter2"}],  # the root type
    ],
)
def test_values_inside_what_a_message_quotes_are_hashed_unless_asked(instance: Any) -> None:
    compiled = CompiledSchema({**LOGIN, "type": "object"})
    found = compiled.violations(instance)
    assert found
    text = " ".join(f"{v.message} {v.hint}" for v in found)
    for secret in ("hunter2", "bob@example.com", "4242"):
        assert secret not in text
    shown = compiled.violations(instance, show_values=True)
    assert any(
        secret in f"{v.message} {v.hint}"
        for v in shown
        for secret in ("hunter2", "bob@example.com", "4242")
    )


def test_a_whole_number_hint_does_not_quote_a_secret() -> None:
    schema = {"$schema": "http://json-schema.org/draft-04/schema#", **LOGIN}
    (found,) = CompiledSchema(schema).violations({"otp": 1, "pin": 4242.0})
    assert found.hint == "send the value without a fractional part"
    (shown,) = CompiledSchema(schema).violations({"otp": 1, "pin": 4242.0}, show_values=True)
    assert shown.hint == "send 4242 without a fractional part"


def test_the_closest_alternative_does_not_quote_a_secret() -> None:
    schema = {"anyOf": [{"type": "string"}, {"properties": {"password": {"type": "integer"}}}]}
    (found,) = CompiledSchema(schema).violations({"password": "hunter2"})
    assert found.hint is not None and "closest alternative" in found.hint
    assert "hunter2" not in f"{found.message} {found.hint}"


def test_draft_3_messages_do_not_quote_secrets() -> None:
    schema = {"$schema": "http://json-schema.org/draft-03/schema#", "type": "array"}
    (found,) = CompiledSchema(schema).violations({"password": "hunter2"})
    assert "hunter2" not in found.message


#: One failing value per keyword with an explainer: (schema, instance, reported keyword).
EXPLAINED: dict[str, tuple[Any, Any, str]] = {
    "required": ({"required": ["a"]}, {}, "required"),
    "additionalProperties": (
        {"properties": {"b": {}}, "additionalProperties": False},
        {"a": 1},
        "additionalProperties",
    ),
    "minItems": ({"minItems": 2}, [1], "minItems"),
    "maxItems": ({"maxItems": 1}, [1, 2], "maxItems"),
    "minProperties": ({"minProperties": 1}, {}, "minProperties"),
    "maxProperties": ({"maxProperties": 0}, {"a": 1}, "maxProperties"),
    "uniqueItems": ({"uniqueItems": True}, [1, 1], "uniqueItems"),
    "enum": ({"enum": ["a"]}, "b", "enum"),
    "type": ({"type": "string"}, 1, "type"),
    "const": ({"const": "a"}, "b", "const"),
    "format": ({"format": "date"}, "x", "format"),
    "pattern": ({"pattern": "^a$"}, "b", "pattern"),
    "minimum": ({"minimum": 1}, 0, "minimum"),
    "maximum": ({"maximum": 1}, 2, "maximum"),
    "exclusiveMinimum": ({"exclusiveMinimum": 1}, 1, "exclusiveMinimum"),
    "exclusiveMaximum": ({"exclusiveMaximum": 1}, 1, "exclusiveMaximum"),
    "minLength": ({"minLength": 2}, "a", "minLength"),
    "maxLength": ({"maxLength": 1}, "ab", "maxLength"),
    "anyOf": ({"anyOf": [{"type": "string"}, {"type": "null"}]}, 1, "anyOf"),
    "oneOf": ({"oneOf": [{"type": "integer"}, {"minimum": 0}]}, 1, "oneOf"),
    "falseSchema": ({"properties": {"a": False}}, {"a": 1}, "false"),
    "multipleOf": ({"multipleOf": 2}, 3, "multipleOf"),
}


def test_every_explainer_in_the_table_has_a_case() -> None:
    from jsoncontract.validation import _EXPLAINERS

    assert set(EXPLAINED) == set(_EXPLAINERS)


@pytest.mark.parametrize("keyword", sorted(EXPLAINED))
def test_the_explainer_of_each_keyword(keyword: str) -> None:
    schema, instance, reported = EXPLAINED[keyword]
    (v,) = CompiledSchema(schema).violations(instance)
    assert v.keyword == reported
    assert v.message and "\n" not in v.message


@pytest.mark.parametrize(
    ("schema", "instance", "keyword", "message"),
    [
        ({"not": {"type": "string"}}, "x", "not", '{"type":"string"} is not allowed for "x"'),
        ({"contains": {"const": 1}}, [2], "contains", "None of [2] are valid"),
        (
            {"properties": {"password": {"not": {"const": "hunter2"}}}},
            {"password": "hunter2"},
            "not",
            "the value <redacted sha256:",
        ),
    ],
)
def test_other_keywords_keep_the_engine_message_unless_it_quotes_a_secret(
    schema: Any, instance: Any, keyword: str, message: str
) -> None:
    (v,) = CompiledSchema(schema).violations(instance)
    assert v.keyword == keyword
    assert v.message.startswith(message)
    assert "hunter2" not in v.message


# -- explanations remembered: the same violations as explained afresh ------------------------

REMEMBERED: list[Any] = [
    {**BASE, "priority": "urgent"},
    {**BASE, "priority": "STANDARD"},
    {**BASE, "limit": "50"},
    {**BASE, "limit": 50.0, "flag": 1},
    {**BASE, "flag": True, "limit": 0},
    {**BASE, "flag": 1, "limit": True},
    {**BASE, "price": 0.0},
    {**BASE, "price": -0.0},
    {**BASE, "price": 0},
    {**BASE, "kind": True, "flag": 1.0},
    {**BASE, "kind": 1, "flag": 1},
    {**BASE, "key": "abc"},
    {**BASE, "key": "x" * 300},
    {**BASE, "key": "y" * 300},
    {**BASE, "start": "2024-13-45", "kind": "parcel"},
    {**BASE, "api_key": "sk-live-abcdefghijklmnopqrstuvwx", "limit": "ghp_" + "a" * 36},
    {**BASE, "password": "hunter2", "adress": {}},
    {**BASE, "sk-abcdefghijklmnopqrstuvwx": 1},
    {**BASE, "address": {"zip": "1", "city": 2}},
    {**BASE, "tags": [1, 1, 2]},
    # objects and arrays where a scalar belongs: remembered by their JSON text
    {**BASE, "priority": ["standard"], "limit": {"value": 5}},
    {**BASE, "priority": ["standard"], "limit": {"value": 5.0}},
    {**BASE, "limit": {"value": 5, "unit": "kg"}, "kind": ["shipment"]},
    {**BASE, "limit": {"unit": "kg", "value": 5}, "kind": {"shipment": True}},
    {**BASE, "flag": [True], "key": {"token": "sk-abcdefghijklmnopqrstuvwx"}},
    {**BASE, "flag": [1], "key": {"password": "hunter2"}},
    {**BASE, "flag": ["x" * 300]},
    {**BASE, "flag": [2**70]},
    {"order_id": "ORD-123456"},
    {},
    {**BASE, **{f"extra{i}": i for i in range(120)}},
    {**BASE, "address": {f"extra{i}": i for i in range(120)}, "priority": "x"},
]


@pytest.mark.parametrize("show_values", [False, True])
def test_remembered_explanations_are_those_explained_afresh(show_values: bool) -> None:
    schema = CompiledSchema(SHIPMENT)
    for _ in range(2):  # the second round reads what the first remembered
        for instance in [*REMEMBERED, *reversed(REMEMBERED)]:
            fresh = CompiledSchema(SHIPMENT).violations(instance, show_values=show_values)
            assert schema.violations(instance, show_values=show_values) == fresh


def test_a_value_hidden_after_an_explanation_is_masked_in_the_next(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from jsoncontract import masking

    monkeypatch.setattr(masking, "_HIDDEN", {})
    schema = CompiledSchema(SHIPMENT)
    instance = {**BASE, "priority": "q1w2e3-secret-path"}
    assert "q1w2e3-secret-path" in schema.violations(instance)[0].message
    masking.hide("q1w2e3-secret-path")
    assert "q1w2e3-secret-path" not in schema.violations(instance)[0].message


def test_a_place_is_read_once_for_every_value_explained_there() -> None:
    """Values explained afresh at one place (another value, another undeclared member)
    share what the explanation reads of the place: its pointers and the names allowed."""
    schema = CompiledSchema(SHIPMENT)
    for value in (2, 3.5, None, True, [1]):
        instance = {**BASE, "address": {"city": value, f"cty{value}": 1}}
        found = schema.violations(instance)
        assert found == CompiledSchema(SHIPMENT).violations(instance)
        assert [v.keyword for v in found] == ["additionalProperties", "type"]
        assert "the schema allows only: city, country" in (found[0].hint or "")
    assert len(schema._places) == 2  # the city's type, and the address's members


def test_a_member_name_holding_a_secret_is_masked_in_a_violation_explained_afresh() -> None:
    key = "sk-abcdefghijklmnopqrstuvwx"
    schema = CompiledSchema(SHIPMENT)
    for extra in (1, 2):
        found = schema.violations({**BASE, "address": {"city": "Oslo", key: extra}})
        assert key not in found[0].path + found[0].message
        assert found[0].path.startswith("/address/<redacted openai-api-key sha256:")
