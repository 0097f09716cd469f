"""The coverage-guided fuzzers, for a fixed time in every test run.

Each target of ``atheris_harness.py`` runs for ``JSONCONTRACT_FUZZ_SECONDS`` (10 by default,
so both take about twenty seconds) from a corpus seeded with the bundled captures of every
dialect, and must end without a crash. Longer runs: see the harness's docstring.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HARNESS = Path(__file__).with_name("atheris_harness.py")
SECONDS = int(os.environ.get("JSONCONTRACT_FUZZ_SECONDS", "10"))
#: The folders of bundled captures the corpus starts from (every dialect is in one).
SEEDS = ("captures", "results", "downstream", "redact")


@pytest.mark.slow
@pytest.mark.parametrize("target", ["json", "capture"])
def test_fuzzing_finds_no_crash(target: str, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    seeds = [p for folder in SEEDS for p in sorted((REPO / "fixtures" / folder).rglob("*"))]
    for n, path in enumerate(seeds):
        if path.is_file() and path.stat().st_size < 64 * 1024:
            shutil.copy(path, corpus / f"seed-{n}")
    done = subprocess.run(
        [sys.executable, str(HARNESS), target, f"-max_total_time={SECONDS}", "-rss_limit_mb=2048",
         "-timeout=10", f"-artifact_prefix={tmp_path}/", "-print_final_stats=1", str(corpus)],
        cwd=tmp_path, capture_output=True, text=True, timeout=SECONDS + 120, check=False,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    found = ("crash-", "oom-", "timeout-")
    crashes = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(found))
    assert done.returncode == 0 and not crashes, (crashes, done.stderr[-3000:])
    assert "stat::number_of_executed_units" in done.stderr  # it did run
