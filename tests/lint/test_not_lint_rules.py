"""What ``jsoncontract rules JC0xx`` says of the codes that are no lint rules is true: every
code it names exists, and ``check`` reports the traffic codes on traffic that breaks them."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jsoncontract.lint.codes import NOT_LINT_RULES
from jsoncontract.live.codes import CODES as LIVE_CODES
from jsoncontract.pipeline import codes as check_codes
from tests.conftest import CliResult
from tests.pipeline.traffic import (
    answer,
    codes,
    exchange,
    failure,
    initialize,
    listing,
    request,
    run,
)

WEATHER = {"city": "Oslo"}
NOTE = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
#: For each claim, traffic that breaks it.
BREAKING: dict[str, list[Any]] = {
    "JC060": [
        *exchange(1, "get_weather", WEATHER, structured={"temp_c": "warm"}),
        *exchange(2, "get_weather", WEATHER, text='{"temp_c": 3}'),
    ],
    "JC061": exchange(1, "get_weather", WEATHER, structured={"temp_c": 3}, text='{"temp_c": 4}'),
    "JC062": [
        *initialize("2025-11-25"),
        request(1, "get_weather", {"city": 1}),
        failure(1, -32602),
    ],
    "JC063": [
        request(1, "get_weather", WEATHER) | {"jsonrpc": "1.0"},
        {"jsonrpc": "2.0", "id": 1, "result": {"content": []}, "error": {"code": 1}},
        request(2, "get_weather", WEATHER),
        {"jsonrpc": "2.0", "id": 2, "error": {"code": 1}},
    ],
    "JC065": [*initialize(list_changed=False), *listing(1), NOTE],
    "JC081": [
        request(1, "get_weather", WEATHER),
        *exchange(2, "get_weather", WEATHER, structured={"temp_c": 3}),
        answer(9, text="late"),
    ],
    "JC082": [
        {
            "contents": [
                {
                    "role": "model",
                    "parts": [{"functionCall": {"name": "get_weather", "args": WEATHER}}],
                },
                {
                    "role": "user",
                    "parts": [{"functionResponse": {"name": "get_weather", "response": 3}}],
                },
            ]
        }
    ],
}


def _named(text: str) -> list[str]:
    return re.findall(r"`((?:envelope|parse|schema|result|session|mcp|probe)\.[a-z_]+)`", text)


def test_every_named_code_exists() -> None:
    known = set(LIVE_CODES)
    for table in (check_codes.ENVELOPE_CODES, check_codes.RESULT_CODES, check_codes.SESSION_CODES):
        known |= set(table)
    for code, text in NOT_LINT_RULES.items():
        for named in _named(text):
            assert named in known, (code, named)


@pytest.mark.parametrize("code", sorted(BREAKING))
def test_check_reports_what_the_rule_says(code: str, tmp_path: Path) -> None:
    text = NOT_LINT_RULES[code]
    assert "`check`" in text
    claimed = {c for c in _named(text) if not c.startswith(("mcp.", "probe."))}
    assert claimed
    report = run(tmp_path, BREAKING[code])
    assert claimed <= set(codes(report)), (code, codes(report))


def test_every_claim_about_check_is_tested() -> None:
    about_check = {
        code
        for code, text in NOT_LINT_RULES.items()
        if "`check`" in text and any(not c.startswith(("mcp.", "probe.")) for c in _named(text))
    }
    assert about_check == set(BREAKING)


def test_rules_says_it(run_cli: Callable[..., CliResult]) -> None:
    result = run_cli("rules", "JC060")
    assert result.code == 2
    assert "`result.structured_content`" in result.stderr and result.stderr[-1] == "\n"
