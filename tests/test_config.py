"""Project configuration: discovery, validation, and the schema built from section files."""

from __future__ import annotations

from pathlib import Path

import pytest

from jsoncontract.config import config_schema, find_config, load_config
from jsoncontract.errors import ConfigError


def test_nothing_found_means_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = load_config()
    assert config.path is None and config.data == {}
    assert config.section("check") == {}


def test_jsoncontract_toml_wins_over_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.jsoncontract]\nfail_on = 'info'\n")
    (tmp_path / "jsoncontract.toml").write_text("fail_on = 'warning'\n")
    assert find_config(tmp_path) == tmp_path / "jsoncontract.toml"


def test_pyproject_without_the_table_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "jsoncontract.toml").write_text("fail_on = 'warning'\n")
    inner = tmp_path / "a" / "b"
    inner.mkdir(parents=True)
    (inner / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    assert find_config(inner) == tmp_path / "jsoncontract.toml"


@pytest.mark.parametrize(
    "text",
    [
        "[project]\nname = 'x'  # configured in [tool.jsoncontract] elsewhere\n",
        "[tool.other]\nsee = '[tool.jsoncontract]'\n",
        "tool = 1\n",
    ],
)
def test_pyproject_that_only_mentions_the_table_is_skipped(tmp_path: Path, text: str) -> None:
    (tmp_path / "jsoncontract.toml").write_text("fail_on = 'warning'\n")
    inner = tmp_path / "a"
    inner.mkdir()
    (inner / "pyproject.toml").write_text(text)
    assert find_config(inner) == tmp_path / "jsoncontract.toml"


def test_pyproject_with_the_table_as_a_dotted_key_is_found(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool]\njsoncontract.fail_on = 'info'\n")
    assert find_config(tmp_path) == tmp_path / "pyproject.toml"
    assert load_config(tmp_path / "pyproject.toml").get("fail_on") == "info"


def test_broken_pyproject_that_names_the_table_is_reported(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.jsoncontract]\nfail_on = \n")
    assert find_config(tmp_path) == tmp_path / "pyproject.toml"
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(tmp_path / "pyproject.toml")


@pytest.mark.parametrize("text", ["tool = 1\n", "[tool]\njsoncontract = 'x'\n"])
def test_pyproject_with_a_malformed_tool_table(tmp_path: Path, text: str) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text(text)
    with pytest.raises(ConfigError):
        load_config(path)


def test_paths_are_relative_to_the_file(tmp_path: Path) -> None:
    (tmp_path / "jsoncontract.toml").write_text('tools = ["tools/", "x.json"]\n')
    config = load_config(tmp_path / "jsoncontract.toml")
    assert config.paths(config.get("tools")) == [tmp_path / "tools", tmp_path / "x.json"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("fail_on = 'sometimes'\n", "config key 'fail_on'"),
        ("tool = ['x']\n", "unknown config key 'tool'; did you mean 'tools'?"),
        (
            "[check]\nformatt = 'json'\n",
            "unknown config key 'check.formatt'; did you mean 'format'?",
        ),
        ("[check]\nmax_shown = -1\n", "config key 'check.max_shown'"),
        ("tools = 'x'\n", "config key 'tools'"),
    ],
)
def test_invalid_values_name_the_key(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "jsoncontract.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert message in str(caught.value)
    assert str(path) in str(caught.value)


def test_pyproject_keys_are_named_with_their_table(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text("[tool.jsoncontract]\nfail_onn = 'error'\n")
    with pytest.raises(ConfigError, match=r"'tool\.jsoncontract\.fail_onn'"):
        load_config(path)


def test_unreadable_and_broken_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read config"):
        load_config(tmp_path / "missing.toml")
    bad = tmp_path / "jsoncontract.toml"
    bad.write_bytes(b"\xff\xfe")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(bad)
    bad.write_text("a = [")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(bad)
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text("[project]\n")
    with pytest.raises(ConfigError, match=r"no \[tool\.jsoncontract\] table"):
        load_config(pyproject)


def test_schema_has_one_property_per_section_file() -> None:
    schema = config_schema()
    assert schema["additionalProperties"] is False
    assert {"tools", "fail_on", "check"} <= set(schema["properties"])
