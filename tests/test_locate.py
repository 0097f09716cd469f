"""Line and column of JSON nodes by pointer."""

from __future__ import annotations

from jsoncontract._locate import PositionIndex

TEXT = """{
  "tools": [
    {"name": "a", "x": [1, {"y": 2}]},
    {"name": "b", "a/b": {"c~d": true}, "é": "ü"}
  ]
}"""


def test_members_point_at_their_key_and_elements_at_their_value() -> None:
    index = PositionIndex(TEXT)
    assert index.position("") == (1, 1)
    assert index.position("/tools") == (2, 3)
    assert index.position("/tools/0") == (3, 5)
    assert index.position("/tools/0/x/1/y") == (3, 29)
    assert index.position("/tools/1/name") == (4, 6)


def test_escaped_pointer_tokens_and_non_ascii() -> None:
    index = PositionIndex(TEXT)
    assert index.position("/tools/1/a~1b/c~0d") == (4, 27)
    assert index.position("/tools/1/é") == (4, 41)


def test_unknown_pointer_falls_back_to_the_closest_ancestor() -> None:
    index = PositionIndex(TEXT)
    assert index.position("/tools/1/nope/deeper") == (4, 5)
    assert index.offset("/nope") is None


def test_escaped_quotes_and_keys_with_escapes() -> None:
    index = PositionIndex('{"a\\"b": "x\\"y", "n": [true, null]}')
    assert index.position('/a"b') == (1, 2)
    assert index.position("/n/1") == (1, 30)


def test_broken_text_knows_what_it_saw() -> None:
    index = PositionIndex('{"a": {"b": [1, 2')
    assert index.position("/a/b/1") == (1, 17)
