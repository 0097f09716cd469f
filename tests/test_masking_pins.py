"""What reports promise about hidden values, pinned one behaviour at a time: masking by
member name and by the value's form, header values, placeholders and labels, the depth
searched, member names that are secrets, values taken from the environment, and the places
:func:`find_secrets` reports."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from jsoncontract import masking
from jsoncontract.masking import (
    HEADER_SECRET_BITS,
    SEARCH_DEPTH,
    SecretFound,
    digest,
    find_secrets,
    hide,
    looks_random,
    masked,
    masked_names,
    masked_pointer,
    masked_value,
    may_hold_secret,
    placeholder,
    redacted,
    redacted_text,
    secrets_in,
)

AWS = "AKIA" + "IOSFODNN7EXAMPLE"
OPENAI = "sk-" + "abcdefghijklmnopqrstuvwx"
RANDOM = "q8Zr2LxV9nWb4TfK7mPc"


def label(kind: str, secret: str) -> str:
    return f"<redacted {kind} sha256:{digest(secret)}>"


@pytest.fixture
def environment() -> Iterator[None]:
    """Values hidden for this test alone (:func:`hide` is process-wide)."""
    saved = dict(masking._HIDDEN)
    masking._HIDDEN.clear()
    masking._masked.cache_clear()
    yield
    masking._HIDDEN.clear()
    masking._HIDDEN.update(saved)
    masking._masked.cache_clear()


# -- by the value's form --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "secret", "kind"),
    [
        ("pass=abcd", "abcd", "assigned-secret"),
        ("token: x1y2", "x1y2", "assigned-secret"),
        ("ab://u:p@h", "p", "url-password"),
        ("secret=abcdef", "abcdef", "assigned-secret"),
    ],
)
def test_the_shortest_secrets_of_a_pattern_are_masked(text: str, secret: str, kind: str) -> None:
    at = text.index(secret, text.index("=") if "=" in text else text.index(":"))
    shown = text[:at] + label(kind, secret) + text[at + len(secret) :]
    assert masked(text) == shown
    assert redacted({"note": text}) == {"note": shown}
    assert [(f.kind, f.start, f.end) for f in find_secrets(text)] == [(kind, at, at + len(secret))]


def test_a_key_assigned_to_a_name_is_named_by_its_own_kind_wherever_the_text_goes_on() -> None:
    text = f"OPENAI_API_KEY={OPENAI} failed; retry"
    assert masked(text) == f"OPENAI_API_KEY={label('openai-api-key', OPENAI)} failed; retry"


def test_a_label_keeps_the_text_around_the_secret() -> None:
    text = "request: Authorization: Bearer abcdefghijkl12345 sent"
    assert masked(text) == (
        "request: Authorization: Bearer " + label("bearer-token", "abcdefghijkl12345") + " sent"
    )


def test_a_long_text_is_masked_like_a_short_one() -> None:
    text = "x" * 2000 + " " + AWS + " " + "y" * 10
    assert masked(text) == "x" * 2000 + " " + label("aws-access-key-id", AWS) + " " + "y" * 10
    assert masked(text) == masked(text)  # and again, however it is remembered


def test_masked_value_masks_every_string_but_not_member_names() -> None:
    value = {"default": "key " + AWS, "n": 1, "list": [AWS, 2, {AWS: AWS}], "none": None}
    shown = label("aws-access-key-id", AWS)
    assert masked_value(value) == {
        "default": "key " + shown,
        "n": 1,
        "list": [shown, 2, {AWS: shown}],
        "none": None,
    }
    assert masked_value(AWS) == shown and masked_value(7) == 7


def test_masked_pointer_masks_member_names_that_are_secrets() -> None:
    shown = label("openai-api-key", OPENAI)
    assert masked_pointer(f"/args/{OPENAI}/n") == f"/args/{shown}/n"
    assert masked_pointer(f"/{OPENAI}") == f"/{shown}"
    assert masked_pointer("/args/city/0") == "/args/city/0"
    assert (
        masked_pointer("/a~1b/long enough to search/sk-short")
        == "/a~1b/long enough to search/sk-short"
    )


def test_masked_names_masks_the_pointer_and_each_name_in_the_texts() -> None:
    shown = label("openai-api-key", OPENAI)
    assert masked_names(f"/a/{OPENAI}", f"{OPENAI!r} is not allowed", None, "plain") == (
        f"/a/{shown}",
        f"'{shown}' is not allowed",
        None,
        "plain",
    )
    assert masked_names("/a/quite-a-long-name", "text") == ("/a/quite-a-long-name", "text")


def test_only_a_text_holding_a_marker_of_some_pattern_may_hold_a_secret() -> None:
    assert not may_hold_secret("a long text that names no key format at all")
    assert not may_hold_secret("abc") and not may_hold_secret("")
    for text in ("id " + AWS, "x-privatekey: abc", "TOKEN=abcdefgh", "https://hooks.slack.com/"):
        assert may_hold_secret(text), text


# -- by name, and under header names --------------------------------------------------------


def test_redacted_hides_by_name_after_other_members_and_inside_lists() -> None:
    value = {
        "plain": "shown",
        "obj": {"n": 1},
        "list": [1, "note " + AWS, {"token": "t-1"}, [AWS]],
        "password": "hunter2",
    }
    assert redacted(value) == {
        "plain": "shown",
        "obj": {"n": 1},
        "list": [
            1,
            "note " + label("aws-access-key-id", AWS),
            {"token": placeholder("t-1")},
            [label("aws-access-key-id", AWS)],
        ],
        "password": placeholder("hunter2"),
    }


def test_a_member_after_a_number_or_null_is_still_hidden_by_name() -> None:
    value = {"n": 1, "none": None, "ok": True, "token": "t-1", "list": [None, 2, "k " + AWS]}
    assert redacted(value) == {
        "n": 1,
        "none": None,
        "ok": True,
        "token": placeholder("t-1"),
        "list": [None, 2, "k " + label("aws-access-key-id", AWS)],
    }


def test_a_header_value_that_looks_random_is_hidden_and_nothing_else_is() -> None:
    value = {
        "headers": {"Etag": RANDOM, "Accept": "application/json"},
        "X-Trace": RANDOM,
        "meta": {"etag": RANDOM},
        "items": [{"note": RANDOM}, RANDOM],
        "pairs": [
            {"name": "X-Custom", "value": RANDOM},
            {"name": "city", "value": RANDOM},
            {"value": RANDOM},
            {"key": "api_key", "value": "k"},
            {"name": 5, "value": "five"},
        ],
    }
    assert redacted(value) == {
        "headers": {"Etag": placeholder(RANDOM), "Accept": "application/json"},
        "X-Trace": placeholder(RANDOM),
        "meta": {"etag": RANDOM},
        "items": [{"note": RANDOM}, RANDOM],
        "pairs": [
            {"name": "X-Custom", "value": placeholder(RANDOM)},
            {"name": "city", "value": RANDOM},
            {"value": RANDOM},
            {"key": "api_key", "value": placeholder("k")},
            {"name": 5, "value": "five"},
        ],
    }


@pytest.mark.parametrize("pointer", ["/req/X-Trace", "/req/headers/Etag", "/headers/Etag"])
def test_a_value_at_a_header_pointer_is_hidden_when_it_looks_random(pointer: str) -> None:
    assert redacted(RANDOM, pointer) == placeholder(RANDOM)
    assert redacted({"v": RANDOM}, pointer) == {"v": placeholder(RANDOM)}
    assert redacted("application/json", pointer) == "application/json"
    assert redacted(RANDOM, "/req/etag") == RANDOM


def test_a_random_token_of_exactly_the_bits_asked_for_is_a_credential() -> None:
    token = "aabbccdd12345678"  # 16 characters, 3.5 bits each
    assert HEADER_SECRET_BITS == 3.5 and looks_random(token)
    assert not looks_random("aabbccdd1234567")  # 15 characters


def test_a_member_name_that_is_a_secret_is_masked_and_the_other_members_still_hidden() -> None:
    value = {OPENAI: "v", "password": "hunter2", "city": "Oslo"}
    assert redacted(value) == {
        label("openai-api-key", OPENAI): "v",
        "password": placeholder("hunter2"),
        "city": "Oslo",
    }


def _nest(levels: int, leaf: Any) -> Any:
    value = leaf
    for n in range(levels):
        value = [value] if n % 2 else {"k": value}
    return value


def test_containers_are_searched_down_to_the_search_depth_and_hidden_whole_below() -> None:
    inner = {"password": "hunter2"}
    searched = redacted(_nest(SEARCH_DEPTH, inner))
    hidden = redacted(_nest(SEARCH_DEPTH + 1, inner))

    def leaf(value: Any, levels: int) -> Any:
        for n in reversed(range(levels)):
            value = value[0] if n % 2 else value["k"]
        return value

    assert leaf(searched, SEARCH_DEPTH) == {"password": placeholder("hunter2")}
    assert leaf(hidden, SEARCH_DEPTH + 1) == placeholder(inner)


def test_redacted_text_hides_quoted_values_of_four_characters_and_more() -> None:
    value = {"token": "abcd", "pin": "123", "auth": {"kind": "basic"}}
    assert list(secrets_in(value)) == ["abcd", "basic"]
    assert redacted_text("token abcd pin 123", value) == f"token {placeholder('abcd')} pin 123"


# -- values taken from the environment ------------------------------------------------------


@pytest.mark.usefixtures("environment")
def test_a_hidden_environment_value_is_masked_longest_first() -> None:
    hide("abc")  # too short to hide
    hide("abcd")
    hide("abcd-and-more")
    text = "GET /abcd-and-more/abcd/abc"
    assert masked(text) == (
        f"GET /<redacted environment-value sha256:{digest('abcd-and-more')}>"
        f"/<redacted environment-value sha256:{digest('abcd')}>/abc"
    )
    hide("zzzz")
    hide("aa-zzzz-aa")  # sorted by length, not by text: the longer one first
    assert masked("aa-zzzz-aa") == f"<redacted environment-value sha256:{digest('aa-zzzz-aa')}>"
    hide("abcd")  # twice: the same label
    assert masked("abcd") == f"<redacted environment-value sha256:{digest('abcd')}>"
    long = "x" * 1500 + " abcd"
    assert masked(long) == "x" * 1500 + f" <redacted environment-value sha256:{digest('abcd')}>"


@pytest.mark.usefixtures("environment")
def test_a_hidden_environment_value_is_masked_in_member_names_and_pointers() -> None:
    value = "q1w2e3r4t5y6u7"  # no marker of any pattern in it
    hide(value)
    shown = f"<redacted environment-value sha256:{digest(value)}>"
    assert redacted({value: 1, "city": "Oslo"}) == {shown: 1, "city": "Oslo"}
    assert masked_pointer(f"/servers/{value}/url") == f"/servers/{shown}/url"
    assert masked_names(f"/{value}", f"{value!r} is not allowed") == (
        f"/{shown}",
        f"'{shown}' is not allowed",
    )


# -- find_secrets ---------------------------------------------------------------------------


def test_find_secrets_names_each_secret_by_kind_hash_and_place() -> None:
    value = {
        "headers": {"Etag": RANDOM, "Accept": "text/plain", "Sub": {"n": RANDOM}},
        "list": [RANDOM, {"token": 1234}, "key " + AWS],
        "pairs": [{"name": "X-Custom", "value": RANDOM}, {"name": "secret", "value": [1, None]}],
        "X-Trace": RANDOM,
        "value": RANDOM,
        "after": "id " + AWS,
    }
    found = find_secrets(value, "/body")
    assert [(f.kind, f.digest, f.pointer, f.start, f.end) for f in found] == [
        ("header-value", digest(RANDOM), "/body/headers/Etag", None, None),
        ("sensitive-name", digest(1234), "/body/list/1/token", None, None),
        ("aws-access-key-id", digest(AWS), "/body/list/2", 4, 24),
        ("header-value", digest(RANDOM), "/body/pairs/0/value", None, None),
        ("sensitive-name", digest(1), "/body/pairs/1/value/0", None, None),
        ("header-value", digest(RANDOM), "/body/X-Trace", None, None),
        ("aws-access-key-id", digest(AWS), "/body/after", 3, 23),
    ]
    assert find_secrets(RANDOM, "/req/X-Trace") == [
        SecretFound("header-value", digest(RANDOM), "/req/X-Trace")
    ]
    assert find_secrets({"password": "x"}, by_name=False) == []


def test_a_finding_without_a_pointer_is_described_at_the_root() -> None:
    assert SecretFound("jwt", "1a2b3c4d", "").describe() == "jwt sha256:1a2b3c4d at /"
    assert SecretFound("jwt", "1a2b3c4d", "/a", 2, 9).describe() == "jwt sha256:1a2b3c4d at /a[2:9]"
