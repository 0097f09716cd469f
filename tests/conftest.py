"""Shared test helpers: running the real CLI in-process, golden files, repository paths."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"
GOLDEN = Path(__file__).resolve().parent / "golden"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        help="Rewrite golden files from the current output instead of comparing.",
    )


@dataclass
class CliResult:
    code: int
    stdout: str
    stderr: str
    stdout_bytes: bytes


@pytest.fixture
def repo() -> Path:
    return REPO


@pytest.fixture
def in_repo(monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run with the repository as the working directory (relative fixture paths)."""
    monkeypatch.chdir(REPO)
    return REPO


@pytest.fixture
def run_cli(monkeypatch: pytest.MonkeyPatch) -> Callable[..., CliResult]:
    """Run ``jsoncontract ARGS`` in-process, returning exit code, stdout and stderr.

    The environment is made neutral (no colour forcing, no debug), so output is what a
    pipe would receive.
    """
    from jsoncontract.cli import run

    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("JSONCONTRACT_DEBUG", raising=False)
    monkeypatch.setenv("COLUMNS", "100")

    def invoke(*args: str, stdin: bytes = b"") -> CliResult:
        out, err = io.BytesIO(), io.BytesIO()
        wrappers = (
            io.TextIOWrapper(out, encoding="utf-8", write_through=True),
            io.TextIOWrapper(err, encoding="utf-8", write_through=True),
            io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"),
        )
        saved = sys.stdout, sys.stderr, sys.stdin
        sys.stdout, sys.stderr, sys.stdin = wrappers
        try:
            code = run(list(args))
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            sys.stdout, sys.stderr, sys.stdin = saved
        raw, problems = out.getvalue(), err.getvalue()
        for wrapper in wrappers:
            wrapper.detach()
        return CliResult(code, raw.decode("utf-8", "replace"), problems.decode(), raw)

    return invoke


@pytest.fixture
def golden(request: pytest.FixtureRequest) -> Callable[[str, str], None]:
    """Compare text with ``tests/golden/NAME`` (``--update-golden`` rewrites it)."""
    update = bool(request.config.getoption("--update-golden"))

    def check(name: str, actual: str) -> None:
        path = GOLDEN / name
        if update or not path.exists():
            if not update and os.environ.get("CI"):
                pytest.fail(f"golden file {name} is missing; run pytest --update-golden")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(actual, encoding="utf-8")
            return
        expected = path.read_text(encoding="utf-8")
        assert actual == expected, f"output differs from golden file {name} (--update-golden)"

    return check


@pytest.fixture
def write(tmp_path: Path) -> Callable[..., Path]:
    """Write a file under tmp_path: text, bytes, or a JSON-able value."""
    import orjson

    def _write(name: str, content: object) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        else:
            path.write_bytes(orjson.dumps(content, option=orjson.OPT_INDENT_2))
        return path

    return _write


def iter_files(root: Path, suffix: str) -> Iterator[Path]:
    yield from sorted(root.rglob(f"*{suffix}"))


@pytest.fixture(autouse=True)
def _dev_null_stays_a_device() -> Iterator[None]:
    """Fail the test after which ``/dev/null`` is no longer the null device (a writer that
    replaces its output path, run as root, turns it into a regular file for everyone)."""
    yield
    import stat

    info = os.stat("/dev/null")
    assert stat.S_ISCHR(info.st_mode), "/dev/null was replaced by a regular file"
