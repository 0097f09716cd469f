"""The comparer: every classification, strict JSON equality, arrays, ignore, tolerance, limits."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from jsoncontract._align import align_sequences
from jsoncontract.diff.compare import (
    ArrayRule,
    CompareOptions,
    Comparer,
    Entry,
    canonical,
    classify,
    same,
    same_meaning,
)
from jsoncontract.diff.model import DiffCode
from jsoncontract.diff.paths import PathRules, PathSet
from jsoncontract.pointer import ABSENT


def diffs(a: Any, b: Any, **options: Any) -> list[tuple[str | None, str | None, str | None]]:
    """(code, from path, to path) of every difference."""
    entries = Comparer(CompareOptions(**options)).compare(a, b)
    return [(e.code.value if e.code else None, e.a_path, e.b_path) for e in entries]


def only(a: Any, b: Any, **options: Any) -> Entry:
    entries = Comparer(CompareOptions(**options)).compare(a, b)
    assert len(entries) == 1, entries
    return entries[0]


# -- strict equality --------------------------------------------------------------------------


def test_equal_documents_have_no_difference() -> None:
    doc = {"a": [1, {"b": None}], "c": "x", "d": 1.5, "e": True}
    assert diffs(doc, {"e": True, "d": 1.5, "c": "x", "a": [1, {"b": None}]}) == []


@pytest.mark.parametrize(
    ("a", "b"),
    [(1, 1.0), (1, True), (0, False), (1.0, True), ([1], [1.0]), ({"x": 1}, {"x": True})],
)
def test_python_equal_is_not_json_equal(a: Any, b: Any) -> None:
    assert a == b  # Python says so...
    assert not same(a, b)  # ...JSON does not
    assert canonical(a) != canonical(b)
    assert diffs(a, b) != []


def test_key_order_is_not_a_difference() -> None:
    assert same({"a": 1, "b": 2}, {"b": 2, "a": 1})
    assert canonical({"a": 1, "b": 2}) == canonical({"b": 2, "a": 1})


def test_big_integers_compare_exactly() -> None:
    big = 2**70
    assert same({"n": big}, {"n": big})
    assert diffs({"n": big}, {"n": big + 1}) == [("value-changed", "/n", "/n")]
    assert canonical([big]) != canonical([big + 1])


def test_big_integers_do_not_blur_an_empty_object_and_an_empty_array() -> None:
    # past what orjson writes, the exact fallback keyed {} and [] alike, so a set compare
    # (and a patch) missed an object that became an array next to a huge integer
    big = 2**70
    assert canonical([big, {}]) != canonical([big, []])
    assert canonical({"a": [big, {"b": 1}]}) != canonical({"a": [big, [["b", 1]]]})
    arrays = PathRules([("/xs", ArrayRule("set"))])
    assert diffs({"xs": [[big, {}]]}, {"xs": [[big, []]]}, arrays=arrays) == [
        ("dropped", "/xs/0", None),
        ("added", None, "/xs/0"),
    ]


# -- one test per classification ---------------------------------------------------------------


def test_dropped() -> None:
    entry = only({"a": 1, "status": "open"}, {"a": 1})
    assert (entry.code, entry.a_path, entry.b_path) == (DiffCode.DROPPED, "/status", None)
    assert entry.a == "open" and entry.b is ABSENT


def test_added() -> None:
    entry = only({"a": 1}, {"a": 1, "trace": {"id": 7}})
    assert (entry.code, entry.a_path, entry.b_path) == (DiffCode.ADDED, None, "/trace")
    assert entry.b == {"id": 7}


@pytest.mark.parametrize(
    ("a", "b", "detail"),
    [
        (5, "5", "integer → string"),
        ("5", 5, "string → integer"),
        (2.5, "2.50", "number → string"),
        (1000, "1e3", "integer → string"),
        (True, "true", "boolean → string"),
        ("False", False, "string → boolean"),
        (1.0, 1, "number → integer"),
        (1, True, "integer → boolean"),
        (False, 0, "boolean → integer"),
        (None, "null", "null → string"),
    ],
)
def test_coerced(a: Any, b: Any, detail: str) -> None:
    entry = only({"v": a}, {"v": b})
    assert entry.code is DiffCode.COERCED
    assert entry.detail == detail


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (5, "6"),
        ("5x", 5),
        (2, True),
        ("yes", True),
        (None, ""),
        (None, "None"),
        (1.5, 1),
        # 0 and 1 coerce only to the boolean they mean
        (True, 0),
        (0, True),
        (False, 1),
        (1, False),
    ],
)
def test_other_types_with_another_meaning_are_value_changed(a: Any, b: Any) -> None:
    entry = only({"v": a}, {"v": b})
    assert entry.code is DiffCode.VALUE_CHANGED
    assert entry.detail is not None and "→" in entry.detail


def test_value_changed() -> None:
    entry = only({"d": "2025-10-01"}, {"d": "01/10/2025"})
    assert entry.code is DiffCode.VALUE_CHANGED
    assert entry.detail is None  # same type: no type change to mention


def test_re_encoded_object_to_text_and_the_comparison_goes_on_inside() -> None:
    model = {"filter": {"status": "open", "limit": 5}}
    mcp = {"filter": '{"status": "open", "limit": "5"}'}
    assert diffs(model, mcp) == [
        ("re-encoded", "/filter", "/filter"),
        ("coerced", "/filter/limit", "/filter/limit"),
    ]
    assert Comparer(CompareOptions()).compare(model, mcp)[0].detail == "object → JSON text"


def test_re_encoded_text_to_object_at_the_root() -> None:
    entries = Comparer(CompareOptions()).compare('{"a": [1, 2]}', {"a": [1, 2]})
    assert [(e.code, e.a_path, e.detail) for e in entries] == [
        (DiffCode.RE_ENCODED, "", "JSON text → object")
    ]


def test_text_that_is_not_json_is_a_changed_value() -> None:
    assert only({"v": {"a": 1}}, {"v": "{a: 1}"}).code is DiffCode.VALUE_CHANGED
    assert only({"v": [1]}, {"v": "[1"}).code is DiffCode.VALUE_CHANGED


def test_object_and_array_are_a_changed_value() -> None:
    assert only({"v": {"a": 1}}, {"v": [1]}).detail == "object → array"


def test_reordered_list() -> None:
    entry = only({"tags": ["a", "b", "c"]}, {"tags": ["c", "a", "b"]})
    assert (entry.code, entry.a_path, entry.expected) == (DiffCode.REORDERED, "/tags", False)
    assert entry.detail == "the same 3 items, 3 moved"


def test_an_item_moved_within_a_changed_list_is_reordered_not_dropped_and_added() -> None:
    got = diffs({"x": ["a", "b", "c", "d"]}, {"x": ["d", "a", "b", "c", "e"]})
    assert got == [("reordered", "/x", "/x"), ("added", None, "/x/4")]


# -- arrays ------------------------------------------------------------------------------------


def _rules(**rules: ArrayRule) -> PathRules[ArrayRule]:
    return PathRules([(path.replace("_", "/"), rule) for path, rule in rules.items()])


def test_list_alignment_finds_the_inserted_item() -> None:
    a = {"items": [{"sku": "A"}, {"sku": "B"}, {"sku": "C"}]}
    b = {"items": [{"sku": "Z"}, {"sku": "A"}, {"sku": "B"}, {"sku": "C"}]}
    assert diffs(a, b) == [("added", None, "/items/0")]


def test_list_alignment_pairs_a_changed_item_and_reports_inside_it() -> None:
    a = {"items": [{"sku": "A", "qty": 1}, {"sku": "B", "qty": 2}]}
    b = {"items": [{"sku": "A", "qty": 1}, {"sku": "B", "qty": 3}]}
    assert diffs(a, b) == [("value-changed", "/items/1/qty", "/items/1/qty")]


def test_set_ignores_order_and_repeats() -> None:
    arrays = PathRules([("/tags", ArrayRule("set", (), "--set /tags"))])
    entries = Comparer(CompareOptions(arrays=arrays)).compare(
        {"tags": ["a", "b", "a"]}, {"tags": ["b", "a", "c"]}
    )
    got = [(e.code, e.a_path, e.b_path, e.expected, e.rule) for e in entries]
    assert got == [
        (DiffCode.ADDED, None, "/tags/2", False, None),
        (DiffCode.REORDERED, "/tags", "/tags", True, "--set /tags"),
    ]


def test_multiset_counts_repeats() -> None:
    arrays = PathRules([("/tags", ArrayRule("multiset"))])
    assert diffs({"tags": ["a", "b", "a"]}, {"tags": ["b", "a"]}, arrays=arrays) == [
        ("dropped", "/tags/2", None),
        ("reordered", "/tags", "/tags"),
    ]


def test_key_matches_objects_and_compares_inside_them() -> None:
    arrays = PathRules([("/lines", ArrayRule("key", ("sku",), "--key /lines=sku"))])
    a = {"lines": [{"sku": "A", "qty": 1}, {"sku": "B", "qty": 2}, {"sku": "C", "qty": 1}]}
    b = {"lines": [{"sku": "B", "qty": 2}, {"sku": "A", "qty": 5}, {"sku": "D", "qty": 1}]}
    assert diffs(a, b, arrays=arrays) == [
        ("dropped", "/lines/2", None),
        ("added", None, "/lines/2"),
        ("reordered", "/lines", "/lines"),
        ("value-changed", "/lines/0/qty", "/lines/1/qty"),
    ]
    reorder = [
        e
        for e in Comparer(CompareOptions(arrays=arrays)).compare(a, b)
        if e.code is DiffCode.REORDERED
    ]
    assert reorder[0].expected and reorder[0].detail is not None and "sku" in reorder[0].detail


def test_key_with_several_members_and_items_without_the_key() -> None:
    arrays = PathRules([("/x", ArrayRule("key", ("id", "region")))])
    a = {"x": [{"id": 1, "region": "eu"}, {"id": 1, "region": "us"}, "loose"]}
    b = {"x": ["loose", {"id": 1, "region": "us"}, {"id": 1, "region": "eu", "new": 1}]}
    got = diffs(a, b, arrays=arrays)
    assert ("added", None, "/x/2/new") in got
    assert all(code != "dropped" for code, _, _ in got)


def test_array_rules_take_wildcards() -> None:
    arrays = PathRules([("/orders/*/tags", ArrayRule("set"))])
    a = {"orders": [{"tags": ["x", "y"]}, {"tags": ["p", "q"]}]}
    b = {"orders": [{"tags": ["y", "x"]}, {"tags": ["q", "p"]}]}
    entries = Comparer(CompareOptions(arrays=arrays)).compare(a, b)
    assert all(e.expected for e in entries) and len(entries) == 2


# -- ignore and tolerance ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "remaining"),
    [
        ("/meta", ["/items/0/at", "/items/1/at"]),
        ("/items/*/at", ["/meta/requestId"]),
        ("/items/**", ["/meta/requestId"]),
        ("at", ["/meta/requestId"]),
        ("/**/requestId", ["/items/0/at", "/items/1/at"]),
    ],
)
def test_ignore_patterns(pattern: str, remaining: list[str]) -> None:
    a = {"meta": {"requestId": "r1"}, "items": [{"at": 1}, {"at": 2}]}
    b = {"meta": {"requestId": "r2"}, "items": [{"at": 3}, {"at": 4}]}
    got = diffs(a, b, ignore=PathSet([pattern]))
    assert [p for _, p, _ in got] == remaining


def test_ignored_members_do_not_unmatch_array_items() -> None:
    a = {"items": [{"sku": "A", "at": 1}, {"sku": "B", "at": 2}]}
    b = {"items": [{"sku": "B", "at": 9}, {"sku": "A", "at": 8}]}
    got = diffs(a, b, ignore=PathSet(["/items/*/at"]))
    assert got == [("reordered", "/items", "/items")]


def test_tolerance() -> None:
    a = {"total": 0.1 + 0.2, "n": 3}
    b = {"total": 0.3, "n": 3.0000001}
    assert diffs(a, b) == [
        ("value-changed", "/total", "/total"),
        ("value-changed", "/n", "/n"),
    ]
    assert diffs(a, b, tolerance=1e-6) == [("coerced", "/n", "/n")]
    assert diffs({"n": "0.30000000001"}, {"n": 0.3}, tolerance=1e-6) == [("coerced", "/n", "/n")]
    assert diffs({"n": 1.0}, {"n": 1.5}, tolerance=0.1) == [("value-changed", "/n", "/n")]


# -- classification helpers --------------------------------------------------------------------


def test_same_meaning_rejects_non_numbers() -> None:
    for text in ("NaN", "Infinity", "0x10", "1_000", "", " ", "1e", "--1"):
        assert not same_meaning(text, 1)
    assert same_meaning(" 42 ", 42)
    assert classify("a", "b") == (DiffCode.VALUE_CHANGED, None)


def test_align_sequences_matches_difflib_on_small_inputs() -> None:
    a = [b"a", b"b", b"c", b"d"]
    b = [b"a", b"x", b"c", b"d", b"e"]
    ops = align_sequences(a, b)
    assert ops[0] == ("equal", 0, 1, 0, 1)
    assert ops[-1] == ("insert", 4, 4, 4, 5)


def test_patience_alignment_on_long_arrays_stays_exact_and_fast() -> None:
    rng = random.Random(3)
    a = [{"id": i, "v": rng.random()} for i in range(20_000)]
    b = [dict(x) for x in a]
    del b[5_000]
    b.insert(12_000, {"id": -1, "v": 0.5})
    b[15_000]["v"] = "changed"
    start = time.perf_counter()
    got = diffs({"rows": a}, {"rows": b})
    elapsed = time.perf_counter() - start
    assert got == [
        ("dropped", "/rows/5000", None),
        ("added", None, "/rows/12000"),
        ("value-changed", "/rows/15000/v", "/rows/15000/v"),
    ]
    assert elapsed < 2.0


def test_deep_documents_are_compared_within_bounds() -> None:
    def nest(depth: int, leaf: Any) -> Any:
        value = leaf
        for _ in range(depth):
            value = {"a": value}
        return value

    got = Comparer(CompareOptions()).compare(nest(1000, 1), nest(1000, 2))
    assert len(got) == 1 and got[0].code is DiffCode.VALUE_CHANGED
    assert got[0].detail == "nested too deep to compare"
    assert Comparer(CompareOptions()).compare(nest(900, 1), nest(900, 1)) == []
    aligned = Comparer(CompareOptions(), align=True).compare(nest(900, 1), nest(900, 1))
    assert len(aligned) == 1 and aligned[0].code is None


# -- the comparer against deepdiff, on random documents ------------------------------------------


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(8 if depth < 4 else 5)
    if kind == 0:
        return rng.choice([0, 1, 2, -7, 10**20])
    if kind == 1:
        return rng.choice([0.0, 1.0, 2.5, -0.5])
    if kind == 2:
        return rng.choice(["", "a", "b", "1", "true"])
    if kind == 3:
        return rng.choice([True, False])
    if kind == 4:
        return None
    if kind in (5, 6):
        return {rng.choice("abcd"): _random_value(rng, depth + 1) for _ in range(rng.randrange(4))}
    return [_random_value(rng, depth + 1) for _ in range(rng.randrange(4))]


def _mutate(rng: random.Random, value: Any) -> Any:
    if isinstance(value, dict) and value and rng.random() < 0.7:
        key = rng.choice(list(value))
        copy = dict(value)
        copy[key] = _mutate(rng, value[key])
        return copy
    if isinstance(value, list) and value and rng.random() < 0.7:
        copy = list(value)
        i = rng.randrange(len(copy))
        copy[i] = _mutate(rng, copy[i])
        return copy
    return _random_value(rng) if rng.random() < 0.8 else value


def test_finds_a_difference_whenever_deepdiff_does_and_only_when_json_differs() -> None:
    """deepdiff is the oracle for "something differs"; it is looser than JSON about
    ``false`` and ``0`` inside arrays, so "nothing differs" is checked byte for byte."""
    from deepdiff import DeepDiff

    rng = random.Random(20251031)
    for _ in range(400):
        a = _random_value(rng)
        b = _mutate(rng, a)
        ours = Comparer(CompareOptions()).compare(a, b)
        if DeepDiff(a, b):
            assert ours, (a, b)
        assert (ours == []) == (canonical(a) == canonical(b)), (a, b, ours)
