"""How the suite spreads over the machine, as the development page says: work stealing, and
one worker more than the cores unless ``PYTEST_XDIST_AUTO_NUM_WORKERS`` says otherwise."""

from __future__ import annotations

import os
import tomllib
from typing import Any

import pytest

from tests.conftest import REPO, pytest_xdist_auto_num_workers


def test_workers_steal_queued_tests() -> None:
    settings = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    options = settings["tool"]["pytest"]["ini_options"]["addopts"].split()
    assert "--dist" in options and options[options.index("--dist") + 1] == "worksteal"
    assert "-n" in options and options[options.index("-n") + 1] == "auto"


def test_auto_starts_a_worker_more_than_the_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)
    config: Any = None  # the hook does not read it
    assert pytest_xdist_auto_num_workers(config) == len(os.sched_getaffinity(0)) + 1
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "5")
    assert pytest_xdist_auto_num_workers(config) is None  # xdist reads it
