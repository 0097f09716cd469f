"""Spectral's command line for the ruleset tests: ``spectral/package.json``, pinned by its
lock, installed once with ``npm ci`` as the real MCP servers are (``tests/live/conftest.py``)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

SPECTRAL = Path(__file__).resolve().parent / "spectral"
RULESETS = Path(__file__).resolve().parent / "rulesets"


@pytest.fixture(scope="session")
def spectral_cli() -> Path:
    """The ``spectral`` executable of ``@stoplight/spectral-cli`` (installed under a lock:
    parallel workers share the install)."""
    import fcntl
    import shutil

    npm = shutil.which("npm")
    assert npm is not None, "the Spectral tests need Node.js and npm (node 20 or later)"
    with (SPECTRAL / ".install.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        stamp = SPECTRAL / "node_modules" / ".package-lock.json"
        if (
            not stamp.exists()
            or stamp.stat().st_mtime < (SPECTRAL / "package-lock.json").stat().st_mtime
        ):
            subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"],
                cwd=SPECTRAL,
                check=True,
                capture_output=True,
                timeout=600,
            )
    return SPECTRAL / "node_modules" / ".bin" / "spectral"
