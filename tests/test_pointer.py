"""JSON Pointers (RFC 6901): escaping, reading, and editing copies by pointer."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest

from jsoncontract.pointer import (
    ABSENT,
    array_index,
    escape_pointer_token,
    get,
    get_in,
    is_within,
    join_pointer,
    parent,
    pointer_tokens,
    remove_at,
    set_at,
    unescape_pointer_token,
)

# the example document of RFC 6901, section 5
RFC: Any = {
    "foo": ["bar", "baz"],
    "": 0,
    "a/b": 1,
    "c%d": 2,
    "e^f": 3,
    "g|h": 4,
    "i\\j": 5,
    'k"l': 6,
    " ": 7,
    "m~n": 8,
}


@pytest.mark.parametrize(
    ("pointer", "value"),
    [
        ("", RFC),
        ("/foo", ["bar", "baz"]),
        ("/foo/0", "bar"),
        ("/", 0),
        ("/a~1b", 1),
        ("/c%d", 2),
        ("/e^f", 3),
        ("/g|h", 4),
        ("/i\\j", 5),
        ('/k"l', 6),
        ("/ ", 7),
        ("/m~0n", 8),
    ],
)
def test_the_rfc_examples(pointer: str, value: Any) -> None:
    assert get(RFC, pointer) == value


@pytest.mark.parametrize(
    "pointer",
    [
        "/nope",
        "/foo/2",  # past the end
        "/foo/-",  # the place after the last item holds nothing
        "/foo/01",  # RFC 6901: no leading zeros
        "/foo/-1",
        "/foo/1.0",
        "/foo/²",  # a Unicode digit, not an ASCII one
        "/foo/0/x",  # below a string
        "/a~1b/c",  # below a number
    ],
)
def test_what_is_not_there_is_absent(pointer: str) -> None:
    assert get(RFC, pointer) is ABSENT


def test_null_is_a_value_not_an_absence() -> None:
    assert get({"a": None}, "/a") is None
    assert get({"a": None}, "/b") is ABSENT
    assert get_in({"a": [None]}, ["a", "0"]) is None


def test_absent_is_one_false_value_that_survives_copies() -> None:
    assert not ABSENT
    assert repr(ABSENT) == "ABSENT"
    assert copy.copy(ABSENT) is ABSENT
    assert copy.deepcopy({"v": ABSENT})["v"] is ABSENT
    assert pickle.loads(pickle.dumps(ABSENT)) is ABSENT
    assert (get({}, "/a") or "default") == "default"


@pytest.mark.parametrize("name", ["", "plain", "a/b", "m~n", "~1", "/~0/", "~", "//", "é/ü"])
def test_escaping_round_trips(name: str) -> None:
    token = escape_pointer_token(name)
    assert "/" not in token
    assert unescape_pointer_token(token) == name
    assert pointer_tokens(join_pointer("/x", name)) == ["x", name]
    assert get({name: 1}, join_pointer("", name)) == 1


def test_tilde_one_is_unescaped_before_tilde_zero() -> None:
    # "~01" is "~" followed by "1", not "/"
    assert unescape_pointer_token("~01") == "~1"
    assert pointer_tokens("/~01/a~1b") == ["~1", "a/b"]


def test_join_takes_indexes_and_names() -> None:
    assert join_pointer("", "lines", 0, "sku") == "/lines/0/sku"
    assert join_pointer("/base") == "/base"
    assert escape_pointer_token(12) == "12"


def test_parent_and_within() -> None:
    assert parent("/a/b~1c") == "/a"
    assert is_within("/a/b", "/a") and is_within("/a", "/a") and is_within("/a", "")
    assert not is_within("/ab", "/a")


@pytest.mark.parametrize(
    ("token", "size", "index"),
    [("0", 1, 0), ("9", 10, 9), ("10", 10, None), ("00", 5, None), ("", 5, None), ("+1", 5, None)],
)
def test_array_index(token: str, size: int, index: int | None) -> None:
    assert array_index(token, size) == index


def test_set_at_copies_along_the_path_and_shares_the_rest() -> None:
    before: Any = {"a": {"b": 1}, "keep": {"deep": [1]}, "list": [{"x": 1}, {"x": 2}]}
    after = set_at(before, "/list/1/x", 3)
    assert after["list"] == [{"x": 1}, {"x": 3}]
    assert before["list"][1] == {"x": 2}  # the original is untouched
    assert after["keep"] is before["keep"]  # what lies beside the path is shared
    assert after["list"][0] is before["list"][0]


def test_set_at_makes_missing_objects_and_appends() -> None:
    assert set_at({}, "/a/b/c", 1) == {"a": {"b": {"c": 1}}}
    assert set_at({"a": 5}, "/a/b", 1) == {"a": {"b": 1}}  # a scalar in the way
    assert set_at([1], "/-", 2) == [1, 2]
    assert set_at([1], "/1", 2) == [1, 2]
    assert set_at({"a": 1}, "", "root") == "root"
    assert set_at(None, "/a", 1) == {"a": 1}
    with pytest.raises(IndexError, match="no item '5' in an array of 1"):
        set_at([1], "/5", 2)


def test_remove_at() -> None:
    before: Any = {"a": [1, 2, 3], "b": {"c": 1, "d~/": 2}}
    assert remove_at(before, "/a/1") == {"a": [1, 3], "b": {"c": 1, "d~/": 2}}
    assert remove_at(before, "/b/d~0~1") == {"a": [1, 2, 3], "b": {"c": 1}}
    assert before == {"a": [1, 2, 3], "b": {"c": 1, "d~/": 2}}
    assert remove_at(before, "/nope") is before
    assert remove_at(before, "/a/9") is before
    assert remove_at(before, "") is before
