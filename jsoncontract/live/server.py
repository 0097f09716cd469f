"""How a live MCP server is named: a command (stdio), a URL (Streamable HTTP), or a name.

A name is looked up in ``[mcp.servers.NAME]`` of the project config, then in the
``mcpServers`` (or VS Code's ``servers``) map of the host config files the config lists
under ``[mcp] host_configs`` or the command line names. Values may refer to the
environment as ``${VAR}``, ``${VAR:-default}`` or ``${env:VAR}``, as host configs do.

Credentials stay inside the :class:`ServerSpec`: its :attr:`~ServerSpec.label` (what
reports show) never holds header values, environment values, URL user info, sensitive
query values, or the value after a sensitive-looking flag (``--api-key X``).
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from jsoncontract.errors import ConfigError, UsageError
from jsoncontract.masking import hide, is_sensitive, masked

if TYPE_CHECKING:
    from jsoncontract.live.probe.arguments import Seed
    from jsoncontract.settings import Config

#: Longest label shown for a stdio command before the middle is elided.
_LABEL_WIDTH: Final = 72
_VARIABLE: Final = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_HOST_KEYS: Final = ("mcpServers", "servers")
#: How :func:`known_servers` marks a definition that is broken (the error follows).
_BROKEN: Final = "is broken: "


@dataclass(frozen=True, slots=True)
class ServerSpec:
    """One server, as the user named it.

    Exactly one of ``command`` (stdio: the executable and its arguments) and ``url``
    (Streamable HTTP) is set. ``headers`` and ``env`` may hold credentials: they are sent,
    never shown.
    """

    command: tuple[str, ...] = ()
    url: str | None = None
    name: str | None = None
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    cwd: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    requires_auth: bool = False
    allow: tuple[str, ...] = ()
    timeout: float | None = None
    #: values for the probe's valid calls (the ``seeds`` table of its config entry)
    seeds: tuple[Seed, ...] = ()
    #: where the server was defined (a config file and key), for messages
    origin: str | None = None

    def __post_init__(self) -> None:
        if bool(self.command) == (self.url is not None):
            raise UsageError("a server is either a command (stdio) or a URL (Streamable HTTP)")

    @property
    def transport(self) -> str:
        """``stdio`` or ``http``."""
        return "stdio" if self.command else "http"

    @property
    def label(self) -> str:
        """What reports call the server: its name, else its command or URL, cleaned of
        anything that may be a credential."""
        if self.name:
            return self.name
        return self.endpoint

    @property
    def endpoint(self) -> str:
        """The command line or URL, cleaned of anything that may be a credential."""
        if self.url is not None:
            return masked(safe_url(self.url))
        text = shlex.join(safe_arguments(self.command))
        if len(text) > _LABEL_WIDTH:
            text = text[: _LABEL_WIDTH // 2 - 2] + " ... " + text[-(_LABEL_WIDTH // 2 - 3) :]
        return text

    def describe(self) -> str:
        """``stdio: python server.py`` or ``http: https://host/mcp``."""
        return f"{self.transport}: {self.endpoint}"


def safe_url(url: str) -> str:
    """A URL without user info, and with the values of sensitive-looking query parameters
    replaced by ``***``."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "(an unreadable URL)"
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = host if port is None else f"{host}:{port}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = urlencode([(k, "***" if is_sensitive(k) else v) for k, v in pairs], safe="*")
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))


def safe_arguments(words: Sequence[str]) -> list[str]:
    """Command words with the value after (or in) a sensitive-looking flag hidden, and the
    value of a sensitive-looking variable set on the command line: ``--api-key X``,
    ``--api-key=X`` and ``env API_KEY=X`` (``docker run -e API_KEY=X``) show ``***``. Any
    other word holding a secret shows it by kind and hash."""
    out: list[str] = []
    hide_next = False
    for word in words:
        if hide_next:
            out.append("***")
            hide_next = False
            continue
        if "=" in word:
            name, _, _ = word.partition("=")
            if is_sensitive(name.lstrip("-")):
                out.append(f"{name}=***")
                continue
        out.append(masked(word))
        hide_next = word.startswith("-") and is_sensitive(word.lstrip("-"))
    return out


def expand_variables(text: str, where: str, environ: Mapping[str, str] | None = None) -> str:
    """``text`` with ``${VAR}``, ``${VAR:-default}`` and ``${env:VAR}`` replaced.

    Raises:
        ConfigError: a variable without a default is not set.
    """
    env = os.environ if environ is None else environ

    def value(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        found = env.get(name)
        if found is not None and (found or default is None):
            hide(found)  # sent, never shown
            return found
        if default is not None:
            return default
        raise ConfigError(f"{where} uses ${{{name}}}, which is not set in the environment")

    return _VARIABLE.sub(value, text)


def parse_pairs(values: Iterable[str], *, separator: str, what: str) -> dict[str, str]:
    """``K:V`` (headers) or ``K=V`` (environment) pairs from the command line; a bare
    ``K`` for the environment takes the value of ``K`` here.

    Raises:
        UsageError: a pair without a name, or a header without a value.
    """
    out: dict[str, str] = {}
    for raw in values:
        key, found, value = raw.partition(separator)
        key = key.strip()
        if separator == ":":
            value = value.strip()
        if not key:
            raise UsageError(f"{what} {_shown(raw)!r} has no name before {separator!r}")
        if not found:
            if separator == ":":
                raise UsageError(f"{what} {key!r} has no value: write it as '{key}: VALUE'")
            inherited = os.environ.get(key)
            if inherited is None:
                raise UsageError(f"{what} {key} is not set here; give it a value: {key}=VALUE")
            value = inherited
        out[key] = expand_variables(value, f"{what} {key}")
    return out


def _shown(raw: str) -> str:
    return raw if len(raw) < 40 else raw[:37] + "..."


def resolve_server(
    target: Sequence[str],
    command: Sequence[str],
    *,
    config: Config | None = None,
    host_configs: Sequence[Path] = (),
    headers: Sequence[str] = (),
    env: Sequence[str] = (),
    name: str | None = None,
    requires_auth: bool | None = None,
) -> ServerSpec:
    """The server named on the command line.

    Arguments:
        target: the words before ``--``: nothing (with a command), a URL, or a name.
        command: the words after ``--`` (a stdio server's command line).
        host_configs: host config files named on the command line (besides the config's).
        headers: ``K: V`` headers to add (HTTP).
        env: ``K=V`` (or ``K``, inherited) variables to add to the server's environment.
        name: what to call the server in reports and locks.

    Raises:
        UsageError: no server, two servers, a word that names none, or options that do not
            fit the transport.
        ConfigError: a server definition in a config file is broken.
    """
    if command and target:
        raise UsageError(
            f"name one server: {target[0]!r} and the command after -- are two; drop one"
        )
    if not command and not target:
        raise UsageError(
            "name a server: -- COMMAND ARGS... (stdio), an http(s):// URL, or a server name "
            "from [mcp.servers] in jsoncontract.toml"
        )
    if len(target) > 1:
        raise UsageError(
            f"{target[1]!r}: one server at a time (a stdio command goes after --: "
            f"jsoncontract mcp ... -- {shlex.join(target)})"
        )
    extra_headers = parse_pairs(headers, separator=":", what="header")
    extra_env = parse_pairs(env, separator="=", what="--env")
    if command:
        spec = ServerSpec(command=tuple(command), name=name)
    elif target[0].startswith(("http://", "https://")):
        spec = ServerSpec(url=target[0], name=name)
    else:
        found = known_servers(config, host_configs)
        entry = found.get(target[0])
        if entry is None:
            raise UsageError(_unknown(target[0], found, config))
        if isinstance(entry, str):
            if entry.startswith(_BROKEN):
                raise ConfigError(entry.removeprefix(_BROKEN))
            raise UsageError(unusable(target[0], entry))
        spec = entry
        if name:
            spec = _replace(spec, name=name)
    if extra_headers:
        if spec.url is None:
            raise UsageError("--header is for HTTP servers; a stdio server takes --env")
        spec = _replace(spec, headers={**spec.headers, **extra_headers})
    if extra_env:
        if not spec.command:
            raise UsageError("--env is for stdio servers; an HTTP server takes --header")
        spec = _replace(spec, env={**spec.env, **extra_env})
    if requires_auth is not None:
        spec = _replace(spec, requires_auth=requires_auth)
    return spec


def _replace(spec: ServerSpec, **changes: Any) -> ServerSpec:
    from dataclasses import replace

    return replace(spec, **changes)


def _unknown(word: str, found: Mapping[str, object], config: Config | None) -> str:
    from jsoncontract._spelling import did_you_mean

    if os.sep in word or word.endswith((".py", ".js", ".ts")) or shutil_which(word):
        return (
            f"{word!r} is not a URL or a configured server name; to run a command as a stdio "
            f"server, put it after --: jsoncontract mcp ... -- {word} ..."
        )
    if not found:
        where = "jsoncontract.toml" if config is None or config.path is None else config.path
        return (
            f"no server is named {word!r}: no servers are configured (add [mcp.servers.{word}] "
            f"to {where}, or list host configs under [mcp] host_configs)"
        )
    guess = did_you_mean(word, list(found))
    hint = f"did you mean {guess!r}? " if guess else ""
    return f"no server is named {word!r}; {hint}known: {', '.join(sorted(found))}"


def shutil_which(word: str) -> bool:
    """Whether ``word`` is an executable on PATH (a command typed without ``--``)."""
    import shutil

    return shutil.which(word) is not None


def known_servers(
    config: Config | None, host_configs: Sequence[Path] = ()
) -> dict[str, ServerSpec | str]:
    """Every named server: ``[mcp.servers]`` first, then the host config files (the
    config's ``host_configs``, then those given here); the first definition of a name wins.
    A server that cannot be used is mapped to the reason (a phrase: "uses the SSE
    transport...", or, for a definition that is broken, such as a variable that is not set
    here, :data:`_BROKEN` and the error): one entry does not stop the others being named.

    Raises:
        ConfigError: a host config file is unreadable.
    """
    out: dict[str, ServerSpec | str] = {}
    section = config.section("mcp") if config is not None else {}
    where = str(config.path) if config is not None and config.path is not None else "config"
    root = config.root if config is not None else Path.cwd()
    for key, entry in (section.get("servers") or {}).items():
        out[key] = _usable(key, entry, f"{where} [mcp.servers.{key}]", root)
    files = [root / p for p in section.get("host_configs") or ()] + list(host_configs)
    for path in files:
        for key, spec in _host_servers(path).items():
            out.setdefault(key, spec)
    return out


def _host_servers(path: Path) -> dict[str, ServerSpec | str]:
    import orjson

    from jsoncontract.errors import InputError
    from jsoncontract.settings import read_config

    try:
        data = read_config(path)  # bounded: a device or a pipe has no end
    except InputError as exc:
        raise ConfigError(
            f"cannot read the MCP host config: {exc.message}", file=str(path)
        ) from None
    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise ConfigError(f"the MCP host config is not JSON: {exc}", file=str(path)) from None
    if not isinstance(document, dict):
        raise ConfigError("the MCP host config is not a JSON object", file=str(path))
    servers = next((document[k] for k in _HOST_KEYS if isinstance(document.get(k), dict)), None)
    if servers is None:
        raise ConfigError(
            "the MCP host config has no mcpServers (or servers) object", file=str(path)
        )
    out: dict[str, ServerSpec | str] = {}
    for key, entry in servers.items():
        if not isinstance(entry, dict):
            raise ConfigError(f"server {key!r} is not an object", file=str(path))
        if entry.get("type") == "sse":
            out[key] = (
                f"(in {path}) uses the legacy HTTP+SSE transport; jsoncontract speaks stdio "
                "and Streamable HTTP"
            )
            continue
        fields = {
            k: entry[k] for k in ("command", "args", "env", "cwd", "url", "headers") if k in entry
        }
        out[key] = _usable(key, fields, f"{path} {key}", path.parent)
    return out


def unusable(name: str, reason: str) -> str:
    """The message for a server :func:`known_servers` mapped to ``reason``."""
    if reason.startswith(_BROKEN):
        return f"server {name!r} cannot be used: {reason.removeprefix(_BROKEN)}"
    return f"server {name!r} {reason}"


def _usable(key: str, entry: Any, where: str, root: Path) -> ServerSpec | str:
    """The server an entry defines, or why it cannot be used (:data:`_BROKEN` + the error)."""
    try:
        return _from_entry(key, entry, where, root)
    except ConfigError as exc:
        return _BROKEN + str(exc)


def _from_entry(key: str, entry: Mapping[str, Any], where: str, root: Path) -> ServerSpec:
    """A server from a config entry (already schema-checked when it comes from the project
    config; checked here when it comes from a host config)."""

    def text(value: Any, what: str) -> str:
        if not isinstance(value, str):
            raise ConfigError(f"{where}: {what} must be a string")
        return expand_variables(value, f"{where} {what}")

    def table(value: Any, what: str) -> dict[str, str]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: {what} must be an object of strings")
        return {str(k): text(v, f"{what}.{k}") for k, v in value.items()}

    command = entry.get("command")
    url = entry.get("url")
    if (command is None) == (url is None):
        raise ConfigError(f"{where}: give either command (stdio) or url (Streamable HTTP)")
    allow = tuple(entry.get("allow") or ())
    timeout = entry.get("timeout")
    seeds = _seeds(entry.get("seeds"), where)
    if url is not None:
        address = text(url, "url")
        if not address.startswith(("http://", "https://")):
            raise ConfigError(f"{where}: url must start with http:// or https://")
        return ServerSpec(
            url=address,
            name=key,
            headers=table(entry.get("headers"), "headers"),
            requires_auth=bool(entry.get("requires_auth", False)),
            allow=allow,
            timeout=timeout,
            seeds=seeds,
            origin=where,
        )
    args = entry.get("args") or []
    if not isinstance(args, list):
        raise ConfigError(f"{where}: args must be a list of strings")
    cwd = entry.get("cwd")
    return ServerSpec(
        command=(text(command, "command"), *(text(a, "args") for a in args)),
        name=key,
        env=table(entry.get("env"), "env"),
        cwd=str(root / text(cwd, "cwd")) if cwd is not None else None,
        allow=allow,
        timeout=timeout,
        seeds=seeds,
        origin=where,
    )


def _seeds(table: Any, where: str) -> tuple[Seed, ...]:
    """The seeds of a config entry (a table of ``NAME`` or ``"TOOL.NAME"`` to a value)."""
    if table is None:
        return ()
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: seeds must be a table of NAME = VALUE")
    from jsoncontract.live.probe.arguments import config_seeds

    return tuple(config_seeds(table, f"{where} seeds"))
