"""A real headless Chromium, the one on ``PATH`` (Debian's ``chromium`` package), driven by
Playwright: HTML reports are opened as a person would open them, and whatever the page
logs, throws or tries to fetch is recorded.

Without Chromium on ``PATH`` the browser tests are skipped, under one line that says how to
install it; under CI (``CI`` set) they fail instead, and ``.ci/run`` installs it.

While Playwright runs, its event loop is the thread's: ``asyncio.run`` cannot be called. The
browser therefore lives as long as one test module, and no module that needs it talks to
an MCP server.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

#: The names Chromium goes by on PATH (Debian: chromium; Ubuntu and others:
#: chromium-browser).
NAMES = ("chromium", "chromium-browser")
MISSING = "no chromium on PATH: the browser tests are skipped (apt-get install chromium)"
#: Where tests leave what a person may want to look at (screenshots).
ARTIFACTS = Path(
    os.environ.get("JSONCONTRACT_TEST_ARTIFACTS")
    or Path(__file__).resolve().parents[2] / "test-artifacts"
)


def find_chromium() -> str | None:
    """The Chromium on PATH, if any."""
    return next(filter(None, map(shutil.which, NAMES)), None)


@dataclass
class Visit:
    """What happened while a page was open: console errors and warnings, uncaught
    exceptions and the browser's own error entries (a Content-Security-Policy violation),
    as text; and every URL the page requested."""

    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)


def _errors(kind: str) -> bool:
    return kind in ("error", "assert", "warning")


class Chromium:
    """One browser; :meth:`open` a page, then evaluate and take screenshots."""

    def __init__(self, browser: Any) -> None:
        self._browser = browser
        self._page: Any = None
        self.visit = Visit()

    def open(self, path: Path, width: int = 1280, height: int = 900) -> Visit:
        """Open a file in a fresh tab, wait until it has loaded and painted."""
        if self._page is not None:
            self._page.close()
        visit = self.visit = Visit()
        page = self._page = self._browser.new_page(viewport={"width": width, "height": height})
        page.on("console", lambda m: _errors(m.type) and visit.errors.append(m.text))
        page.on("pageerror", lambda exc: visit.errors.append(str(exc)))
        page.on("request", lambda request: visit.requests.append(request.url))
        page.goto(path.resolve().as_uri(), wait_until="load")
        self.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        return visit

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (promises awaited)."""
        return self._page.evaluate(expression)

    def screenshot(self, path: Path, selector: str | None = None) -> Path:
        """A PNG of the whole page, or of the element ``selector`` matches."""
        path.parent.mkdir(parents=True, exist_ok=True)
        if selector is None:
            self._page.screenshot(path=str(path), full_page=True)
        else:
            self._page.locator(selector).screenshot(path=str(path))
        return path


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip a browser test when there is no Chromium (from here, not from the fixture: the
    skips then share one place, and ``-ra`` folds them into one line)."""
    wants = "chromium" in getattr(item, "fixturenames", ())
    if wants and not os.environ.get("CI") and find_chromium() is None:
        pytest.skip(MISSING)


@pytest.fixture(scope="module")
def chromium() -> Iterator[Chromium]:
    """A headless Chromium for the module's tests."""
    executable = find_chromium()
    if executable is None:
        pytest.fail("no chromium on PATH, and CI runs the browser tests: apt-get install chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        try:
            yield Chromium(browser)
        finally:
            browser.close()


@pytest.fixture
def artifacts() -> Path:
    """The directory test artifacts are written to."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
