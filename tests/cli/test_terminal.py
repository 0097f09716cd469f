"""The command line at a real terminal (a pseudo-terminal of 60 columns): text reports keep
to the terminal's width, and a report written to a file has no ANSI codes whatever
FORCE_COLOR says."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from tests.conftest import BUNDLED

REPO = Path(__file__).resolve().parents[2]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def at_terminal(args: list[str], columns: int = 60) -> tuple[int, str]:
    """Run ``jsoncontract ARGS`` with stdout and stderr on a terminal of ``columns``."""
    main, child = pty.openpty()
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env.update(COLUMNS=str(columns), TERM="xterm-256color")
    process = subprocess.Popen(
        [sys.executable, "-m", "jsoncontract", *args],
        stdin=subprocess.DEVNULL,
        stdout=child,
        stderr=child,
        cwd=REPO,
        env=env,
    )
    os.close(child)
    chunks = []
    while True:
        try:
            data = os.read(main, 1 << 16)
        except OSError:  # the terminal closed
            break
        if not data:
            break
        chunks.append(data)
    os.close(main)
    return process.wait(timeout=60), b"".join(chunks).decode("utf-8", "replace")


RUNS = {
    **{name: BUNDLED[name] for name in ("check", "lint", "test")},
    "rules": ["rules"],
    "rules JC020": ["rules", "JC020"],
}


@pytest.mark.parametrize("name", list(RUNS))
def test_text_reports_keep_to_the_terminal_width(name: str) -> None:
    code, output = at_terminal(RUNS[name])
    assert code in (0, 1), output
    lines = ANSI.sub("", output).replace("\r\n", "\n").split("\n")
    too_long = [line for line in lines if len(line) > 60]
    assert too_long == [], too_long[:3]
    assert "\x1b[" in output  # styled: it is a terminal


def test_the_check_report_is_the_same_words_wrapped() -> None:
    code, output = at_terminal(RUNS["check"])
    assert code == 1
    text = " ".join(ANSI.sub("", output).split())
    assert 'error schema.enum /priority: "urgent" is not one of "standard", "expedited",' in text
    assert "62 calls in 41 files: 29 ok, 33 failed" in text


def test_force_color_puts_no_ansi_into_an_output_file(tmp_path: Path) -> None:
    report = tmp_path / "report.txt"
    env = {**os.environ, "FORCE_COLOR": "1"}
    env.pop("NO_COLOR", None)
    with_o = subprocess.run(
        [sys.executable, "-m", "jsoncontract", *RUNS["check"], "-o", str(report)],
        cwd=REPO,
        env=env,
        capture_output=True,
        check=False,
    )
    assert with_o.returncode == 1
    assert "\x1b[" not in report.read_text() and "62 calls in 41 files" in report.read_text()
    with report.open("wb") as stream:  # > report.txt
        redirected = subprocess.run(
            [sys.executable, "-m", "jsoncontract", *RUNS["check"]],
            cwd=REPO,
            env=env,
            stdout=stream,
            stderr=subprocess.PIPE,
            check=False,
        )
    assert redirected.returncode == 1
    assert "\x1b[" not in report.read_text() and "62 calls in 41 files" in report.read_text()
    piped = subprocess.run(
        [sys.executable, "-m", "jsoncontract", *RUNS["check"]],
        cwd=REPO,
        env=env,
        capture_output=True,
        check=False,
    )
    assert b"\x1b[" in piped.stdout  # a pipe honours FORCE_COLOR
    colored = subprocess.run(
        [sys.executable, "-m", "jsoncontract", *RUNS["check"], "--color", "-o", str(report)],
        cwd=REPO,
        env=env,
        capture_output=True,
        check=False,
    )
    assert colored.returncode == 1 and "\x1b[" in report.read_text()  # asked for


@pytest.fixture(scope="module")
def long_trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 6 MB trace of 20,000 MCP calls, every 400th broken: failures spread over the run."""
    import json

    path = tmp_path_factory.mktemp("long") / "trace.jsonl"
    padding = "x" * 200
    with path.open("w") as stream:
        for i in range(20_000):
            encoding = "latin-1" if i % 400 == 0 else "utf-8"
            arguments = {"path": f"docs/{i}-{padding}.md", "encoding": encoding}
            call = {
                "jsonrpc": "2.0",
                "id": i,
                "method": "tools/call",
                "params": {"name": "read_file", "arguments": arguments},
            }
            stream.write(json.dumps(call) + "\n")
    assert path.stat().st_size > 5_000_000
    return path


def test_the_progress_bar_and_the_report_share_the_terminal(long_trace: Path) -> None:
    import pyte

    code, output = at_terminal(
        ["check", "--no-config", "-t", "fixtures/tools", str(long_trace)], columns=200
    )
    assert code == 1
    screen = pyte.HistoryScreen(200, 30, history=2000, ratio=0.5)
    stream = pyte.Stream(screen)
    stream.feed(output.replace("\n", "\r\n") if "\r\n" not in output else output)
    rows = [
        "".join(line[x].data for x in range(screen.columns)).rstrip()
        for line in [*screen.history.top, *(screen.buffer[y] for y in range(screen.lines))]
    ]
    rows = [row for row in rows if row]
    headers = [row for row in rows if row.startswith("FAIL ")]
    assert len(headers) == 50  # every call shown, none drawn over
    assert all(
        re.fullmatch(r"FAIL \S+trace\.jsonl:\d+ read_file \(mcp, mcp, \d+\)  failed at schema", h)
        for h in headers
    ), headers[:3]
    assert "20000 calls in 1 file: 19950 ok, 50 failed" in rows[-6:]
    assert not any("checking" in row and "calls/s" in row for row in rows)  # the bar is gone
    assert "calls/s" in output  # but it was there, counting calls
