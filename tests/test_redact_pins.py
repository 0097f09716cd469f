"""What ``redact`` promises of a stand-in and of the rewrite, pinned one behaviour at a time:
each character keeps its class, hexadecimal stays hexadecimal, numbers keep their shape,
the same secret gets the same stand-in under the same key everywhere (names, numbers, JSON
inside strings, streamed fragments, files), only secrets change, and findings name kind,
hash, place and line."""

from __future__ import annotations

import io
import json
import re
import string
import sys
from pathlib import Path
from typing import Any

import pytest

from jsoncontract.errors import InputError, UsageError
from jsoncontract.masking import SecretFound, digest, masked
from jsoncontract.redact import (
    DEFAULT_KEY,
    FileSecret,
    RedactReport,
    is_stand_in,
    redact_files,
    scrub_text,
    stand_in,
)

KEY = "pins-key"
AWS = "AKIA" + "IOSFODNN7EXAMPLE"
OPENAI = "sk-" + "proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8t"
STRIPE = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
RANDOM = "q8Zr2LxV9nWb4TfK7mPc"  # a random-looking header value


def si(value: str) -> str:
    return stand_in(value, KEY)


def num(value: str) -> str:
    return stand_in(value, KEY, digits_only=True)


def kinds(found: list[SecretFound]) -> list[tuple[str, str, int | None, int | None]]:
    return [(f.kind, f.pointer, f.start, f.end) for f in found]


# -- stand-ins ------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["deadbeef", "0123abcd", "cafe-babe", "feedface0123456789"])
def test_hexadecimal_from_eight_characters_stays_lower_case_hexadecimal(value: str) -> None:
    new = si(value)
    assert re.fullmatch(r"[0-9a-f-]+", new) and len(new) == len(value) and new != value
    assert [i for i, c in enumerate(new) if c == "-"] == [
        i for i, c in enumerate(value) if c == "-"
    ]


@pytest.mark.parametrize("value", ["DEADBEEF", "0123ABCD", "FEEDFACE-0123-4567"])
def test_upper_case_hexadecimal_stays_upper_case_hexadecimal(value: str) -> None:
    assert re.fullmatch(r"[0-9A-F-]+", si(value))


def test_a_long_word_draws_its_letters_from_the_whole_alphabet() -> None:
    # only a hexadecimal value is kept to a-f: a word of 8 or more letters is not
    for value in ("hunterhunter", "passwordpassword", "zzzzzzzzzz"):
        assert set(si(value)) - set("abcdef0123456789"), value


def test_every_character_keeps_its_class() -> None:
    value = ("azAZ09_" * 60) + "!@#$%^&*()-+=[]{}|;:,.<>/?~`' \"\\"
    new = si(value)
    assert len(new) == len(value)
    for a, b in zip(value, new, strict=True):
        if a in string.ascii_lowercase:
            assert b in string.ascii_lowercase, (a, b)
        elif a in string.ascii_uppercase:
            assert b in string.ascii_uppercase, (a, b)
        elif a in string.digits:
            assert b in string.digits, (a, b)
        else:
            assert a == b


@pytest.mark.parametrize("letters", ["Z", "AZ", "XY", "z", "az"])
def test_a_run_of_letters_becomes_letters_of_the_same_case(letters: str) -> None:
    new = si(letters * 200)
    alphabet = string.ascii_uppercase if letters.isupper() else string.ascii_lowercase
    assert set(new) <= set(alphabet) and len(set(new)) > 6


def test_letters_of_other_scripts_become_latin_letters_one_for_one() -> None:
    value = "Zürich-çé" + "ü" * 300
    new = si(value)
    assert len(new) == len(value) and new[0] in string.ascii_uppercase and new[6] == "-"
    assert set(new[1:6] + new[7:]) <= set(string.ascii_lowercase)


def test_url_escapes_stay_escapes_and_only_they_stay_hexadecimal() -> None:
    value = "q=" + "%C3%A9z%2Fz%E2%82%ACz%5Bz%7Dz" * 6
    new = si(value)
    escapes = [m.start() for m in re.finditer("%", value)]
    assert [m.start() for m in re.finditer("%", new)] == escapes
    for at in escapes:
        assert re.fullmatch(r"%[0-9A-F]{2}", new[at : at + 3]), new[at : at + 3]
    after = {new[at + 3] for at in escapes if value[at + 3 : at + 4] == "z"}
    assert after - set("abcdef")  # the letter after an escape is an ordinary letter


def test_the_stand_in_of_nothing_is_nothing() -> None:
    assert stand_in("") == "" and stand_in("", digits_only=True) == ""


def test_different_secrets_of_one_shape_get_different_stand_ins() -> None:
    assert si("hunter2hunter2") != si("hunter3hunter3")
    assert num("123456") != num("654321")


@pytest.mark.parametrize("number", [str(n) for n in range(1, 120)] + ["-7", "-42", "-9.5"])
def test_a_number_stand_in_has_no_leading_zero_where_there_was_none(number: str) -> None:
    new = num(number)
    body = new.lstrip("-")
    assert body[0] != "0" and len(new) == len(number) and new.startswith("-") == (number[0] == "-")


@pytest.mark.parametrize("number", ["1234.5678e12", "-1.25E-7", "2.5e10", "123456789", "-0.125"])
def test_a_number_keeps_its_sign_point_and_exponent_and_is_its_own_stand_in(number: str) -> None:
    new = num(number)
    assert [c for c in new if not c.isdigit()] == [c for c in number if not c.isdigit()]
    assert re.sub(r"\d", "9", new) == re.sub(r"\d", "9", number)
    json.loads(new)  # still a JSON number
    assert num(new) == new


@pytest.mark.parametrize("value", ["ab1", "x", "12", "a-b-c", "é!ü"])
def test_a_value_with_fewer_than_four_letters_and_digits_is_never_a_stand_in(value: str) -> None:
    assert not is_stand_in(si(value)) and not is_stand_in(value)


def test_a_seal_is_over_the_whole_value() -> None:
    new = si("correct-horse-battery-staple-42")
    assert is_stand_in(new)
    for place in range(len(new)):  # any one character changed breaks the seal
        if new[place].isalnum():
            other = "x" if new[place] != "x" else "y"
            if new[place].isdigit():
                other = "1" if new[place] != "1" else "2"
            assert not is_stand_in(new[:place] + other + new[place + 1 :]), place
    assert not is_stand_in(new + "a")  # nor does a longer text pass


LONG_STAND_IN = (
    "ueiximb-xgllr-llavgyc-bgvti-adeqnfe-zaqvs-gbtnnbd-kxdwc-krkihkh-ofklm-ukeljrc-dqfog-"
    "oyzzojx-caykn-fgcwipy-gfthw-vytbawi-vcxdy-tatssrt-ylven-uweyoer-dnrtp-nynarnv-dsoit-"
    "vyqvvho-urxif-jszmbhb-auetr-eoshnqw-pzfet-hcbwphv-ezgvu-toinbcn-lysih-arolqvx-ddvde-"
    "bivprpa-hjepq-jyrnkyg-dafef-"
)
#: Stand-ins written by this version (default key). A capture redacted once must still pass
#: ``redact --check`` after an upgrade, and its stand-ins must keep matching the ones a new
#: run writes for the same secrets: the derivation and the seal may not change silently.
STABLE = [
    ("hunter2hunter2", False, "ershrt6wcifbb9"),
    ("Zürich-42x", False, "Ywsgna-92b"),
    (OPENAI, False, "sk-proj-Sv9zZd5qUb0mOf2iMc8mDd0f"),
    ("123e4567-e89b-12d3-a456-426614174000", False, "748a7579-c66c-30f2-a042-091298537964"),
    ("DEADBEEF", False, "EDCCDBAF"),
    ("a%2Fb", False, "k%6Ec"),
    ("4111111111111111", True, "1893220017618702"),
    ("-1234.5678e12", True, "-6205.2320e30"),
    ("99999999", True, "41786687"),
    ("0.1004", True, "0.7403"),  # a leading zero may stay a zero
    ("ya29.1234567890abc", True, "ya44.0603313183abc"),  # digits alone: the prefix's too
    ("correct-horse-" * 20, False, LONG_STAND_IN),  # longer than 256 characters
    (
        "x" * 100,
        False,
        "dqqybvzguxpgsjoehqerkvfdhwqaanxtptqtkbkmozpmhwrzbizbqwxwhzisdjzyctbopvjqcmjnthdstorhcoth"
        "plpsnxsoedea",
    ),
]


@pytest.mark.parametrize(("value", "digits_only", "written"), STABLE)
def test_stand_ins_are_the_same_from_version_to_version(
    value: str, digits_only: bool, written: str
) -> None:
    assert stand_in(value, digits_only=digits_only) == written
    assert is_stand_in(written, digits_only=digits_only)


# -- the rewrite of a JSON text -------------------------------------------------------------


def _doc() -> dict[str, Any]:
    return {
        "user": "bob",
        "password": "hunter2hunter2",
        "auth": {"pin": 4821, "nested": [{"x": "abcdef123456"}, 17, -2.5, True, False, None, ""]},
        "items": [1, "two", {"token": "tok-9f8e7d6c5b"}, False],
        "headers": {"X-Trace": RANDOM, "Accept": "application/json", "Etag": RANDOM},
        "env": [
            {"name": "DB_PASSWORD", "value": "s3cr3t-value", "other": "kept-as-is"},
            {"key": "X-Custom", "value": RANDOM},
            {"key": "api_key", "value": {"inner": "in-a-pair"}},
            {"name": "city", "value": "Oslo"},
            {"value": RANDOM},
        ],
        "X-Request-Id": RANDOM,
        "list": [RANDOM],
        "note": "café: key " + AWS,
        "ok": False,
    }


def test_the_rewrite_replaces_exactly_the_secrets_with_their_keyed_stand_ins() -> None:
    doc = _doc()
    text = json.dumps(doc, ensure_ascii=False)
    result = scrub_text(text, key=KEY)
    expected = json.loads(text)
    expected["password"] = si("hunter2hunter2")
    expected["auth"]["pin"] = json.loads(num("4821"))
    nested = expected["auth"]["nested"]
    nested[0]["x"] = si("abcdef123456")
    nested[1] = json.loads(num("17"))
    nested[2] = json.loads(num("-2.5"))
    expected["items"][2]["token"] = si("tok-9f8e7d6c5b")
    expected["headers"]["X-Trace"] = si(RANDOM)
    expected["headers"]["Etag"] = si(RANDOM)
    expected["env"][0]["value"] = si("s3cr3t-value")
    expected["env"][1]["value"] = si(RANDOM)
    expected["env"][2]["value"]["inner"] = si("in-a-pair")
    expected["X-Request-Id"] = si(RANDOM)
    expected["note"] = "café: key " + si(AWS)
    assert result.text == json.dumps(expected, ensure_ascii=False)
    assert kinds(result.found) == [
        ("sensitive-name", "/password", None, None),
        ("sensitive-name", "/auth/pin", None, None),
        ("sensitive-name", "/auth/nested/0/x", None, None),
        ("sensitive-name", "/auth/nested/1", None, None),
        ("sensitive-name", "/auth/nested/2", None, None),
        ("sensitive-name", "/items/2/token", None, None),
        ("header-value", "/headers/X-Trace", None, None),
        ("header-value", "/headers/Etag", None, None),
        ("sensitive-name", "/env/0/value", None, None),
        ("header-value", "/env/1/value", None, None),
        ("sensitive-name", "/env/2/value/inner", None, None),
        ("header-value", "/X-Request-Id", None, None),
        ("aws-access-key-id", "/note", 10, 30),
    ]
    assert [f.digest for f in result.found[:2]] == [digest("hunter2hunter2"), digest("4821")]
    assert result.found[-1].digest == digest(AWS)


def test_checking_finds_what_rewriting_replaces_and_changes_nothing() -> None:
    text = json.dumps(_doc(), ensure_ascii=False, indent=1)
    checked = scrub_text(text, key=KEY, check=True)
    assert checked.text == text
    # 17 and -2.5 are too short to carry a seal: a check cannot tell them from stand-ins
    short = ("/auth/nested/1", "/auth/nested/2")
    assert checked.found == [f for f in scrub_text(text, key=KEY).found if f.pointer not in short]


def test_after_a_rewrite_checking_finds_nothing() -> None:
    text = (
        '{"pin": 12e5, "secret": 1234.5678e12, "cvv": -1.5E-7, "token": [7, -3.5, 1234,'
        ' 12345678901, "abc", "hunter2hunter2"], "note": "key ' + AWS + '",'
        ' "headers": {"X-Trace": "' + RANDOM + '"}}'
    )
    new = scrub_text(text, key=KEY).text
    assert new != text
    assert scrub_text(new, key=KEY, check=True).found == []
    assert scrub_text(new, check=True).found == []  # a seal does not depend on the key


def test_each_number_is_reported_with_the_hash_of_its_own_text() -> None:
    text = '{"pin": 4821, "card_number": 73712345, "cvv": [4821]}'
    found = scrub_text(text, check=True).found
    assert [(f.pointer, f.digest) for f in found] == [
        ("/pin", digest("4821")),
        ("/card_number", digest("73712345")),
        ("/cvv/0", digest("4821")),
    ]
    assert scrub_text(text).found == found


def test_a_member_name_that_is_a_key_is_replaced_by_its_stand_in() -> None:
    text = json.dumps({"args": {OPENAI: 1, "city": "Oslo"}})
    result = scrub_text(text, key=KEY)
    assert result.text == json.dumps({"args": {si(OPENAI): 1, "city": "Oslo"}})
    where = "/args/" + masked(OPENAI)
    assert kinds(result.found) == [("openai-api-key", where, 0, len(OPENAI))]
    assert OPENAI not in result.found[0].pointer


def test_strings_without_secrets_keep_their_escapes_byte_for_byte() -> None:
    inner = '{"city": "Z\\u00fcrich", "path": "a\\/b"}'
    text = '{"a": "caf\\u00e9 \\/ \\"q\\"", "arguments": ' + json.dumps(inner) + ', "n": [1, 2.5]}'
    assert scrub_text(text, key=KEY).text == text
    assert scrub_text(" \n" + text + "\n ", key=KEY).text == " \n" + text + "\n "


def test_compact_json_is_rewritten_token_by_token() -> None:
    text = '{"pin":4821,"password":"hunter2hunter2","a":[1,"x",{"token":"tok-9f8e7d6c5b"}]}'
    expected = (
        '{"pin":' + num("4821") + ',"password":"' + si("hunter2hunter2") + '","a":[1,"x",'
        '{"token":"' + si("tok-9f8e7d6c5b") + '"}]}'
    )
    assert scrub_text(text, key=KEY).text == expected
    assert [f.pointer for f in scrub_text(text, key=KEY).found] == [
        "/pin",
        "/password",
        "/a/2/token",
    ]


def test_nested_json_that_needs_no_change_keeps_its_escapes() -> None:
    text = '{"arguments": "{\\"a\\": \\"caf\\u00e9 \\\\/\\"}", "n": 1}'
    assert json.loads(json.loads(text)["arguments"]) == {"a": "café /"}
    assert scrub_text(text, key=KEY).text == text


def test_an_array_held_in_a_string_is_rewritten_by_name() -> None:
    arguments = json.dumps([{"token": "t-1234567890"}, 2])
    result = scrub_text(json.dumps({"arguments": arguments}), key=KEY)
    assert json.loads(json.loads(result.text)["arguments"]) == [{"token": si("t-1234567890")}, 2]
    assert [f.pointer for f in result.found] == ["/arguments/0/token"]


def test_json_five_strings_deep_is_rewritten_by_its_patterns_alone() -> None:
    # the rewrite goes four levels of strings down; deeper, a string is text
    result = scrub_text(_in_strings({"password": "hunter2hunter2", "note": AWS}, 5), key=KEY)
    assert _out_of_strings(result.text, 5) == {"password": "hunter2hunter2", "note": si(AWS)}
    assert [(f.kind, f.pointer) for f in result.found] == [("aws-access-key-id", "/s/s/s/s/s")]


def test_a_string_around_a_secret_keeps_its_other_characters_as_written() -> None:
    text = '{"note": "café déjà vu: ' + AWS + '"}'
    new = scrub_text(text, key=KEY).text
    assert new == '{"note": "café déjà vu: ' + si(AWS) + '"}'


@pytest.mark.parametrize("lead", ["", " ", "\n  "])
def test_json_held_in_a_string_is_rewritten_by_name_and_the_same_key(lead: str) -> None:
    arguments = lead + json.dumps({"token": "t-1234567890", "list": [{"api_key": "k-0987654321"}]})
    text = json.dumps({"function": {"arguments": arguments}})
    result = scrub_text(text, key=KEY)
    expected = lead + json.dumps(
        {"token": si("t-1234567890"), "list": [{"api_key": si("k-0987654321")}]}
    )
    assert json.loads(result.text)["function"]["arguments"] == expected
    assert [f.pointer for f in result.found] == [
        "/function/arguments/token",
        "/function/arguments/list/0/api_key",
    ]


def _in_strings(value: Any, levels: int) -> str:
    """``value`` as JSON held in a string ``levels`` times: ``{"s": "{\\"s\\": ...}"}``."""
    for _ in range(levels):
        value = {"s": json.dumps(value)}
    return json.dumps(value)


def _out_of_strings(text: str, levels: int) -> Any:
    value: Any = json.loads(text)
    for _ in range(levels):
        value = json.loads(value["s"])
    return value


def test_json_nested_four_strings_deep_is_rewritten_by_name() -> None:
    result = scrub_text(_in_strings({"password": "hunter2hunter2"}, 4), key=KEY)
    assert _out_of_strings(result.text, 4) == {"password": si("hunter2hunter2")}
    assert [f.pointer for f in result.found] == ["/s/s/s/s/password"]


def test_a_string_that_starts_like_json_but_is_not_is_rewritten_by_its_patterns() -> None:
    text = json.dumps({"note": "{not json: " + AWS + "}"})
    result = scrub_text(text, key=KEY, pointer="/body")
    assert json.loads(result.text)["note"] == "{not json: " + si(AWS) + "}"
    assert kinds(result.found) == [("aws-access-key-id", "/body/note", 11, 31)]
    assert scrub_text(text, key=KEY, check=True).text == text


@pytest.mark.parametrize(
    "text",
    [
        '[X, {"password": "hunter2hunter2"}]]',  # not JSON: patterns only
        '[[X, {"password": "hunter2hunter2"}]',
        '{"password": "hunter2hunter2"} {"password": "hunter2hunter2"}',  # two documents
        '{"password": "hunter2hunter2"}}',
        '{"password": "hunter2hunter2"} true',
        '{"password": "hunter2hunter2"} :',
        '{"password": "hunter2hunter2"',  # cut short
        '{"password": "hunter2hunter2", "n": [1, 2',
        '{"password": "hunter2hunter2", "ok": flase}',
        "",
        "   ",
        '"password"',
    ],
)
def test_text_that_is_not_one_json_document_is_rewritten_by_patterns_alone(text: str) -> None:
    result = scrub_text(text, key=KEY)
    assert result.text == text and result.found == []
    broken = text + " " + AWS
    assert scrub_text(broken, key=KEY).text == text + " " + si(AWS)


def test_plain_text_findings_have_their_span_and_the_given_pointer() -> None:
    line = AWS + " then OPENAI_API_KEY=" + OPENAI + " and Bearer abcdefghijkl123456"
    result = scrub_text(line, key=KEY, pointer="/log")
    assert kinds(result.found) == [
        ("aws-access-key-id", "/log", 0, 20),
        ("openai-api-key", "/log", 41, 41 + len(OPENAI)),
        ("bearer-token", "/log", len(line) - 18, len(line)),
    ]
    assert result.text == (
        si(AWS) + " then OPENAI_API_KEY=" + si(OPENAI) + " and Bearer " + si("abcdefghijkl123456")
    )
    checked = scrub_text(line, key=KEY, pointer="/log", check=True)
    assert checked.text == line and checked.found == result.found


def test_a_value_that_keeps_false_true_and_null_around_secrets() -> None:
    text = '{"a": [false], "b": {"secret": "hunter2hunter2", "f": false}, "t": true, "n": null}'
    new = scrub_text(text, key=KEY).text
    assert new == text.replace("hunter2hunter2", si("hunter2hunter2"))


def test_the_default_key_is_the_documented_one() -> None:
    text = json.dumps({"password": "hunter2hunter2", "pin": 1234, "n": "id " + AWS})
    assert scrub_text(text).text == scrub_text(text, key=DEFAULT_KEY).text
    assert json.loads(scrub_text(text).text)["password"] == stand_in("hunter2hunter2", DEFAULT_KEY)


# -- files ----------------------------------------------------------------------------------


def _lines(*docs: Any) -> str:
    return "".join((d if isinstance(d, str) else json.dumps(d)) + "\n" for d in docs)


def test_a_jsonl_capture_is_rewritten_line_by_line_with_the_key(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text(
        _lines(
            {"password": "hunter2hunter2", "n": 1},
            "",
            "event: message " + AWS,
            "id: 7",
            ": comment " + AWS,
            "retry: 1000",
            "data: " + json.dumps({"token": "tok-abcdef123456"}),
            "data:" + json.dumps({"token": "tok-abcdef123456"}),
            "not json " + AWS,
        )
    )
    out = tmp_path / "out.jsonl"
    report = redact_files([str(source)], str(out), key=KEY)
    assert out.read_text() == _lines(
        {"password": si("hunter2hunter2"), "n": 1},
        "",
        "event: message " + si(AWS),
        "id: 7",
        ": comment " + si(AWS),
        "retry: 1000",
        "data: " + json.dumps({"token": si("tok-abcdef123456")}),
        "data:" + json.dumps({"token": si("tok-abcdef123456")}),
        "not json " + si(AWS),
    )
    [result] = report.files
    assert (result.path, result.output) == (str(source), str(out))
    assert [(s.line, s.secret.kind, s.secret.pointer, s.secret.start) for s in result.secrets] == [
        (1, "sensitive-name", "/password", None),
        (3, "aws-access-key-id", "", 15),
        (5, "aws-access-key-id", "", 10),
        (7, "sensitive-name", "/token", None),
        (8, "sensitive-name", "/token", None),
        (9, "aws-access-key-id", "", 9),
    ]
    checked = redact_files([str(out)], None, key=KEY, check=True)
    assert checked.count() == 0 and checked.files[0].output is None


def test_invalid_utf8_bytes_pass_through_every_kind_of_capture(tmp_path: Path) -> None:
    bad = b"\xff\xfe"
    secret = b"hunter2" + bad + b"hunter2"
    cases = {
        "a.jsonl": b'{"password": "'
        + secret
        + b'", "x": "\xff"}\nevent: '
        + bad
        + b" "
        + AWS.encode()
        + b"\n",
        "b.json": b'{\n "x": "\xff",\n "password": "' + secret + b'"\n}\n',
        "c.sse": b'data: {"password": "' + secret + b'", "x": "\xc3"}\n\n',
        "d.json": b"data: " + bad + b" " + AWS.encode() + b"\n\n",
    }
    for name, data in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        out = tmp_path / ("out-" + name)
        report = redact_files([str(path)], str(out), key=KEY)
        new = out.read_bytes()
        assert b"hunter2" + bad not in new and AWS.encode() not in new, name
        assert new.count(bad) + new.count(b"\xff") >= 1 and len(new) == len(data), name
        assert report.count() >= 1


def test_an_sse_body_saved_as_json_is_rewritten_event_by_event(tmp_path: Path) -> None:
    body = (
        "\n"
        "event: start\n"
        'data: {"token": "tok-abcdef123456", "n": 1}\n'
        "\n"
        ": keep-alive " + AWS + "\n"
        "data: not json " + AWS + "\r\n"
        "data:" + json.dumps({"api_key": "k-0987654321"}) + "\n"
    )
    path = tmp_path / "stream.json"
    path.write_bytes(body.encode())
    out = tmp_path / "out.json"
    report = redact_files([str(path)], str(out), key=KEY)
    assert out.read_bytes().decode() == (
        "\n"
        "event: start\n"
        'data: {"token": "' + si("tok-abcdef123456") + '", "n": 1}\n'
        "\n"
        ": keep-alive " + si(AWS) + "\n"
        "data: not json " + si(AWS) + "\r\n"
        "data:" + json.dumps({"api_key": si("k-0987654321")}) + "\n"
    )
    assert [
        (s.line, s.secret.kind, s.secret.pointer, s.secret.start) for s in report.files[0].secrets
    ] == [
        (3, "sensitive-name", "/token", None),
        (5, "aws-access-key-id", "", 13),
        (6, "aws-access-key-id", "", 9),
        (7, "sensitive-name", "/api_key", None),
    ]
    checked = redact_files([str(out)], None, check=True)
    assert checked.count() == 0
    assert redact_files([str(path)], None, check=True).count() == 4


def test_an_sse_body_saved_as_json_may_start_with_data(tmp_path: Path) -> None:
    path = tmp_path / "stream.json"
    path.write_text('data: {"token": "tok-abcdef123456"}\n\ndata: [DONE]\n')
    out = tmp_path / "out.json"
    report = redact_files([str(path)], str(out), key=KEY)
    expected = 'data: {"token": "' + si("tok-abcdef123456") + '"}\n\ndata: [DONE]\n'
    assert out.read_text() == expected
    assert [(s.line, s.secret.pointer) for s in report.files[0].secrets] == [(1, "/token")]


def test_a_member_name_that_is_a_key_is_replaced_in_a_json_document(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    path.write_text(json.dumps({"args": {OPENAI: 1}}, indent=2))
    out = tmp_path / "out.json"
    report = redact_files([str(path)], str(out), key=KEY)
    assert json.loads(out.read_text()) == {"args": {si(OPENAI): 1}}
    [found] = report.files[0].secrets
    assert (found.secret.kind, found.secret.pointer) == (
        "openai-api-key",
        "/args/" + masked(OPENAI),
    )


def test_a_json_document_reports_the_line_of_each_secret(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    path.write_text(
        '{\n  "a": 1,\n  "password": "hunter2hunter2",\n  "b": [\n    "' + AWS + '"\n  ]\n}\n'
    )
    out = tmp_path / "out.json"
    report = redact_files([str(path)], str(out), key=KEY)
    assert [(s.line, s.secret.pointer) for s in report.files[0].secrets] == [
        (3, "/password"),
        (5, "/b/0"),
    ]
    assert json.loads(out.read_text()) == {"a": 1, "password": si("hunter2hunter2"), "b": [si(AWS)]}
    assert redact_files([str(out)], None, check=True).count() == 0


def test_standard_input_holding_one_document_is_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = '{\n  "password": "hunter2hunter2",\n  "note": "' + AWS + '"\n}\n'

    def feed(data: str) -> None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data.encode())))

    feed(text)
    out = tmp_path / "out.json"
    report = redact_files(["-"], str(out), key=KEY)
    assert json.loads(out.read_text()) == {"password": si("hunter2hunter2"), "note": si(AWS)}
    assert [s.line for s in report.files[0].secrets] == [2, 3]
    feed(out.read_text())
    assert redact_files(["-"], None, check=True).count() == 0
    feed(_lines({"password": "hunter2hunter2"}, {"x": 1}))
    report = redact_files(["-"], str(tmp_path / "out.jsonl"), key=KEY)
    assert (tmp_path / "out.jsonl").read_text() == _lines(
        {"password": si("hunter2hunter2")}, {"x": 1}
    )


def test_checking_writes_nothing_even_when_an_output_is_named(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_text(_lines({"password": "hunter2hunter2"}))
    report = redact_files([str(path)], str(tmp_path / "out" / "x.jsonl"), check=True)
    assert not (tmp_path / "out").exists() and report.count() == 1
    assert report.files[0].output is None


def test_redacting_without_check_writes(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text(json.dumps({"password": "hunter2hunter2"}))
    redact_files([str(path)], str(tmp_path / "b.json"))
    assert json.loads((tmp_path / "b.json").read_text()) == {"password": stand_in("hunter2hunter2")}


def test_several_captures_go_to_a_directory_with_the_key(tmp_path: Path) -> None:
    folder = tmp_path / "caps"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "a.jsonl").write_text(_lines({"password": "hunter2hunter2"}))
    (tmp_path / "b.json").write_text(json.dumps({"token": "tok-abcdef123456"}))
    out = tmp_path / "out"
    report = redact_files([str(folder), str(tmp_path / "b.json")], str(out), key=KEY)
    assert (out / "caps" / "sub" / "a.jsonl").read_text() == _lines(
        {"password": si("hunter2hunter2")}
    )
    assert json.loads((out / "b.json").read_text()) == {"token": si("tok-abcdef123456")}
    assert report.to_dict() == {
        "version": 1,
        "summary": {"files": 2, "files_with_secrets": 2, "secrets": 2, "check": False},
        "files": [
            {
                "file": str(folder / "sub" / "a.jsonl"),
                "output": str(out / "caps" / "sub" / "a.jsonl"),
                "secrets": [
                    {
                        "line": 1,
                        "kind": "sensitive-name",
                        "sha256": digest("hunter2hunter2"),
                        "pointer": "/password",
                        "start": None,
                        "end": None,
                    }
                ],
            },
            {
                "file": str(tmp_path / "b.json"),
                "output": str(out / "b.json"),
                "secrets": [
                    {
                        "line": 1,
                        "kind": "sensitive-name",
                        "sha256": digest("tok-abcdef123456"),
                        "pointer": "/token",
                        "start": None,
                        "end": None,
                    }
                ],
            },
        ],
    }


def test_the_summary_counts_files_with_secrets_once_each() -> None:
    report = RedactReport(True)
    from jsoncontract.redact import FileResult

    found = FileSecret(2, SecretFound("jwt", "1a2b3c4d", "/a"))
    report.files += [
        FileResult("a", None, [found, found]),
        FileResult("b", None),
        FileResult("c", None, [found]),
    ]
    assert report.summary() == {"files": 3, "files_with_secrets": 2, "secrets": 3, "check": True}
    assert found.to_dict() == {
        "line": 2,
        "kind": "jwt",
        "sha256": "1a2b3c4d",
        "pointer": "/a",
        "start": None,
        "end": None,
    }


def test_an_output_directory_that_cannot_be_made_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text("{}")
    (tmp_path / "b.json").write_text("{}")
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(InputError) as caught:
        redact_files([str(tmp_path / "a.json"), str(tmp_path / "b.json")], str(blocker / "out"))
    assert caught.value.message.startswith("cannot create the output directory: ")
    assert caught.value.file == str(blocker / "out")
    assert "Errno" not in caught.value.message


def test_a_directory_without_captures_and_a_missing_output_are_clear_errors(
    tmp_path: Path,
) -> None:
    with pytest.raises(InputError) as caught:
        redact_files([str(tmp_path)], str(tmp_path / "o.jsonl"))
    assert caught.value.message.startswith("directory has no capture files (*.json, ")
    (tmp_path / "a.json").write_text("{}")
    with pytest.raises(UsageError) as usage:
        redact_files([str(tmp_path / "a.json")], None)
    assert usage.value.message == (
        "name where the redacted captures go: -o FILE (or -o DIR for several)"
    )


def test_a_line_over_the_limit_stops_the_run_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jsoncontract.capture import reader

    monkeypatch.setattr(reader, "MAX_LINE_BYTES", 2**20)
    path = tmp_path / "big.jsonl"
    path.write_text(_lines({"x": 1}, {"x": "a" * 2**20}))
    with pytest.raises(InputError) as caught:
        redact_files([str(path)], None, check=True)
    assert caught.value.file == str(path)
    assert caught.value.message == (
        "line 2 is over the 1 MiB limit of one line; it cannot be redacted or checked"
    )


# -- streamed fragments ---------------------------------------------------------------------


def _chunk(cid: str, choices: list[Any]) -> dict[str, Any]:
    return {"id": cid, "object": "chat.completion.chunk", "choices": choices}


def _call(arguments: str, index: int | None = 0) -> dict[str, Any]:
    call: dict[str, Any] = {"function": {"arguments": arguments}}
    if index is not None:
        call["index"] = index
    return call


def _choice(calls: list[Any], index: int | None = 0) -> dict[str, Any]:
    choice: dict[str, Any] = {"delta": {"tool_calls": calls}}
    if index is not None:
        choice["index"] = index
    return choice


def _redact_lines(
    tmp_path: Path, lines: list[Any], suffix: str = ".jsonl"
) -> tuple[list[Any], Any]:
    path = tmp_path / ("in" + suffix)
    path.write_text(_lines(*lines))
    out = tmp_path / ("out" + suffix)
    report = redact_files([str(path)], str(out), key=KEY)
    new = [
        json.loads(line) if line.startswith("{") else line for line in out.read_text().splitlines()
    ]
    return new, report.files[0]


HEAD = '{"city": "Oslo", "key": "' + STRIPE[:14]
TAIL = STRIPE[14:] + '"}'
WHOLE_NEW = scrub_text(HEAD + TAIL, key=KEY).text


def test_interleaved_chat_completions_are_joined_per_completion(tmp_path: Path) -> None:
    other = '{"city": "Bergen", "n": 12345678901234567890}'
    lines = [
        _chunk("a", [_choice([_call(HEAD)])]),
        _chunk("b", [_choice([_call(other[:20])])]),
        _chunk("a", [_choice([_call(TAIL)])]),
        _chunk("b", [_choice([_call(other[20:])])]),
    ]
    new, result = _redact_lines(tmp_path, lines)
    args = [line["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"] for line in new]
    assert args[0] + args[2] == WHOLE_NEW and len(args[0]) == len(HEAD)
    assert args[1] + args[3] == other
    assert [(s.line, s.secret.kind, s.secret.pointer) for s in result.secrets] == [
        (1, "stripe-key", "/choices/0/delta/tool_calls/0/function/arguments")
    ]
    assert result.secrets[0].secret.digest == digest(STRIPE)


def test_choices_and_parallel_calls_are_joined_by_their_index(tmp_path: Path) -> None:
    lines = [
        _chunk("a", [_choice([_call(HEAD, 1)], 1)]),
        _chunk("a", [_choice([_call('{"n": 1', 0)], 0)]),
        _chunk(
            "a",
            [{"index": 0, "delta": {"content": "hi"}}, _choice([_call("x", 0), _call(TAIL, 1)], 1)],
        ),
        _chunk("a", [_choice([_call("}", 0)], 0)]),
    ]
    new, result = _redact_lines(tmp_path, lines)
    calls = [line["choices"][-1]["delta"]["tool_calls"] for line in new]
    assert calls[0][0]["function"]["arguments"] + calls[2][1]["function"]["arguments"] == WHOLE_NEW
    assert calls[1][0]["function"]["arguments"] == '{"n": 1'
    # the finding is placed at the first fragment of the stream
    assert [(s.line, s.secret.pointer) for s in result.secrets] == [
        (1, "/choices/0/delta/tool_calls/0/function/arguments")
    ]


def test_the_choices_of_one_completion_are_joined_apart(tmp_path: Path) -> None:
    lines = [
        _chunk("a", [_choice([_call('{"n": ')], 0)]),
        _chunk("a", [_choice([_call(HEAD)], 1)]),
        _chunk("a", [_choice([_call("1}")], 0)]),
        _chunk("a", [_choice([_call(TAIL)], 1)]),
        _chunk("b", [_choice([_call("x1")], None), _choice([_call(HEAD)], None)]),
        _chunk("b", [_choice([_call("x2")], None), _choice([_call(TAIL)], None)]),
    ]
    new, result = _redact_lines(tmp_path, lines)
    args = [
        [c["delta"]["tool_calls"][0]["function"]["arguments"] for c in line["choices"]]
        for line in new
    ]
    assert args[1][0] + args[3][0] == WHOLE_NEW and args[0][0] + args[2][0] == '{"n": 1}'
    assert args[4][1] + args[5][1] == WHOLE_NEW and args[4][0] + args[5][0] == "x1x2"
    assert [(s.line, s.secret.pointer) for s in result.secrets] == [
        (2, "/choices/0/delta/tool_calls/0/function/arguments"),
        (5, "/choices/1/delta/tool_calls/0/function/arguments"),
    ]


def test_calls_and_choices_without_an_index_are_joined_by_position(tmp_path: Path) -> None:
    lines = [
        _chunk(
            "a",
            [
                _choice([_call('{"n": "x"}', None), _call(HEAD, None)], None),
                _choice([_call("[", None)], None),
            ],
        ),
        _chunk(
            "a",
            [
                _choice([_call("", None), _call(TAIL, None)], None),
                _choice([_call("]", None)], None),
            ],
        ),
    ]
    new, result = _redact_lines(tmp_path, lines)
    second = [line["choices"][0]["delta"]["tool_calls"][1]["function"]["arguments"] for line in new]
    assert "".join(second) == WHOLE_NEW
    assert [(s.line, s.secret.pointer) for s in result.secrets] == [
        (1, "/choices/0/delta/tool_calls/1/function/arguments")
    ]


def test_arguments_sent_whole_are_reported_at_the_member_that_holds_the_secret(
    tmp_path: Path,
) -> None:
    whole = json.dumps({"api_key": "k-0987654321", "city": "Oslo"})
    lines = [
        _chunk("a", [_choice([_call("")])]),
        _chunk("a", [_choice([_call(whole)])]),
        {"type": "message_start", "message": {"id": "m1"}},
        {"type": "content_block_delta", "index": 1, "delta": {"partial_json": ""}},
        {"type": "content_block_delta", "index": 1, "delta": {"partial_json": whole}},
        {
            "type": "response.function_call_arguments.delta",
            "item_id": "i",
            "output_index": 0,
            "delta": "",
        },
        {
            "type": "response.function_call_arguments.delta",
            "item_id": "i",
            "output_index": 0,
            "delta": whole,
        },
    ]
    new, result = _redact_lines(tmp_path, lines)
    assert [(s.line, s.secret.pointer) for s in result.secrets] == [
        (2, "/choices/0/delta/tool_calls/0/function/arguments/api_key"),
        (5, "/delta/partial_json/api_key"),
        (7, "/delta/api_key"),
    ]
    assert json.loads(new[1]["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"]) == {
        "api_key": si("k-0987654321"),
        "city": "Oslo",
    }


def test_anthropic_fragments_are_joined_per_message_and_block(tmp_path: Path) -> None:
    lines = [
        {"type": "message_start", "message": {"id": "m1"}},
        {"type": "content_block_delta", "index": 1, "delta": {"partial_json": '{"a": "'}},
        {"type": "content_block_delta", "index": 2, "delta": {"partial_json": HEAD}},
        {"type": "content_block_delta", "index": 1, "delta": {"partial_json": 'b"}'}},
        {"type": "content_block_delta", "index": 2, "delta": {"partial_json": TAIL}},
        {"type": "message_start", "message": {"id": "m2"}},
        {"type": "content_block_delta", "index": 2, "delta": {"partial_json": HEAD}},
        {"type": "content_block_delta", "index": 2, "delta": {"partial_json": TAIL}},
    ]
    new, result = _redact_lines(tmp_path, lines)
    parts = [line.get("delta", {}).get("partial_json") for line in new]
    assert parts[2] + parts[4] == WHOLE_NEW and parts[6] + parts[7] == WHOLE_NEW
    assert parts[1] + parts[3] == '{"a": "b"}'
    assert [(s.line, s.secret.kind, s.secret.pointer) for s in result.secrets] == [
        (3, "stripe-key", "/delta/partial_json"),
        (7, "stripe-key", "/delta/partial_json"),
    ]


def test_responses_fragments_are_joined_per_item_and_output(tmp_path: Path) -> None:
    def event(item: str, output: int, delta: str) -> dict[str, Any]:
        kind = "response.function_call_arguments.delta"
        return {"type": kind, "item_id": item, "output_index": output, "delta": delta}

    lines = [
        event("i1", 0, HEAD),
        event("i2", 0, '{"a": 1'),
        event("i1", 1, '{"b": 2'),
        {"type": "response.output_text.delta", "item_id": "i1", "output_index": 0, "delta": "text"},
        event("i1", 0, TAIL),
        event("i2", 0, "}"),
        event("i1", 1, "}"),
    ]
    new, result = _redact_lines(tmp_path, lines)
    deltas = [line["delta"] for line in new]
    assert deltas[0] + deltas[4] == WHOLE_NEW
    assert deltas[1] + deltas[5] == '{"a": 1}' and deltas[2] + deltas[6] == '{"b": 2}'
    assert deltas[3] == "text"
    assert [(s.line, s.secret.pointer) for s in result.secrets] == [(1, "/delta")]


def test_fragments_in_an_sse_file_are_joined_across_event_lines(tmp_path: Path) -> None:
    lines = [
        "event: message_start",
        "data: " + json.dumps({"type": "message_start", "message": {"id": "m1"}}),
        "",
        "event: content_block_delta",
        "data:"
        + json.dumps({"type": "content_block_delta", "index": 0, "delta": {"partial_json": HEAD}}),
        "",
        "event: content_block_delta",
        "data: "
        + json.dumps({"type": "content_block_delta", "index": 0, "delta": {"partial_json": TAIL}}),
    ]
    path = tmp_path / "s.sse"
    path.write_text(_lines(*lines))
    out = tmp_path / "o.sse"
    report = redact_files([str(path)], str(out), key=KEY)
    text = out.read_text().splitlines()
    first = json.loads(text[4][5:])["delta"]["partial_json"]
    second = json.loads(text[7][6:])["delta"]["partial_json"]
    assert first + second == WHOLE_NEW
    assert [s.line for s in report.files[0].secrets] == [5]
    assert redact_files([str(out)], None, check=True).count() == 0


def test_a_split_key_written_with_an_escape_goes_whole_to_the_first_fragment(
    tmp_path: Path,
) -> None:
    head = '{"k": "\\u0073k_live_4eC39Hq'
    tail = 'LyjWDarjtT1zdp7dc", "n": 1}'
    lines = [
        _chunk("a", [_choice([_call(head)])]),
        _chunk("a", [_choice([_call(tail)])]),
        _chunk("a", [_choice([_call("")])]),
    ]
    new, result = _redact_lines(tmp_path, lines)
    args = [line["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"] for line in new]
    assert args[1:] == ["", ""] and json.loads(args[0]) == {"k": si(STRIPE), "n": 1}
    assert [s.line for s in result.secrets] == [1]


def test_malformed_stream_events_are_read_without_failing(tmp_path: Path) -> None:
    lines = [
        _chunk(
            "a",
            [
                1,
                {"delta": 2},
                {"delta": {"tool_calls": 3}},
                {"delta": {"tool_calls": [4, {"function": 5}]}},
            ],
        ),
        _chunk("a", [{"delta": {"tool_calls": [{"function": {"arguments": 6}}]}}]),
        {"type": "content_block_delta", "delta": {"partial_json": 7}},
        {"type": "response.function_call_arguments.delta", "delta": 8},
        {"password": "hunter2hunter2"},
        [1, 2],
    ]
    new, result = _redact_lines(tmp_path, lines)
    assert new[:4] == lines[:4] and new[4] == {"password": si("hunter2hunter2")}
    assert len(result.secrets) == 1
