"""The runner: every kind of expectation mismatch, weaknesses, skips, selection, updates."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
import pytest

from jsoncontract.errors import UsageError
from jsoncontract.model import Finding, Severity, Stage, ToolCall, ToolContract
from jsoncontract.suites import (
    Case,
    Mismatch,
    Selector,
    Status,
    Suite,
    SuiteRunner,
    accept_outcomes,
    apply_updates,
    generate_suites,
    read_suite,
    run_suites,
    write_suite,
)

if TYPE_CHECKING:
    from jsoncontract.tools import ToolSet

VALID = {"order_id": "ORD-000001", "priority": "standard"}
MISSING_ORDER = {"stage": "schema", "keyword": "required", "path": "/order_id"}


def run_one(tools: ToolSet, suite: Suite, **kwargs: Any) -> Any:
    report = SuiteRunner(tools, **kwargs).run([suite])
    assert len(report.outcomes) == 1
    return report.outcomes[0]


def test_passing_negative_and_positive_cases(
    toolset: Callable[..., ToolSet], make_suite: Callable[..., Suite]
) -> None:
    suite = make_suite(
        {"name": "valid", "expect": "ok", "arguments": VALID},
        {"name": "missing", "expect": MISSING_ORDER, "arguments": {"priority": "standard"}},
        {
            "name": "truncated",
            "expect": {"stage": "parse", "code": "parse.truncated", "path": ""},
            "text": '{"order_id": "ORD-0',
        },
        {
            "name": "string at mcp",
            "hop": "mcp",
            "expect": {"stage": "parse", "code": "parse.string_arguments"},
            "arguments": orjson.dumps(VALID).decode(),
        },
    )
    report = SuiteRunner(toolset()).run([suite])
    assert [o.status for o in report.outcomes] == [Status.PASSED] * 4
    assert report.ok and report.summary.passed == 4 and report.summary.suites == 1


def test_accepted_negative_is_a_weakness_with_a_hint(
    toolset: Callable[..., ToolSet], make_suite: Callable[..., Suite], shipment: dict[str, Any]
) -> None:
    del shipment["additionalProperties"]
    suite = make_suite(
        {
            "name": "extra-field",
            "expect": {"stage": "schema", "keyword": "additionalProperties", "path": "/extra"},
            "arguments": {**VALID, "extra": 1},
        }
    )
    outcome = run_one(toolset(shipment), suite)
    assert outcome.status is Status.WEAKNESS
    assert outcome.mismatch is Mismatch.ACCEPTED
    assert "the contract accepts it" in outcome.message
    assert outcome.hint.startswith('close the root object with "additionalProperties": false')
    assert not outcome.ok


def test_expected_ok_but_failed(
    toolset: Callable[..., ToolSet], make_suite: Callable[..., Suite]
) -> None:
    suite = make_suite({"name": "v", "expect": "ok", "arguments": {**VALID, "priority": "fast"}})
    outcome = run_one(toolset(), suite)
    assert outcome.status is Status.FAILED
    assert outcome.mismatch is Mismatch.UNEXPECTED_FAILURE
    assert outcome.message.startswith("should pass, but fails at schema: schema.enum at /priority")


def test_failing_at_another_stage_shows_both(
    toolset: Callable[..., ToolSet], make_suite: Callable[..., Suite]
) -> None:
    suite = make_suite({"name": "m", "expect": MISSING_ORDER, "text": '```json\n{"a": 1}\n```'})
    outcome = run_one(toolset(), suite)
    assert outcome.mismatch is Mismatch.WRONG_STAGE
    assert "should fail at schema (schema.required at /order_id)" in outcome.message
    assert "but fails at parse: parse.code_fence" in outcome.message


def test_failing_for_another_reason_shows_both(
    toolset: Callable[..., ToolSet], make_suite: Callable[..., Suite]
) -> None:
    # the case means to drop order_id, but the priority is wrong as well: it still fails
    # at the schema stage, for a reason the case does not name
    suite = make_suite(
        {"name": "m", "expect": MISSING_ORDER, "arguments": {**VALID, "order_id": "nope"}}
    )
    outcome = run_one(toolset(), suite)
    assert outcome.mismatch is Mismatch.WRONG_REASON
    assert "should fail at schema (schema.required at /order_id)" in outcome.message
    assert "but fails for another reason: schema.pattern at /order_id" in outcome.message


def test_failing_at_another_path(
    toolset: Callable[..., ToolSet], make_suite: Callable[..., Suite]
) -> None:
    arguments = {**VALID, "address": {"city": "Porto"}}  # country missing, not order_id
    expect = {"stage": "schema", "keyword": "required", "path": "/address/city"}
    outcome = run_one(
        toolset(), make_suite({"name": "m", "expect": expect, "arguments": arguments})
    )
    assert outcome.mismatch is Mismatch.WRONG_PATH
    assert "but fails with schema.required at /address/country" in outcome.message


def test_code_expectations_match_codes(
    toolset: Callable[..., ToolSet], make_suite: Callable[..., Suite]
) -> None:
    expect = {"stage": "schema", "code": "schema.enum", "path": "/priority"}
    suite = make_suite({"name": "e", "expect": expect, "arguments": {**VALID, "priority": "x"}})
    assert run_one(toolset(), suite).status is Status.PASSED
    expect = {"stage": "schema", "code": "schema.type", "path": "/priority"}
    suite = make_suite({"name": "e", "expect": expect, "arguments": {**VALID, "priority": "x"}})
    assert run_one(toolset(), suite).mismatch is Mismatch.WRONG_REASON


def test_stage_only_expectation_matches_any_reason(
    toolset: Callable[..., ToolSet], make_suite: Callable[..., Suite]
) -> None:
    suite = make_suite({"name": "p", "expect": {"stage": "parse"}, "text": "{"})
    assert run_one(toolset(), suite).status is Status.PASSED


def capture_case(name: str, tool: str, arguments: dict[str, Any], **extra: Any) -> dict[str, Any]:
    message = {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": tool, "input": arguments}],
    }
    return {"name": name, "capture": message, **extra}


def test_regression_fields_and_tool(
    toolset: Callable[..., ToolSet], make_suite: Callable[..., Suite]
) -> None:
    fields = {"fields": ["order_id", "priority"]}
    tools = toolset(other={"type": "object"})
    same = make_suite(capture_case("same", "ship", VALID, expect=fields))
    assert run_one(tools, same).status is Status.PASSED
    dropped = make_suite(
        capture_case("dropped", "ship", VALID, expect={"fields": ["address", *fields["fields"]]})
    )
    outcome = run_one(tools, dropped)
    assert outcome.mismatch is Mismatch.WRONG_FIELDS
    assert "missing address" in outcome.message
    rerouted = make_suite(capture_case("rerouted", "other", VALID, expect=fields))
    outcome = run_one(tools, rerouted)
    assert outcome.mismatch is Mismatch.WRONG_TOOL
    assert outcome.message == "expected a call to 'ship'; the capture calls 'other'"


def test_expected_fields_need_an_arguments_object(
    toolset: Callable[..., ToolSet], make_suite: Callable[..., Suite]
) -> None:
    expect = {"stage": "parse", "code": "parse.truncated", "fields": ["order_id", "priority"]}
    suite = make_suite({"name": "cut", "expect": expect, "text": '{"order_id": "ORD-0'})
    outcome = run_one(toolset(), suite)
    assert outcome.mismatch is Mismatch.WRONG_FIELDS
    assert outcome.message == (
        "the call's argument fields differ from the recorded ones: the call has no arguments "
        "object (its arguments could not be read)"
    )
    (update,) = accept_outcomes([outcome], write=False)
    assert update.after.to_json() == {"stage": "parse", "code": "parse.truncated", "path": ""}


def test_capture_hop_must_match(
    toolset: Callable[..., ToolSet], make_suite: Callable[..., Suite]
) -> None:
    suite = make_suite(capture_case("hop", "ship", VALID, hop="mcp", expect="ok"))
    outcome = run_one(toolset(), suite)
    assert outcome.mismatch is Mismatch.WRONG_HOP
    assert "at the mcp hop" in outcome.message


@pytest.mark.parametrize(
    ("capture", "call", "message"),
    [
        ({"role": "assistant", "content": [{"type": "text", "text": "hi"}]}, None, "no tool call"),
        (
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "a", "name": "ship", "input": VALID},
                    {"type": "tool_use", "id": "b", "name": "ship", "input": VALID},
                ],
            },
            None,
            'holds 2 calls; say which one the case is about with "call": 0..1',
        ),
        (
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "a", "name": "ship", "input": VALID}],
            },
            3,
            "holds 1 calls; there is no call 3",
        ),
    ],
)
def test_capture_without_the_call(
    toolset: Callable[..., ToolSet],
    make_suite: Callable[..., Suite],
    capture: Any,
    call: int | None,
    message: str,
) -> None:
    case: dict[str, Any] = {"name": "c", "expect": "ok", "capture": capture}
    if call is not None:
        case["call"] = call
    outcome = run_one(toolset(), make_suite(case))
    assert outcome.mismatch is Mismatch.NO_CALL
    assert message in outcome.message


def test_an_inline_capture_may_hold_a_lone_surrogate(
    toolset: Callable[..., ToolSet], make_suite: Callable[..., Suite]
) -> None:
    capture = {
        "type": "tool_use",
        "id": "t1",
        "name": "ship",
        "input": {"order_id": "ORD-000001\ud800", "priority": "standard"},
    }
    expect = {"stage": "parse", "code": "parse.lone_surrogate", "path": "/order_id"}
    outcome = run_one(toolset(), make_suite({"name": "c", "expect": expect, "capture": capture}))
    assert outcome.status is Status.PASSED, outcome.message


def test_an_inline_capture_nested_past_what_orjson_writes(
    toolset: Callable[..., ToolSet], make_suite: Callable[..., Suite]
) -> None:
    deep: Any = 1
    for _ in range(1010):
        deep = [deep]
    capture = {"type": "tool_use", "id": "t1", "name": "open", "input": {"deep": deep}}
    suite = make_suite({"name": "c", "expect": "ok", "capture": capture}, tool="open")
    outcome = run_one(toolset(open={"type": "object"}), suite)
    assert outcome.status is Status.PASSED, outcome.message


def test_lone_surrogates_in_arguments_fail_at_parse_as_in_a_capture(
    toolset: Callable[..., ToolSet], tmp_path: Path
) -> None:
    expect = {"stage": "parse", "code": "parse.lone_surrogate", "path": "/order_id"}
    path = tmp_path / "s.suite.json"
    path.write_text(
        '{"version": 1, "tool": "ship", "cases": [{"name": "c", "expect": '
        + orjson.dumps(expect).decode()
        + ', "arguments": {"order_id": "ORD-000001\\ud800", "priority": "standard"}}]}'
    )
    suite = read_suite(path)
    assert suite.cases[0].input["order_id"] == "ORD-000001\ud800"
    outcome = run_one(toolset(), suite)
    assert outcome.status is Status.PASSED, outcome.message


def test_capture_file_that_is_not_a_capture_fails_its_case(
    toolset: Callable[..., ToolSet], make_suite: Callable[..., Suite], tmp_path: Path
) -> None:
    (tmp_path / "bad.json").write_text("{not json")
    suite = make_suite(
        {"name": "c", "expect": "ok", "capture_file": "bad.json"}, path=tmp_path / "s.suite.json"
    )
    outcome = run_one(toolset(), suite)
    assert outcome.mismatch is Mismatch.NO_CALL
    assert outcome.message.startswith("cannot read the capture:")


def test_capture_file_relative_to_the_suite(
    toolset: Callable[..., ToolSet], make_suite: Callable[..., Suite], tmp_path: Path
) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "ship", "arguments": VALID},
    }
    (tmp_path / "captures").mkdir()
    (tmp_path / "captures" / "call.json").write_bytes(orjson.dumps(body))
    suite = make_suite(
        {"name": "c", "hop": "mcp", "expect": "ok", "capture_file": "captures/call.json"},
        path=tmp_path / "s.suite.json",
    )
    assert run_one(toolset(), suite).status is Status.PASSED


def test_missing_tool_is_one_clear_failure(
    toolset: Callable[..., ToolSet], make_suite: Callable[..., Suite]
) -> None:
    suite = make_suite(
        {"name": "a", "expect": "ok", "arguments": VALID},
        {"name": "b", "expect": "ok", "arguments": VALID},
        tool="shipp",
    )
    report = SuiteRunner(toolset()).run([suite])
    assert len(report.outcomes) == 1
    outcome = report.outcomes[0]
    assert outcome.status is Status.ERROR and outcome.mismatch is Mismatch.TOOL_MISSING
    assert outcome.message == (
        "the suite is for tool 'shipp', which is not in the tool list; its 2 cases did not run"
    )
    assert outcome.hint is not None and "did you mean 'ship'?" in outcome.hint
    assert report.summary.errors == 1 and not report.ok


def test_skipped_cases(toolset: Callable[..., ToolSet], make_suite: Callable[..., Suite]) -> None:
    suite = make_suite({"name": "s", "skip": "known issue #12", "expect": "ok", "arguments": {}})
    outcome = run_one(toolset(), suite)
    assert outcome.status is Status.SKIPPED and outcome.message == "known issue #12"
    assert outcome.ok


class _CountingGate:
    """A stateful business gate: the second call it sees fails (like a reused key)."""

    def __init__(self) -> None:
        self.seen = 0

    def check(self, call: ToolCall, arguments: Any, tool: ToolContract) -> Iterable[Finding]:
        self.seen += 1
        if arguments.get("priority") == "overnight":
            return [
                Finding(
                    "business.no_overnight",
                    Severity.ERROR,
                    "overnight is closed",
                    "/priority",
                    Stage.BUSINESS,
                )
            ]
        if self.seen > 1:
            return [Finding("business.repeat", Severity.ERROR, "seen before", "", Stage.BUSINESS)]
        return []


def test_business_gate_is_fresh_for_each_case(
    toolset: Callable[..., ToolSet], make_suite: Callable[..., Suite]
) -> None:
    suite = make_suite(
        {"name": "a", "expect": "ok", "arguments": VALID},
        {"name": "b", "expect": "ok", "arguments": VALID},
        {
            "name": "rule",
            "expect": {"stage": "business", "code": "business.no_overnight", "path": "/priority"},
            "arguments": {**VALID, "priority": "overnight"},
        },
    )
    report = SuiteRunner(toolset(), business=_CountingGate).run([suite])
    assert [o.status for o in report.outcomes] == [Status.PASSED] * 3


def test_accepted_business_case_hint(
    toolset: Callable[..., ToolSet], make_suite: Callable[..., Suite]
) -> None:
    expect = {"stage": "business", "code": "business.dates_in_order", "path": "/end"}
    outcome = run_one(toolset(), make_suite({"name": "b", "expect": expect, "arguments": VALID}))
    assert outcome.status is Status.WEAKNESS
    assert outcome.hint is not None and outcome.hint.startswith("the business rule did not fire")


@pytest.mark.parametrize(
    ("expression", "selected"),
    [
        ("missing", ["missing-field:/order_id"]),
        ("MISSING", ["missing-field:/order_id"]),
        ("not missing", ["valid", "wrong-enum:/priority"]),
        ("valid or wrong-enum", ["valid", "wrong-enum:/priority"]),
        ("ship and (enum or missing)", ["missing-field:/order_id", "wrong-enum:/priority"]),
        ("smoke", ["valid"]),
    ],
)
def test_select_by_name_tool_and_tag(
    toolset: Callable[..., ToolSet],
    make_suite: Callable[..., Suite],
    expression: str,
    selected: list[str],
) -> None:
    suite = make_suite(
        {"name": "valid", "tags": ["smoke"], "expect": "ok", "arguments": VALID},
        {
            "name": "missing-field:/order_id",
            "expect": MISSING_ORDER,
            "arguments": {"priority": "standard"},
        },
        {
            "name": "wrong-enum:/priority",
            "expect": {"stage": "schema", "keyword": "enum", "path": "/priority"},
            "arguments": {**VALID, "priority": "x"},
        },
    )
    report = SuiteRunner(toolset()).run([suite], select=Selector(expression))
    assert [o.name for o in report.outcomes] == selected


@pytest.mark.parametrize(
    "expression", ["", "a and", "(a", "a)", "and b", "not", "(" * 5000 + "a" + ")" * 5000]
)
def test_select_rejects_bad_expressions(expression: str) -> None:
    with pytest.raises(UsageError):
        Selector(expression)


def test_long_selections_do_not_nest() -> None:
    words = " or ".join(f"w{i}" for i in range(5000))
    assert Selector(words).matches(["w4999"]) and not Selector(words).matches(["x"])
    assert Selector(words.replace(" or ", " and ")).matches([f"w{i}" for i in range(5000)])


def test_update_accepts_current_outcomes(
    toolset: Callable[..., ToolSet], make_suite: Callable[..., Suite], tmp_path: Path
) -> None:
    path = tmp_path / "ship.suite.json"
    suite = make_suite(
        {"name": "ok now", "expect": MISSING_ORDER, "arguments": VALID},
        {"name": "fails", "expect": "ok", "arguments": {**VALID, "priority": "x"}},
        {"name": "fine", "expect": "ok", "arguments": VALID},
        path=path,
    )
    write_suite(suite, path)
    report = run_suites([path], tools=toolset())
    updates = accept_outcomes(report.outcomes)
    assert [(u.case, u.before.describe(), u.after.describe()) for u in updates] == [
        ("ok now", "fail at schema (schema.required at /order_id)", "pass"),
        ("fails", "pass", "fail at schema (schema.enum at /priority)"),
    ]
    again = run_suites([path], tools=toolset())
    assert again.ok and again.summary.passed == 3
    assert read_suite(path).cases[1].data["expect"] == {
        "stage": "schema",
        "keyword": "enum",
        "path": "/priority",
    }


def test_apply_updates_reports_the_state_after_the_rewrite(
    toolset: Callable[..., ToolSet], make_suite: Callable[..., Suite]
) -> None:
    suite = make_suite(
        {"name": "weak", "expect": MISSING_ORDER, "arguments": VALID},
        {"name": "fails", "expect": "ok", "arguments": {**VALID, "priority": "x"}},
        capture_case("rerouted", "other", VALID, expect="ok"),
    )
    report = SuiteRunner(toolset(other={"type": "object"})).run([suite])
    assert [o.status.value for o in report.outcomes] == ["weakness", "failed", "failed"]
    after = apply_updates(report, write=False)
    assert [u.case for u in after.updates] == ["weak", "fails"]
    assert [o.status.value for o in after.outcomes] == ["passed", "passed", "failed"]
    assert after.outcomes[2] is report.outcomes[2]  # left failing: another tool
    assert (after.summary.passed, after.summary.failed, after.summary.weaknesses) == (2, 1, 0)
    assert after.summary.suites == 1 and not after.ok


def test_a_generated_case_out_of_date_with_the_schema_says_regenerate(
    toolset: Callable[..., ToolSet], shipment: dict[str, Any], tmp_path: Path
) -> None:
    generate_suites(toolset(shipment), tmp_path)
    path = tmp_path / "ship.suite.json"
    shipment["properties"]["currency"] = {"enum": ["EUR", "USD"]}
    shipment["required"].append("currency")
    shipment["properties"].pop("count")
    report = run_suites([path], tools=toolset(shipment))
    failed = {o.name: o for o in report.outcomes if not o.ok}
    regenerate = (
        "the case was generated from an earlier version of the tool's schema: regenerate the "
        "suite with jsoncontract fixtures (it refreshes generated cases never edited)"
    )
    assert failed["valid"].hint == regenerate  # not "add 'currency'"
    assert failed["valid.mcp"].hint == regenerate
    assert failed["wrong-type:/count"].hint == (
        "the generator no longer writes this case for the tool's schema (it changed since): "
        "jsoncontract fixtures --prune removes it"
    )
    # a case edited by hand is the user's: its failure keeps the pipeline's hint
    suite = read_suite(path)
    valid = next(c for c in suite.cases if c.name == "valid")
    valid.data["description"] = "edited"
    outcome = SuiteRunner(toolset(shipment)).run_case(suite, Case.from_json(valid.data))
    assert outcome.hint is not None and outcome.hint.startswith("add 'currency'")
    # regenerated, the suite passes again
    generate_suites(toolset(shipment), tmp_path, prune=True)
    assert run_suites([path], tools=toolset(shipment)).ok


def test_update_leaves_what_an_expectation_cannot_say(
    toolset: Callable[..., ToolSet], make_suite: Callable[..., Suite]
) -> None:
    suite = make_suite(capture_case("rerouted", "other", VALID, expect="ok"))
    report = SuiteRunner(toolset(other={"type": "object"})).run([suite])
    assert accept_outcomes(report.outcomes, write=False) == []


def test_run_suites_takes_paths_or_suites_not_both(
    toolset: Callable[..., ToolSet], make_suite: Callable[..., Suite], tmp_path: Path
) -> None:
    suite = make_suite({"name": "v", "expect": "ok", "arguments": VALID})
    mixed: list[Any] = [suite, tmp_path]
    with pytest.raises(UsageError):
        run_suites(mixed, tools=toolset())


def test_progress_is_reported_per_file(
    toolset: Callable[..., ToolSet], make_suite: Callable[..., Suite], tmp_path: Path
) -> None:
    from jsoncontract.cli.options import item_progress

    for i in range(3):
        path = tmp_path / f"s{i}.suite.json"
        write_suite(make_suite({"name": "v", "expect": "ok", "arguments": VALID}, path=path), path)
    seen: list[tuple[int, int]] = []
    SuiteRunner(toolset()).run_files([tmp_path], progress=lambda d, t: seen.append((d, t)))
    assert seen == [(1, 3), (2, 3), (3, 3)]
    with item_progress("testing", enabled=False) as tick:
        assert tick is None
    with item_progress("testing", enabled=True) as tick:
        assert tick is not None
        tick(1, 3)  # too few items for a bar: nothing is drawn
