"""Stand-ins and the token-by-token rewrite behind ``redact``."""

from __future__ import annotations

import json
import re

import pytest

from jsoncontract.redact import is_stand_in, scrub_text, stand_in


@pytest.mark.parametrize(
    "value",
    ["hunter2!", "ops@example.com", "123e4567-e89b-12d3-a456-426614174000", "Zürich-42x"],
)
def test_a_stand_in_keeps_length_and_classes(value: str) -> None:
    new = stand_in(value)
    assert len(new) == len(value) and new != value
    for a, b in zip(value, new, strict=True):
        assert a.isdigit() == b.isdigit()
        if not a.isalnum():
            assert a == b
    assert is_stand_in(new) and stand_in(new) == new


def test_a_uuid_stays_hexadecimal() -> None:
    assert re.fullmatch(r"[0-9a-f-]{36}", stand_in("123e4567-e89b-12d3-a456-426614174000"))


def test_a_key_keeps_its_published_prefix() -> None:
    key = "sk-" + "proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8t"
    assert stand_in(key).startswith("sk-proj-") and stand_in(key) != key
    assert stand_in("Bearer abcdefghijkl123456").startswith("Bearer ")


def test_numbers_keep_their_shape() -> None:
    doc = '{"pin": 1234, "card_number": -4111111111111111, "secret": 2.5e10, "ok": 7}'
    new = json.loads(scrub_text(doc).text)
    assert new["ok"] == 7
    assert isinstance(new["pin"], int) and 1000 <= new["pin"] <= 9999 and new["pin"] != 1234
    assert isinstance(new["card_number"], int) and new["card_number"] < 0
    assert isinstance(new["secret"], float)


def test_only_values_change_and_the_layout_stays() -> None:
    doc = '{\n  "password" : "hunter2hunter2",\n  "list": [ 1, "a",\n  true ],\n  "x": null\n}'
    new = scrub_text(doc).text
    assert re.sub(r'"[^"]*"', '""', new) == re.sub(r'"[^"]*"', '""', doc)
    assert "hunter2" not in new


def test_json_inside_a_string_is_rewritten_inside_it() -> None:
    arguments = json.dumps({"token": "t-1234567890", "city": "Oslo"})
    doc = json.dumps({"function": {"name": "f", "arguments": arguments}})
    result = scrub_text(doc)
    inner = json.loads(json.loads(result.text)["function"]["arguments"])
    assert inner["city"] == "Oslo" and inner["token"] != "t-1234567890"
    assert [f.pointer for f in result.found] == ["/function/arguments/token"]


def test_text_that_is_not_json_is_rewritten_by_its_patterns() -> None:
    line = "2025-10-31 WARN retrying with OPENAI_API_KEY=sk-" + "abcdefghijklmnopqrstuvwx"
    result = scrub_text(line)
    assert "abcdefghijklmnop" not in result.text and len(result.text) == len(line)
    assert [f.kind for f in result.found] == ["openai-api-key"]


def test_check_mode_lists_only_what_is_not_a_stand_in_yet() -> None:
    doc = json.dumps({"password": "hunter2hunter2", "note": "AKIA" + "IOSFODNN7EXAMPLE"})
    assert len(scrub_text(doc, check=True).found) == 2
    assert scrub_text(scrub_text(doc).text, check=True).found == []


def test_a_header_pair_hides_its_value() -> None:
    doc = json.dumps({"headers": [{"name": "X-Api-Key", "value": "v-0123456789"}]})
    assert "v-0123456789" not in scrub_text(doc).text


def test_a_different_key_gives_different_stand_ins() -> None:
    assert stand_in("hunter2hunter2", "one") != stand_in("hunter2hunter2", "two")
