"""RFC 6902 patches between hops: applying one to the earlier hop gives the later, exactly."""

from __future__ import annotations

import random
from typing import Any

import pytest

from jsoncontract.diff.compare import canonical
from jsoncontract.diff.patch import apply_patch, make_patch


def roundtrip(a: Any, b: Any, **kw: Any) -> list[dict[str, Any]]:
    ops = make_patch(a, b, **kw)
    assert canonical(apply_patch(a, ops)) == canonical(b), ops
    return ops


def test_no_change_no_operation() -> None:
    assert roundtrip({"a": [1, {"b": 2}]}, {"a": [1, {"b": 2}]}) == []


def test_members() -> None:
    ops = roundtrip({"a": 1, "b": 2, "c": 3}, {"a": 1, "c": "3", "d": 4})
    assert ops == [
        {"op": "remove", "path": "/b"},
        {"op": "replace", "path": "/c", "value": "3"},
        {"op": "add", "path": "/d", "value": 4},
    ]


def test_renames_become_moves_and_missing_parents_are_made() -> None:
    ops = roundtrip(
        {"startDate": "2025-10-01", "customerId": "C1"},
        {"dateFrom": "2025-10-01", "customer": {"id": "C1"}},
        moves=[("/startDate", "/dateFrom"), ("/customerId", "/customer/id")],
    )
    assert ops == [
        {"op": "move", "from": "/startDate", "path": "/dateFrom"},
        {"op": "add", "path": "/customer", "value": {}},
        {"op": "move", "from": "/customerId", "path": "/customer/id"},
    ]


def test_array_edits_keep_indexes_valid() -> None:
    ops = roundtrip({"x": ["a", "b", "c", "d"]}, {"x": ["z", "a", "c", "d", "e"]})
    assert ops == [
        {"op": "add", "path": "/x/0", "value": "z"},
        {"op": "remove", "path": "/x/2"},
        {"op": "add", "path": "/x/4", "value": "e"},
    ]


def test_a_permutation_becomes_moves() -> None:
    ops = roundtrip({"t": [1, 2, 3]}, {"t": [3, 1, 2]})
    assert ops == [{"op": "move", "from": "/t/2", "path": "/t/0"}]


def test_root_changes() -> None:
    assert roundtrip({"a": 1}, '{"a": 1}') == [{"op": "replace", "path": "", "value": '{"a": 1}'}]
    assert roundtrip([1], [1, 2]) == [{"op": "add", "path": "/1", "value": 2}]


def test_escaped_member_names() -> None:
    ops = roundtrip({"a/b": 1, "c~d": 2}, {"a/b": 2})
    assert ops == [
        {"op": "remove", "path": "/c~0d"},
        {"op": "replace", "path": "/a~1b", "value": 2},
    ]


def test_sensitive_values_are_hashed_unless_shown() -> None:
    ops = make_patch({"password": "a"}, {"password": "b"}, show_values=False)
    assert ops[0]["value"].startswith("<redacted sha256:")
    assert make_patch({"password": "a"}, {"password": "b"})[0]["value"] == "b"
    nested = make_patch({}, {"user": {"email": "x@example.com", "id": 1}}, show_values=False)
    assert nested[0]["value"]["email"].startswith("<redacted") and nested[0]["value"]["id"] == 1


def test_the_applier_refuses_paths_that_do_not_exist() -> None:
    with pytest.raises(ValueError, match="no such member"):
        apply_patch({"a": 1}, [{"op": "remove", "path": "/b"}])
    with pytest.raises(ValueError, match="unsupported"):
        apply_patch({}, [{"op": "test", "path": "", "value": {}}])


def _value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(7 if depth < 3 else 4)
    if kind == 0:
        return rng.choice([0, 1, 1.0, True, False, None])
    if kind in (1, 2, 3):
        return rng.choice(["a", "b", "c", 5, 6])
    if kind in (4, 5):
        return {rng.choice("pqrs"): _value(rng, depth + 1) for _ in range(rng.randrange(5))}
    return [_value(rng, depth + 1) for _ in range(rng.randrange(6))]


def test_random_pairs_roundtrip() -> None:
    rng = random.Random(6902)
    for _ in range(500):
        roundtrip(_value(rng), _value(rng))


def test_deep_and_long_values_roundtrip() -> None:
    deep_a: Any = 1
    deep_b: Any = 2
    for _ in range(400):
        deep_a, deep_b = {"n": deep_a}, {"n": deep_b}
    ops = make_patch(deep_a, deep_b)
    assert len(ops) == 1 and ops[0]["op"] == "replace"
    long_a = list(range(5000))
    long_b = long_a[::-1]
    roundtrip({"x": long_a}, {"x": long_b})
