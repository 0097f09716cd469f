"""Every shell command of the README and of the docs runs as written, on a clean checkout.

The ``sh`` blocks of a page run top to bottom in one shell, as a reader following the page
would, in a copy of the repository's files (what a clone holds, nothing built). The README
comes first, from its quick start's own virtual environment and ``pip install``; each docs
page then runs in that environment, from the checkout's root. Each command must do its job:
exit 0, or 1 where it reports findings, never 2, never a traceback. Where a page shows what a
command prints (the README's tour, the getting-started tutorial), the output must hold it.

Three kinds of command are not run as written, and why:

- the commands that run the test suite itself (``pytest``...) are what CI runs (``.ci/run``),
  so they are checked to be exactly that instead of being run from inside the suite;
- a benchmark script (``python benchmarks/...``) runs with ``--quick``, a small run that shows
  the script works in seconds (its figures are measured by hand, at full size, as the
  performance page says);
- an install command a page repeats from an earlier page (the tutorial starts with the
  README's quick start; the mcp page installs the extra the README's tour installed) is run
  once.

The performance page runs in a checkout of its own, so that its benchmarks run while the
rest of the suite does.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.live.conftest import untimed

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
_BLOCK = re.compile(r"^```(sh|text)\n(.*?)^```$", re.S | re.M)
_BENCHMARK = re.compile(r"^(python benchmarks/\S+\.py\b[^#]*?)(\s*#.*)?$")
#: Pages whose commands run in a checkout of their own (see the module's docstring).
APART = ("performance.md",)
#: Pages whose commands a test of their own runs as written: not run twice.
ELSEWHERE = {
    "performance-real.md": "tests/test_bench_real.py",
    # a repository with history and a live server
    "commands/compat.md": "tests/compat/test_docs_page.py",
}


def blocks(text: str) -> list[tuple[str, str]]:
    """The ``sh`` and ``text`` blocks of a page, in order, as ``(kind, body)``."""
    return _BLOCK.findall(text)


def block_commands(block: str) -> list[str]:
    """The commands of one ``sh`` block, continuation lines joined."""
    out: list[str] = []
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


def commands(text: str) -> list[str]:
    """The commands of every ``sh`` block of a page."""
    return [c for kind, body in blocks(text) if kind == "sh" for c in block_commands(body)]


def pages() -> list[Path]:
    """The README, then every page of the docs that has a shell block."""
    found = sorted(p for p in DOCS.rglob("*.md") if "```sh" in p.read_text(encoding="utf-8"))
    return [REPO / "README.md", *found]


def runs_the_suite(command: str) -> bool:
    """Whether a command runs the test suite (what CI itself runs)."""
    return bool(re.search(r"(^|&& )pytest\b", command))


def as_run(command: str) -> str:
    """The command as the test runs it: a benchmark with ``--quick``."""
    found = _BENCHMARK.match(command)
    if found is None:
        return command
    return f"{found.group(1).rstrip()} --quick{found.group(2) or ''}"


def _bare(command: str) -> str:
    """A command without its comment."""
    return command.split(" #", 1)[0].strip()


def _installs(command: str) -> bool:
    return bool(re.match(r"(python3 -m venv \S+ && \. \S+ && )?pip install ", command))


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
    keep = ("HOME", "LANG", "TMPDIR", "PYENV_ROOT", "PYENV_VERSION", "JAVA_HOME")
    env = {
        k: v
        for k, v in os.environ.items()
        if k in keep or k.startswith("PIP_") or k.lower().endswith("_proxy")
    }
    python = Path(sys.executable).resolve().parent  # the interpreter, outside any venv
    env["PATH"] = os.pathsep.join([str(python), "/usr/local/bin", "/usr/bin", "/bin"])
    env["COLUMNS"] = "100"
    return env


class Run:
    """The pages' commands run in one checkout; what each printed, and its exit code."""

    def __init__(self, checkout: Path, results: Path) -> None:
        self.checkout, self.results = checkout, results
        self.script = ["set -u"]
        self.ran: list[tuple[str, str, int]] = []  # page, command, index

    def page(self, path: Path, *, activate: bool) -> None:
        self.script.append(f"cd {self.checkout}")
        if activate:
            self.script.append(". .venv/bin/activate")
        earlier = {_bare(command) for _, command, _ in self.ran}
        for command in commands(path.read_text(encoding="utf-8")):
            if runs_the_suite(command):
                continue
            if _installs(command) and _bare(command) in earlier:
                continue  # an install an earlier page ran
            index = len(self.ran)
            self.ran.append((path.name, command, index))
            into = f"{self.results}/{index}"
            self.script.append(f"{{ {as_run(command)}\n}} > {into}.out 2> {into}.err")
            self.script.append(f"echo $? > {self.results}/{index}.rc")

    def go(self) -> None:
        done = subprocess.run(
            ["bash", "-c", "\n".join(self.script)],
            cwd=self.checkout,
            env=reader_environment(),
            capture_output=True,
            timeout=900,
            check=False,
        )
        assert done.returncode == 0, done.stderr.decode()

    def out(self, index: int) -> str:
        return (self.results / f"{index}.out").read_text(errors="replace")

    def failures(self) -> list[str]:
        failed = []
        for page, command, index in self.ran:
            code = int((self.results / f"{index}.rc").read_text())
            err = (self.results / f"{index}.err").read_text(errors="replace")
            if code not in (0, 1) or "Traceback" in err or "jsoncontract: error:" in err:
                failed.append(f"{page}: {command!r} exited {code}: {err.strip()[-500:]}")
        return failed


def shows(expected: str, actual: str) -> bool:
    """Whether ``actual`` holds the lines of ``expected`` in order (``...`` stands for any
    lines; durations are left out)."""
    lines = untimed(actual).splitlines()
    at = 0
    for want in untimed(expected).splitlines():
        if want == "...":
            continue
        try:
            at = lines.index(want, at) + 1
        except ValueError:
            return False
    return True


def shown_outputs(run: Run, path: Path) -> list[tuple[str, str, str]]:
    """``(command, shown, printed)`` for each ``text`` block of a page: what the commands of
    the nearest ``sh`` block before it that ran printed."""
    text = path.read_text(encoding="utf-8")
    mine = [(command, index) for page, command, index in run.ran if page == path.name]
    out: list[tuple[str, str, str]] = []
    last: list[tuple[str, int]] = []
    for kind, body in blocks(text):
        if kind == "sh":
            ran = []
            for command in block_commands(body):
                found = next((m for m in mine if m[0] == command), None)
                if found is not None:  # each command of the page ran once, in order
                    ran.append(found)
                    mine.remove(found)
            last = ran or last
        elif last:
            out.append((last[-1][0], body, "".join(run.out(i) for _, i in last)))
    return out


def test_the_suite_commands_are_what_ci_runs() -> None:
    ci = (REPO / ".ci" / "run").read_text()
    ci_command = next(line for line in ci.splitlines() if re.search(r"&& pytest\b", line))
    seen = 0
    for path in pages():
        for command in commands(path.read_text(encoding="utf-8")):
            if not runs_the_suite(command):
                continue
            seen += 1
            if command.startswith("python3 -m venv"):
                assert re.sub(r" --durations=\d+$", "", ci_command) == command.replace(
                    "pip install ", "pip install -q "
                ), f"{path.name}: {command}"
            else:
                assert re.fullmatch(
                    r"pytest( -n 0| --update-golden| -x| -k \S+| tests/\S+)*( +#.*)?", command
                ), f"{path.name}: {command}"
    assert seen >= 2, "the README and the development page show how to run the tests"


@pytest.mark.long
def test_every_readme_and_docs_command_runs_on_a_clean_checkout(tmp_path: Path) -> None:
    checkout = clean_checkout(tmp_path / "jsoncontract")
    readme, *docs = pages()
    first = commands(readme.read_text(encoding="utf-8"))[0]
    assert first.startswith("python3 -m venv .venv && . .venv/bin/activate && pip install .")
    (tmp_path / "results").mkdir()
    run = Run(checkout, tmp_path / "results")
    run.page(readme, activate=False)
    for path in docs:
        if path.name not in APART and path.relative_to(DOCS).as_posix() not in ELSEWHERE:
            run.page(path, activate=True)
    assert len(run.ran) > 60
    run.go()
    assert run.failures() == []
    # the quick start ran in a virtual environment of its own, from the checkout
    assert (checkout / ".venv" / "bin" / "jsoncontract").exists()
    assert "62 calls in 41 files: 29 ok, 33 failed" in run.out(0)
    for path in (readme, DOCS / "getting-started.md"):
        shown = shown_outputs(run, path)
        assert len(shown) >= 4, path
        for command, expected, printed in shown:
            assert shows(expected, printed), f"{path.name}: {command} printed\n{printed}"


@pytest.mark.long
@pytest.mark.parametrize("name", APART)
def test_the_pages_run_apart(name: str, tmp_path: Path) -> None:
    checkout = clean_checkout(tmp_path / "jsoncontract")
    (tmp_path / "results").mkdir()
    subprocess.run(
        ["python3", "-m", "venv", str(checkout / ".venv")],
        env=reader_environment(),
        check=True,
        timeout=120,
    )
    run = Run(checkout, tmp_path / "results")
    run.page(DOCS / name, activate=True)
    assert run.ran
    run.go()
    assert run.failures() == []


@pytest.mark.parametrize("name", sorted(ELSEWHERE))
def test_the_pages_run_elsewhere_are(name: str) -> None:
    test = (REPO / ELSEWHERE[name]).read_text(encoding="utf-8")
    shown = commands((DOCS / name).read_text(encoding="utf-8"))
    assert shown
    for command in shown:
        words = [w for w in _bare(command).split() if w]
        assert ", ".join(f'"{w}"' for w in words) in test, f"{name}: {command}"


def test_benchmarks_run_quick() -> None:
    assert as_run("python benchmarks/bench_scale.py   # note") == (
        "python benchmarks/bench_scale.py --quick   # note"
    )
    assert as_run("python benchmarks/bench_x.py --calls 5") == (
        "python benchmarks/bench_x.py --calls 5 --quick"
    )
    shown = {
        c.split()[1]
        for page in ("performance.md", *ELSEWHERE)
        for c in commands((DOCS / page).read_text())
        if "benchmarks/" in c
    }
    scripts = {f"benchmarks/{p.name}" for p in (REPO / "benchmarks").glob("bench_*.py")}
    assert shown == scripts, "the performance pages show how to run every benchmark"
