"""Mapping files: loading and checking them, and how declared transforms explain differences."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jsoncontract.diff.compare import CompareOptions, Comparer
from jsoncontract.diff.explain import explain, undeclared_moves
from jsoncontract.diff.mapping import Conversion, ConversionError, Transform, load_mappings
from jsoncontract.errors import ConfigError
from jsoncontract.model import Hop

Write = Callable[[str, object], Path]


def mapping_file(write: Write, *transforms: dict[str, Any], **extra: Any) -> Path:
    body = {"tool": "searchInvoices", "from": "mcp", "to": "downstream"}
    body.update(extra)
    body["transforms"] = list(transforms)
    return write("mapping.json", {"version": 1, "mappings": [body]})


def run(
    write: Write, source: Any, target: Any, *transforms: dict[str, Any]
) -> tuple[list[tuple[str, str | None, str | None, bool]], list[str]]:
    mappings = load_mappings([mapping_file(write, *transforms)])
    comparer = Comparer(CompareOptions())
    entries = comparer.compare(source, target)
    outcome = explain(
        entries,
        source,
        target,
        mappings.transforms("searchInvoices", Hop.MCP, Hop.DOWNSTREAM),
        comparer,
        a_hop=Hop.MCP,
        b_hop=Hop.DOWNSTREAM,
        used=mappings.used,
    )
    undeclared_moves(outcome.entries, source, target)
    got = [
        (e.code.value if e.code else "=", e.a_path, e.b_path, e.expected) for e in outcome.entries
    ]
    return got, [f.code for f in outcome.findings]


# -- loading ---------------------------------------------------------------------------------


def test_the_bundled_mapping_loads(repo: Path) -> None:
    mappings = load_mappings([repo / "fixtures" / "diff" / "mapping.json"])
    transforms = mappings.transforms("searchInvoices", Hop.MCP, Hop.DOWNSTREAM)
    assert [t.describe() for t in transforms] == [
        "rename /startDate → /dateFrom",
        "rename /endDate → /dateTo",
    ]
    assert transforms[0].origin.endswith("mapping.json#/mappings/0/transforms/0")
    assert mappings.transforms("other", Hop.MCP, Hop.DOWNSTREAM) == []
    # a model → downstream comparison (no MCP hop captured) uses the mcp → downstream ones
    assert len(mappings.transforms("searchInvoices", Hop.MODEL, Hop.DOWNSTREAM)) == 2
    assert mappings.transforms("searchInvoices", Hop.MODEL, Hop.MCP) == []


@pytest.mark.parametrize(
    ("document", "message", "line"),
    [
        ({"mappings": [{"tool": "t", "transforms": [{"op": "rename", "path": "/a"}]}]}, "to", 1),
        (
            {"mappings": [{"tool": "t", "transforms": [{"op": "shift", "path": "/a"}]}]},
            "/mappings/0/transforms/0/op",
            None,
        ),
        ({"mappings": [{"tool": "t", "extra": 1}]}, "unknown member 'extra'", None),
        (
            {"mappings": [{"tool": "t", "transforms": [{"op": "drop", "path": "/a", "to": "/b"}]}]},
            "'to' does not belong in this op",
            None,
        ),
        (
            {
                "mappings": [
                    {"tool": "t", "transforms": [{"op": "rename", "path": "/a/b", "to": "/c"}]}
                ]
            },
            'use "op": "move"',
            None,
        ),
        (
            {
                "mappings": [
                    {"tool": "t", "transforms": [{"op": "move", "path": "/a/*", "to": "/c"}]}
                ]
            },
            "each * in 'to' stands for",
            None,
        ),
        (
            {"mappings": [{"tool": "t", "from": "downstream", "to": "mcp"}]},
            "must come before",
            None,
        ),
        (
            {
                "mappings": [
                    {
                        "tool": "t",
                        "transforms": [
                            {
                                "op": "convert",
                                "path": "/d",
                                "convert": {"type": "date", "to": "DD/MM"},
                            }
                        ],
                    }
                ]
            },
            "not a date format",
            None,
        ),
        (
            {
                "mappings": [
                    {
                        "tool": "t",
                        "transforms": [{"op": "convert", "path": "/d", "convert": "uuid"}],
                    }
                ]
            },
            "not a conversion",
            None,
        ),
        ({"mappings": [{"tool": "t", "transforms": [{"op": "drop", "path": "a"}]}]}, "/path", None),
    ],
)
def test_a_broken_mapping_is_refused_with_its_place(
    write: Write, document: dict[str, Any], message: str, line: int | None
) -> None:
    path = write("bad.json", document)
    with pytest.raises(ConfigError) as info:
        load_mappings([path])
    assert message in str(info.value)
    assert info.value.file == str(path)
    assert info.value.line is not None


def test_a_path_the_schema_cannot_hold_is_a_warning_with_the_closest_name(write: Write) -> None:
    schema = {
        "type": "object",
        "properties": {"startDate": {"type": "string"}, "status": {"type": "string"}},
        "additionalProperties": False,
    }
    path = mapping_file(
        write,
        {"op": "rename", "path": "/startDat", "to": "/dateFrom"},
        {"op": "drop", "path": "/status"},
    )
    mappings = load_mappings([path], schema_of=lambda tool, hop: schema if hop is Hop.MCP else None)
    assert [w.code for w in mappings.warnings] == ["diff.mapping_unknown_path"]
    warning = mappings.warnings[0]
    assert warning.hint == "did you mean 'startDate'?"
    assert warning.source is not None and warning.source.line is not None


def test_open_schemas_and_refs_are_followed_when_checking_paths(write: Write) -> None:
    schema = {
        "type": "object",
        "properties": {"filter": {"$ref": "#/$defs/f"}},
        "$defs": {"f": {"type": "object", "properties": {"a": {}}, "additionalProperties": False}},
    }
    path = mapping_file(
        write, {"op": "drop", "path": "/filter/a"}, {"op": "drop", "path": "/filter/b"}
    )
    mappings = load_mappings([path], schema_of=lambda tool, hop: schema)
    assert [w.path for w in mappings.warnings] == ["/filter/b"]


def test_unused_transforms_are_named(write: Write) -> None:
    mappings = load_mappings([mapping_file(write, {"op": "drop", "path": "/x"})])
    assert [f.code for f in mappings.unused()] == ["diff.mapping_unused"]


# -- transforms ------------------------------------------------------------------------------


def test_declared_rename_is_expected(write: Write) -> None:
    got, findings = run(
        write,
        {"startDate": "2025-10-01", "status": "open"},
        {"dateFrom": "2025-10-01"},
        {"op": "rename", "path": "/startDate", "to": "/dateFrom"},
    )
    assert got == [
        ("renamed", "/startDate", "/dateFrom", True),
        ("dropped", "/status", None, False),
    ]
    assert findings == []


def test_rename_that_did_not_happen_is_a_finding(write: Write) -> None:
    got, findings = run(
        write,
        {"startDate": "2025-10-01"},
        {"startDate": "2025-10-01"},
        {"op": "rename", "path": "/startDate", "to": "/dateFrom"},
    )
    assert got == []
    assert findings == ["diff.mapping_not_applied"]


def test_rename_with_a_date_conversion(write: Write) -> None:
    transform = {
        "op": "rename",
        "path": "/startDate",
        "to": "/from",
        "convert": {"type": "date", "from": "%Y-%m-%d", "to": "%d.%m.%Y"},
    }
    got, _ = run(write, {"startDate": "2025-10-01"}, {"from": "01.10.2025"}, transform)
    assert got == [("renamed", "/startDate", "/from", True)]
    # the same rename, but the adapter wrote the wrong date
    got, _ = run(write, {"startDate": "2025-10-01"}, {"from": "10.01.2025"}, transform)
    assert got == [
        ("renamed", "/startDate", "/from", True),
        ("value-changed", "/startDate", "/from", False),
    ]


def test_move_into_a_new_object_keeps_its_siblings_added(write: Write) -> None:
    got, _ = run(
        write,
        {"customerId": "C1", "limit": 5},
        {"customer": {"id": "C1", "tier": "gold"}, "limit": 5},
        {"op": "move", "path": "/customerId", "to": "/customer/id"},
    )
    assert got == [
        ("moved", "/customerId", "/customer/id", True),
        ("added", None, "/customer/tier", False),
    ]


def test_declared_drop(write: Write) -> None:
    got, findings = run(write, {"a": 1, "debug": True}, {"a": 1}, {"op": "drop", "path": "/debug"})
    assert got == [("dropped", "/debug", None, True)]
    got, findings = run(
        write, {"a": 1, "debug": True}, {"a": 1, "debug": True}, {"op": "drop", "path": "/debug"}
    )
    assert findings == ["diff.mapping_not_applied"]


def test_declared_default(write: Write) -> None:
    transform = {"op": "default", "path": "/limit", "value": 20}
    got, findings = run(write, {"a": 1}, {"a": 1, "limit": 20}, transform)
    assert got == [("added", None, "/limit", True)] and findings == []
    got, findings = run(write, {"a": 1}, {"a": 1, "limit": 50}, transform)
    assert got == [("added", None, "/limit", False)]
    got, findings = run(write, {"a": 1}, {"a": 1}, transform)
    assert findings == ["diff.mapping_not_applied"]
    got, findings = run(write, {"a": 1, "limit": 5}, {"a": 1, "limit": 5}, transform)
    assert got == [] and findings == []  # the source had it: nothing to default


@pytest.mark.parametrize(
    ("convert", "before", "after", "code"),
    [
        ("string", 50, "50", "coerced"),
        ("integer", "50", 50, "coerced"),
        ("number", "2.5", 2.5, "coerced"),
        ("boolean", "true", True, "coerced"),
        ("json-text", {"a": 1}, '{"a":1}', "re-encoded"),
        ("json-value", '{"a":1}', {"a": 1}, "re-encoded"),
        ("upper", "open", "OPEN", "value-changed"),
        ({"type": "map", "values": {"open": "O"}}, "open", "O", "value-changed"),
        ({"type": "scale", "factor": 100}, 12.5, 1250, "value-changed"),
        ({"type": "date", "to": "epoch"}, "2025-10-01T00:00:00+00:00", 1759276800, "value-changed"),
        (
            {"type": "date", "from": "epoch-ms", "to": "%Y-%m-%d"},
            1759276800000,
            "2025-10-01",
            "value-changed",
        ),
    ],
)
def test_declared_conversions(
    write: Write, convert: Any, before: Any, after: Any, code: str
) -> None:
    got, findings = run(
        write, {"v": before}, {"v": after}, {"op": "convert", "path": "/v", "convert": convert}
    )
    assert got == [(code, "/v", "/v", True)]
    assert findings == []


def test_conversion_that_does_not_fit_is_a_finding(write: Write) -> None:
    transform = {"op": "convert", "path": "/d", "convert": {"type": "date", "to": "%d.%m.%Y"}}
    got, findings = run(write, {"d": "yesterday"}, {"d": "01.10.2025"}, transform)
    assert findings == ["diff.convert_failed"]
    assert got == [("value-changed", "/d", "/d", False)]


def test_conversion_the_adapter_skipped_is_a_finding(write: Write) -> None:
    _, findings = run(
        write,
        {"limit": 50},
        {"limit": 50},
        {"op": "convert", "path": "/limit", "convert": "string"},
    )
    assert findings == ["diff.mapping_not_applied"]


def test_wildcards_rename_inside_every_array_item(write: Write) -> None:
    got, _ = run(
        write,
        {"lines": [{"price": 1}, {"price": 2}]},
        {"lines": [{"amount": 1}, {"amount": 2}]},
        {"op": "rename", "path": "/lines/*/price", "to": "/lines/*/amount"},
    )
    assert got == [
        ("renamed", "/lines/0/price", "/lines/0/amount", True),
        ("renamed", "/lines/1/price", "/lines/1/amount", True),
    ]


def test_undeclared_rename_and_move_are_unexpected(write: Write) -> None:
    got, _ = run(
        write,
        {"startDate": "2025-10-01", "customerId": "C00417", "flag": True},
        {"dateFrom": "2025-10-01", "customer": {"id": "C00417"}, "other": True},
    )
    assert ("renamed", "/startDate", "/dateFrom", False) in got
    # a whole object was added, so the member cannot pair with it; booleans need alike names
    assert ("dropped", "/flag", None, False) in got


@pytest.mark.parametrize(
    ("before", "after", "renamed"),
    [
        ("is_active", "active", True),  # names 80% alike
        ("archived", "deleted", False),  # names 27% alike: two unrelated flags
        ("enabled", "is_enabled", True),
        ("deleted", "hidden", False),
        # the cut-off: names at least 60% alike (difflib's ratio) pair up
        ("is_public", "public_flag", True),  # 60%
        ("public_flag", "delete_flag", False),  # 55%
    ],
)
def test_a_flag_pairs_up_only_when_its_names_look_alike(
    write: Write, before: str, after: str, renamed: bool
) -> None:
    got, _ = run(write, {before: True, "id": 1}, {after: True, "id": 1})
    if renamed:
        assert got == [("renamed", f"/{before}", f"/{after}", False)]
    else:
        assert got == [("dropped", f"/{before}", None, False), ("added", None, f"/{after}", False)]


def test_undeclared_move_between_objects(write: Write) -> None:
    got, _ = run(write, {"a": {"x": "v1"}, "b": {}}, {"a": {}, "b": {"x": "v1"}})
    assert got == [("moved", "/a/x", "/b/x", False)]


def test_conversion_errors() -> None:
    with pytest.raises(ConversionError):
        Conversion("integer").apply("2.5")
    with pytest.raises(ConversionError):
        Conversion("string").apply({"a": 1})
    with pytest.raises(ConversionError):
        Conversion("scale", {"factor": 2}).apply("x")
    with pytest.raises(ConversionError):
        Conversion("map", {"values": {"a": "b"}}).apply("z")
    assert Conversion("map", {"values": {"1": "one"}}).apply(1) == "one"
    assert Transform("default", "/limit", value=20).describe() == "default /limit = 20"


@pytest.mark.parametrize(
    ("conversion", "value"),
    [
        (Conversion("date", {"from": "epoch", "to": "iso"}), 1e30),
        (Conversion("date", {"from": "epoch-ms", "to": "%Y"}), -1e300),
    ],
)
def test_values_out_of_range_are_conversion_errors(conversion: Conversion, value: Any) -> None:
    # a timestamp beyond the calendar is the payload's problem, never a crash of the run
    with pytest.raises(ConversionError, match="cannot be converted"):
        conversion.apply(value)


def test_integers_beyond_64_bits_convert_exactly() -> None:
    big = 123456789012345678901234567890
    assert Conversion("string").apply(big) == str(big)
    assert Conversion("json-text").apply([big]) == f"[{big}]"
    assert Conversion("map", {"values": {str(big): "huge"}}).apply(big) == "huge"


def test_a_huge_integer_in_a_broken_mapping_is_quoted(write: Write) -> None:
    path = write(
        "bad.json",
        '{"version": 1, "mappings": [{"tool": "t", "from": 123456789012345678901234567890}]}',
    )
    with pytest.raises(ConfigError, match="123456789012345678901234567890 is not one of"):
        load_mappings([path])


def test_a_mapping_file_with_invalid_utf8_is_refused(tmp_path: Path) -> None:
    # found by the property tests: the format check could not encode the undecodable byte
    from jsoncontract.diff.mapping import load_mappings
    from jsoncontract.errors import InputError

    path = tmp_path / "mapping.json"
    path.write_bytes(
        b'{"version": 1, "mappings": [{"tool": "s", "from": "mcp", "to": "\x80x", '
        b'"transforms": []}]}'
    )
    with pytest.raises(InputError, match="not valid UTF-8"):
        load_mappings([path])
