"""Strict loading (what orjson would hide) and the diagnosis of text that is not JSON."""

from __future__ import annotations

import time

import pytest

from jsoncontract._json import MAX_DEPTH, NotJSON, diagnose, dumps, line_col, load, short_repr


def anomalies(data: bytes | str) -> list[tuple[str, str]]:
    return [(a.kind, a.pointer) for a in load(data)[1]]


class TestLoad:
    def test_plain_document_has_no_anomalies(self) -> None:
        assert load(b'{"a": [1, 2.5, "x:y"], "b": {"c": null}}') == (
            {"a": [1, 2.5, "x:y"], "b": {"c": None}},
            (),
        )

    @pytest.mark.parametrize(
        ("text", "pointer"),
        [
            (b'{"a":1,"a":2}', "/a"),
            (b'{"a":1,"a":2,"a":3}', "/a"),  # one finding per key, however often it repeats
            (b'{"t":"10:00","b":{"c":1,"c":1}}', "/b/c"),
            (b'[{"x":"a:b:c","x":"d"}]', "/0/x"),
            (b'{"a~b/c":1,"a~b/c":2}', "/a~0b~1c"),
            (b'{"k": "\\u003a", "k": 1}', "/k"),
        ],
    )
    def test_duplicate_keys_are_found_with_their_pointer(self, text: bytes, pointer: str) -> None:
        assert anomalies(text) == [("duplicate_key", pointer)]

    def test_duplicate_keys_keep_the_last_value_like_orjson(self) -> None:
        assert load(b'{"a":1,"a":2}')[0] == {"a": 2}

    def test_colons_inside_strings_do_not_look_like_duplicates(self) -> None:
        assert anomalies(b'{"url": "https://x.test:8443/a:b", "at": "10:00:00"}') == []

    def test_escaped_colon_forces_the_exact_path_and_stays_correct(self) -> None:
        assert load(b'{"a": "x\\u003ay"}') == ({"a": "x:y"}, ())

    @pytest.mark.parametrize("escape", [b"\\u003a", b"\\u003A", b"\\u003a\\u003A"])
    def test_an_escaped_colon_cannot_hide_a_duplicate_key(self, escape: bytes) -> None:
        # the dropped member's colon and the escaped one would cancel out in a count
        assert anomalies(b'{"a": 1, "a": "' + escape + b'"}') == [("duplicate_key", "/a")]

    @pytest.mark.parametrize(
        "number",
        [18446744073709551616, -9223372036854775809, 10**30, -(10**40)],
    )
    def test_integers_beyond_64_bits_keep_their_precision(self, number: int) -> None:
        value, found = load(f'{{"n": {number}}}'.encode())
        assert value == {"n": number}
        assert isinstance(value["n"], int)
        assert [(a.kind, a.pointer) for a in found] == [("big_integer", "/n")]

    @pytest.mark.parametrize("number", [2**63, 2**64 - 1, -(2**63), 9_007_199_254_740_993])
    def test_integers_within_64_bits_are_fine(self, number: int) -> None:
        assert load(f"[{number}]".encode()) == ([number], ())

    def test_long_digit_strings_are_not_numbers(self) -> None:
        assert anomalies(b'{"card": "12345678901234567890123"}') == []

    @pytest.mark.parametrize(
        ("text", "detail"),
        [
            (b'{"x": NaN}', "NaN is not a JSON number"),
            (b'{"x": Infinity}', "Infinity is not a JSON number"),
            (b'{"x": -Infinity}', "-Infinity is not a JSON number"),
            (b'{"x": 1e400}', "overflows a double"),
        ],
    )
    def test_non_finite_numbers(self, text: bytes, detail: str) -> None:
        _, found = load(text)
        assert [(a.kind, a.pointer) for a in found] == [("nan_infinity", "/x")]
        assert detail in found[0].detail

    def test_escaped_lone_surrogate(self) -> None:
        value, found = load(b'{"s": "ab\\ud800c"}')
        assert value["s"] == "ab\ud800c"
        assert [(a.kind, a.pointer) for a in found] == [("lone_surrogate", "/s")]

    def test_lone_surrogate_in_a_python_string(self) -> None:
        assert anomalies('{"s": "\ud83d"}') == [("lone_surrogate", "/s")]

    def test_invalid_utf8_bytes_are_located(self) -> None:
        value, found = load(b'{"city": "Z\xffrich", "ok": "\xc3\xa9"}')
        assert [(a.kind, a.pointer) for a in found] == [("invalid_utf8", "/city")]
        assert "0xff" in found[0].detail
        assert value["ok"] == "é"

    def test_invalid_utf8_in_a_key(self) -> None:
        assert anomalies(b'{"k\xfe": 1}') == [("invalid_utf8", "")]

    def test_byte_order_mark_is_accepted(self) -> None:
        assert load(b'\xef\xbb\xbf{"a": 1}')[0] == {"a": 1}

    def test_depth_beyond_the_limit_is_not_json(self) -> None:
        with pytest.raises(NotJSON) as caught:
            load(b"[" * (MAX_DEPTH + 5) + b"]" * (MAX_DEPTH + 5))
        assert caught.value.diagnosis.code == "parse.too_deep"

    def test_hundred_thousand_levels_do_not_crash(self) -> None:
        with pytest.raises(NotJSON) as caught:
            load(b'{"a":' * 100_000 + b"1" + b"}" * 100_000)
        assert caught.value.diagnosis.code == "parse.too_deep"

    def test_deep_document_on_the_exact_path(self) -> None:
        # a duplicate key forces the standard-library parser; depth must still be bounded
        text = b"[" * 1000 + b'{"a":1,"a":2}' + b"]" * 1000
        _, found = load(text)
        assert found[0].kind == "duplicate_key"


class TestDiagnose:
    @pytest.mark.parametrize(
        ("text", "code", "repaired"),
        [
            ('```json\n{"a": 1}\n```', "parse.code_fence", '{"a": 1}'),
            ("```\n[1]\n```", "parse.code_fence", "[1]"),
            ('Sure! Here you go: {"a": 1} Hope that helps.', "parse.prose", '{"a": 1}'),
            ('{"a": 1} is the answer', "parse.prose", '{"a": 1}'),
            ('{"a": "b', "parse.truncated", None),
            ('{"a": [1, 2', "parse.truncated", None),
            ('{"a":', "parse.truncated", None),
            ('{"a": 1,}', "parse.trailing_comma", '{"a": 1}'),
            ("[1, 2,]", "parse.trailing_comma", "[1, 2]"),
            ("{'a': 'b'}", "parse.single_quotes", '{"a":"b"}'),
            ('{"a": True, "b": None}', "parse.python_literal", '{"a":true,"b":null}'),
            ('{"a": False}', "parse.python_literal", '{"a":false}'),
            ('{"a": NaN}', "parse.nan_infinity", None),
            ('{"a": -Infinity}', "parse.nan_infinity", None),
            ('{"a": 1 // why\n}', "parse.comment", '{"a": 1 \n}'),
            ('{/* c */ "a": 1}', "parse.comment", '{ "a": 1}'),
            ('{"a": "x\ny"}', "parse.control_character", '{"a": "x\\ny"}'),
            ('{"a": "\\x41"}', "parse.invalid_json", None),
            ("{a: 1}", "parse.invalid_json", None),
            ("2025-10-31 WARN gateway timeout", "parse.invalid_json", None),
            ("", "parse.empty", None),
            ("   \n", "parse.empty", None),
        ],
    )
    def test_fault_classes(self, text: str, code: str, repaired: str | None) -> None:
        diagnosis = diagnose(text)
        assert diagnosis.code == code
        assert diagnosis.repaired == repaired
        assert diagnosis.hint

    def test_invalid_utf8_bytes(self) -> None:
        diagnosis = diagnose(b'{"a": "\xff"}')
        assert diagnosis.code == "parse.invalid_utf8"
        assert "0xff" in diagnosis.message

    def test_truncation_names_the_open_container(self) -> None:
        assert "string" in diagnose('{"a": "b').message
        assert "array" in diagnose('{"a": [1').message
        assert "object" in diagnose('{"a": {"b": 1').message

    def test_position_is_line_and_column(self) -> None:
        diagnosis = diagnose('{\n  "a": 1,\n}')
        assert (diagnosis.code, diagnosis.line, diagnosis.column) == ("parse.trailing_comma", 2, 9)

    def test_positions_count_characters_not_bytes(self) -> None:
        diagnosis = diagnose('{"é": "ü" x}')
        assert (diagnosis.line, diagnosis.column) == (1, 11)

    @pytest.mark.parametrize(
        ("text", "repaired"),
        [
            ('```json{"a": 1}```', '{"a": 1}'),
            ('  ```JSON  \r\n{"a": 1}\r\n```  \n', '{"a": 1}'),
            ('```{"a": "```"}```', '{"a": "```"}'),
            ("```json\n{'a': 1}\n```", None),
        ],
    )
    def test_code_fence_shapes(self, text: str, repaired: str | None) -> None:
        diagnosis = diagnose(text)
        assert (diagnosis.code, diagnosis.repaired) == ("parse.code_fence", repaired)

    @pytest.mark.parametrize("tail", ["a", " "])
    def test_an_unclosed_fence_takes_linear_time(self, tail: str) -> None:
        # a long run after ``` once cost quadratic time (30,000 characters: seconds)
        start = time.process_time()
        diagnosis = diagnose("```" + tail * 30_000)
        assert diagnosis.code == "parse.invalid_json"
        assert time.process_time() - start < 0.5

    def test_python_repair_refuses_huge_input(self) -> None:
        text = "{'a': '" + "x" * 200_000 + "'}"
        assert diagnose(text).repaired is None


def test_line_col() -> None:
    assert line_col("ab\ncd", 0) == (1, 1)
    assert line_col("ab\ncd", 4) == (2, 2)
    assert line_col("ab", 99) == (1, 3)


def test_short_repr_cuts_long_values() -> None:
    assert short_repr("x" * 100, 20) == '"xxxxxxxxxxxxxxxx...'
    assert short_repr({"a": 1}) == '{"a":1}'


def test_dumps_accepts_non_string_keys() -> None:
    assert dumps({1: "a"}) == b'{"1":"a"}'


def test_short_repr_of_values_too_deep_to_write() -> None:
    deep: list[object] = []
    for _ in range(1000):
        deep = [deep]
    assert short_repr([[1]] * 3) == "[[1],[1],[1]]"
    assert short_repr(deep) == "(a JSON array nested too deeply to show)"
