"""The suite does not depend on where the checkout sits: every test that compares with a
golden file passes from a checkout whose path is 100 characters long, run by an interpreter
of a virtual environment inside it (as ``python3 -m venv .venv`` in a clone makes it, so the
servers the tests start are named by long paths too)."""

from __future__ import annotations

import os
import site
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_readme import clean_checkout

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent
LENGTH = 100


def deep_checkout(base: Path) -> Path:
    """A copy of the checkout at a path of exactly :data:`LENGTH` characters."""
    room = LENGTH - len(str(base)) - len("/jsoncontract")
    assert room > 2, f"{base} is too deep already"
    parts: list[str] = []
    while room > 0:
        size = min(room - 1, 40) if room > 41 else room - 1
        parts.append("d" * max(size, 1))
        room -= len(parts[-1]) + 1
    target = base.joinpath(*parts, "jsoncontract")
    target.mkdir(parents=True)
    return clean_checkout(target)


def inner_venv(checkout: Path) -> Path:
    """``.venv`` inside the checkout, seeing this environment's packages (but not its
    install of jsoncontract: the checkout's own package is found first)."""
    venv = checkout / ".venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120
    )
    inner = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import site; print(site.getsitepackages()[0])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    outer = [*site.getsitepackages(), site.getusersitepackages()]
    Path(inner, "outer.pth").write_text("\n".join(p for p in outer if Path(p).is_dir()) + "\n")
    return venv / "bin" / "python"


@pytest.mark.long
def test_the_goldens_pass_from_a_deep_checkout(tmp_path: Path) -> None:
    checkout = deep_checkout(tmp_path)
    assert len(str(checkout)) == LENGTH
    python = inner_venv(checkout)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
    env["PYTHONPATH"] = str(checkout)
    done = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-m", "golden", "-n", "0", "-p", "no:cacheprovider"],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    tail = done.stdout[-3000:]
    assert done.returncode == 0, tail + done.stderr[-2000:]
    assert " passed" in tail and "failed" not in tail and "error" not in tail, tail
    # the run was the checkout's: its package, its interpreter
    probe = subprocess.run(
        [
            str(python),
            "-c",
            "import sys, jsoncontract; print(sys.executable, jsoncontract.__file__)",
        ],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert probe[0].startswith(str(checkout)) and probe[1].startswith(str(checkout)), probe
