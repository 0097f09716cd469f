"""The one "did you mean" policy, and each slip matched once however often it comes back."""

from __future__ import annotations

import pytest

from jsoncontract._spelling import _best, did_you_mean
from jsoncontract.model import Dialect, Source, ToolContract
from jsoncontract.tools import ToolSet
from jsoncontract.validation import CompiledSchema


@pytest.mark.parametrize(
    ("word", "meant"),
    [
        ("priorty", "priority"),  # a letter dropped
        ("exprss", "express"),
        ("adress", "address"),
        ("requred", "required"),
        ("minimun", "minimum"),  # a letter replaced
        ("url", "uri"),  # one edit in three letters
        ("titel", "title"),  # two letters swapped
        ("exmaple", "examples"),
        ("additionalProperty", "additionalProperties"),
        ("tool_0057_v2", "tool_0057"),  # a renamed tool
        ("int", "integer"),  # abbreviations
        ("str", "string"),
        ("bool", "boolean"),
        ("JC02", "JC020"),
        ("Search-Invoices", "searchInvoices"),  # case and separators do not count
        ("customer_ID", "customerId"),
        ("DATE_TIME", "date-time"),
    ],
)
def test_slips_are_recognised(word: str, meant: str) -> None:
    assert did_you_mean(word, ["zzz", meant, "other"]) == meant


@pytest.mark.parametrize(
    ("word", "option"),
    [
        ("format_hint", "format"),  # a longer word holding an option is another word
        ("const_value", "const"),
        ("deprecated_reason", "deprecated"),
        ("title_i18n", "title"),
        ("units", "uniqueItems"),  # similar letters, too many edits for its length
        ("hidden", "then"),
        ("dateTo", "endDate"),
        ("double", "object"),
        ("in", "integer"),  # too short to be an abbreviation
        ("zzz", "priority"),
    ],
)
def test_other_words_get_no_suggestion(word: str, option: str) -> None:
    assert did_you_mean(word, [option]) is None


def test_the_most_similar_wins_then_the_longer_shared_start_then_the_first() -> None:
    assert did_you_mean("tool_0057_v2", ["tool_0056", "tool_0057", "tool_0058"]) == "tool_0057"
    assert did_you_mean("colr", ["cola", "color"]) == "color"
    assert did_you_mean("ab", ["ax", "ay"]) == "ax"
    assert did_you_mean("ab", ["ay", "ax"]) == "ay"
    # a set has no order of its own: it is read sorted, so the answer does not vary
    assert did_you_mean("ab", {"ay", "ax"}) == "ax"
    assert did_you_mean("ab", frozenset({"ay", "ax"})) == "ax"


def test_an_exact_match_ignoring_case_beats_a_closer_spelling() -> None:
    assert did_you_mean("Status", ["Stats", "status"]) == "status"


def test_options_that_are_not_strings_are_passed_over() -> None:
    assert did_you_mean("expres", [1, None, "express", {"a": 1}]) == "express"
    assert did_you_mean("1", [1, 2]) is None


def test_long_words_are_matched_but_not_remembered() -> None:
    _best.cache_clear()
    assert did_you_mean("x" * 1000, ["x" * 999]) == "x" * 999
    assert _best.cache_info().currsize == 0


def test_a_renamed_tool_is_matched_once() -> None:
    tools = ToolSet(
        ToolContract(f"tool_{i:04d}", {"type": "object"}, Dialect.MCP, Source("t.json"))
        for i in range(120)
    )
    _best.cache_clear()
    assert {tools.suggest("tool_0057_v2") for _ in range(50)} == {"tool_0057"}
    assert _best.cache_info().misses == 1


def test_a_repeated_slip_in_the_arguments_is_matched_once() -> None:
    schema = CompiledSchema(
        {
            "properties": {"priority": {"enum": ["standard", "express"]}},
            "additionalProperties": False,
        }
    )
    _best.cache_clear()
    for _ in range(50):
        found = schema.violations({"priority": "exprss", "priorty_note": 1})
        assert "did you mean 'express'?" in [v.hint for v in found]
    assert _best.cache_info().misses == 2  # exprss, priorty_note
