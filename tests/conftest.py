"""Shared test helpers: running the real CLI in-process, golden files, repository paths."""

from __future__ import annotations

import io
import os
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"
GOLDEN = Path(__file__).resolve().parent / "golden"

#: Runs over the bundled fixtures that find something, from the repository, by command.
BUNDLED: dict[str, list[str]] = {
    "check": ["check", "--no-config", "-t", "fixtures/tools", "fixtures/captures"],
    "lint": ["lint", "--no-config", "fixtures/lint/weak-tools.json"],
    "test": [
        "test",
        "--no-config",
        "-t",
        "fixtures/suites/weak/tools.json",
        "fixtures/suites/weak",
    ],
    "diff": [
        "diff",
        "--no-config",
        "-t",
        "fixtures/tools",
        "--mapping",
        "fixtures/diff/mapping.json",
        "--trace",
        "fixtures/diff/trace.jsonl",
    ],
}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        help="Rewrite golden files from the current output instead of comparing.",
    )


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto`` (the default) starts one worker more than the cores this process may run
    on: many tests spend part of their time waiting on what they started (servers, a
    browser, Spark's Java process, pip), and a third worker on two cores keeps them busy
    meanwhile (5 min 6 s against 5 min 38 s for the whole suite, on 2 cores).
    ``PYTEST_XDIST_AUTO_NUM_WORKERS`` still sets the number."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # pytest-xdist reads it
    return len(os.sched_getaffinity(0)) + 1 if hasattr(os, "sched_getaffinity") else None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that compare with a golden file are marked ``golden`` (run from a deep
    checkout by ``tests/test_checkout_path.py``). The ``long`` tests run first, then the
    ``slow`` ones, so that the parallel workers do not end waiting for one long test that
    started last."""
    for item in items:
        if "golden" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.golden)
    items.sort(
        key=lambda item: (not item.get_closest_marker("long"), not item.get_closest_marker("slow"))
    )


@dataclass
class CliResult:
    code: int
    stdout: str
    stderr: str
    stdout_bytes: bytes


@pytest.fixture(autouse=True)
def _no_step_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests run in CI never write to the job's summary (GitHub Actions sets
    GITHUB_STEP_SUMMARY for every step); the tests of it set it themselves."""
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


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


def machine_neutral(name: str, text: str) -> str:
    """A report without what depends on the machine and the moment: the checkout's
    location (SARIF's ``%SRCROOT%``, absolute paths) and, in JUnit XML, the measured
    times."""
    text = text.replace(REPO.as_uri() + "/", "file:///REPO/").replace(f"{REPO}/", "/REPO/")
    if name.endswith(".xml"):
        text = re.sub(r' time="[0-9]+\.[0-9]+"', ' time="0.000"', text)
    return text


def same(fmt: str, one: bytes, other: bytes) -> bool:
    """Whether two reports in ``fmt`` are the same, but for what :func:`machine_neutral`
    leaves out (the times JUnit measures)."""
    name = f"report.{'xml' if fmt == 'junit' else fmt}"
    neutral = [machine_neutral(name, r.decode("utf-8", "surrogateescape")) for r in (one, other)]
    return neutral[0] == neutral[1]


@pytest.fixture
def golden(request: pytest.FixtureRequest) -> Callable[[str, str], None]:
    """Compare text with ``tests/golden/NAME`` (``--update-golden`` rewrites it), once
    made :func:`machine_neutral`."""
    update = bool(request.config.getoption("--update-golden"))

    def check(name: str, actual: str) -> None:
        actual = machine_neutral(name, actual)
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


SARIF_SCHEMA_FILE = Path(__file__).resolve().parent / "reporters" / "sarif-schema-2.1.0.json"


def check_github_sarif(text: str | bytes, *, results_expected: bool = True) -> dict[str, object]:
    """A SARIF log as GitHub code scanning takes it: valid against the official SARIF 2.1.0
    schema, within GitHub's documented limits (docs.github.com, "SARIF results exceed one or
    more limits": 20 runs per file, 25,000 results and 25,000 rules per run, 20 tags per rule,
    1,000 locations per result; 10 MB gzipped per upload), and with the fields it uses: a
    category (``automationDetails.id``), ``%SRCROOT%`` defined by ``originalUriBaseIds``, files
    relative to it, a line in every region, and rules with a short description, a distinct
    full description and help. Returns the log."""
    import gzip

    import jsonschema
    import orjson

    data = text.encode() if isinstance(text, str) else text
    assert len(gzip.compress(data)) <= 10 * 1024 * 1024
    log = orjson.loads(data)
    schema = orjson.loads(SARIF_SCHEMA_FILE.read_bytes())
    validator = jsonschema.Draft7Validator(
        schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER
    )
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(log)]
    assert not errors, errors[:5]
    assert log["version"] == "2.1.0"
    assert 1 <= len(log["runs"]) <= 20
    for run in log["runs"]:
        category = run["automationDetails"]["id"]
        assert category.startswith("jsoncontract/") and category.endswith("/")
        root = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
        assert root.startswith("file:///") and root.endswith("/")
        rules = run["tool"]["driver"]["rules"]
        assert len(rules) <= 25_000
        ids = [rule["id"] for rule in rules]
        for rule in rules:
            assert rule["shortDescription"]["text"]
            assert rule["fullDescription"]["text"] != rule["shortDescription"]["text"]
            assert rule["help"]["text"] and rule["help"]["markdown"]
            assert len(rule.get("properties", {}).get("tags", [])) <= 10
        results = run["results"]
        assert len(results) <= 25_000
        if results_expected:
            assert results
        for result in results:
            assert result["message"]["text"]
            assert result["ruleId"] in ids
            assert ids[result["ruleIndex"]] == result["ruleId"]
            assert "jsoncontract/v1" in result["partialFingerprints"]
            assert 1 <= len(result.get("locations", [{}])) <= 1000
            for location in result.get("locations", []):
                if "physicalLocation" not in location:  # a live server: the tool only
                    assert location["logicalLocations"]
                    continue
                physical = location["physicalLocation"]
                artifact = physical["artifactLocation"]
                assert artifact["uriBaseId"] == "%SRCROOT%", artifact
                assert not artifact["uri"].startswith(("/", "../", "./", "file:")), artifact
                if "region" in physical:
                    assert physical["region"]["startLine"] >= 1
    return log  # type: ignore[no-any-return]


@pytest.fixture
def github_sarif() -> Callable[..., dict[str, object]]:
    """:func:`check_github_sarif`, for tests."""
    return check_github_sarif
