"""One list of formats per command: its reporter table. The command line's ``--format``
choices, the config schema's ``format`` values and every page that lists a command's
formats say exactly what the table says (as pip-audit tests its format enum)."""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jsoncontract.cli.app import COMMAND_MODULES, build
from jsoncontract.config import FORMAT_KEYS, config_schema
from jsoncontract.reporters import REPORTERS, Reporter, formats, reporter_class

REPO = Path(__file__).resolve().parents[2]
COMMANDS = list(REPORTERS)

#: Other places that list a command's formats: (file, the list, command). A format added to
#: a table must be added there too.
LISTED: list[tuple[str, str, str]] = [
    ("docs/commands/check.md", r"\| `--format/-f` \| (.*?) \|\n", "check"),
    (
        "docs/commands/lint.md",
        r"offending node and its JSON Pointer; formats are (.*?)\.\n",
        "lint",
    ),
    ("docs/commands/suites.md", r"\*\*Running\*\*: .*?`--format`\s(.*?);", "test"),
    ("docs/lint.md", r"`--format ([a-z0-9|-]+)`", "lint"),
    ("docs/suites.md", r"\| `--format/-f` \| (.*?) \|\n", "test"),
    ("docs/diff.md", r'\nformat = "text" +# (.*?)\n', "diff"),
]


def _names(text: str) -> list[str]:
    """The format names a list spells: in backticks, else words (``text, json or patch``,
    ``text|json``)."""
    quoted = re.findall(r"`([a-z0-9-]+)`", text)
    return quoted or [w for w in re.findall(r"[a-z0-9-]+", text) if w != "or"]


def readme_table() -> dict[str, set[str]]:
    """command -> formats, from the "Report formats" table of docs/reports.md."""
    page = (REPO / "docs" / "reports.md").read_text()
    section = page[page.index("## Report formats") :]
    section = section[: section.index("\n## ")]
    rows = re.findall(r"^\| `([a-z0-9-]+)` \| .+ \| ([a-z, ]+) \|$", section, re.MULTILINE)
    assert rows, "docs/reports.md has no Report formats table"
    out: dict[str, set[str]] = defaultdict(set)
    for fmt, commands in rows:
        for command in commands.split(", "):
            out[command].add(fmt)
    return out


def cli_choices(command: str) -> tuple[list[str], str]:
    """The choices of ``command --format`` (``mcp probe``: a subcommand's) and its help
    text, from the real command line."""
    words = command.split()
    click_command: Any = build(words[:1])
    for word in words:
        click_command = click_command.commands[word]
    [param] = [p for p in click_command.params if p.name == "format"]
    return [str(c) for c in param.type.choices], param.help or ""


def test_every_command_has_a_table() -> None:
    assert {command.split()[0] for command in REPORTERS} == set(COMMAND_MODULES)
    mcp: Any = build(["mcp"]).commands["mcp"]
    with_formats = {
        f"mcp {name}" for name, sub in mcp.commands.items()
        if any(p.name == "format" for p in sub.params)
    }  # fmt: skip
    assert with_formats == {c for c in REPORTERS if c.startswith("mcp ")}


@pytest.mark.parametrize("command", COMMANDS)
def test_one_list_of_formats(command: str) -> None:
    table = formats(command)
    assert table and table[0] == "text"  # the default of every command
    choices, help_text = cli_choices(command)
    assert choices == table
    for (section, key), of in FORMAT_KEYS.items():
        if of == command:
            assert config_schema()["properties"][section]["properties"][key]["enum"] == table
    assert readme_table()[command] == set(table), "docs/reports.md: the Report formats table"
    for name, pattern, of in LISTED:
        if of == command:
            found = re.search(pattern, (REPO / name).read_text(), re.DOTALL)
            assert found, f"{name} no longer lists the formats of {command} ({pattern})"
            assert sorted(_names(found.group(1))) == sorted(table), f"{name}: {command}"
    every = {fmt for table in REPORTERS.values() for fmt in table}
    named = {w for w in re.findall(r"[a-z0-9-]+", help_text) if w in every}
    assert named <= {"text"} or named == set(table)  # "text (side by side), json (...)..."


def test_every_config_key_holding_a_format_takes_the_table() -> None:
    sections = config_schema()["properties"]
    keys = {
        (section, key)
        for section, schema in sections.items()
        if isinstance(schema, dict)
        for key in schema.get("properties", {})
        if "format" in key
    }
    assert keys == set(FORMAT_KEYS)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_reporter_imports_and_implements_the_interface(command: str) -> None:
    for fmt in formats(command):
        cls = reporter_class(command, fmt)
        assert issubclass(cls, Reporter) and not getattr(cls, "__abstractmethods__", None)


RUNS = {
    "check": ["check", "--no-config", "--tools", "fixtures/tools", "fixtures/captures/trace.jsonl"],
    "diff": [
        "diff",
        "--no-config",
        "--tools",
        "fixtures/tools",
        "--trace",
        "fixtures/diff/trace.jsonl",
    ],
    "lint": ["lint", "--no-config", "fixtures/lint/weak-tools.json"],
    "rules": ["rules"],
    "redact": ["redact", "--check", "fixtures/captures/trace.jsonl"],
    "fixtures": [
        "fixtures",
        "--no-config",
        "--tools",
        "fixtures/tools",
        "--check",
        "fixtures/suites/example",
    ],
    "test": ["test", "--no-config", "--tools", "fixtures/tools", "fixtures/suites/example"],
    "compat": [
        "compat",
        "--no-config",
        "fixtures/compat/mcp-server-git-2025.9.25.json",
        "fixtures/compat/mcp-server-git-2026.10.19.json",
    ],
}


LIVE = ["--", sys.executable, "tests/live/servers/workbench.py", "--only", "lookup_order"]
RUNS.update(
    {
        "mcp lint": ["mcp", "lint", "--no-config", *LIVE],
        "mcp probe": ["mcp", "probe", "--no-config", "--timeout", "0.5", *LIVE],
        "mcp test": ["mcp", "test", "--no-config", "fixtures/suites/example", *LIVE],
        "mcp verify": ["mcp", "verify", "--no-config", "tests/live/traces/lookup.jsonl", *LIVE],
    }
)


@pytest.mark.parametrize(
    "command",
    # ``mcp tools`` (``resources``, ``prompts``) ``-f json`` writes a list result, and
    # ``mcp pin`` is ``pin``'s report (checked with pin)
    [c for c in COMMANDS if c not in ("mcp tools", "mcp pin", "mcp resources", "mcp prompts")],
)
def test_json_reports_say_their_version_and_summary_first(
    command: str, run_cli: Callable[..., Any], in_repo: Path, tmp_path: Path
) -> None:
    if command == "pin":
        lock = str(tmp_path / "tools.lock")
        assert run_cli("pin", "--no-config", "fixtures/tools", "--lock", lock).code == 0
        args = ["pin", "--no-config", "fixtures/tools", "--lock", lock, "--check"]
    else:
        args = list(RUNS[command])
    at = args.index("--") if "--" in args else len(args)  # the options go before a server
    args[at:at] = ["-f", "json"]
    result = run_cli(*args)
    assert result.code in (0, 1), result.stderr
    assert list(json.loads(result.stdout))[:2] == ["version", "summary"]
