"""Spectral's core functions, one by one: what each reports, on which values it says nothing
(a kind it does not take), and the options each refuses."""

from __future__ import annotations

from typing import Any

import pytest

from jsoncontract.lint.user.functions import (
    FUNCTIONS,
    UNDEFINED,
    OptionsError,
    Result,
    check_options,
    collation_key,
    print_value,
)


def run(
    name: str, value: Any, options: Any = None, path: tuple[str | int, ...] = ("p",)
) -> list[Result]:
    return FUNCTIONS[name].run(value, check_options(name, options), path)


def messages(name: str, value: Any, options: Any = None) -> list[str]:
    return [r.message for r in run(name, value, options)]


@pytest.mark.parametrize("value", [None, False, 0, 0.0, "", UNDEFINED, float("nan")])
def test_falsy_values(value: Any) -> None:
    assert messages("truthy", value) == ['#{{print("property")}}must be truthy']
    assert messages("falsy", value) == []


@pytest.mark.parametrize("value", [True, 1, -1, 0.5, "0", "a", [], {}])
def test_truthy_values(value: Any) -> None:
    assert messages("truthy", value) == []
    assert messages("falsy", value) == ['#{{print("property")}}must be falsy']


def test_defined_and_undefined() -> None:
    assert messages("defined", UNDEFINED) == ['#{{print("property")}}must be defined']
    assert messages("undefined", None) == ['#{{print("property")}}must be undefined']
    assert messages("defined", None) == [] and messages("undefined", UNDEFINED) == []


def test_pattern() -> None:
    both = {"match": "^get_", "notMatch": "/x/i"}
    assert messages("pattern", "get_a", both) == []
    assert messages("pattern", "put_a", both) == [
        '#{{print("value")}} must match the pattern "^get_"'
    ]
    assert messages("pattern", "get_X", both) == [
        '#{{print("value")}} must not match the pattern "/x/i"'
    ]
    assert len(messages("pattern", "put_X", both)) == 2
    assert messages("pattern", 12, both) == [] and messages("pattern", UNDEFINED, both) == []


def test_enumeration() -> None:
    options = {"values": ["a", 1, None, True]}
    for value in ("a", 1, 1.0, None, True):
        assert messages("enumeration", value, options) == []
    assert messages("enumeration", "b", options) == [
        '#{{print("value")}} must be equal to one of the allowed values: "a", 1, null, true'
    ]
    assert messages("enumeration", 0, {"values": [False]}) != []  # no coercion
    assert messages("enumeration", False, {"values": [0]}) != []
    assert (
        messages("enumeration", [1], options) == [] and messages("enumeration", {}, options) == []
    )


def test_length() -> None:
    options = {"min": 2, "max": 3}
    assert messages("length", "ab", options) == [] and messages("length", "abc", options) == []
    assert messages("length", "a", options) == ['#{{print("property")}}must be longer than 2']
    assert messages("length", "abcd", options) == ['#{{print("property")}}must be shorter than 3']
    assert messages("length", "😀😀", {"max": 3}) != []  # UTF-16: four units
    assert (
        messages("length", [1], options) != []
        and messages("length", {"a": 1, "b": 2}, options) == []
    )
    assert messages("length", 4, options) != [] and messages("length", 2.5, options) == []
    assert messages("length", True, options) == [] and messages("length", None, options) == []
    assert messages("length", "abcd", {"min": 5, "max": 3}) == [
        '#{{print("property")}}must be longer than 5',
        '#{{print("property")}}must be shorter than 3',
    ]


@pytest.mark.parametrize(
    ("kind", "good", "bad"),
    [
        ("flat", ["abc", "a1"], ["aBc", "a_b", "1a"]),
        ("camel", ["aB", "aBcD", "a1B", "aB1"], ["AB", "a_b", "a-b"]),
        ("pascal", ["Ab", "AbCd", "A"], ["aB", "A_b"]),
        ("kebab", ["a-b", "ab1-c"], ["a_b", "A-b", "a--b", "a-"]),
        ("cobol", ["A-B", "AB"], ["a-b", "A_B"]),
        ("snake", ["a_b", "a1_b2"], ["a-b", "aB", "a__b", "_a"]),
        ("macro", ["A_B", "AB1"], ["a_b", "A-B"]),
    ],
)
def test_casing(kind: str, good: list[str], bad: list[str]) -> None:
    for word in good:
        assert messages("casing", word, {"type": kind}) == [], word
    for word in bad:
        assert messages("casing", word, {"type": kind}) == [f"must be {kind} case"], word
    assert messages("casing", "abc\n", {"type": "flat"}) != []
    assert (
        messages("casing", "", {"type": kind}) == [] and messages("casing", 1, {"type": kind}) == []
    )


def test_casing_options() -> None:
    no_digits = {"type": "snake", "disallowDigits": True}
    assert messages("casing", "a1", no_digits) != [] and messages("casing", "a_b", no_digits) == []
    dotted = {"type": "snake", "separator": {"char": "."}}
    assert messages("casing", "a_b.c", dotted) == [] and messages("casing", ".a", dotted) != []
    leading = {"type": "snake", "separator": {"char": ".", "allowLeading": True}}
    assert messages("casing", ".a.b", leading) == [] and messages("casing", ".", leading) == []
    assert messages("casing", "..a", leading) != []


def test_alphabetical() -> None:
    assert messages("alphabetical", ["a", "b", "B"]) == []
    found = run("alphabetical", ["b", "a"])
    assert found == [Result('"b" must be placed after "a"', ("p", 0))]
    found = run("alphabetical", {"zeta": 1, "alpha": 2})
    assert found == [Result('"zeta" must be placed after "alpha"', ("p", "zeta"))]
    assert messages("alphabetical", [3, 1]) == ["3 must be placed after 1"]
    assert messages("alphabetical", [1, "a"]) == []  # a number before a word: no order
    assert messages("alphabetical", ["b", "1"]) == []  # NaN - 1: no order
    assert messages("alphabetical", ["10", "9"]) == []  # number-like words: as words
    assert messages("alphabetical", ["a", {}]) == [
        '#{{print("property")}}must be one of the allowed types: number, string'
    ]
    assert messages("alphabetical", ["b"]) == [] and messages("alphabetical", "ba") == []
    keyed = {"keyedBy": "n"}
    assert messages("alphabetical", [{"n": "a"}, {"n": "b"}], keyed) == []
    assert messages("alphabetical", [{"n": "b"}, {"n": "a"}], keyed) == [
        "properties must follow the alphabetical order"
    ]
    assert messages("alphabetical", [{"n": "b"}, "a"], keyed) == [
        '#{{print("property")}}must be an object'
    ]
    assert run("alphabetical", [{"n": "b"}, {"n": "a"}], keyed)[0].path is None


def test_collation_orders_as_locale_compare() -> None:
    words = ["b", "B", "a", "A", "_a", "a_", "a-b", "a1", "ab", "aB", "Ab", "é", "e", "f", "E"]
    assert sorted(words, key=collation_key) == [
        "_a", "a", "A", "a_", "a-b", "a1", "ab", "aB", "Ab", "b", "B", "e", "E", "é", "f",
    ]  # fmt: skip


def test_xor_and_or() -> None:
    two = {"properties": ["a", "b"]}
    assert messages("xor", {"a": 1}, two) == [] and messages("or", {"b": 1}, two) == []
    assert messages("xor", {}, two) == ['At least one of "a" or "b" must be defined']
    assert messages("or", {"c": 1}, two) == ['At least one of "a" or "b" must be defined']
    assert messages("xor", {"b": 1, "a": 2}, two) == ['Just one of "b" and "a" must be defined']
    assert messages("or", {"a": 1, "b": 2}, two) == []
    five = {"properties": ["a", "b", "c", "d", "e"]}
    assert messages("xor", {}, five) == [
        'At least one of "a" or "b" or "c" or 2 other properties must be defined'
    ]
    assert messages("xor", [1], two) == [] and messages("or", "a", two) == []


def test_schema() -> None:
    options = {
        "schema": {"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}}
    }
    assert messages("schema", {"a": "x"}, options) == []
    assert run("schema", {}, options) == [Result("'a' is a required property", ("p",))]
    assert run("schema", {"a": 1}, options) == [
        Result('"a" property type must be string', ("p", "a"))
    ]
    assert run("schema", UNDEFINED, options) == [Result('#{{print("property")}}must exist', ("p",))]
    every = {**options, "allErrors": True, "schema": {**options["schema"], "maxProperties": 0}}
    assert len(run("schema", {"a": 1}, every)) == 2
    assert len(run("schema", {"a": 1}, {**every, "allErrors": False})) == 1
    closed = {"schema": {"type": "object", "additionalProperties": False}}
    assert [r.path for r in run("schema", {"x": 1}, closed)] == [("p",)]
    dated = {"schema": {"format": "date"}, "dialect": "draft2020-12"}
    assert (
        messages("schema", "2025-13-45", dated) != []
        and messages("schema", "2025-01-02", dated) == []
    )
    declared = {
        "schema": {
            "$schema": "http://json-schema.org/draft-04/schema#",
            "maximum": 1,
            "exclusiveMaximum": True,
        }
    }
    assert messages("schema", 1, declared) != []  # draft 4's boolean exclusiveMaximum


@pytest.mark.parametrize(
    ("name", "options", "said"),
    [
        ("truthy", {}, '"truthy" function does not accept any options'),
        ("pattern", None, '"pattern" function needs functionOptions'),
        ("pattern", [], '"pattern" function needs its options as an object'),
        ("pattern", {}, '"pattern" function needs "match" or "notMatch"'),
        ("pattern", {"match": 1}, 'its "match" option take a string'),
        ("pattern", {"match": "("}, "invalid regular expression"),
        ("pattern", {"mtch": "a"}, 'does not support "mtch" option'),
        ("enumeration", {"values": "a"}, '"values": an array of scalars'),
        ("enumeration", {"values": [[1]]}, '"values": an array of scalars'),
        ("length", {}, '"length" function needs "min" or "max"'),
        ("length", {"min": "1"}, 'its "min" option take a number'),
        ("length", {"max": True}, 'its "max" option take a number'),
        ("casing", {"type": "title"}, '"type": one of flat, camel'),
        (
            "casing",
            {"type": "snake", "disallowDigits": 1},
            '"disallowDigits" option take a boolean',
        ),
        (
            "casing",
            {"type": "snake", "separator": {"char": "ab"}},
            '"separator.char" takes one character',
        ),
        (
            "casing",
            {"type": "snake", "separator": {"c": "a"}},
            '"separator" takes "char" and "allowLeading"',
        ),
        (
            "casing",
            {"type": "snake", "separator": {"char": "-", "allowLeading": 1}},
            '"separator.allowLeading" takes a boolean',
        ),
        ("alphabetical", {"keyedBy": 1}, '"keyedBy" option take a string'),
        ("xor", {"properties": ["a"]}, '"properties": two names or more'),
        ("or", {"properties": "ab"}, '"properties": two names or more'),
        ("xor", {"properties": ["a", 1]}, '"properties": two names or more'),
        ("schema", {}, '"schema": a JSON Schema object'),
        ("schema", {"schema": {}, "dialect": "draft3"}, '"dialect" option take auto, draft4'),
        ("schema", {"schema": {}, "allErrors": "yes"}, '"allErrors" option take a boolean'),
        ("schema", {"schema": {"type": 1}}, "its schema is not a valid draft7 schema"),
    ],
)
def test_options_refused(name: str, options: Any, said: str) -> None:
    with pytest.raises(OptionsError) as caught:
        check_options(name, options)
    assert said in str(caught.value)


def test_options_kept() -> None:
    assert check_options("alphabetical", None) == {}
    assert check_options("truthy", None) is None
    assert check_options("length", {"max": 2}) == {"max": 2}


def test_print_value() -> None:
    assert [print_value(v) for v in (UNDEFINED, [1], {"a": 1}, 2.0, 2.5, "é", None, True)] == [
        "undefined", "Array[]", "Object{}", "2", "2.5", '"é"', "null", "true",
    ]  # fmt: skip
