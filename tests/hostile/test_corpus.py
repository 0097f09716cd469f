"""Every case of the hostile corpus, run as a user runs it, under resource limits.

Each runs in a child process in an empty directory with its own ``TMPDIR``, limited by
``resource.setrlimit`` (address space 4 GB, CPU time, file size 512 MB: a runaway case is
stopped, not the machine), and must keep the invariants: its exit code, at most one line
on stderr and never "internal error" or a traceback, a peak resident memory (``VmHWM``,
written by ``measured.py`` as the run exits) and a wall time under the case's bounds, no
file left but its inputs and its named output (and nothing in ``TMPDIR``), and no secret in
stdout, stderr or the output.

``HOSTILE_CODE=DIR`` runs the corpus against the package in another checkout (to see which
cases an older version fails).
"""

from __future__ import annotations

import os
import resource
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

import pytest

from tests.hostile.corpus import CASES, MB, Case

MEASURED = Path(__file__).with_name("measured.py")
REPO = Path(os.environ.get("HOSTILE_CODE", Path(__file__).resolve().parents[2]))


def _limits(case: Case) -> None:  # runs in the child, before exec
    resource.setrlimit(resource.RLIMIT_AS, (4096 * MB, 4096 * MB))
    cpu = int(case.max_seconds * 2) + 10
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    resource.setrlimit(resource.RLIMIT_FSIZE, (512 * MB, 512 * MB))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _listing(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_input(case: Case, tmp_path: Path) -> None:
    root = tmp_path / "work"
    root.mkdir()
    case.make(root)
    temp = tmp_path / "tmp"
    temp.mkdir()
    before = _listing(root)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "TMPDIR": str(temp),
        "PYTHONPATH": str(REPO),
        "NO_COLOR": "1",
        "COLUMNS": "100",
    }
    peak_file = tmp_path / "peak"
    env["HOSTILE_PEAK_FILE"] = str(peak_file)
    command = [sys.executable, str(MEASURED), *case.args]
    if case.shell:
        quoted = " ".join(shlex.quote(part) for part in command)
        command = ["bash", "-c", case.shell.replace("{cmd}", "exec " + quoted)]
    stdin = subprocess.PIPE if "stdin_pipe" in case.extra or case.stdin else subprocess.DEVNULL
    started = time.monotonic()
    proc = subprocess.Popen(
        command,
        cwd=root,
        env=env,
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: _limits(case),
    )
    helpers = _helpers(case, root, proc)
    returncode, out, err = _wait(proc, case.max_seconds * 4)
    peak_mb = int(peak_file.read_text()) / 1024 if peak_file.exists() else 0.0
    elapsed = time.monotonic() - started
    for helper in helpers:
        helper.join(timeout=30)
    stderr = err.decode("utf-8", "replace")
    stdout = out.decode("utf-8", "replace")

    assert returncode in case.codes, f"exit {returncode}: {stderr[:500]}"
    assert stderr.count("\n") <= 1, stderr[:2000]
    assert "internal error" not in stderr and "Traceback" not in stderr
    if case.error is not None:
        assert case.error in stderr, stderr
    assert elapsed < case.max_seconds, f"{elapsed:.1f} s"
    assert peak_mb < case.max_mb, f"peak RSS {peak_mb:.0f} MB"
    limit = case.extra.get("max_output")
    if limit is not None:
        assert len(out) < limit
    after = _listing(root)
    allowed = before | ({case.output} if case.output else set())
    assert after <= allowed, f"wrote {sorted(after - allowed)}"
    assert _listing(temp) == set(), "left files in TMPDIR"
    written = ""
    if case.output and (root / case.output).is_file():
        written = (root / case.output).read_text("utf-8", "replace")
    for secret in case.secrets:
        assert secret not in stdout, f"{secret[:8]}... in stdout"
        assert secret not in stderr, f"{secret[:8]}... in stderr"
        assert secret not in written, f"{secret[:8]}... in {case.output}"


def _wait(proc: subprocess.Popen[bytes], timeout: float) -> tuple[int, bytes, bytes]:
    """Exit code and both outputs of a child."""
    chunks: dict[str, bytes] = {}

    def read(name: str, stream: IO[bytes]) -> None:
        with stream:
            chunks[name] = stream.read()

    readers = [
        threading.Thread(target=read, args=(name, stream))
        for name, stream in (("out", proc.stdout), ("err", proc.stderr))
        if stream is not None
    ]
    for reader in readers:
        reader.start()
    deadline = time.monotonic() + timeout
    while True:
        pid, status = os.waitpid(proc.pid, os.WNOHANG)
        if pid == proc.pid:
            break
        if time.monotonic() > deadline:
            proc.kill()
            os.waitpid(proc.pid, 0)
            pytest.fail(f"still running after {timeout:.0f} s")
        time.sleep(0.02)
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    for reader in readers:
        reader.join(timeout=30)
    return proc.returncode, chunks.get("out", b""), chunks.get("err", b"")


def _helpers(case: Case, root: Path, proc: subprocess.Popen[bytes]) -> list[threading.Thread]:
    """Threads feeding a FIFO or stdin, reading a FIFO, or sending a signal."""
    threads: list[threading.Thread] = []
    if "fifo" in case.extra:

        def feed() -> None:
            with (root / "trace.jsonl").open("w") as fifo:
                fifo.write(case.extra["fifo"])

        threads.append(threading.Thread(target=feed))
    if "read_fifo" in case.extra:

        def drain() -> None:
            (root / case.extra["read_fifo"]).read_bytes()

        threads.append(threading.Thread(target=drain))
    if "stdin_pipe" in case.extra:
        assert proc.stdin is not None
        proc.stdin.write(case.extra["stdin_pipe"].encode())
        proc.stdin.flush()  # and kept open: the run waits for more
    if case.signal_after is not None:

        def stop() -> None:
            time.sleep(case.signal_after or 0)
            proc.send_signal(signal.SIGTERM)
            if proc.stdin is not None:
                proc.stdin.close()

        threads.append(threading.Thread(target=stop))
    for thread in threads:
        thread.start()
    return threads
