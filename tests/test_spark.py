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
from tests.conftest import FIXTURES

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


def _writes(tmp_path: Path) -> Path:
    """A trace of single-line calls: OpenAI, Anthropic and MCP calls, valid and not, and
    MCP writes whose keys come back with the same or other arguments."""
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
    lines = []
    for i in range(400):
        if i % 3 == 0:
            args = {"order_id": f"O{i % 40}", "idempotency_key": f"k{i % 60}"}
            if i % 9 == 0:
                args = {"order_id": f"O{i % 4}"}  # no key
            call = {"name": "update_order", "arguments": args}
            lines.append({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": call})
        elif i % 3 == 1:
            note = {"name": "send_note", "arguments": {"to": f"u{i % 5}"}}
            lines.append({"jsonrpc": "2.0", "id": f"n{i}", "method": "tools/call", "params": note})
        else:
            text = '{"order_id": 7}' if i % 4 == 0 else '{"order_id": "O1", "x": 1'
            lines.append(
                {
                    "object": "chat.completion",
                    "choices": [
                        {
                            "message": {
                                "tool_calls": [
                                    {
                                        "id": f"call_{i}",
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


def test_the_same_results_as_a_local_run(session: Any, tmp_path: Path) -> None:
    tools = _writes(tmp_path)
    mixed = tmp_path / "mixed.jsonl.gz"
    mixed.write_bytes(gzip.compress((FIXTURES / "captures" / "trace.jsonl").read_bytes() * 3))
    captures = [tmp_path / "writes.jsonl", mixed]
    lines = jspark.read_captures(session, captures)
    assert lines.rdd.getNumPartitions() > 3
    report = jspark.check(lines, tools=[tools, TOOLS])

    business = load_business(None)
    local = local_check(captures, tools=[tools, TOOLS], business=business)
    business.close()
    assert report.summary.to_dict() == local.summary.to_dict()
    codes = report.summary.by_code
    assert codes["business.idempotency.conflict"] > 5
    assert codes["business.idempotency.double_write"] > 5
    assert codes["business.idempotency.missing_key"] > 5
    spark_results = [r.to_dict() for r in _full(report.iter_results())]
    assert spark_results == [r.to_dict() for r in local.results]
    failed = report.results.filter("not ok").count()
    assert failed == local.summary.failed
    one = report.results.filter("not ok").orderBy("file", "line").first()
    assert one is not None and json.loads(one["result"])["ok"] is False
    assert report.carried == 0


def _full(results: Iterator[Any]) -> Iterator[Any]:
    for item in results:
        yield item.result() if hasattr(item, "result") else item


def test_the_cli_writes_the_local_report(session: Any, run_cli: Any, tmp_path: Path) -> None:
    captures = [str(FIXTURES / "captures" / "trace.jsonl"), str(FIXTURES / "business")]
    captures[1] = str(FIXTURES / "business" / "trace.jsonl")
    local = run_cli("check", "-t", str(TOOLS), *captures, "-f", "json")
    on_spark = run_cli("check", "--spark", "local[2]", "-t", str(TOOLS), *captures, "-f", "json")
    assert on_spark.code == local.code == 1
    assert on_spark.stdout_bytes == local.stdout_bytes
    assert not session.sparkContext._jsc.sc().isStopped()  # not stopped: not the CLI's


def test_zstandard_captures_are_refused_with_what_to_do(session: Any, tmp_path: Path) -> None:
    packed = tmp_path / "day.jsonl.zst"
    packed.write_bytes(b"(\xb5/\xfd")
    with pytest.raises(UsageError, match=r"decompress \.zst first"):
        jspark.read_captures(session, [packed])
