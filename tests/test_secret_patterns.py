"""Secrets recognised by their value: one example (and a near miss) per pattern of the table,
the places a report hides them, and :func:`find_secrets`, which names them without echoing."""

from __future__ import annotations

from typing import Any

import pytest

from jsoncontract.masking import (
    SECRET_PATTERNS,
    find_secrets,
    looks_random,
    masked,
    placeholder,
    redacted,
    redacted_text,
    secrets_in,
)

# Examples are assembled from parts so that no complete credential-shaped literal sits in the
# source (they are made up; AKIAIOSFODNN7EXAMPLE is AWS's documented example id).
_B64 = "Qk9HVVNfVkFMVUVfRk9SX1RFU1RTX09OTFk"
EXAMPLES: dict[str, str] = {
    "private-key": "-----BEGIN RSA "
    + "PRIVATE KEY-----\nMIIEowIBAAKCAQEA"
    + _B64
    + "\n-----END RSA "
    + "PRIVATE KEY-----",
    "aws-access-key-id": "AKIA" + "IOSFODNN7EXAMPLE",
    "anthropic-api-key": "sk-" + "ant-api03-" + "x7Yq" * 10,
    "openai-api-key": "sk-" + "proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8t",
    "stripe-key": "sk_" + "live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "github-token": "ghp" + "_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "gitlab-token": "glpat" + "-" + "x9Yz8Wv7Ut6Sr5Qp4On3",
    "slack-token": "xoxb" + "-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOp",
    "google-api-key": "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
    "google-oauth-token": "ya29" + "." + "a0AfH6SMBx1y2z3A4b5C6d7E8f9G0h",
    "huggingface-token": "hf" + "_" + "AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
    "npm-token": "npm" + "_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
    "pypi-token": "pypi" + "-AgEIcHlwaS5vcmc" + "CJDk2ZmI3NzEtNGQxZi00ZjYyLTlmOTUtYzU",
    "azure-storage-key": "AccountKey=" + "Zm9vYmFyYmF6cXV4" * 5 + "==",
    "jwt": "eyJ"
    + "hbGciOiJIUzI1NiJ9"
    + ".eyJ"
    + "zdWIiOiIxMjM0NTY3ODkwIn0"
    + "."
    + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "bearer-token": "Bearer " + "c2VjcmV0LXRva2VuLTEyMzQ1Njc4OQ",
    "url-password": "postgres://app:" + "s3cr3t-pw" + "@db.internal:5432/orders",
    "assigned-secret": "DB_PASSWORD" + "=" + "hunter2hunter2",
}
#: Text that looks a little like a secret but is not one.
NEAR_MISSES: list[str] = [
    "AKIA1234",  # too short for an access key id
    "task-abcdefghijklmnopqrstuvwx",  # "sk-" inside a word
    "basic authentication",  # the word, no credential
    "max_tokens=1000",  # a number under a token-ish name
    "ghp_short",
    "eyJhbGciOiJIUzI1NiJ9",  # a JWT header alone
    "https://example.com/path?a=b",
    "-----BEGIN CERTIFICATE-----",
    "the password policy requires 12 characters",
]


def test_every_pattern_has_an_example_here() -> None:
    assert sorted(EXAMPLES) == sorted(p.kind for p in SECRET_PATTERNS)


@pytest.mark.parametrize("kind", [p.kind for p in SECRET_PATTERNS])
def test_each_pattern_is_found_named_and_hidden(kind: str) -> None:
    example = EXAMPLES[kind]
    text = f"note: {example} (end)"
    found = find_secrets(text)
    assert [f.kind for f in found] == [kind]
    shown = masked(text)
    assert f"<redacted {kind} sha256:" in shown
    assert shown.startswith("note: ") and shown.endswith(" (end)")
    secret = text[found[0].start : found[0].end]
    assert secret not in shown
    assert found[0].digest in shown  # the label's hash is the finding's hash
    assert secret not in repr(redacted({"note": text}))
    assert secret not in found[0].describe()


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_near_misses_are_left_alone(text: str) -> None:
    assert find_secrets(text) == []
    assert masked(text) == text


def test_assignment_keeps_the_name_and_hides_the_value() -> None:
    line = "OPENAI_API_KEY=" + EXAMPLES["openai-api-key"]
    shown = masked(line)
    assert shown.startswith("OPENAI_API_KEY=<redacted openai-api-key sha256:")
    assert masked("password=hunter2").startswith("password=<redacted assigned-secret")


def test_bearer_and_url_keep_their_frame() -> None:
    assert masked("Authorization: " + EXAMPLES["bearer-token"]).startswith(
        "Authorization: Bearer <redacted bearer-token"
    )
    assert masked(EXAMPLES["url-password"]).startswith("postgres://app:<redacted url-password")
    assert masked(EXAMPLES["url-password"]).endswith("@db.internal:5432/orders")


def test_a_private_key_without_its_end_line_is_hidden_to_the_end() -> None:
    text = EXAMPLES["private-key"].split("-----END")[0]
    assert masked(text).startswith("<redacted private-key")
    assert _B64 not in masked(text)


def test_a_header_pair_hides_its_value_by_the_header_name() -> None:
    pair = {"name": "Authorization", "value": "opaque-value"}
    assert redacted([pair]) == [{"name": "Authorization", "value": placeholder("opaque-value")}]
    assert list(secrets_in({"headers": [pair]})) == ["opaque-value"]
    assert [(f.kind, f.pointer) for f in find_secrets({"h": [pair]})] == [
        ("sensitive-name", "/h/0/value")
    ]


RANDOM = "q8Zr2LxV9nWb4TfK7mPcA1"


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        # a signature is secret by its name (X-Amz-Signature, X-Hub-Signature...)
        ({"headers": {"X-Request-Signature": RANDOM}}, "sensitive-name"),
        ({"X-Signature": RANDOM}, "sensitive-name"),
        ({"headers": [{"name": "X-Custom", "value": RANDOM}]}, "header-value"),
        ({"headers": {"X-Custom": RANDOM}}, "header-value"),
    ],
)
def test_a_random_string_under_a_header_name_is_hidden(value: Any, kind: str) -> None:
    assert RANDOM not in repr(redacted(value))
    assert [f.kind for f in find_secrets(value)] == [kind]


def test_ordinary_header_values_are_shown() -> None:
    value = {"headers": {"Content-Type": "application/json", "X-Trace": "abc"}}
    assert redacted(value) is value
    assert find_secrets(value) == []
    assert not looks_random("aaaaaaaaaaaaaaaaaaaaaa1")  # long, but one letter repeated


def test_find_secrets_reports_kind_hash_and_place_only() -> None:
    aws = EXAMPLES["aws-access-key-id"]
    value = {"items": [{"note": f"use {aws} now"}], "login": {"password": "hunter2"}}
    found = find_secrets(value)
    assert [f.to_dict() for f in found] == [
        {
            "kind": "aws-access-key-id",
            "sha256": placeholder(aws)[len("<redacted sha256:") : -1],
            "pointer": "/items/0/note",
            "start": 4,
            "end": 24,
        },
        {
            "kind": "sensitive-name",
            "sha256": placeholder("hunter2")[len("<redacted sha256:") : -1],
            "pointer": "/login/password",
            "start": None,
            "end": None,
        },
    ]
    assert [f.kind for f in find_secrets(value, by_name=False)] == ["aws-access-key-id"]
    assert all(aws not in f.describe() and "hunter2" not in f.describe() for f in found)


def test_rule_messages_hide_keys_quoted_from_any_member() -> None:
    key = EXAMPLES["stripe-key"]
    message = redacted_text(f"refund refused for {key}", {"note": key})
    assert key not in message
    assert "<redacted stripe-key sha256:" in message


def test_pattern_work_is_linear_on_hostile_text() -> None:
    import time

    hostile = [
        "a" * 200_000,
        "-----BEGIN PRIVATE KEY-----" + "-" * 200_000,
        "password" * 25_000,
        "x://" + "a:" * 100_000,
        "Bearer " + "a" * 200_000,
        "eyJ" + "a" * 100_000 + ".eyJ" + "b" * 100_000,
    ]
    for text in hostile:
        start = time.process_time()  # CPU: what load on a shared machine disturbs least
        masked(text)
        assert time.process_time() - start < 1.0, text[:20]


def test_every_match_holds_a_marker_of_its_pattern() -> None:
    """The markers only let a text skip the search when no pattern can match it."""
    import random
    import re

    from jsoncontract.masking import may_hold_secret

    for pattern in SECRET_PATTERNS:
        assert pattern.markers, pattern.kind
        example = EXAMPLES[pattern.kind]
        assert any(m in example.lower() for m in pattern.markers), pattern.kind
        assert all(m == m.lower() for m in pattern.markers)
    rng = random.Random(11)
    alphabet = "abcsk-_:=/@ .AKIAeyJhf0123456789XYZ\n\"'" + "".join(EXAMPLES.values())
    regexes = [re.compile(p.regex) for p in SECRET_PATTERNS]
    for _ in range(3000):
        start = rng.randrange(len(alphabet))
        text = alphabet[start : start + rng.randrange(12, 90)]
        if not may_hold_secret(text):
            assert not any(r.search(text) for r in regexes), text
    for near in NEAR_MISSES:
        assert find_secrets(near) == [] or may_hold_secret(near)


def _wrapped(text: str) -> list[Any]:
    """Places a string may sit in a result's value."""
    return [
        {"note": text},
        [{"type": "text", "text": text}],
        {"a": {"b": [1, {"c": f'quote " and \\ {text} \n end'}]}},
        {"headers": {"X-Trace": text}},
        {"h": [{"name": "X-Custom", "value": text}]},
        {"X-Custom": text},
        {"Headers": {"x-id": text}},
    ]


@pytest.mark.parametrize(
    "text",
    [
        *EXAMPLES.values(),
        *NEAR_MISSES,
        RANDOM,
        "plain words of a tool's answer",
        "to\u212aen=abcdefghij",  # KELVIN SIGN: lowered, a marker ("token")
        "S\u212a-proj-Ab3dEf6hIj9kLm2nOp5qRs8t",
    ],
)
def test_a_json_text_without_markers_holds_nothing_find_secrets_finds(text: str) -> None:
    import orjson

    from jsoncontract.masking import json_may_hold_secret

    for value in _wrapped(text):
        written = orjson.dumps(value).decode()
        if find_secrets(value, by_name=False):
            assert json_may_hold_secret(written), value
    assert not json_may_hold_secret('{"status":"ok","items":[{"id":3,"name":"Paris"}]}')
    assert json_may_hold_secret('{"status":"ok"}', "/headers/X-Trace")
