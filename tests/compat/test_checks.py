"""Every check of ``compat``: its example gives its code, the generated page says what the
checks do, and the walk's harder cases ($ref, not, oneOf, drafts) are classed soundly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from jsoncontract import codes
from jsoncontract.compat.checks import CHECKS, Check, classes, example_changes, main, page
from jsoncontract.compat.model import CompatClass, Direction, Effect, class_of
from jsoncontract.compat.schema import SchemaWalk, aggregate

REPO = Path(__file__).resolve().parents[2]


def test_the_generated_page_is_current() -> None:
    path = REPO / "docs" / "compat.md"
    assert path.read_text(encoding="utf-8") == page(), (
        "docs/compat.md is stale: python -m jsoncontract.compat.checks docs/compat.md"
    )
    assert main([str(path), "--check"]) == 0


def test_every_code_of_the_family_has_one_check() -> None:
    declared = [c.code for c in codes.CATALOG.of(codes.COMPAT)]
    assert sorted(c.code for c in CHECKS) == sorted(declared)


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.code)
def test_each_example_gives_its_own_code(check: Check) -> None:
    found = {c.code for c in example_changes(check)}
    assert check.code in found, found
    given = classes(check)
    assert all(g in {c.value for c in CompatClass} for g in given), given


def _effect(old: Any, new: Any) -> Effect:
    return aggregate(SchemaWalk(old, new).compare())


def _codes(old: Any, new: Any) -> list[str]:
    return [raw.code for raw in SchemaWalk(old, new).compare()]


def test_a_ref_to_an_identical_definition_is_cosmetic_and_its_target_is_followed() -> None:
    defs = {"$defs": {"A": {"type": "string", "maxLength": 5}}}
    inline = {**defs, "properties": {"a": {"type": "string", "maxLength": 5}}}
    through = {**defs, "properties": {"a": {"$ref": "#/$defs/A"}}}
    assert _codes(inline, through) == ["compat.ref_equivalent"]
    tighter = {
        "$defs": {"A": {"type": "string", "maxLength": 3}},
        "properties": through["properties"],
    }
    [raw] = SchemaWalk(through, tighter).compare()
    assert (raw.code, raw.pointer, raw.effect) == (
        "compat.bound_tightened", "/$defs/A/maxLength", Effect.NARROWS,
    )  # fmt: skip


def test_recursive_refs_end() -> None:
    tree = {"$defs": {"N": {"type": "object", "properties": {"kids": {"type": "array",
            "items": {"$ref": "#/$defs/N"}}}}}, "$ref": "#/$defs/N"}  # fmt: skip
    closed = {"$defs": {"N": {**tree["$defs"]["N"], "additionalProperties": False}},
              "$ref": "#/$defs/N"}  # fmt: skip
    assert _effect(tree, closed) == Effect.NARROWS


def test_not_flips_the_effect() -> None:
    assert _effect({"not": {"maxLength": 3}}, {"not": {"maxLength": 5}}) == Effect.NARROWS
    assert _effect({"not": {"enum": ["a", "b"]}}, {"not": {"enum": ["a"]}}) == Effect.WIDENS


def test_a_oneof_told_apart_by_a_const_member_is_classed_as_an_anyof() -> None:
    def union(limit: int) -> dict[str, Any]:
        return {"oneOf": [
            {"properties": {"kind": {"const": "a"}, "n": {"maximum": limit}}, "required": ["kind"]},
            {"properties": {"kind": {"const": "b"}}, "required": ["kind"]},
        ]}  # fmt: skip

    assert _codes(union(5), union(9)) == ["compat.bound_loosened"]
    overlapping = {"oneOf": [{"maximum": 5}, {"minimum": 0}]}
    wider = {"oneOf": [{"maximum": 9}, {"minimum": 0}]}
    assert class_of(_effect(overlapping, wider), Direction.INPUT) is CompatClass.RISKY


def test_draft_7_ignores_the_siblings_of_a_ref() -> None:
    draft7 = "http://json-schema.org/draft-07/schema#"
    old = {"$schema": draft7, "definitions": {"A": {"type": "string"}},
           "properties": {"a": {"$ref": "#/definitions/A", "maxLength": 3}}}  # fmt: skip
    new = {**old, "properties": {"a": {"$ref": "#/definitions/A", "maxLength": 1}}}
    assert _effect(old, new) == Effect.NONE  # maxLength beside $ref is not read in Draft 7


def test_a_pattern_change_is_breaking_only_with_a_string_that_shows_it() -> None:
    [raw] = SchemaWalk({"pattern": "^[a-z0-9]+$"}, {"pattern": "^[a-z]+$"}).compare()
    assert raw.effect & Effect.NARROWS and "matched the old one and not the new" in raw.message
    assert class_of(raw.effect, Direction.INPUT) is CompatClass.BREAKING


def test_integer_and_number_bounds_read_exclusive_forms() -> None:
    assert _effect({"minimum": 1}, {"exclusiveMinimum": 1}) == Effect.NARROWS
    assert _effect({"exclusiveMaximum": 10}, {"maximum": 10}) == Effect.WIDENS
    assert _codes({"minimum": 1}, {"minimum": 1.0}) == ["compat.equivalent_rewrite"]
    assert _effect({"multipleOf": 4}, {"multipleOf": 2}) == Effect.WIDENS
    assert _effect({"multipleOf": 2}, {"multipleOf": 3}) == Effect.NARROWS | Effect.WIDENS


def test_a_definition_reached_by_id_that_changes_is_not_cosmetic() -> None:
    from jsoncontract.compat.checks import SCHEMA, Check

    by_id = {"$defs": {"Id": {"$id": "urn:id", "type": "string"}},
             "properties": {"id": {"$ref": "urn:id"}}}  # fmt: skip
    longer = {**by_id, "$defs": {"Id": {"$id": "urn:id", "type": "string", "maxLength": 3}}}
    example = Check("compat.unclassified", by_id, longer, "", SCHEMA)
    [change] = example_changes(example)
    assert (change.code, change.cls) == ("compat.unclassified", CompatClass.RISKY)
