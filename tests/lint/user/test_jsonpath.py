"""The JSONPath of user rules: what each form selects, in the JavaScript subset of filters,
and where a path it cannot read stops."""

from __future__ import annotations

from typing import Any

import pytest

from jsoncontract.lint.user.jsonpath import UNDEFINED, JsonPathError, JsRegex, js_number, parse

DOC: dict[str, Any] = {
    "tools": [
        {
            "name": "get_a",
            "n": 3,
            "schema": {
                "type": "object",
                "properties": {
                    "x": {"type": "string", "title": ""},
                    "y": {"type": "array", "items": {"type": "integer"}},
                    "properties": {"type": "object", "properties": {"z": {"type": "null"}}},
                },
            },
        },
        {"name": "Put_b", "n": "3", "tags": ["a", "b", "c"], "flag": None},
    ]
}


def found(path: str, doc: Any = DOC) -> list[tuple[str | int, ...]]:
    return [tokens for tokens, _ in parse(path).find(doc)]


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("$", [()]),
        ("$.tools[0].name", [("tools", 0, "name")]),
        ("$['tools'][1][\"name\"]", [("tools", 1, "name")]),
        ("$.tools[-1].name", [("tools", 1, "name")]),
        ("$.tools[5].name", []),
        ("$.tools.x", []),
        ("$.tools[*].name", [("tools", 0, "name"), ("tools", 1, "name")]),
        ("$.tools.*.n", [("tools", 0, "n"), ("tools", 1, "n")]),
        ("$.tools[1].tags[1:]", [("tools", 1, "tags", 1), ("tools", 1, "tags", 2)]),
        ("$.tools[1].tags[:2]", [("tools", 1, "tags", 0), ("tools", 1, "tags", 1)]),
        ("$.tools[1].tags[::2]", [("tools", 1, "tags", 0), ("tools", 1, "tags", 2)]),
        ("$.tools[1].tags[0,2]", [("tools", 1, "tags", 0), ("tools", 1, "tags", 2)]),
        ("$.tools[0][name,n]", [("tools", 0, "name"), ("tools", 0, "n")]),
        ("$.tools[0]['name','n','nope']", [("tools", 0, "name"), ("tools", 0, "n")]),
        ("$.tools[1].tags.1", [("tools", 1, "tags", 1)]),
        ("$.tools[0].schema.properties[*]", [
            ("tools", 0, "schema", "properties", "x"),
            ("tools", 0, "schema", "properties", "y"),
            ("tools", 0, "schema", "properties", "properties"),
        ]),
        ("$..properties", [
            ("tools", 0, "schema", "properties"),
            ("tools", 0, "schema", "properties", "properties"),
            ("tools", 0, "schema", "properties", "properties", "properties"),
        ]),
        ("$..z", [("tools", 0, "schema", "properties", "properties", "properties", "z")]),
        ("$..[?(@.type === 'integer')]", [("tools", 0, "schema", "properties", "y", "items")]),
        ("$..tags[*]", [("tools", 1, "tags", 0), ("tools", 1, "tags", 1), ("tools", 1, "tags", 2)]),
    ],
)  # fmt: skip
def test_what_a_path_selects(path: str, expected: list[tuple[str | int, ...]]) -> None:
    assert found(path) == expected


def test_descendants_include_the_node_and_every_value_once() -> None:
    everything = found("$..*")
    assert len(everything) == len(set(everything))
    assert ("tools",) in everything and ("tools", 1, "flag") in everything
    assert () not in everything  # a child of the root at least
    assert found("$..[*]") == everything
    assert found("$..name") == [("tools", 0, "name"), ("tools", 1, "name")]


@pytest.mark.parametrize(
    ("flt", "expected"),
    [
        ("@.n == 3", [0, 1]),  # loose: "3" == 3
        ("@.n === 3", [0]),
        ("@.n !== 3", [1]),
        ("@.n != 3", []),
        ("@.n > 2", [0, 1]),
        ("@.n >= 4", []),
        ("@.n < 4 && @.name.startsWith('get')", [0]),
        ("@.name.endsWith('_b') || @.n === 3", [0, 1]),
        ("!@.tags", [0]),
        ("@.tags", [1]),
        ("@.tags.length === 3", [1]),
        ("@.name.length > 4", [0, 1]),
        ("@.tags.includes('b')", [1]),
        ("@.name.includes('_')", [0, 1]),
        ("@.name.match(/^put/i)", [1]),
        ("@.name.match(/^put/)", []),
        ("@.name.match('_a$')", [0]),
        ("typeof @.n === 'number'", [0]),
        ("typeof @.n === 'string'", [1]),
        ("typeof @.nope === 'undefined'", [0, 1]),
        ("typeof @.flag === 'object'", [1]),
        ("@.flag === null", [1]),
        ("@.flag == undefined", [0, 1]),
        ("@.nope === undefined", [0, 1]),
        ("@property === 1", [1]),
        ("@property >= 0", [0, 1]),
        ("@parentProperty === 'tools'", [0, 1]),
        ("@['name'] === 'get_a'", [0]),
        ("(@.n === 3 || @.n === '3') && !(@.name === 'Put_b')", [0]),
        ("@.schema.type === 'object'", [0]),
        ("@.n === 3.0", [0]),
        ("@.n <= '3'", [0, 1]),
        ("'b' < 'a'", []),
        ("true", [0, 1]),
        ("false", []),
        ("@.tags.length", [1]),
        ("@.schema.length", []),
    ],
)
def test_filters_read_values_as_javascript_does(flt: str, expected: list[int]) -> None:
    assert [t[1] for t in found(f"$.tools[?({flt})]")] == expected


@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("tools", "a JSONPath starts with $"),
        ("$.tools[", "expected *, a name, an index, a slice or a filter at character 9"),
        ("$.tools[0", "expected , or ] at character 10"),
        ("$.tools~", "'~' (jsonpath-plus' property names and parents) is not supported"),
        ("$.tools^", "'^'"),
        ("$tools", "expected . or [ at character 2"),
        ("$.", "expected a member name or * at character 3"),
        ("$[?@.a]", "a filter is written ?(...)"),
        ("$[?(@.a]", "expected ) to close the filter"),
        ("$[(@.length-1)]", "script expressions (...) are not supported"),
        ("$[?(@.a.foo())]", ".foo() is not supported"),
        ("$[?(@.a.match('x')", "expected )"),
        ("$[?(@.a.match(/[/))]", "unterminated regular expression"),
        ("$[?(@.a.match(x))]", ".match() takes a /regular expression/"),
        ("$[?(@.a.startsWith(1))]", ".startsWith() takes a quoted string"),
        ("$[?(@root.a)]", "@root is not supported"),
        ("$[?(@.a === )]", "expected a value, @, @property or a literal"),
        ("$[?(@.a === 'x)]", "unterminated string"),
        ("$[?((@.a)]", "expected )"),
        ("$[?(@[x])]", "expected a quoted name or an index"),
        ("$[?(@['x')]", "expected ]"),
        ("$[?(@.)]", "expected a member name after ."),
        ("$[::0]", "a slice's step cannot be 0"),
        ("$[?(@.a.match(/a/q))]", "unknown regular expression flag 'q'"),
        ("$[?(@.a.match(/(/))]", "invalid regular expression"),
    ],
)
def test_a_path_it_cannot_read_says_where(path: str, said: str) -> None:
    with pytest.raises(JsonPathError) as caught:
        parse(path)
    assert said in str(caught.value)


def test_js_numbers() -> None:
    assert js_number("  12 ") == 12 and js_number("0x10") == 16 and js_number("0b11") == 3
    assert js_number("0o7") == 7 and js_number("1e3") == 1000 and js_number(".5") == 0.5
    assert js_number("") == 0 and js_number(None) == 0 and js_number(True) == 1
    assert js_number("-Infinity") == float("-inf")
    for text in ("abc", "1a", "0xz", [1], {}):
        assert js_number(text) != js_number(text)  # NaN
    assert js_number(False) == 0 and js_number(2.5) == 2.5


def test_js_regexes() -> None:
    assert JsRegex.parse("/^ab/i").search("ABc") and not JsRegex.parse("/^ab/").search("ABc")
    assert JsRegex.parse("/a.b/s").search("a\nb") and not JsRegex.parse("/a.b/").search("a\nb")
    assert JsRegex.parse("/[.]/s").search(".") and not JsRegex.parse("/[.]/s").search("x")
    assert JsRegex.parse("/^b/m").search("a\nb") and not JsRegex.parse("/^b/").search("a\nb")
    assert JsRegex.parse("^\\d+$").search("12")  # no slashes: the whole text is the pattern
    assert JsRegex.parse("/a\\.b/s").search("a.b") and not JsRegex.parse("/a\\.b/s").search("axb")
    assert JsRegex.parse("/x/gyu").search("x")
    assert repr(UNDEFINED) == "undefined"
