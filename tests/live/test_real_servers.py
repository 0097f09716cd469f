"""jsoncontract mcp against real servers from the registries: mcp-server-time, -git and
-fetch from PyPI (the ``servers`` extra), and the reference servers everything, filesystem
and memory from npm (tests/live/real, installed with ``npm ci``). Nothing here reaches
beyond this machine: the fetch server is only ever dry-run."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import CliResult
from tests.live.conftest import verify_differences

pytestmark = pytest.mark.slow

Run = Callable[..., CliResult]
BIN = Path(sys.executable).parent


def _probe(run_cli: Run, *args: str) -> dict:
    result = run_cli("mcp", "probe", "-f", "json", *args)
    assert result.code in (0, 1), result.stderr
    return json.loads(result.stdout)["servers"][0]


def _cases(server: dict, tool: str) -> dict[str, dict]:
    found = next(t for t in server["tools"] if t["tool"] == tool)
    return {c["case"]: c for c in found["cases"]}


def test_the_time_servers_valid_calls_are_accepted(run_cli: Run) -> None:
    server = _probe(run_cli, "--", str(BIN / "mcp-server-time"))
    for tool in ("get_current_time", "convert_time"):
        cases = _cases(server, tool)
        assert cases["valid"]["answer"] == "accepted", cases["valid"]
        # the timezone comes from the tool's own description: e.g. 'America/New_York'
        assert "description" in cases["valid"]["sources"].values()
    assert server["summary"]["by_code"].get("probe.rejected_valid", 0) == 0


def test_the_git_servers_coercion_is_found_with_a_seeded_repository(
    run_cli: Run, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "a.txt").write_text("a\n")
    subprocess.run([*git, "add", "a.txt"], check=True)
    subprocess.run([*git, "commit", "-qm", "first"], check=True)
    server = _probe(
        run_cli,
        "--tool",
        "git_log",
        "--seed",
        f"repo_path={repo}",
        "--",
        str(BIN / "mcp-server-git"),
    )
    cases = _cases(server, "git_log")
    assert cases["valid"]["answer"] == "accepted"
    assert cases["valid"]["sources"]["/repo_path"] == "seed --seed"
    coerced = cases["string-for-number:/max_count"]
    assert coerced["answer"] == "accepted" and coerced["findings"][0]["code"] == "probe.coerced"


def test_the_git_servers_negatives_are_inconclusive_without_a_real_repository(
    run_cli: Run,
) -> None:
    server = _probe(run_cli, "--tool", "git_log", "--", str(BIN / "mcp-server-git"))
    tool = next(t for t in server["tools"] if t["tool"] == "git_log")
    assert tool["verdict"] == "inconclusive"
    rejected = [
        c
        for c in tool["cases"]
        if not c["kind"].startswith("valid") and c.get("answer") != "accepted"
    ]
    assert rejected and all(c.get("verdict") == "inconclusive" for c in rejected if c["sent"])


def test_the_fetch_server_is_not_called_by_default(run_cli: Run) -> None:
    result = run_cli("mcp", "probe", "--dry-run", "--", str(BIN / "mcp-server-fetch"))
    assert result.code == 0, result.stderr
    assert "fetch  not called: may reach the outside world (openWorldHint is not false)" in (
        result.stdout
    )
    assert "tools/call" not in result.stdout
    assert "prompts/get fetch  not got: it takes a URL" in result.stdout
    assert "dry run: would call 0 of 1 tools, 0 calls; nothing was sent" in result.stdout


def test_everything_lists_17_tools_and_hides_4_from_a_bare_client(
    run_cli: Run, npm_servers: Path
) -> None:
    command = str(npm_servers / "mcp-server-everything")
    full = run_cli("mcp", "tools", "-f", "json", "--", command)
    assert full.code == 0, full.stderr
    assert len(json.loads(full.stdout)["tools"]) == 17
    bare = run_cli("mcp", "tools", "-f", "json", "--no-capabilities", "--", command)
    assert len(json.loads(bare.stdout)["tools"]) == 13


def test_a_long_running_tool_that_reports_progress_does_not_time_out(
    run_cli: Run, npm_servers: Path
) -> None:
    server = _probe(
        run_cli,
        "--tool",
        "trigger-long-running-operation",
        "--cases",
        "valid",
        "--seed",
        "duration=3",
        "--seed",
        "steps=3",
        "--timeout",
        "1.5",
        "--",
        str(npm_servers / "mcp-server-everything"),
    )
    case = _cases(server, "trigger-long-running-operation")["valid"]
    assert case["answer"] == "accepted", case
    assert case["ms"] > 2500  # longer than the timeout: progress kept it open
    assert "probe.timeout" not in server["summary"]["by_code"]


def test_sampling_elicitation_and_roots_are_answered(
    run_cli: Run, npm_servers: Path, tmp_path: Path
) -> None:
    server = _probe(
        run_cli,
        "--tool",
        "get-roots-list",
        "--tool",
        "trigger-sampling-request",
        "--tool",
        "trigger-elicitation-request",
        "--allow",
        "trigger-sampling-request",
        "--allow",
        "trigger-elicitation-request",
        "--cases",
        "valid",
        "--root",
        str(tmp_path),
        "--",
        str(npm_servers / "mcp-server-everything"),
    )
    served = server["client"]["served"]
    assert served.get("sampling/createMessage", 0) >= 1
    assert served.get("elicitation/create", 0) >= 1
    assert served.get("roots/list", 0) >= 1
    assert server["client"]["roots"] == [tmp_path.resolve().as_uri()]
    for tool in server["tools"]:
        assert all(c["answer"] == "accepted" for c in tool["cases"]), tool


def test_resources_and_prompts_are_listed(run_cli: Run, npm_servers: Path) -> None:
    command = str(npm_servers / "mcp-server-everything")
    resources = run_cli("mcp", "resources", "-f", "json", "--", command)
    assert resources.code == 0, resources.stderr
    listed = json.loads(resources.stdout)
    assert len(listed["resources"]) >= 1 and "resourceTemplates" in listed
    prompts = run_cli("mcp", "prompts", "--", command)
    assert prompts.code == 0, prompts.stderr
    assert "prompt" in prompts.stdout.splitlines()[1]


def test_the_filesystem_server_reads_under_the_root(
    run_cli: Run, npm_servers: Path, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("hello\n")
    server = _probe(
        run_cli,
        "--tool",
        "list_directory",
        "--tool",
        "read_text_file",
        "--cases",
        "valid,valid-required",
        "--root",
        str(tmp_path),
        "--",
        str(npm_servers / "mcp-server-filesystem"),
        str(tmp_path),
    )
    assert _cases(server, "list_directory")["valid"]["answer"] == "accepted"
    # every optional member at once (head and tail) is refused; the required-only call is not
    read = _cases(server, "read_text_file")
    assert read["valid-required"]["answer"] == "accepted", read
    assert read["valid-required"]["sources"]["/path"] == "root"


def test_the_memory_servers_read_tools_accept_their_valid_calls(
    run_cli: Run, npm_servers: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMORY_FILE_PATH", str(tmp_path / "memory.jsonl"))
    server = _probe(
        run_cli,
        "--tool",
        "read_graph",
        "--cases",
        "valid",
        "--env",
        "MEMORY_FILE_PATH",
        "--",
        str(npm_servers / "mcp-server-memory"),
    )
    assert _cases(server, "read_graph")["valid"]["answer"] == "accepted"


def _recorded(run_cli: Run, trace: Path, *command: str) -> None:
    """``jsoncontract mcp COMMAND...`` through the recorder in front of the time server."""
    server = ["jsoncontract", "mcp", "record", "-o", str(trace), "--", str(BIN / "mcp-server-time")]
    result = run_cli("mcp", *command, "--", *server)
    assert result.code in (0, 1), result.stderr


def test_pin_check_shows_a_changed_property_description_of_the_time_server_in_full(
    run_cli: Run, tmp_path: Path
) -> None:
    # the lock is taken from an older build, as a replay of the real server's traffic with
    # one sentence less in a property's description; the check runs against the real server
    trace = tmp_path / "session.jsonl"
    _recorded(run_cli, trace, "pin", "--lock", str(tmp_path / "first.lock"))
    sentence = " Use 'Etc/UTC' as local timezone if no source timezone provided by the user."
    older = tmp_path / "older.jsonl"
    text = trace.read_text()
    assert sentence in text
    older.write_text(text.replace(sentence, ""))
    lock = str(tmp_path / "mcp.lock")
    replay = ["--", "jsoncontract", "mcp", "replay", str(older)]
    assert run_cli("mcp", "pin", "--lock", lock, *replay).code == 0
    check = run_cli("mcp", "pin", "--lock", lock, "--check", "--", str(BIN / "mcp-server-time"))
    assert check.code == 1, check.stderr
    out = check.stdout
    assert "convert_time: the input_schema/properties/source_timezone/description in full" in out
    assert "  was: Source IANA timezone name (e.g., 'America/New_York', 'Europe/London').\n" in out
    assert (
        f"  now: Source IANA timezone name (e.g., 'America/New_York', 'Europe/London').{sentence}\n"
        in out
    )
    assert "{+" + sentence.strip() + "+}" in out
    # the finding itself names the words that changed, not the same prefix twice
    assert "changed: ...York', 'Europe/London').{+" + sentence in out


def test_verify_is_clean_against_the_time_server_and_fails_on_an_edited_replay(
    run_cli: Run, tmp_path: Path
) -> None:
    trace = tmp_path / "session.jsonl"
    # convert_time of a fixed time: the same answer on every run (of one day)
    _recorded(run_cli, trace, "probe", "-q", "--tool", "convert_time")
    server = str(BIN / "mcp-server-time")
    same = run_cli("mcp", "verify", str(trace), "--", server)
    assert same.code == 0, same.stdout + same.stderr
    assert " 0 different" in same.stdout
    text = trace.read_text()
    # New York to Tokyo, the description's own examples: +14.0h, or +13.0h in summer
    difference = re.search(r"[+-]\d+\.\dh", text)
    assert difference is not None
    edited = tmp_path / "edited.jsonl"
    edited.write_text(text.replace(difference.group(), "+99.0h"))
    assert "value-changed" in verify_differences(run_cli, trace, edited)


def test_a_prompt_refusing_placeholders_is_a_warning_and_seeds_get_it(
    run_cli: Run, npm_servers: Path
) -> None:
    command = str(npm_servers / "mcp-server-everything")
    words = ["--tool", "echo", "--cases", "valid"]

    def got(server: dict) -> dict:
        return next(e for e in server["extras"] if e["target"] == "resource-prompt")

    # its arguments say nothing of the values it takes ("Type of resource to fetch")
    guessed = got(_probe(run_cli, *words, "--", command))
    assert guessed["ok"] is False
    (finding,) = guessed["findings"]
    assert finding["code"] == "probe.prompt_failed" and finding["severity"] == "warning"
    assert "placeholders for resourceId, resourceType" in finding["message"]
    seeded = got(
        _probe(
            run_cli, *words, "--seed", "resourceType=Text", "--seed", "resourceId=1", "--", command
        )
    )
    assert seeded["ok"] is True and seeded["sources"]["resourceType"] == "seed --seed"
