"""Apache Spark: the same results as a local run, on a real ``local[2]`` session.

The inputs are kept small (CI time), but cut into many partitions, so that every check that
spans the trace (idempotency keys, key-less double writes, "reported once per tool") crosses
partition boundaries. pyspark comes with the ``spark`` extra, which CI installs: there these
tests always run.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

if os.environ.get("CI"):
    import pyspark  # CI installs the spark extra: never skipped there
else:
    pyspark = pytest.importorskip("pyspark")

from jsoncontract import spark as jspark
from jsoncontract.api import check as local_check
from jsoncontract.business import load_business
from jsoncontract.errors import UsageError
from tests.conftest import FIXTURES, REPO
from tests.pipeline import day

pytestmark = [
    pytest.mark.slow,
    # pyspark leaves the sockets of its results to the garbage collector
    pytest.mark.filterwarnings("ignore:unclosed <socket:ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]
TOOLS = FIXTURES / "tools"


@pytest.fixture(scope="module")
def session() -> Iterator[Any]:
    from pyspark.sql import SparkSession

    # the workers must import jsoncontract: this interpreter, not python3 from PATH
    monkey = pytest.MonkeyPatch()
    monkey.setenv("PYSPARK_PYTHON", sys.executable)
    built = (
        SparkSession.builder.master("local[2]")
        .appName("jsoncontract-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.files.maxPartitionBytes", "16384")  # many partitions per file
        .getOrCreate()
    )
    built.sparkContext.setLogLevel("ERROR")
    yield built
    built.stop()
    monkey.undo()


def _writes(tmp_path: Path) -> Path:
    """A trace of single-line calls: OpenAI and Anthropic calls, valid and not, and writes
    sent downstream whose keys come back with the same or other arguments."""
    tools = tmp_path / "tools.json"
    schema = {
        "type": "object",
        "properties": {"order_id": {"type": "string"}, "idempotency_key": {"type": "string"}},
        "required": ["order_id"],
    }
    tools.write_text(
        json.dumps(
            {
                "tools": [
                    {"name": "update_order", "inputSchema": schema},
                    {"name": "send_note", "inputSchema": {"type": "object"}},
                ]
            }
        )
    )
    lines: list[dict[str, Any]] = []
    for i in range(400):
        if i % 50 == 7:  # one response, two messages: two side effects in one turn
            pair = [
                {"id": f"call_p{i}_{n}", "type": "function", "function": {
                    "name": name, "arguments": json.dumps({"order_id": f"O{i}", "to": "u1"})}}
                for n, name in enumerate(("send_note", "send_note"))
            ]  # fmt: skip
            message = {"tool_calls": pair}
            lines.append(
                {"id": f"r{i}", "object": "chat.completion", "choices": [{"message": message}]}
            )
            continue
        if i % 3 == 0:
            args = {"order_id": f"O{i % 40}", "idempotency_key": f"k{i % 60}"}
            if i % 9 == 0:
                args = {"order_id": f"O{i % 4}"}  # no key
            # writes as a gateway logs the bodies it sends downstream
            lines.append({"hop": "downstream", "tool": "update_order", "payload": args})
        elif i % 3 == 1:
            note = {"name": "send_note", "input": {"to": f"u{i % 5}"}, "id": f"toolu_{i}"}
            message = {"type": "message", "role": "assistant", "id": f"msg_{i}"}
            lines.append({**message, "content": [{"type": "tool_use", **note}]})
        else:
            # an id that comes again is the same call (its arguments follow the id)
            text = '{"order_id": 7}' if i % 150 % 4 == 0 else '{"order_id": "O1", "x": 1'
            lines.append(
                {
                    "object": "chat.completion",
                    "choices": [
                        {
                            "message": {
                                "tool_calls": [
                                    {
                                        # some ids come again, far apart
                                        "id": f"call_{i % 150}",
                                        "type": "function",
                                        "function": {"name": "update_order", "arguments": text},
                                    }
                                ]
                            }
                        }
                    ],
                }
            )
    trace = tmp_path / "writes.jsonl"
    trace.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return tools


def _calls_alone() -> bytes:
    """The bundled trace without its MCP exchanges: calls alone."""
    lines = (FIXTURES / "captures" / "trace.jsonl").read_bytes().splitlines(keepends=True)
    return b"".join(line for line in lines if b'"jsonrpc"' not in line)


@pytest.mark.parametrize("on_driver", [True, False], ids=["driver", "spark"])
def test_the_same_results_as_a_local_run(
    session: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, on_driver: bool
) -> None:
    """Lines counted and write calls judged by the driver (the usual case: its tracker
    applies the key records in input order), and by Spark (past a size: a job counts the
    line feeds, window aggregations judge the write calls): the same results."""
    if not on_driver:
        monkeypatch.setattr(jspark, "_COUNT_HERE", 0)
        monkeypatch.setattr(jspark, "_DRIVER_RECORDS", 0)
    tools = _writes(tmp_path)
    mixed = tmp_path / "mixed.jsonl.gz"
    mixed.write_bytes(gzip.compress(_calls_alone() * 3))
    captures = [tmp_path / "writes.jsonl", mixed]
    lines = jspark.read_captures(session, captures)
    assert lines.count() > 3  # blocks: partitions of the check
    # a short result window: past it, partitions start where the run is (a longer one would
    # have the driver read the partitions within it again: the same results, more slowly)
    report = jspark.check(lines, tools=[tools, TOOLS], window=16)

    business = load_business(None)
    local = local_check(captures, tools=[tools, TOOLS], business=business, window=16)
    business.close()
    assert report.summary.to_dict() == local.summary.to_dict()
    assert report.summary.findings == local.summary.findings
    # a call seen again in a later partition is one call: such a partition is read again
    # (its executor could not know), the others are taken as the executors checked them
    assert report.reread < lines.count()
    assert not report.in_one_task
    codes = report.summary.by_code
    assert codes["session.parallel_side_effects"] >= 5
    assert codes["business.idempotency.conflict"] > 5
    assert codes["business.idempotency.double_write"] > 5
    assert codes["business.idempotency.missing_key"] > 5
    spark_results = [r.to_dict() for r in _full(report.iter_results())]
    assert spark_results == [r.to_dict() for r in local.results]
    failed = report.results.filter("not ok").count()
    assert failed == local.summary.failed
    one = report.results.filter("not ok").orderBy("file", "line").first()
    assert one is not None and json.loads(one["result"])["ok"] is False


def test_partitions_that_start_elsewhere_than_the_run_are_read_again(
    session: Any, run_cli: Any, tmp_path: Path
) -> None:
    """Responses logged again far apart, and responses over two lines (two side effects in
    one turn) cut by partition boundaries: the driver reads those partitions again."""
    day.write_calls(tmp_path / "calls.jsonl", count=1500)
    tools = day.traffic.tools_file(tmp_path)
    captures = [tmp_path / "calls.jsonl"]
    lines = jspark.read_captures(session, captures)
    report = jspark.check(lines, tools=[tools], window=16)
    assert not report.in_one_task
    assert 0 < report.reread < lines.count()  # some were taken
    local = local_check(captures, tools=[tools], business=load_business(None), window=16)
    assert report.summary.to_dict() == local.summary.to_dict()
    assert report.summary.findings == local.summary.findings
    assert [r.to_dict() for r in _full(report.iter_results())] == [
        r.to_dict() for r in local.results
    ]
    assert report.summary.by_code["session.parallel_side_effects"] > 10


#: ``jsoncontract`` with the parts of a parallel run cut small, so that a small trace is
#: cut into many parts
_SMALL_PARTS = (
    "import sys; from jsoncontract.pipeline import runner; runner.PART_BYTES = 4096; "
    "from jsoncontract.cli import main; main()"
)


def test_a_trace_with_results_gives_what_one_process_and_workers_give(
    session: Any, run_cli: Any, tmp_path: Path
) -> None:
    tools, captures = day.write_day(tmp_path)
    args = ["check", "-t", str(tools), *map(str, captures), "-f", "json"]
    args += ["--result-window", str(day.WINDOW), "--no-config"]

    def local(jobs: int) -> subprocess.CompletedProcess[bytes]:
        command = [sys.executable, "-c", _SMALL_PARTS, *args, "--jobs", str(jobs)]
        return subprocess.run(command, capture_output=True, cwd=REPO, check=False, timeout=300)

    one, two = local(1), local(2)
    on_spark = run_cli(*args, "--spark", "local[2]")
    assert one.returncode == two.returncode == on_spark.code == 1, two.stderr + one.stderr
    assert two.stdout == one.stdout
    assert on_spark.stdout_bytes == one.stdout
    codes = json.loads(one.stdout)["summary"]["by_code"]
    for code in (
        "business.idempotency.conflict",
        "business.idempotency.double_write",
        "result.secret",
        "result.stack_trace",
        "result.structured_content",
        "session.late_result",
        "session.missing_result",
        "session.orphan_result",
        "session.parallel_side_effects",
        "session.stale_tool_list",
    ):
        assert codes.get(code, 0) > 0, code
    # results cannot be split: one task read the trace, in order
    assert "Spark checked it in one task" in on_spark.stderr


def _full(results: Iterator[Any]) -> Iterator[Any]:
    for item in results:
        yield item.result() if hasattr(item, "result") else item


@pytest.mark.parametrize("fmt", ["text", "jsonl"])
def test_captures_named_relative_are_shown_as_named(
    session: Any, run_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    """Executors open a capture by its absolute path; the report names it as the command
    line did, as a local run's does (a trace with results, in one task, and one without)."""
    (tmp_path / "day").mkdir()
    (tmp_path / "day" / "calls.jsonl").write_bytes(_calls_alone())
    shutil.copy(FIXTURES / "business" / "trace.jsonl", tmp_path / "day" / "trace.jsonl")
    monkeypatch.chdir(tmp_path)
    for captures in (["day/calls.jsonl"], ["day/calls.jsonl", "day/trace.jsonl"]):
        args = ["check", "-t", str(TOOLS), *captures, "-f", fmt]
        local, on_spark = run_cli(*args), run_cli(*args, "--spark", "local[2]")
        assert on_spark.code == local.code
        assert "day/calls.jsonl" in local.stdout and str(tmp_path) not in local.stdout
        assert on_spark.stdout_bytes == local.stdout_bytes


def test_the_cli_writes_the_local_report(session: Any, run_cli: Any, tmp_path: Path) -> None:
    calls = tmp_path / "calls.jsonl"
    calls.write_bytes(_calls_alone())
    captures = [str(calls), str(FIXTURES / "business" / "trace.jsonl")]
    local = run_cli("check", "-t", str(TOOLS), *captures, "-f", "json")
    on_spark = run_cli("check", "--spark", "local[2]", "-t", str(TOOLS), *captures, "-f", "json")
    assert on_spark.code == local.code == 1
    assert on_spark.stdout_bytes == local.stdout_bytes
    assert not session.sparkContext._jsc.sc().isStopped()  # not stopped: not the CLI's
    # against a baseline of half the findings: each marked in input order, as locally
    report = json.loads(local.stdout)
    report["results"] = report["results"][: len(report["results"]) // 2]
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps(report))
    args = ["check", "-t", str(TOOLS), *captures, "-f", "sarif", "--baseline", str(baseline)]
    local, on_spark = run_cli(*args), run_cli(*args, "--spark", "local[2]")
    assert on_spark.code == local.code == 1
    assert on_spark.stdout_bytes == local.stdout_bytes
    assert '"baselineState": "unchanged"' in local.stdout
    assert '"baselineState": "new"' in local.stdout


@pytest.mark.parametrize(
    "report", [["-f", "json", "--results", "failed"], ["-f", "jsonl", "--results", "findings"]]
)
def test_reports_of_some_results_are_the_local_ones(
    session: Any, run_cli: Any, tmp_path: Path, report: list[str]
) -> None:
    """The JSON formats are written from the executors' entries, chosen as a local run
    chooses them; several files, plain, gzip and Zstandard, each cut in many blocks (a
    compressed file is one)."""
    import zstandard

    day.write_calls(tmp_path / "calls.jsonl", count=600)
    day.write_calls(tmp_path / "more.jsonl", seed=8, count=300)
    day.write_calls(tmp_path / "last.jsonl", seed=9, count=300)
    tools = day.traffic.tools_file(tmp_path)
    packed = tmp_path / "more.jsonl.gz"
    packed.write_bytes(gzip.compress((tmp_path / "more.jsonl").read_bytes()))
    zstd = tmp_path / "last.jsonl.zst"
    zstd.write_bytes(zstandard.ZstdCompressor().compress((tmp_path / "last.jsonl").read_bytes()))
    args = ["check", "--no-config", "-t", str(tools), *report]
    args += [str(tmp_path / "calls.jsonl"), str(packed), str(zstd), "--result-window", "16"]
    local, on_spark = run_cli(*args), run_cli(*args, "--spark", "local[2]")
    assert on_spark.code == local.code == 1
    assert on_spark.stdout_bytes == local.stdout_bytes
    if report[1] == "json":
        document = json.loads(local.stdout)
        listed, calls = len(document["results"]), document["summary"]["calls"]
    else:
        lines = local.stdout.splitlines()
        listed, calls = len(lines) - 1, json.loads(lines[-1])["summary"]["calls"]
    assert 0 < listed < calls  # some chosen, not all


def test_a_zstandard_capture_is_one_block(session: Any, tmp_path: Path) -> None:
    import zstandard

    packed = tmp_path / "day.jsonl.zst"
    packed.write_bytes(zstandard.ZstdCompressor().compress(_calls_alone() * 200))
    blocks = jspark.read_captures(session, [packed]).collect()
    assert [(b.file, b.start, b.end, b.last) for b in blocks] == [
        (str(packed), 0, packed.stat().st_size, True)
    ]


def test_a_capture_whose_name_does_not_say_its_compression_is_refused(
    session: Any, tmp_path: Path
) -> None:
    import zstandard

    hidden = tmp_path / "day.jsonl"
    hidden.write_bytes(zstandard.ZstdCompressor().compress(_calls_alone()))
    with pytest.raises(UsageError, match=r"holds zstd data its name does not say.*name it \.zst"):
        jspark.read_captures(session, [hidden])


@pytest.mark.parametrize("master", ["nope://x", "local[two]", "", "spark:/host"])
def test_a_master_spark_does_not_take_is_a_usage_error(master: str) -> None:
    """Refused before Spark's Java process starts (which would print its own stack trace)."""
    with pytest.raises(UsageError, match="is not a Spark master"):
        jspark.session(master)


def test_the_cli_refuses_a_bad_master_in_one_line(run_cli: Any) -> None:
    result = run_cli(
        "check",
        "--spark",
        "nope://x",
        "--tools",
        str(TOOLS),
        str(FIXTURES / "captures" / "trace.jsonl"),
    )
    assert result.code == 2
    assert result.stderr.strip().splitlines() == [
        "jsoncontract: error: 'nope://x' is not a Spark master: use local, local[N], local[*], "
        "spark://HOST:PORT, yarn or k8s://URL"
    ]


def test_stdin_is_refused_before_spark_starts(run_cli: Any) -> None:
    result = run_cli("check", "--spark", "local[1]", "--tools", str(TOOLS), "-", stdin=b"{}\n")
    assert result.code == 2
    assert "not standard input: write it to a file first" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1  # no Spark start-up lines


def test_an_empty_capture_is_no_silent_pass(run_cli: Any, tmp_path: Path) -> None:
    """Named: refused as a local run refuses it. Found in a directory: a local run reports
    it and goes on, which Spark cannot do; the run stops before Spark starts, saying how to
    go on (and with --exclude the reports are those of a local run)."""
    (tmp_path / "day").mkdir()
    (tmp_path / "day" / "empty.jsonl").write_bytes(b"\n  \n")
    (tmp_path / "day" / "zero.jsonl.gz").write_bytes(gzip.compress(b""))
    trace = tmp_path / "day" / "trace.jsonl"
    trace.write_bytes((FIXTURES / "captures" / "trace.jsonl").read_bytes())
    named = run_cli(
        "check", "--spark", "local[1]", "--tools", str(TOOLS), str(tmp_path / "day" / "empty.jsonl")
    )
    assert named.code == 2
    assert named.stderr.strip().endswith("empty.jsonl: file is empty")
    found = run_cli("check", "--spark", "local[1]", "--tools", str(TOOLS), str(tmp_path / "day"))
    assert found.code == 2
    assert "empty.jsonl: file is empty; a local run reports" in found.stderr
    assert "--exclude it" in found.stderr
    args = ["check", "--tools", str(TOOLS), str(tmp_path / "day"), "-f", "json"]
    args += ["--exclude", "empty.jsonl", "--exclude", "zero.jsonl.gz"]
    local = run_cli(*args)
    on_spark = run_cli(*args, "--spark", "local[1]")
    assert on_spark.code == local.code == 1
    assert on_spark.stdout == local.stdout


@pytest.mark.parametrize("allow", [[], ["--allow-empty"]])
@pytest.mark.parametrize("content", [b'{"resourceSpans": []}\n', b'{"level": "info"}\n'])
def test_a_run_that_reads_no_call_fails_as_locally(
    session: Any, run_cli: Any, tmp_path: Path, content: bytes, allow: list[str]
) -> None:
    """``input.no_calls`` on Spark as locally (in one task when the trace holds a result:
    an export of spans), and ``--allow-empty`` lets the run pass."""
    path = tmp_path / "spans.jsonl"
    path.write_bytes(content)
    args = ["check", "-t", str(TOOLS), str(path), "-f", "json", *allow]
    local, on_spark = run_cli(*args), run_cli(*args, "--spark", "local[1]")
    assert on_spark.stdout == local.stdout
    assert on_spark.code == local.code
    codes = [f["code"] for f in json.loads(local.stdout)["findings"]]
    assert codes == ([] if allow else ["input.no_calls"])


@pytest.mark.parametrize(("results", "suffix"), [(True, ".gz"), (False, ".gz"), (False, ".zst")])
def test_a_truncated_capture_names_the_file_and_writes_nothing(
    session: Any, run_cli: Any, tmp_path: Path, results: bool, suffix: str
) -> None:
    if results:  # checked in one task
        data = (FIXTURES / "captures" / "trace.jsonl").read_bytes() * 50
    else:  # calls alone: checked by partition
        call = {"id": "c", "type": "function", "function": {"name": "get_weather"}}
        call["function"]["arguments"] = '{"city": "Oslo"}'
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
        doc = {"id": "r", "object": "chat.completion", "choices": [{"message": message}]}
        data = (json.dumps(doc) + "\n").encode() * 5000
    if suffix == ".gz":
        whole = gzip.compress(data)
    else:
        import zstandard

        whole = zstandard.ZstdCompressor().compress(data)
    cut = tmp_path / f"cut.jsonl{suffix}"
    cut.write_bytes(whole[: len(whole) // 2])
    out = tmp_path / "report.json"
    args = ["--tools", str(TOOLS), str(cut), "-f", "json", "-o", str(out)]
    result = run_cli("check", "--spark", "local[2]", *args)
    assert result.code == 2
    kind = "gzip" if suffix == ".gz" else "zstd"
    # (a zstd frame of 5,000 equal lines is one block of 276 bytes: cut, no line is whole)
    assert result.stderr.startswith(f"jsoncontract: error: {cut}: corrupt {kind} data (")
    assert "the compressed stream ends early (the file is truncated)" in result.stderr
    assert "internal error" not in result.stderr
    assert not out.exists()
    local = run_cli("check", *args)  # the executor reads it as a local run does
    assert (local.code, local.stderr) == (result.code, result.stderr)
    assert not out.exists()


def test_the_cli_looks_at_each_capture_once(
    session: Any, run_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Checked before Spark starts, then read as checked (not looked at again)."""
    looked: list[str] = []
    unreadable = jspark._unreadable

    def counting(name: str) -> str | None:
        looked.append(name)
        return unreadable(name)

    monkeypatch.setattr(jspark, "_unreadable", counting)
    trace = FIXTURES / "captures" / "trace.jsonl"
    result = run_cli("check", "--spark", "local[2]", "--tools", str(TOOLS), str(trace), "-q")
    assert result.code == 1
    assert looked == [str(trace)]


def test_generated_traces_give_the_local_report(session: Any, run_cli: Any, tmp_path: Path) -> None:
    """The differential test's corpus (tests/pipeline/corpus.py) on Spark: every call
    counted once, and the report the same byte for byte as a local run's, plain, gzip and
    Zstandard, with the tools named or taken from the capture.
    A few traces only, on the module's one session (each Spark run costs seconds)."""
    from hypothesis import HealthCheck, given, settings

    from tests.pipeline import corpus

    tools, rules = corpus.write_tools(tmp_path)
    runs = iter(range(1_000_000))

    @settings(
        max_examples=4,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(corpus.traces(max_steps=6))
    def check(trace: corpus.Trace) -> None:
        folder = tmp_path / f"t{next(runs)}"
        folder.mkdir()
        for compression in ("", ".gz", ".zst"):
            files = [str(p) for p in trace.write(folder, compression)]
            contract = ["-t", "capture"] if trace.capture else ["-t", str(tools), "-r", str(rules)]
            args = ["check", "--no-config", *contract, "-f", "json"]
            args += ["--result-window", str(trace.window), *files]
            local = run_cli(*args)
            on_spark = run_cli(*args, "--spark", "local[2]")
            assert on_spark.code == local.code, on_spark.stderr
            assert on_spark.stdout_bytes == local.stdout_bytes
            if local.code == 2:  # checked without tools, and none is offered: none is read
                assert "no tool definitions" in local.stderr
                return
            report = json.loads(local.stdout)
            assert report["summary"]["calls"] == corpus.expected_calls(trace.steps)

    check()
