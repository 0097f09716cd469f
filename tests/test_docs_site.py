"""The docs site builds with ``mkdocs build --strict`` (every page in the navigation, every
link and anchor found), and the README stays a landing page that leads into it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def test_the_site_builds_strict(tmp_path: Path) -> None:
    try:
        import material  # noqa: F401
        import mkdocs  # noqa: F401
    except ImportError:
        pytest.fail("the docs site needs the docs extra: pip install -e '.[docs]'")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=REPO,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "index.html").exists()
    assert "Unreleased" in (tmp_path / "changelog" / "index.html").read_text()  # included


def test_the_readme_is_a_landing_page() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 300
    linked = set(re.findall(r"\]\((docs/[^)#]+)", readme))
    for page in ("getting-started.md", "development.md", "performance.md", "reports.md"):
        assert f"docs/{page}" in linked, page
    for target in linked:
        assert (REPO / target).exists(), target
