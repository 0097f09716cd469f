"""Call identity (the design's contract): one id, one tool and the same arguments are one call;
the same id with other arguments is another call and a ``session.reused_call_id``; what a later
sighting brings (a result, another result) is never dropped, whatever the window or the line
order. Each test here reproduces a defect the run had: it failed before the ledger knew calls
by what they are, not by their id alone."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import CliResult
from tests.pipeline import corpus
from tests.pipeline.corpus import Call, Step

Run = Callable[..., CliResult]


def _write(where: Path, name: str, steps: list[Step]) -> Path:
    path = where / name
    path.write_text("".join(corpus.line(s) + "\n" for s in steps))
    return path


def _check(run_cli: Run, where: Path, *captures: Path, window: int | None = None) -> Any:
    tools, rules = corpus.write_tools(where)
    args = ["check", "--no-config", "-t", str(tools), "-r", str(rules), "-f", "json"]
    if window is not None:
        args += ["--result-window", str(window)]
    done = run_cli(*args, *map(str, captures))
    assert done.code in (0, 1), done.stderr
    report = json.loads(done.stdout)
    report["exit"] = done.code
    return report


def _codes(report: Any) -> list[str]:
    return [f["code"] for r in report["results"] for f in r["findings"]] + [
        f["code"] for f in report.get("findings", [])
    ]


PAY_OK = {"amount": 5, "idempotency_key": "k1"}
PAY_BAD = {"amount": -999, "idempotency_key": "k1"}
LEAK = 2  # the result in corpus.RESULTS that is a stack trace with a live Stripe key


def test_four_responses_that_share_an_id_are_four_calls(run_cli: Run, tmp_path: Path) -> None:
    """Defect 1: four responses whose calls share ``call_1`` with other arguments, two of
    them invalid, were one call, ok, exit 0."""
    steps = [
        Step("chat_response", (Call("call_1", "lookup", arguments),), extra=n)
        for n, arguments in enumerate(({"id": 1}, {"id": -1}, {"id": 2}, {"id": "x"}))
    ]
    report = _check(run_cli, tmp_path, _write(tmp_path, "reuse.jsonl", steps))
    assert (report["summary"]["calls"], report["summary"]["failed"], report["exit"]) == (4, 2, 1)
    assert _codes(report).count("session.reused_call_id") == 3


def test_one_id_across_files_and_dialects_is_a_call_in_each(run_cli: Run, tmp_path: Path) -> None:
    """Defect 1: the same id in three files and three dialects was one call; the calls that
    vanished included an Anthropic call of an unknown tool."""
    lookup = Call("call_1", "lookup", {"id": 1})
    files = [
        _write(tmp_path, "a.jsonl", [Step("chat_response", (lookup,))]),
        _write(
            tmp_path,
            "b.jsonl",
            [Step("anthropic_response", (Call("call_1", "drop_database", {"all": True}),))],
        ),
        _write(tmp_path, "c.jsonl", [Step("gemini_response", (Call("call_1", "pay", PAY_OK),))]),
    ]
    report = _check(run_cli, tmp_path, *files)
    assert report["summary"]["calls"] == 3 and report["exit"] == 1
    assert "envelope.unknown_tool" in _codes(report)


def test_an_otlp_retry_span_with_other_arguments_is_checked(run_cli: Run, tmp_path: Path) -> None:
    """Defect 1: a retry span (another span id, the same ``gen_ai.tool.call.id``) with bad
    arguments and a stack trace for a result vanished."""
    steps = [
        Step("span_execute", (Call("call_1", "pay", PAY_OK, 0),), extra=1),
        Step("span_execute", (Call("call_1", "pay", PAY_BAD, LEAK),), extra=2),
    ]
    report = _check(run_cli, tmp_path, _write(tmp_path, "spans.jsonl", steps))
    assert report["summary"]["calls"] == 2 and report["exit"] == 1
    codes = _codes(report)
    assert {"business.positive-amount", "result.secret", "session.reused_call_id"} <= set(codes)


def test_the_verdict_does_not_depend_on_where_the_lines_sit(run_cli: Run, tmp_path: Path) -> None:
    """Defect 1: three lines sharing an id before 1,100 other calls were merged (exit 0),
    after them counted (exit 1)."""
    shared = [
        Step("chat_response", (Call("call_1", "lookup", arguments),), extra=n)
        for n, arguments in enumerate(({"id": 1}, {"id": -1}, {"id": "x"}))
    ]
    others = [
        Step("chat_response", (Call(f"call_o{n}", "lookup", {"id": 1}),), extra=f"o{n}")
        for n in range(1100)
    ]
    before = _check(run_cli, tmp_path, _write(tmp_path, "before.jsonl", shared + others))
    after = _check(run_cli, tmp_path, _write(tmp_path, "after.jsonl", others + shared))
    for report in (before, after):
        assert (report["summary"]["calls"], report["summary"]["failed"]) == (1103, 2)
        assert report["exit"] == 1


def test_a_result_in_a_later_history_past_the_window_is_checked(
    run_cli: Run, tmp_path: Path
) -> None:
    """Defect 2: the next request's history brings the call's result (a stack trace with a
    Stripe key) after the call left the window: exit 0, no finding, not even late."""
    call = Call("call_1", "lookup", {"id": 1})
    steps = [
        Step("chat_response", (call,), extra=1),
        Step("chat_response", (Call("call_9", "lookup", {"id": 2}),), extra=9),
        Step("chat_request", (Call("call_1", "lookup", {"id": 1}, LEAK),)),
    ]
    report = _check(run_cli, tmp_path, _write(tmp_path, "later.jsonl", steps), window=1)
    codes = _codes(report)
    assert report["exit"] == 1 and report["summary"]["calls"] == 2
    assert {"session.late_result", "result.secret", "result.stack_trace"} <= set(codes)
    far = [Step("chat_response", (call,), extra=1)]
    far += [
        Step("chat_response", (Call(f"call_f{n}", "lookup", {"id": 1}),), extra=f"f{n}")
        for n in range(1030)
    ]
    far.append(Step("chat_request", (Call("call_1", "lookup", {"id": 1}, LEAK),)))
    report = _check(run_cli, tmp_path, _write(tmp_path, "far.jsonl", far))
    assert report["exit"] == 1 and "result.secret" in _codes(report)
    assert corpus._STRIPE not in json.dumps(report)


def test_a_second_different_tool_message_is_checked(run_cli: Run, tmp_path: Path) -> None:
    """Defect 3: two tool messages for ``call_1``, the second a stack trace with a key:
    the second was dropped, exit 0."""
    steps = [
        Step("chat_response", (Call("call_1", "lookup", {"id": 1}),), extra=1),
        Step("chat_result", (Call("call_1", "lookup", {"id": 1}, 0),)),
        Step("chat_result", (Call("call_1", "lookup", {"id": 1}, LEAK),)),
    ]
    report = _check(run_cli, tmp_path, _write(tmp_path, "twice.jsonl", steps))
    codes = _codes(report)
    assert report["exit"] == 1
    assert {"session.conflicting_result", "result.secret"} <= set(codes)
    # the same result again (a history repeats it) is no conflict
    again = [*steps[:2], steps[1]]
    assert "session.conflicting_result" not in _codes(
        _check(run_cli, tmp_path, _write(tmp_path, "again.jsonl", again))
    )


def test_an_edited_history_is_another_call(run_cli: Run, tmp_path: Path) -> None:
    """Defect 3: a later history that edits the call's arguments (amount -999) and its
    result was dropped, exit 0."""
    steps = [
        Step("chat_response", (Call("call_1", "pay", PAY_OK),), extra=1),
        Step("chat_request", (Call("call_1", "pay", PAY_OK, 0),)),
        Step("chat_request", (Call("call_1", "pay", PAY_BAD, LEAK),)),
    ]
    report = _check(run_cli, tmp_path, _write(tmp_path, "edited.jsonl", steps))
    codes = _codes(report)
    assert report["exit"] == 1 and report["summary"]["calls"] == 2
    assert {"session.reused_call_id", "business.positive-amount", "result.secret"} <= set(codes)


def test_anthropic_reports_a_second_result_as_a_conflict(run_cli: Run, tmp_path: Path) -> None:
    """Defect 3: Anthropic called the same case an orphan, with a wrong message."""
    steps = [
        Step("anthropic_request", (Call("toolu_1", "lookup", {"id": 1}, 0),)),
        Step("anthropic_request", (Call("toolu_1", "lookup", {"id": 1}, LEAK),)),
    ]
    report = _check(run_cli, tmp_path, _write(tmp_path, "anthropic.jsonl", steps))
    codes = _codes(report)
    assert "session.orphan_result" not in codes
    assert {"session.conflicting_result", "result.secret"} <= set(codes)


def test_a_result_past_the_window_is_still_checked(run_cli: Run, tmp_path: Path) -> None:
    """Defect 12: a result past ``--result-window`` was one late warning (its secret and
    stack trace unchecked, exit 0); with ``--result-window 0`` no result was checked."""
    steps = [
        Step("chat_response", (Call("call_1", "lookup", {"id": 1}),), extra=1),
        Step("chat_response", (Call("call_2", "lookup", {"id": 2}),), extra=2),
        Step("chat_result", (Call("call_1", "lookup", {"id": 1}, LEAK),)),
    ]
    path = _write(tmp_path, "late.jsonl", steps)
    for window in (0, 1):
        report = _check(run_cli, tmp_path, path, window=window)
        assert report["exit"] == 1, window
        assert {"session.late_result", "result.secret"} <= set(_codes(report))
    report = _check(run_cli, tmp_path, path)  # within the default window: attached
    assert report["results"][0]["findings"] and "session.late_result" not in _codes(report)
