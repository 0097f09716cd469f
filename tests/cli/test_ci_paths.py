"""CI formats write files relative to the project root (the git work tree, else the config's
directory), whatever the working directory and however the path was given: tools named in
``[tool.jsoncontract]`` (absolute once read), captures given as ``../captures/...``."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jsoncontract.project import portable_path, project_root

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project: tools named in pyproject.toml, captures, a subdirectory to run from."""
    root = tmp_path / "proj"
    shutil.copytree(FIXTURES / "tools", root / "tools")
    (root / "captures").mkdir()
    shutil.copy(FIXTURES / "captures/faults/schema-enum.json", root / "captures")
    shutil.copy(FIXTURES / "lint/weak-tools.json", root / "tools-weak.json")
    (root / "pyproject.toml").write_text('[tool.jsoncontract]\ntools = ["tools/"]\n')
    (root / "sub").mkdir()
    return root


def git(root: Path) -> None:
    (root / ".git").mkdir()


RUNS = {
    "check": ["check", "../captures/schema-enum.json"],
    "lint": ["lint"],
}


@pytest.mark.parametrize("with_git", [True, False])
@pytest.mark.parametrize("where", [".", "sub"])
def test_lint_sarif_is_relative_to_the_project(
    project: Path,
    run_cli: Callable[..., Any],
    monkeypatch: pytest.MonkeyPatch,
    github_sarif: Callable[..., dict[str, Any]],
    where: str,
    with_git: bool,
) -> None:
    if with_git:
        git(project)
    monkeypatch.chdir(project / where)
    result = run_cli(
        "lint",
        "tools/anthropic.json" if where == "." else "../tools-weak.json",
        "--format",
        "sarif",
    )
    assert result.code in (0, 1), result.stderr
    result = run_cli("lint", "--format", "sarif", "--select", "ALL")  # tools from the config
    log = github_sarif(result.stdout)
    run = log["runs"][0]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == project.as_uri() + "/"
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]
    }
    assert uris and all(u.startswith("tools/") for u in uris), uris


@pytest.mark.parametrize("where", [".", "sub"])
def test_check_ci_formats_from_a_subdirectory(
    project: Path,
    run_cli: Callable[..., Any],
    monkeypatch: pytest.MonkeyPatch,
    github_sarif: Callable[..., dict[str, Any]],
    where: str,
) -> None:
    git(project)
    monkeypatch.chdir(project / where)
    capture = "captures/schema-enum.json" if where == "." else "../captures/schema-enum.json"
    sarif = run_cli("check", capture, "-f", "sarif")
    assert sarif.code == 1, sarif.stderr
    log = github_sarif(sarif.stdout)
    (result,) = log["runs"][0]["results"]
    location = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": "captures/schema-enum.json", "uriBaseId": "%SRCROOT%"}
    annotations = run_cli("check", capture, "-f", "github").stdout
    assert annotations.startswith("::error file=captures/schema-enum.json,line=13,")
    junit = ET.fromstring(run_cli("check", capture, "-f", "junit").stdout)
    case = junit.find("testsuite/testcase")
    assert case is not None
    assert case.get("classname") == case.get("file") == "captures/schema-enum.json"


def test_an_absolute_capture_path_is_written_relative(
    project: Path, run_cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    git(project)
    monkeypatch.chdir(project / "sub")
    absolute = str(project / "captures" / "schema-enum.json")
    log = json.loads(run_cli("check", absolute, "-f", "sarif").stdout)
    location = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "captures/schema-enum.json"


def test_a_file_outside_the_project_keeps_its_absolute_uri(
    project: Path, tmp_path: Path, run_cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    git(project)
    outside = tmp_path / "elsewhere" / "call.json"
    outside.parent.mkdir()
    shutil.copy(FIXTURES / "captures/faults/schema-enum.json", outside)
    monkeypatch.chdir(project)
    log = json.loads(run_cli("check", str(outside), "-f", "sarif").stdout)
    location = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": outside.as_uri()}
    annotations = run_cli("check", str(outside), "-f", "github").stdout
    assert annotations.startswith(f"::error file={outside.as_posix()},")


def test_project_root_prefers_git_then_the_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    top = tmp_path / "repo"
    (top / "a" / "b").mkdir(parents=True)
    (top / ".git").write_text("gitdir: /somewhere/else\n")  # a linked work tree
    monkeypatch.chdir(top / "a" / "b")
    assert project_root() == top
    assert project_root(tmp_path) == top  # the work tree wins over a config elsewhere
    (top / ".git").unlink()
    assert project_root(top / "a") == top / "a"
    assert project_root() == top / "a" / "b"


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("tools/a.json", "tools/a.json"),
        ("./tools/a.json", "tools/a.json"),
        ("sub/../tools/a.json", "tools/a.json"),
        ("-", "-"),
    ],
)
def test_portable_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, path: str, expected: str
) -> None:
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "a.json").write_text("{}")
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path)
    assert portable_path(path, tmp_path) == expected
    monkeypatch.chdir(tmp_path / "sub")
    if path != "-":
        assert portable_path("../" + path, tmp_path) == expected


def test_a_name_that_is_no_file_is_written_as_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    assert portable_path("workbench", tmp_path) == "workbench"  # a live server's name
    assert portable_path("http://localhost:8000/mcp", tmp_path) == "http://localhost:8000/mcp"
