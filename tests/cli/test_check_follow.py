"""``check --follow``: a live tail of a growing capture, in real processes.

A writer process appends lines to a file (renames it, truncates it) when the test asks and
says when it wrote; ``jsoncontract check --follow`` runs in its own process, and each of its
verdicts is waited for with a deadline (no fixed sleeps): a call's verdict comes within a
second of the line that makes it final. Ctrl-C and SIGTERM end the run with its summary and
the usual exit code, and the report is the one a plain ``check`` gives of the final file.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.slow

TOOLS = str(REPO / "fixtures" / "tools")
TRACE = (REPO / "fixtures" / "captures" / "trace.jsonl").read_bytes().splitlines(keepends=True)
#: How long a verdict may take once its line is written (the promise of the docs).
PROMPT = 1.0
#: How long the first verdict may take: the process starts (imports, tools) meanwhile.
START = 120.0

#: The writer: one command a line on stdin (append the JSON string that follows, rotate,
#: truncate), each acknowledged on stdout with the monotonic time it was done at.
WRITER = r"""
import json, os, sys, time
path = sys.argv[1]
for command in sys.stdin:
    op, _, rest = command.rstrip("\n").partition(" ")
    if op == "append":
        with open(path, "ab") as stream:
            stream.write(json.loads(rest).encode("utf-8", "surrogateescape"))
    elif op == "rotate":
        os.rename(path, path + "." + rest)
        open(path, "wb").close()
    elif op == "truncate":
        with open(path, "r+b") as stream:
            stream.truncate(0)
    print(time.monotonic(), flush=True)
"""


class Reader:
    """Lines of a child's pipe, each waited for with a deadline; ``when`` the last came."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream
        self.selector = selectors.DefaultSelector()
        self.selector.register(stream, selectors.EVENT_READ)
        self.buffer = b""
        self.when = 0.0

    def line(self, deadline: float) -> str:
        end = time.monotonic() + deadline
        while b"\n" not in self.buffer:
            left = end - time.monotonic()
            if left <= 0 or not self.selector.select(left):
                raise AssertionError(f"no line within {deadline} s (have {self.buffer!r})")
            chunk = os.read(self.stream.fileno(), 65536)
            if not chunk:
                raise AssertionError(f"the stream ended (have {self.buffer!r})")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        self.when = time.monotonic()
        return line.decode()

    def rest(self) -> str:
        """Everything until the stream ends."""
        chunks = [self.buffer]
        while chunk := os.read(self.stream.fileno(), 65536):
            chunks.append(chunk)
        self.buffer = b""
        return b"".join(chunks).decode()


class Writer:
    """The writer process."""

    def __init__(self, path: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.commands = self.process.stdin
        self.acks = Reader(self.process.stdout)

    def do(self, command: str) -> float:
        """Do ``command``; the time it was done at."""
        self.commands.write(command.encode() + b"\n")
        self.commands.flush()
        return float(self.acks.line(START))

    def append(self, data: bytes) -> float:
        return self.do("append " + json.dumps(data.decode("utf-8", "surrogateescape")))

    def close(self) -> None:
        self.commands.close()
        self.process.wait(30)
        self.acks.stream.close()
        self.acks.selector.close()


class Checker:
    """``jsoncontract check --follow`` in a process of its own."""

    def __init__(self, *args: str, stdin: int | None = None) -> None:
        env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
        env.pop("FORCE_COLOR", None)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "jsoncontract", "check", "--no-config", "-t", TOOLS, *args],
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        assert self.process.stdout is not None and self.process.stderr is not None
        self.out = Reader(self.process.stdout)
        self.err = Reader(self.process.stderr)

    def verdict(self, written: float, deadline: float = PROMPT) -> str:
        """The next call of the report (its header line; the lines of its findings, written
        with it, are passed over), which must come within ``deadline`` of ``written``."""
        line = self.out.line(max(deadline, written + deadline - time.monotonic()) + 5)
        assert self.out.when - written < deadline, (line, self.out.when - written)
        while self.out.buffer.startswith(b" "):
            self.out.line(deadline)
        return line

    def stop(self, signum: int = signal.SIGINT) -> tuple[int, str, str]:
        """Send ``signum``: the exit code, the rest of the report, stderr."""
        self.process.send_signal(signum)
        rest = self.out.rest()
        errors = self.err.rest()
        return self.process.wait(60), rest, errors

    def quiet(self, seconds: float) -> bool:
        """Whether nothing more is written for ``seconds`` (a call held is not reported)."""
        return not self.out.buffer and not self.out.selector.select(seconds)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(30)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()
        self.out.selector.close()
        self.err.selector.close()


@pytest.fixture
def processes() -> Iterator[list[Any]]:
    """The processes a test starts, stopped whatever happens."""
    started: list[Any] = []
    yield started
    for process in started:
        if isinstance(process, Checker):
            process.kill()
        else:
            process.close()


Start = Callable[..., Any]


@pytest.fixture
def start(processes: list[Any]) -> Start:
    def make(kind: type, *args: Any, **kwargs: Any) -> Any:
        process = kind(*args, **kwargs)
        processes.append(process)
        return process

    return make


#: Lines of the bundled trace (line N is TRACE[N - 1]) and what a check says of their calls.
LOG_LINE = TRACE[5]  # a log line that is not JSON: reported at once, whatever the window
ANTHROPIC_OK = TRACE[4]  # get_weather
OPENAI_OK = TRACE[0]  # searchInvoices
GEMINI_OK = TRACE[6]  # get_weather
DUPLICATE_KEY = TRACE[8]  # update_shipment, failing: parse.duplicate_key
UNKNOWN_TOOL = TRACE[12]  # update_shipmnt, failing: envelope.unknown_tool
OPENAI_OK_2 = TRACE[13]  # searchInvoices
MCP_CALL, MCP_ERROR = TRACE[9], TRACE[10]  # read_file with string arguments, and its answer
MCP_UNANSWERED = TRACE[2]  # read_file


def warmed(
    start: Start, path: Path, *args: str, first: bytes = ANTHROPIC_OK
) -> tuple[Writer, Checker]:
    """A writer and a checker following ``path``, the checker up (the verdict of the
    ``first`` line written, a call reported at once, is read)."""
    writer: Writer = start(Writer, path)
    checker: Checker = start(Checker, "--follow", str(path), *args)
    checker.verdict(writer.append(first), START)
    return writer, checker


def test_each_verdict_comes_within_a_second_of_its_line(tmp_path: Path, start: Start) -> None:
    path = tmp_path / "agent.jsonl"
    writer, checker = warmed(start, path, "--result-window", "0")
    lines = [OPENAI_OK, GEMINI_OK, DUPLICATE_KEY, UNKNOWN_TOOL, OPENAI_OK_2]
    seen = [checker.verdict(writer.append(line)).split()[:3] for line in lines]
    assert seen == [
        ["ok", f"{path}:2", "searchInvoices"],
        ["ok", f"{path}:3", "get_weather"],
        ["FAIL", f"{path}:4", "update_shipment"],
        ["FAIL", f"{path}:5", "update_shipmnt"],
        ["ok", f"{path}:6", "searchInvoices"],
    ]
    code, rest, errors = checker.stop()
    assert code == 1, errors
    assert rest.splitlines()[1] == "6 calls in 1 file: 4 ok, 2 failed"
    assert errors == ""


def test_a_call_is_reported_when_its_result_comes(tmp_path: Path, start: Start) -> None:
    path = tmp_path / "agent.jsonl"
    writer, checker = warmed(start, path, "-f", "jsonl", first=LOG_LINE)
    writer.append(MCP_CALL)  # held for its answer
    assert checker.quiet(0.5)
    answered = writer.append(MCP_ERROR)
    result = json.loads(checker.verdict(answered))
    assert (result["tool"], result["source"]["line"], result["ok"]) == ("read_file", 2, False)
    code, rest, _ = checker.stop()
    assert code == 1
    assert json.loads(rest)["summary"]["calls"] == 2


def test_held_calls_are_said_on_stderr_and_reported_at_the_end(
    tmp_path: Path, start: Start
) -> None:
    path = tmp_path / "agent.jsonl"
    writer, checker = warmed(start, path, "--result-window", "3", first=LOG_LINE)
    writer.append(MCP_UNANSWERED + OPENAI_OK)  # a call waiting for its answer, one behind it
    assert checker.err.line(30) == (
        "jsoncontract: 2 calls are held, waiting for a result (up to 3 more lines, or until "
        "the run ends; calls are reported in capture order); --result-window 0 reports each "
        "call as soon as it is read"
    )
    assert checker.quiet(0.2)
    code, rest, errors = checker.stop()
    assert code == 1
    assert rest.splitlines()[:2] == [
        f"ok   {path}:2 read_file (mcp, mcp, 21)",
        f"ok   {path}:3 searchInvoices (model, openai-chat, call_RSVRJMaEx0qgtxteEgsSXFfP)",
    ]
    assert errors == ""


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize("failing", [False, True])
def test_a_stop_prints_the_summary_and_the_usual_exit_code(
    tmp_path: Path, start: Start, signum: int, failing: bool
) -> None:
    path = tmp_path / "agent.jsonl"
    writer, checker = warmed(start, path, "--result-window", "0", "-f", "jsonl")
    written = writer.append(DUPLICATE_KEY if failing else OPENAI_OK)
    assert json.loads(checker.verdict(written))["ok"] is not failing
    code, rest, errors = checker.stop(signum)
    assert code == (1 if failing else 0), errors
    summary = json.loads(rest)["summary"]
    assert (summary["calls"], summary["failed"]) == (2, int(failing))
    assert errors == ""


def test_rotation_and_truncation_are_followed(tmp_path: Path, start: Start) -> None:
    path = tmp_path / "agent.jsonl"
    writer, checker = warmed(start, path, "--result-window", "0")
    writer.do("rotate 1")  # renamed away, and a new empty file at the path
    assert checker.verdict(writer.append(OPENAI_OK)).startswith(f"ok   {path}:1 searchInvoices")
    assert checker.verdict(writer.append(UNKNOWN_TOOL)).startswith(f"FAIL {path}:2 update_shipmnt")
    writer.do("truncate")
    assert checker.verdict(writer.append(GEMINI_OK)).startswith(f"ok   {path}:1 get_weather")
    code, rest, errors = checker.stop()
    assert code == 1
    assert rest.splitlines()[1] == "4 calls in 3 files: 3 ok, 1 failed"
    assert errors == (
        f"jsoncontract: {path} was replaced: following the new file\n"
        f"jsoncontract: {path} was truncated: reading it from its start\n"
    )


def test_standard_input_is_followed_until_it_ends(start: Start) -> None:
    checker: Checker = start(
        Checker, "--follow", "-", "--result-window", "0", "-f", "jsonl", stdin=subprocess.PIPE
    )
    feed = checker.process.stdin
    assert feed is not None

    def send(line: bytes) -> float:
        feed.write(line)
        feed.flush()
        return time.monotonic()

    assert json.loads(checker.verdict(send(ANTHROPIC_OK), START))["tool"] == "get_weather"
    for line in (OPENAI_OK, DUPLICATE_KEY):
        assert json.loads(checker.verdict(send(line)))["source"]["file"] == "-"
    feed.close()  # the writer ends: so does the run
    assert json.loads(checker.out.line(30))["summary"]["calls"] == 3
    assert checker.process.wait(30) == 1


@pytest.mark.parametrize("window", [None, "0", "2"])
def test_the_report_is_a_plain_check_of_the_final_file(
    tmp_path: Path, start: Start, window: str | None
) -> None:
    path = tmp_path / "agent.jsonl"
    options = ["-f", "jsonl"] + (["--result-window", window] if window else [])
    writer, checker = warmed(start, path, *options, first=LOG_LINE)
    for line in TRACE:
        writer.append(line)
    code, rest, _ = checker.stop()  # what was written by then is read first
    command = ["check", "--no-config", "-t", TOOLS, *options, str(path)]
    plain = subprocess.run(
        [sys.executable, "-m", "jsoncontract", *command],
        capture_output=True,
        check=False,
    )
    first = plain.stdout.decode().split("\n", 1)[0]
    assert json.loads(first)["findings"][0]["code"] == "parse.invalid_json"  # the warm-up
    assert first + "\n" + rest == plain.stdout.decode()
    assert code == plain.returncode == 1


@pytest.mark.parametrize(
    ("fmt", "golden_name"), [("text", "follow.txt"), ("jsonl", "follow.jsonl")]
)
def test_the_followed_report_of_a_pipe(
    in_repo: Path, golden: Callable[[str, str], None], fmt: str, golden_name: str
) -> None:
    """The bundled trace through a pipe that ends: every call listed as it comes, the
    findings over the run and the summary when the pipe ends."""
    command = ["check", "--no-config", "-t", "fixtures/tools", "--follow", "-"]
    done = subprocess.run(
        [sys.executable, "-m", "jsoncontract", *command, "--result-window", "0", "-f", fmt],
        input=b"".join(TRACE),
        capture_output=True,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "100"},
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr == b""
    golden(f"check/{golden_name}", done.stdout.decode())


def test_what_cannot_be_followed_is_refused_in_one_line(
    run_cli: Callable[..., Any], in_repo: Path, tmp_path: Path
) -> None:
    trace = str(tmp_path / "agent.jsonl")
    refused = {
        ("--jobs", "2", trace): "--follow checks each line as it is written, in one process: "
        "leave out --jobs",
        ("--spark", "local[1]", trace): "--follow checks each line as it is written, here: it "
        "does not run on Spark",
        (trace, trace): "--follow follows one file (or - for standard input), not 2",
        (str(tmp_path),): f"--follow follows one file, and {tmp_path} is a directory",
        ("-f", "json", trace): "--follow writes each verdict as it is known: --format text or "
        "jsonl, not json (for a whole report, check the file once it is written)",
        (trace + ".gz",): "--follow reads JSON Lines (one event a line) as they are written, "
        f"not a .gz file; a trace of lines under that name can be piped: zcat {trace}.gz | "
        "jsoncontract check --follow -",
    }
    for args, message in refused.items():
        result = run_cli("check", "--no-config", "-t", TOOLS, "--follow", *args)
        assert result.code == 2, args
        assert result.stderr == f"jsoncontract: error: {message}\n"
    from jsoncontract.pipeline.settings import follow_problem

    assert follow_problem([trace], format="jsonl", jobs=1, spark=None) is None
    assert follow_problem(["-"], format="text", jobs=None, spark=None) is None


def test_an_output_file_is_written_as_it_goes(tmp_path: Path, start: Start) -> None:
    path, out = tmp_path / "agent.jsonl", tmp_path / "verdicts.jsonl"
    writer: Writer = start(Writer, path)
    options = ["--result-window", "0", "-f", "jsonl", "-o", str(out)]
    checker: Checker = start(Checker, "--follow", str(path), *options)
    written = writer.append(OPENAI_OK)
    deadline = written + START
    while not (out.exists() and out.read_bytes().endswith(b"\n")):  # the verdict, in place
        assert time.monotonic() < deadline, "no verdict in the output file"
        checker.err.selector.select(0.05)  # a line on stderr would end the wait early
    assert json.loads(out.read_text())["tool"] == "searchInvoices"
    code, rest, errors = checker.stop()
    assert (code, rest) == (0, "")
    assert errors == f"jsoncontract: wrote the jsonl report to {out}\n"
    last = out.read_text().splitlines()[-1]
    assert json.loads(last)["summary"]["calls"] == 1


def test_a_second_ctrl_c_stops_at_once() -> None:
    """The first Ctrl-C (or SIGTERM) asks the run to end as its input's end does; a second
    stops it at once (exit 130, as any Ctrl-C does); the handlers are put back after."""
    from jsoncontract.business.settings import business_settings
    from jsoncontract.cli.check import _following
    from jsoncontract.pipeline.settings import CheckSettings
    from jsoncontract.settings import Config, ReportSettings

    before = signal.getsignal(signal.SIGINT)
    business = business_settings(Config())
    settings = CheckSettings(("-",), (), business, ReportSettings(), follow=True)
    with _following(settings) as follow:
        assert follow is not None and not follow.stop.is_set()
        handler = signal.getsignal(signal.SIGINT)
        assert callable(handler) and signal.getsignal(signal.SIGTERM) is handler
        handler(signal.SIGTERM, None)
        assert follow.stop.is_set()
        with pytest.raises(KeyboardInterrupt):
            handler(signal.SIGINT, None)
    assert signal.getsignal(signal.SIGINT) is before
