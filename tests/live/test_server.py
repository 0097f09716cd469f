"""How servers are named: commands, URLs, config names, host configs; labels without secrets."""

from __future__ import annotations

from pathlib import Path

import pytest

from jsoncontract.config import load_config
from jsoncontract.errors import ConfigError, UsageError
from jsoncontract.live.server import (
    ServerSpec,
    expand_variables,
    known_servers,
    parse_pairs,
    resolve_server,
    safe_arguments,
    safe_url,
)


def test_a_command_after_the_separator_is_a_stdio_server() -> None:
    spec = resolve_server([], ["python", "server.py", "--port", "1"])
    assert (spec.transport, spec.command, spec.label) == (
        "stdio",
        ("python", "server.py", "--port", "1"),
        "python server.py --port 1",
    )
    assert spec.describe() == "stdio: python server.py --port 1"


def test_a_url_is_a_streamable_http_server() -> None:
    spec = resolve_server(["https://mcp.example.com/mcp"], [], headers=["Authorization: Bearer x"])
    assert (spec.transport, spec.url, dict(spec.headers)) == (
        "http",
        "https://mcp.example.com/mcp",
        {"Authorization": "Bearer x"},
    )


@pytest.mark.parametrize(
    ("target", "command", "message"),
    [
        ([], [], "name a server"),
        (["a", "b"], [], "one server at a time"),
        (["https://x/mcp"], ["python"], "name one server"),
        (["nope"], [], "no servers are configured"),
        (["python3"], [], "put it after --"),
        (["./server.py"], [], "put it after --"),
    ],
)
def test_bad_server_names_say_what_to_write(
    target: list[str], command: list[str], message: str
) -> None:
    with pytest.raises(UsageError, match=message):
        resolve_server(target, command)


def test_headers_and_env_fit_their_transport() -> None:
    with pytest.raises(UsageError, match="--header is for HTTP"):
        resolve_server([], ["python", "s.py"], headers=["X-Key: 1"])
    with pytest.raises(UsageError, match="--env is for stdio"):
        resolve_server(["http://127.0.0.1:1/mcp"], [], env=["A=1"])
    with pytest.raises(UsageError, match="has no value"):
        resolve_server(["http://127.0.0.1:1/mcp"], [], headers=["Authorization"])


def test_env_pairs_take_a_value_or_inherit_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHOP_TOKEN", "s3cret")
    monkeypatch.delenv("NOT_SET_HERE", raising=False)
    assert parse_pairs(["A=1", "SHOP_TOKEN"], separator="=", what="--env") == {
        "A": "1",
        "SHOP_TOKEN": "s3cret",
    }
    with pytest.raises(UsageError, match="NOT_SET_HERE is not set here"):
        parse_pairs(["NOT_SET_HERE"], separator="=", what="--env")


def test_variables_expand_as_host_configs_write_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOKEN", "abc")
    monkeypatch.setenv("EMPTY", "")
    monkeypatch.delenv("MISSING", raising=False)
    assert expand_variables("Bearer ${TOKEN}", "h") == "Bearer abc"
    assert expand_variables("${env:TOKEN}-${MISSING:-none}-${EMPTY:-fallback}", "h") == (
        "abc-none-fallback"
    )
    with pytest.raises(ConfigError, match=r"uses \$\{MISSING\}, which is not set"):
        expand_variables("${MISSING}", "header Authorization")


def test_labels_never_show_credentials() -> None:
    assert safe_url("https://user:pw@api.example.com:8443/mcp?api_key=K&region=eu#x") == (
        "https://api.example.com:8443/mcp?api_key=***&region=eu"
    )
    assert safe_arguments(["srv", "--api-key", "K1", "--token=K2", "--port", "80"]) == [
        "srv",
        "--api-key",
        "***",
        "--token=***",
        "--port",
        "80",
    ]
    spec = ServerSpec(command=("srv", "--password", "hunter2"), env={"API_KEY": "K3"})
    assert "hunter2" not in spec.label and "K3" not in repr(spec)
    http = ServerSpec(url="https://x.example/mcp", headers={"Authorization": "Bearer K4"})
    assert "K4" not in http.label + http.describe() + repr(http)


def test_a_long_command_is_elided_in_the_middle() -> None:
    spec = ServerSpec(command=("python", "/very/long/" + "x" * 100 + "/server.py", "--flag"))
    assert len(spec.label) < 80 and spec.label.startswith("python /very") and "..." in spec.label


CONFIG = """
[mcp]
host_configs = [".mcp.json"]
timeout = 3

[mcp.servers.warehouse]
command = "python"
args = ["server.py", "--region", "${REGION:-eu}"]
env = { SHOP_TOKEN = "${SHOP_TOKEN}" }
cwd = "srv"
allow = ["cancel_order"]

[mcp.servers.remote]
url = "https://mcp.example.com/mcp"
headers = { Authorization = "Bearer ${SHOP_TOKEN}" }
requires_auth = true
"""

HOST = """{"mcpServers": {
  "files": {"command": "npx", "args": ["-y", "files-server"], "env": {"ROOT": "/data"}},
  "search": {"type": "http", "url": "https://search.example.com/mcp",
             "headers": {"X-Api-Key": "${SHOP_TOKEN}"}},
  "legacy": {"type": "sse", "url": "https://old.example.com/sse"},
  "warehouse": {"command": "not-this-one"}
}}"""


@pytest.fixture
def configured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SHOP_TOKEN", "t0k3n")
    monkeypatch.delenv("REGION", raising=False)
    (tmp_path / "jsoncontract.toml").write_text(CONFIG)
    (tmp_path / ".mcp.json").write_text(HOST)
    return tmp_path / "jsoncontract.toml"


def test_config_names_servers(configured: Path) -> None:
    cfg = load_config(configured)
    warehouse = resolve_server(["warehouse"], [], config=cfg)
    assert warehouse.command == ("python", "server.py", "--region", "eu")
    assert dict(warehouse.env) == {"SHOP_TOKEN": "t0k3n"}
    assert warehouse.cwd == str(configured.parent / "srv")
    assert (warehouse.allow, warehouse.label) == (("cancel_order",), "warehouse")
    remote = resolve_server(["remote"], [], config=cfg, headers=["X-Trace: 1"])
    assert dict(remote.headers) == {"Authorization": "Bearer t0k3n", "X-Trace": "1"}
    assert remote.requires_auth and remote.label == "remote"


def test_host_configs_name_servers_too(configured: Path) -> None:
    cfg = load_config(configured)
    found = known_servers(cfg)
    assert isinstance(found["warehouse"], ServerSpec)
    assert found["warehouse"].command[0] == "python"  # the project config wins
    files = resolve_server(["files"], [], config=cfg)
    assert files.command == ("npx", "-y", "files-server") and dict(files.env) == {"ROOT": "/data"}
    search = resolve_server(["search"], [], config=cfg)
    assert dict(search.headers) == {"X-Api-Key": "t0k3n"}
    with pytest.raises(UsageError, match="legacy HTTP\\+SSE transport"):
        resolve_server(["legacy"], [], config=cfg)
    with pytest.raises(UsageError, match="did you mean 'search'"):
        resolve_server(["serch"], [], config=cfg)


def test_a_host_config_given_on_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "claude_desktop_config.json"
    path.write_text('{"servers": {"vs": {"type": "stdio", "command": "node", "args": ["s.js"]}}}')
    assert resolve_server(["vs"], [], host_configs=[path]).command == ("node", "s.js")
    path.write_text("{not json")
    with pytest.raises(ConfigError, match="not JSON"):
        resolve_server(["vs"], [], host_configs=[path])
    path.write_text('{"other": {}}')
    with pytest.raises(ConfigError, match="no mcpServers"):
        resolve_server(["vs"], [], host_configs=[path])


def test_the_config_schema_checks_server_entries(tmp_path: Path) -> None:
    path = tmp_path / "jsoncontract.toml"
    path.write_text('[mcp.servers.x]\ncommand = "a"\nurl = "https://b"\n')
    with pytest.raises(ConfigError, match=r"mcp\.servers\.x"):
        load_config(path)
    path.write_text('[mcp.servers.x]\ncomand = "a"\n')
    with pytest.raises(ConfigError, match="comand"):
        load_config(path)


def test_the_public_api_is_lazy_and_complete() -> None:
    import subprocess
    import sys

    import jsoncontract.live as live

    assert sorted(live.__all__) == sorted(live._LAZY)
    for name in live.__all__:
        assert getattr(live, name) is not None
    code = "import sys, jsoncontract.live; assert 'mcp' not in sys.modules"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_environment_values_and_keys_in_a_command_are_never_shown() -> None:
    """The commands host configs hold: ``env KEY=VALUE server``, ``docker run -e KEY=VALUE``,
    a key given as a plain argument."""
    key = "ghp_" + "16C7e42F292c6912E7710c838347Ae178B4a"
    words = ["docker", "run", "-e", f"GITHUB_PERSONAL_ACCESS_TOKEN={key}", "-e", "REGION=eu",
             "ghcr.io/github/github-mcp-server"]  # fmt: skip
    assert safe_arguments(words) == [
        "docker", "run", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN=***", "-e", "REGION=eu",
        "ghcr.io/github/github-mcp-server",
    ]  # fmt: skip
    assert safe_arguments(["env", "OPENAI_API_KEY=sk-x", "python", "s.py"]) == [
        "env", "OPENAI_API_KEY=***", "python", "s.py",
    ]  # fmt: skip
    shown = ServerSpec(command=("npx", "-y", "@acme/mcp", key)).label
    assert key[4:] not in shown and "<redacted github-token" in shown


def test_one_broken_entry_of_a_host_config_leaves_the_others_usable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A host config holds every server of a host; one whose variable is not set here (or
    that uses the legacy SSE transport) does not stop the others being named."""
    monkeypatch.delenv("NOT_SET_HERE", raising=False)
    host = tmp_path / ".mcp.json"
    host.write_text(
        '{"mcpServers": {"shop": {"command": "python", "args": ["shop.py"]},'
        ' "github": {"command": "gh-mcp", "env": {"TOKEN": "${NOT_SET_HERE}"}},'
        ' "old": {"type": "sse", "url": "http://127.0.0.1:1/sse"}}}'
    )
    spec = resolve_server(["shop"], [], host_configs=[host])
    assert spec.command == ("python", "shop.py")
    with pytest.raises(ConfigError, match=r"github.*NOT_SET_HERE.*not set"):
        resolve_server(["github"], [], host_configs=[host])
    with pytest.raises(UsageError, match="legacy HTTP\\+SSE"):
        resolve_server(["old"], [], host_configs=[host])


def test_a_host_config_from_an_endless_device_stops_at_its_limit() -> None:
    from jsoncontract.settings import MAX_CONFIG_BYTES

    with pytest.raises(ConfigError, match=f"over the {MAX_CONFIG_BYTES // 2**20} MiB limit"):
        resolve_server(["vs"], [], host_configs=[Path("/dev/zero")])
