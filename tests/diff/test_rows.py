"""The side-by-side rows: one member followed across the hops, whatever happened to it."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from jsoncontract.diff import CallDiff, Differ, DiffOptions, Row, diff
from jsoncontract.diff.correlate import given
from jsoncontract.model import ArgumentsForm, Dialect, Hop, Source, ToolCall

_DIALECT = {Hop.MODEL: Dialect.ANTHROPIC, Hop.MCP: Dialect.MCP, Hop.DOWNSTREAM: Dialect.DOWNSTREAM}


def three(model: Any, mcp: Any, body: Any = None, **options: Any) -> CallDiff:
    calls = []
    for hop, value in ((Hop.MODEL, model), (Hop.MCP, mcp), (Hop.DOWNSTREAM, body)):
        if value is None:
            continue
        calls.append(
            ToolCall(hop, _DIALECT[hop], "t", "c1", value, ArgumentsForm.VALUE, Source("x.json"))
        )
    return Differ(**options).diff(given(calls))


def table(result: CallDiff, changed_only: bool = False) -> list[tuple[Any, ...]]:
    return [
        (
            row.path,
            *[
                None if c is None else (c[1] if c[0] == row.path else f"{c[0]}={c[1]}")
                for c in row.cells
            ],
            "+".join(d.code.value for d in row.differences) or "=",
        )
        for row in result.rows(changed_only=changed_only)
    ]


def test_a_member_keeps_its_row_across_hops_and_a_rename() -> None:
    got = table(three({"a": 1, "d": "x"}, {"a": "1", "d": "x"}, {"a": "1", "e": "x"}))
    assert got == [
        ("/a", "1", '"1"', '"1"', "coerced"),
        ("/d", '"x"', '"x"', '/e="x"', "renamed"),
    ]


def test_members_added_later_get_rows_in_document_order() -> None:
    got = table(three({"a": 1}, {"a": 1, "b": 2}, {"a": 1, "b": 2, "c": 3}))
    assert got == [
        ("/a", "1", "1", "1", "="),
        ("/b", None, "2", "2", "added"),
        ("/c", None, None, "3", "added"),
    ]


def test_a_dropped_object_shows_on_the_rows_of_its_members() -> None:
    got = table(three({"x": {"p": 1, "q": 2}}, {"x": {"p": 1, "q": 2}}, {}))
    assert got == [
        ("/x/p", "1", "1", None, "dropped"),
        ("/x/q", "2", "2", None, "dropped"),
    ]


def test_an_object_added_whole_is_one_row_and_its_members_join_it() -> None:
    got = table(three({}, {"x": {"p": 1}}, {"x": {"p": 1}}))
    assert got == [("/x", None, '{"p":1}', '{"p":1}', "added")]


def test_a_re_encoded_root_has_its_own_row_then_the_members() -> None:
    got = table(three({"a": 1}, '{"a": 1}', {"a": 1}))
    assert got[0] == ("", '{"a":1}', '"{\\"a\\": 1}"', '{"a":1}', "re-encoded+re-encoded")
    assert got[1] == ("/a", "1", "1", "1", "=")


def test_a_hop_that_cannot_be_compared_is_skipped() -> None:
    calls = [
        ToolCall(
            Hop.MODEL, Dialect.OPENAI_CHAT, "t", "c", '{"a": 1', ArgumentsForm.TEXT, Source("m")
        ),
        ToolCall(Hop.MCP, Dialect.MCP, "t", "c", {"a": 1}, ArgumentsForm.VALUE, Source("p")),
        ToolCall(
            Hop.DOWNSTREAM, Dialect.DOWNSTREAM, "t", "c", {"a": 2}, ArgumentsForm.VALUE, Source("d")
        ),
    ]
    result = Differ().diff(given(calls))
    assert result.pairs == [(1, 2)]
    assert table(result) == [("/a", None, "1", "2", "value-changed")]
    assert [f.code for f in result.findings] == ["parse.truncated"]


def test_a_single_hop_lists_its_members() -> None:
    result = three({"a": [1, 2]}, None)
    result.hops = result.hops[:1]
    assert table(three({"a": [1, 2], "b": {}}, {"a": [1, 2], "b": {}})) == [
        ("/a/0", "1", "1", "="),
        ("/a/1", "2", "2", "="),
        ("/b", "{}", "{}", "="),
    ]


def test_sensitive_cells_are_hashed() -> None:
    got = table(three({"token": "s3cr3t"}, {"token": "s3cr3t"}))
    assert got[0][1].startswith("<redacted sha256:")
    shown = three({"token": "s3cr3t"}, {"token": "s3cr3t"}, options=DiffOptions(show_values=True))
    assert table(shown)[0][1] == '"s3cr3t"'


def _random(rng: random.Random, depth: int = 0) -> Any:
    if depth > 2 or rng.random() < 0.3:
        return rng.choice([1, 2, "1", "a", True, None, 1.5])
    if rng.random() < 0.6:
        return {rng.choice("abcdef"): _random(rng, depth + 1) for _ in range(rng.randrange(5))}
    return [_random(rng, depth + 1) for _ in range(rng.randrange(4))]


def _mutate(rng: random.Random, value: Any) -> Any:
    if isinstance(value, dict) and value:
        copy = dict(value)
        key = rng.choice(list(copy))
        if rng.random() < 0.3:
            del copy[key]
        else:
            copy[key] = _mutate(rng, copy[key])
        return copy
    return _random(rng) if rng.random() < 0.5 else value


@pytest.mark.parametrize("seed", range(60))
def test_both_views_show_every_difference_and_only_those(seed: int) -> None:
    """The full view and the changed-only one may cut members differently (a dropped object
    as one row, or one row per member), but both show exactly the call's differences."""
    rng = random.Random(seed)
    model = _random(rng)
    model = model if isinstance(model, dict) else {"v": model}
    mcp = _mutate(rng, model)
    body = _mutate(rng, mcp)
    result = three(model, mcp, body)

    def shown(rows: list[Row]) -> set[tuple[str, str | None, str | None]]:
        return {(d.code.value, d.from_path, d.to_path) for r in rows for d in r.differences}

    expected = {(d.code.value, d.from_path, d.to_path) for d in result.differences}
    assert shown(result.rows()) == expected
    changed = result.rows(changed_only=True)
    assert shown(changed) == expected
    assert all(row.differences for row in changed)


def test_the_bundled_large_shapes(repo: Path) -> None:
    report = diff(sorted((repo / "fixtures" / "diff" / "renamed-dates").iterdir()))
    rows = report.results[0].rows(changed_only=True)
    assert [row.path for row in rows] == ["/startDate", "/endDate", "/status"]
