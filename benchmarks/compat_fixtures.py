"""Write the fixtures of ``compat``'s tests from the real packages (run by hand; the files
it writes are committed, and the suite checks the ones it can against the live servers).

``git``: the ``tools/list`` of the two releases of ``mcp-server-git`` compared in the docs
and the tests. The older one, 2025.9.25, is installed from PyPI into a temporary virtual
environment with the SDK and pydantic current on the day it was released (``mcp`` 1.15.0,
released on the same day, and ``pydantic`` 2.11.9): it does not start with ``mcp`` 2, whose
``Server`` has no ``list_tools`` decorator. The newer one, 2026.10.19, is the one the
project's ``servers`` extra pins. Each is listed with ``jsoncontract mcp tools -f json``
and written to ``fixtures/compat/mcp-server-git-VERSION.json``.

``corpus``: the schemas the differential test of ``compat`` mutates:

- ``fixtures/compat/corpus-bfcl.json``: a pinned sample of BFCL's function docs from the
  ``bfcl-eval`` wheel (read as a zip and converted as ``_bfcl.py`` converts them for the
  real benchmark), 160 tools chosen by a hash of their names;
- ``fixtures/compat/corpus-mcp.json``: every tool of the real MCP servers the tests run:
  ``mcp-server-git``, ``-time`` and ``-fetch`` from PyPI (the ``servers`` extra) and the
  reference servers ``everything``, ``filesystem`` and ``memory`` from npm (``npm ci`` in
  ``tests/live/real``).

    python benchmarks/compat_fixtures.py git
    python benchmarks/compat_fixtures.py corpus
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
import venv
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "fixtures" / "compat"
BIN = Path(sys.executable).parent
#: The older release and what it ran with on its release day.
OLD_GIT = "2025.9.25"
OLD_GIT_WITH = ("mcp==1.15.0", "pydantic==2.11.9", "pydantic-core==2.33.2", "gitpython==3.1.45")
#: The newer release: the servers extra's.
NEW_GIT = "2026.10.19"
#: Tools kept from BFCL.
BFCL_SAMPLE = 160
NPM_SERVERS = {
    "everything": ["mcp-server-everything"],
    "filesystem": ["mcp-server-filesystem", "."],
    "memory": ["mcp-server-memory"],
}


def listing(command: list[str]) -> dict[str, Any]:
    """A server's ``tools/list`` result, as ``jsoncontract mcp tools -f json`` writes it."""
    done = subprocess.run(
        [sys.executable, "-m", "jsoncontract", "mcp", "tools", "--no-config", "-f", "json",
         "--", *command],
        capture_output=True, text=True, check=False, cwd=REPO,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"compat_fixtures: {' '.join(command)}: {done.stderr.strip()}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def write(name: str, document: Any) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / name).write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote fixtures/compat/{name}", file=sys.stderr)


def git() -> None:
    with tempfile.TemporaryDirectory() as folder:
        env = Path(folder) / "venv"
        venv.create(env, with_pip=True)
        pip = [str(env / "bin" / "python"), "-m", "pip", "install", "-q"]
        subprocess.run([*pip, f"mcp-server-git=={OLD_GIT}", *OLD_GIT_WITH], check=True)
        write(f"mcp-server-git-{OLD_GIT}.json", listing([str(env / "bin" / "mcp-server-git")]))
    write(f"mcp-server-git-{NEW_GIT}.json", listing([str(BIN / "mcp-server-git")]))


def corpus() -> None:
    sys.path.insert(0, str(REPO / "benchmarks"))
    import _bfcl

    wheel = _bfcl.bfcl_wheel(_bfcl.BFCL_VERSION, None, REPO / "benchmarks" / "out" / "wheels")
    entries, _ = _bfcl.read_bfcl(wheel)
    catalog = _bfcl.build_catalog(entries)

    def rank(name: str) -> str:
        return hashlib.blake2b(name.encode(), digest_size=8).hexdigest()

    chosen = sorted(catalog, key=rank)[:BFCL_SAMPLE]
    write(
        "corpus-bfcl.json",
        {
            "source": f"bfcl-eval {_bfcl.wheel_version(wheel)}",
            "tools": [catalog[name] for name in sorted(chosen)],
        },
    )
    servers: dict[str, list[str]] = {
        "mcp-server-git": [str(BIN / "mcp-server-git")],
        "mcp-server-time": [str(BIN / "mcp-server-time")],
        "mcp-server-fetch": [str(BIN / "mcp-server-fetch")],
    }
    npm = REPO / "tests" / "live" / "real" / "node_modules" / ".bin"
    for name, command in NPM_SERVERS.items():
        servers[f"@modelcontextprotocol/server-{name}"] = [str(npm / command[0]), *command[1:]]
    tools = []
    for server, command in servers.items():
        for tool in listing(command)["tools"]:
            tools.append({"server": server, **tool})
    write("corpus-mcp.json", {"tools": tools})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("git", "corpus"))
    {"git": git, "corpus": corpus}[parser.parse_args().what]()


if __name__ == "__main__":
    main()
