"""Keeping secrets out of reports: sensitive names, stable hashes, members hidden inside values."""

from __future__ import annotations

from typing import Any

import pytest

from jsoncontract.diff import Differ
from jsoncontract.diff.correlate import given
from jsoncontract.diff.values import redact_value, shown
from jsoncontract.masking import (
    is_placeholder,
    is_sensitive,
    placeholder,
    pointer_is_sensitive,
    redacted,
    redacted_text,
    secrets_in,
)
from jsoncontract.model import ArgumentsForm, Dialect, Hop, Source, ToolCall
from jsoncontract.pointer import ABSENT


@pytest.mark.parametrize(
    "name", ["password", "api_key", "X-Api-Key", "Authorization", "user_email", "sessionId", "pin"]
)
def test_sensitive_names(name: str) -> None:
    assert is_sensitive(name)


@pytest.mark.parametrize("name", ["city", "priority", "shipping", None, ""])
def test_plain_names(name: str | None) -> None:
    assert not is_sensitive(name)


def test_pointer_is_sensitive_when_any_member_on_it_is() -> None:
    assert pointer_is_sensitive("/auth/0/value")
    assert not pointer_is_sensitive("/address/0/city")


def test_placeholder_is_short_stable_and_ignores_key_order() -> None:
    assert placeholder({"a": 1, "b": 2}) == placeholder({"b": 2, "a": 1})
    assert placeholder("hunter2") != placeholder("hunter3")
    assert placeholder("hunter2").startswith("<redacted sha256:")
    assert "\udc80" not in placeholder("x\udc80")  # hashed, though orjson cannot write it


def test_placeholder_of_a_value_too_deep_to_write() -> None:
    deep: list[Any] = []
    for _ in range(1000):
        deep = [deep]
    assert placeholder(deep) == "<redacted: nested too deeply to hash>"


def test_redacted_hides_sensitive_members_at_any_depth() -> None:
    value: dict[str, Any] = {
        "user": "bob",
        "auth": {"kind": "basic"},
        "items": [{"token": "t-1", "n": 1}],
    }
    assert redacted(value) == {
        "user": "bob",
        "auth": placeholder({"kind": "basic"}),
        "items": [{"token": placeholder("t-1"), "n": 1}],
    }
    assert value["items"][0]["token"] == "t-1"  # the value itself is left alone


def test_redacted_gives_back_the_value_when_nothing_is_hidden() -> None:
    value = {"city": "Oslo", "days": [1, {"unit": "d"}]}
    assert redacted(value) is value
    assert redacted("hunter2") == "hunter2"  # a bare value has no name to judge


def test_redacted_hides_whole_what_is_too_deep_to_search() -> None:
    deep: Any = {"password": "hunter2"}
    for _ in range(150):
        deep = {"a": deep}
    assert "hunter2" not in repr(redacted(deep))


def test_redacted_hides_the_whole_value_at_a_sensitive_pointer() -> None:
    assert redacted({"kind": "basic"}, "/auth") == placeholder({"kind": "basic"})
    assert redacted("Oslo", "/address/city") == "Oslo"
    assert redacted("Oslo", None) == "Oslo"


def test_redacted_copies_only_what_it_changes() -> None:
    value: dict[str, Any] = {"keep": {"a": [1, 2]}, "user": {"name": "bob", "token": "t-1"}}
    out = redacted(value)
    assert out["keep"] is value["keep"]
    assert out["user"] == {"name": "bob", "token": placeholder("t-1")}
    assert list(out) == ["keep", "user"] and list(out["user"]) == ["name", "token"]


def _buried(secret: str, depth: int) -> Any:
    value: Any = {"password": secret}
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize("depth", [99, 101, 150, 400])
def test_a_password_nested_deeper_than_the_search_is_hashed_by_both_paths(depth: int) -> None:
    deep = _buried("hunter2", depth)
    # check and lint quote values through redacted(); diff through its redact_value()
    for hidden in (redacted(deep), redact_value(deep, "/payload"), redact_value([deep], "/items")):
        assert "hunter2" not in repr(hidden)


def test_a_password_nested_deep_is_hashed_in_a_diff_report() -> None:
    deep = _buried("hunter2", 150)
    calls = [
        ToolCall(hop, dialect, "t", "c1", value, ArgumentsForm.VALUE, Source("x.json"))
        for hop, dialect, value in (
            (Hop.MODEL, Dialect.ANTHROPIC, {"payload": deep, "n": 1}),
            (Hop.MCP, Dialect.MCP, {"n": 1}),
        )
    ]
    result = Differ().diff(given(calls))
    (dropped,) = result.differences
    assert dropped.code.value == "dropped" and dropped.from_path == "/payload"
    assert "hunter2" not in repr(result.to_dict())
    assert all("hunter2" not in str(row.cells) for row in result.rows())


def test_the_diff_leaves_an_absent_side_alone() -> None:
    assert redact_value(ABSENT, "/password") is ABSENT


def test_a_fingerprint_is_shown_as_it_is() -> None:
    assert is_placeholder(placeholder("x"))
    assert is_placeholder("<redacted: nested too deeply to hash>")
    assert not is_placeholder("<redacted sha256:")  # the start of a string is not enough
    assert shown(placeholder("x")) == placeholder("x")
    assert shown("plain") == '"plain"'


def test_secrets_in_follows_what_redacted_hides() -> None:
    value = {
        "to": "bob@example.com",
        "auth": {"user": "admin", "keys": ["k-123456", 7]},
        "password": "pw",  # too short to look for in a message
        "items": [{"api_key": "sk-live-1"}],
    }
    assert list(secrets_in(value)) == ["admin", "k-123456", "sk-live-1"]
    assert redacted_text("admin used sk-live-1", value) == (
        f"{placeholder('admin')} used {placeholder('sk-live-1')}"
    )
    assert redacted_text("nothing to hide", value) == "nothing to hide"
