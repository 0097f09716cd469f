"""Keeping secrets out of reports: sensitive names, stable hashes, members hidden inside values."""

from __future__ import annotations

from typing import Any

import pytest

from jsoncontract.redact import fingerprint, is_sensitive, pointer_is_sensitive, redacted


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


def test_fingerprint_is_short_stable_and_ignores_key_order() -> None:
    assert fingerprint({"a": 1, "b": 2}) == fingerprint({"b": 2, "a": 1})
    assert fingerprint("hunter2") != fingerprint("hunter3")
    assert fingerprint("hunter2").startswith("<redacted sha256:")
    assert "\udc80" not in fingerprint("x\udc80")  # hashed, though orjson cannot write it


def test_fingerprint_of_a_value_too_deep_to_write() -> None:
    deep: list[Any] = []
    for _ in range(1000):
        deep = [deep]
    assert fingerprint(deep) == "<redacted: nested too deeply to hash>"


def test_redacted_hides_sensitive_members_at_any_depth() -> None:
    value: dict[str, Any] = {
        "user": "bob",
        "auth": {"kind": "basic"},
        "items": [{"token": "t-1", "n": 1}],
    }
    assert redacted(value) == {
        "user": "bob",
        "auth": fingerprint({"kind": "basic"}),
        "items": [{"token": fingerprint("t-1"), "n": 1}],
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
