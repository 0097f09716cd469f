"""Layout-keeping JSON edits: only the changed members move; everything else stays."""

from __future__ import annotations

import json

import pytest

from jsoncontract.lint.edit import Layout, apply
from jsoncontract.lint.rule import Edit

PRETTY = """{
  "type": "object",
  "properties": {
    "a": {"type": "string"},
    "b": {"type": "integer", "default": 3}
  },
  "required": [
    "a"
  ]
}
"""


def test_layout_spans() -> None:
    layout = Layout(PRETTY)
    span = layout.spans["/properties/b/type"]
    assert PRETTY[span.start : span.end] == '"integer"'
    assert layout.spans["/required"].children == ["/required/0"]
    obj = layout.spans["/properties"]
    assert PRETTY[obj.start] == "{" and PRETTY[obj.end - 1] == "}"


def test_add_member_follows_the_indentation() -> None:
    text, applied = apply(PRETTY, [[Edit("set", "/additionalProperties", False)]])
    assert applied == 1
    assert text.endswith('  "required": [\n    "a"\n  ],\n  "additionalProperties": false\n}\n')
    assert json.loads(text)["additionalProperties"] is False


def test_append_to_a_multi_line_array() -> None:
    text, _ = apply(PRETTY, [[Edit("append", "/required", "b")]])
    assert '"required": [\n    "a",\n    "b"\n  ]' in text


@pytest.mark.parametrize(
    ("before", "edit", "after"),
    [
        ('{"a": 1}', Edit("set", "/b", 2), '{"a": 1, "b": 2}'),
        ('{"a":1,"b":2}', Edit("set", "/c", 3), '{"a":1,"b":2,"c":3}'),
        ("{}", Edit("set", "/a", [1]), '{"a": [1]}'),
        ('{"r": []}', Edit("append", "/r", "x"), '{"r": ["x"]}'),
        ('{"r": ["a", "b"]}', Edit("append", "/r", None), '{"r": ["a", "b", null]}'),
        ('{"a": 1, "b": 2, "c": 3}', Edit("remove", "/a"), '{"b": 2, "c": 3}'),
        ('{"a": 1, "b": 2, "c": 3}', Edit("remove", "/b"), '{"a": 1, "c": 3}'),
        ('{"a": 1, "b": 2, "c": 3}', Edit("remove", "/c"), '{"a": 1, "b": 2}'),
        ('{"only": 1}', Edit("remove", "/only"), "{}"),
        ('{"t": "string"}', Edit("set", "/t", ["string", "null"]), '{"t": ["string", "null"]}'),
        ('{"p": true}', Edit("set", "/p", {}), '{"p": {}}'),
        ('{"x/y": {"~": 1}}', Edit("set", "/x~1y/~0", 2), '{"x/y": {"~": 2}}'),
    ],
)
def test_single_edits(before: str, edit: Edit, after: str) -> None:
    assert apply(before, [[edit]]) == (after, 1)


def test_everything_else_is_untouched() -> None:
    before = '{\n\t"name":   "caf\\u00e9 \u00e9",  "n": 1.50,\n\t"o": {"k": 1}\n}'
    after, _ = apply(before, [[Edit("set", "/o/extra", False)]])
    assert after == before.replace('{"k": 1}', '{"k": 1, "extra": false}')


def test_overlapping_fixes_wait_for_the_next_pass() -> None:
    edits = [
        [Edit("set", "/properties/b/type", ["integer", "null"])],
        [Edit("remove", "/properties/b/default")],  # touches the same span: next pass
        [Edit("set", "/additionalProperties", False)],
    ]
    text, applied = apply(PRETTY, edits)
    assert applied == 2
    assert '"default": 3' in text
    text, applied = apply(text, [[Edit("remove", "/properties/b/default")]])
    assert applied == 1 and '"b": {"type": ["integer", "null"]}' in text


def test_an_edit_whose_target_is_gone_is_skipped() -> None:
    assert apply('{"a": 1}', [[Edit("append", "/nope", 1)], [Edit("remove", "/zz")]]) == (
        '{"a": 1}',
        0,
    )
