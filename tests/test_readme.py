"""Every shell command the README shows runs as written, in order, on a clean checkout.

The README's ``sh`` blocks are run top to bottom in one shell, as a reader following it
would: in a copy of the repository's files (what a clone holds, nothing built), starting
with the quick start's own virtual environment and ``pip install``. Each command must do its
job: exit 0, or 1 where it reports findings, never 2, never a traceback. The commands that
run the test suite itself (``pytest``...) are what CI runs (``.ci/run``), so they are
checked to be exactly that rather than run from inside the suite.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent
_BLOCK = re.compile(r"```sh\n(.*?)```", re.S)


def commands(readme: str) -> list[str]:
    """The commands of the README's ``sh`` blocks, continuation lines joined."""
    out: list[str] = []
    for block in _BLOCK.findall(readme):
        pending = ""
        for line in block.splitlines():
            if line.rstrip().endswith("\\"):
                pending += line.rstrip()[:-1] + " "
                continue
            command = (pending + line).strip()
            pending = ""
            if command and not command.startswith("#"):
                out.append(command)
    return out


def runs_the_suite(command: str) -> bool:
    """Whether a command runs the test suite (what CI itself runs)."""
    return bool(re.search(r"(^|&& )pytest\b", command))


def clean_checkout(target: Path) -> Path:
    """The repository's files as a clone holds them (tracked, and new files not ignored)."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def reader_environment() -> dict[str, str]:
    """A plain environment with a Python 3 and pip's own settings (index, certificates,
    proxies), nothing of the suite's (no activated virtual environment, no colour)."""
    keep = ("HOME", "LANG", "TMPDIR", "PYENV_ROOT", "PYENV_VERSION")
    env = {
        k: v
        for k, v in os.environ.items()
        if k in keep or k.startswith("PIP_") or k.lower().endswith("_proxy")
    }
    python = Path(sys.executable).resolve().parent  # the interpreter, outside any venv
    env["PATH"] = os.pathsep.join([str(python), "/usr/local/bin", "/usr/bin", "/bin"])
    return env


def test_the_suite_commands_are_what_ci_runs() -> None:
    ci = (REPO / ".ci" / "run").read_text()
    suite = [c for c in commands((REPO / "README.md").read_text()) if runs_the_suite(c)]
    assert suite, "the README shows how to run the tests"
    ci_command = next(line for line in ci.splitlines() if "pytest" in line)
    for command in suite:
        if command.startswith("python3 -m venv"):
            assert command == ci_command.replace("pip install -q ", "pip install "), command
        else:
            assert re.fullmatch(r"pytest( -n auto| --update-golden)?( +#.*)?", command), command


def test_every_readme_command_runs_on_a_clean_checkout(tmp_path: Path) -> None:
    checkout = clean_checkout(tmp_path / "jsoncontract")
    readme = (REPO / "README.md").read_text()
    runnable = [c for c in commands(readme) if not runs_the_suite(c)]
    assert len(runnable) > 30
    assert runnable[0].startswith("python3 -m venv .venv && . .venv/bin/activate && pip install .")
    results = tmp_path / "results"
    results.mkdir()
    script = ["set -u", f"cd {checkout}"]
    for index, command in enumerate(runnable):
        script.append(f"{{ {command}\n}} > {results}/{index}.out 2> {results}/{index}.err")
        script.append(f"echo $? > {results}/{index}.rc")
    done = subprocess.run(
        ["bash", "-c", "\n".join(script)],
        cwd=checkout,
        env=reader_environment(),
        capture_output=True,
        timeout=1500,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    failed = []
    for index, command in enumerate(runnable):
        code = int((results / f"{index}.rc").read_text())
        err = (results / f"{index}.err").read_text(errors="replace")
        if code not in (0, 1) or "Traceback" in err or "jsoncontract: error:" in err:
            failed.append(f"{command!r} exited {code}: {err.strip()[-500:]}")
    assert failed == []
    # the quick start ran in a virtual environment of its own, from the checkout
    assert (checkout / ".venv" / "bin" / "jsoncontract").exists()
    assert "62 calls in 41 files: 29 ok, 33 failed" in (results / "0.out").read_text()
