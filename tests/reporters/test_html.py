"""``--format html`` for check and diff: one self-contained page, opened in a real headless
Chromium. It renders with no console error, fetches nothing, shows its charts (a
screenshot of each lands in the test artifacts), filters its calls, and hashes secrets."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from jsoncontract._version import __version__
from jsoncontract.reporters.html_report import POLICY, SCRIPT, STYLE
from tests.conftest import BUNDLED

CHECK = BUNDLED["check"]
DIFF = BUNDLED["diff"]


class Resources(HTMLParser):
    """Every element that could load something, and every script and style."""

    def __init__(self) -> None:
        super().__init__()
        self.loads: list[tuple[str, str, str]] = []
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self._in: str | None = None
        self.handlers: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("src", "href", "srcset", "action", "poster", "data") and value:
                self.loads.append((tag, name, value))
            if name.startswith("on"):
                self.handlers.append(f"{tag} {name}")
        if tag in ("script", "style"):
            self._in = tag

    def handle_endtag(self, tag: str) -> None:
        self._in = None

    def handle_data(self, data: str) -> None:
        if self._in == "script":
            self.scripts.append(data)
        elif self._in == "style":
            self.styles.append(data)


@pytest.fixture
def check_page(run_cli: Callable[..., Any], in_repo: Path, tmp_path: Path) -> Path:
    page = tmp_path / "check.html"
    result = run_cli(*CHECK, "--format", "html", "-o", str(page))
    assert result.code == 1, result.stderr
    return page


@pytest.fixture
def diff_page(run_cli: Callable[..., Any], in_repo: Path, tmp_path: Path) -> Path:
    page = tmp_path / "diff.html"
    result = run_cli(*DIFF, "--format", "html", "-o", str(page))
    assert result.code == 1, result.stderr
    return page


def neutral(text: str) -> str:
    return text.replace(f"jsoncontract {__version__} ·", "jsoncontract VERSION ·")


def test_check_golden(check_page: Path, golden: Callable[[str, str], None]) -> None:
    golden("html/check.html", neutral(check_page.read_text()))


def test_diff_golden(diff_page: Path, golden: Callable[[str, str], None]) -> None:
    golden("html/diff.html", neutral(diff_page.read_text()))


@pytest.mark.parametrize("name", ["check_page", "diff_page"])
def test_the_page_is_self_contained(name: str, request: pytest.FixtureRequest) -> None:
    text = request.getfixturevalue(name).read_text()
    found = Resources()
    found.feed(text)
    assert found.loads == []  # no src, href... at all: nothing to fetch
    assert found.handlers == []
    assert found.scripts == [SCRIPT] and found.styles == [STYLE]
    assert f'content="{POLICY}"' in text
    assert "default-src 'none'" in POLICY and "unsafe-inline" not in POLICY
    assert not re.search(r"url\(|@import|https?://", STYLE + SCRIPT)


def test_check_page_in_a_browser(check_page: Path, chromium: Any, artifacts: Path) -> None:
    visit = chromium.open(check_page)
    assert visit.errors == []
    assert visit.requests == [check_page.resolve().as_uri()]  # the page itself, nothing else
    charts = chromium.evaluate(
        "Array.from(document.querySelectorAll('svg[data-chart]')).map(s => "
        "[s.dataset.chart, s.querySelectorAll('rect').length, s.getBoundingClientRect().width])"
    )
    assert [c[0] for c in charts] == ["stage", "tool"]
    assert charts[0][1] == 5 and charts[1][1] == 7 and all(c[2] > 300 for c in charts)
    assert chromium.evaluate("document.getElementById('shown').textContent") == "33"
    chromium.screenshot(artifacts / "check-report-charts.png", "section.charts")
    chromium.screenshot(artifacts / "check-report.png")
    # the filter box, then a click on the "schema" bar of the stage chart
    shown = chromium.evaluate(
        "(() => { const box = document.getElementById('filter'); box.value = 'schema.enum';"
        " box.dispatchEvent(new Event('input')); return document.getElementById('shown')"
        ".textContent; })()"
    )
    assert shown == "1"
    shown = chromium.evaluate(
        "(() => { document.querySelector('[data-filter=\"schema\"]').dispatchEvent("
        "new MouseEvent('click', {bubbles: true})); return document.getElementById('shown')"
        ".textContent; })()"
    )
    assert shown == "10"
    assert chromium.evaluate("document.querySelectorAll('details.item:not(.hidden)').length") == 10
    assert chromium.visit.errors == []


def test_diff_page_in_a_browser(diff_page: Path, chromium: Any, artifacts: Path) -> None:
    visit = chromium.open(diff_page)
    assert visit.errors == [] and len(visit.requests) == 1
    changed = chromium.evaluate("document.querySelectorAll('td.changed').length")
    expected = chromium.evaluate("document.querySelectorAll('td.expected').length")
    assert changed >= 3 and expected == 2
    chromium.screenshot(artifacts / "diff-report-charts.png", "section.charts")
    chromium.screenshot(artifacts / "diff-report.png")


HOSTILE_NAME = '<script>alert(1)</script>"><img src=x onerror=alert(2)>'


@pytest.fixture
def hostile_capture(tmp_path: Path) -> Path:
    """A call whose tool name and values try to write HTML, and which carries secrets."""
    call = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {
            "name": "update_shipment",
            "arguments": {
                "order_id": HOSTILE_NAME,
                "priority": "urgent",
                "api_key": "sk-live-SECRETVALUE1234567890",
                "address": {"line1": "</pre><script>alert(3)</script>", "password": "hunter2-x"},
            },
        },
    }
    other = dict(call, id=8, params={"name": HOSTILE_NAME, "arguments": {}})
    path = tmp_path / "hostile.jsonl"
    path.write_text(json.dumps(call) + "\n" + json.dumps(other) + "\n")
    return path


@pytest.fixture
def hostile_page(
    hostile_capture: Path, run_cli: Callable[..., Any], in_repo: Path, tmp_path: Path
) -> Path:
    page = tmp_path / "hostile.html"
    result = run_cli(
        "check", "--no-config", "-t", "fixtures/tools", str(hostile_capture), "-f", "html",
        "-o", str(page),
    )  # fmt: skip
    assert result.code == 1, result.stderr
    return page


def test_payloads_are_escaped_and_secrets_hashed(
    hostile_page: Path, hostile_capture: Path, run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    text = hostile_page.read_text()
    assert "<script>alert" not in text and "<img src=x" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "SECRETVALUE" not in text and "hunter2" not in text
    assert text.count("&lt;redacted sha256:") >= 2
    shown = tmp_path / "shown.html"
    run_cli(
        "check", "--no-config", "-t", "fixtures/tools", str(hostile_capture), "-f", "html",
        "-o", str(shown), "--show-values",
    )  # fmt: skip
    assert "sk-live-SECRETVALUE1234567890" in shown.read_text()


def test_a_hostile_page_runs_nothing_in_a_browser(hostile_page: Path, chromium: Any) -> None:
    visit = chromium.open(hostile_page)
    assert visit.errors == [] and len(visit.requests) == 1
    assert chromium.evaluate("document.querySelectorAll('script').length") == 1
    assert chromium.evaluate("document.querySelectorAll('img').length") == 0


@pytest.fixture
def large_page(
    run_cli: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    import shutil

    repo = Path(__file__).resolve().parents[2]
    shutil.copytree(repo / "fixtures" / "tools", tmp_path / "tools")
    lines = [
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": i,
                "method": "tools/call",
                "params": {"name": "read_file", "arguments": {"path": "", "n": i}},
            }
        )
        for i in range(5000)
    ]
    (tmp_path / "trace.jsonl").write_text("\n".join(lines) + "\n")
    monkeypatch.chdir(tmp_path)
    result = run_cli(
        "check", "--no-config", "-t", "tools", "trace.jsonl", "-f", "html", "-o", "page.html"
    )
    assert result.code == 1
    return tmp_path / "page.html"


def test_a_large_run_keeps_to_max_shown(large_page: Path) -> None:
    assert large_page.stat().st_size < 500_000
    assert "4,950 more calls not shown (--max-shown 0 shows all" in large_page.read_text()


def test_a_large_page_in_a_browser(large_page: Path, chromium: Any) -> None:
    visit = chromium.open(large_page)
    assert visit.errors == []
    assert chromium.evaluate("document.querySelectorAll('details.item').length") == 50


def test_the_browser_sees_what_goes_wrong(tmp_path: Path, chromium: Any) -> None:
    """The harness is not blind: a console error, an uncaught exception and a load the
    page's policy blocks are all errors, and the blocked load is a request."""
    page = tmp_path / "broken.html"
    page.write_text(
        "<!doctype html><meta http-equiv='Content-Security-Policy' "
        "content=\"default-src 'none'; script-src 'unsafe-inline'\">"
        "<script>console.error('logged'); setTimeout(() => { throw new Error('thrown') });"
        "</script><img src='file:///nonexistent/x.png'>"
    )
    visit = chromium.open(page)
    chromium.evaluate("new Promise(r => setTimeout(r, 0))")  # the timer has fired
    assert any("logged" in e for e in visit.errors)
    assert any("thrown" in e for e in visit.errors)
    assert any("Content Security Policy" in e for e in visit.errors)
