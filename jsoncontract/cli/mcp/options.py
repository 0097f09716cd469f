"""What the ``mcp`` subcommands share: the server argument, the option groups that say how
to reach a server and which faults to inject, and the steps of a body that talks to one.

No subcommand imports another; what two of them share lives here (as
:mod:`jsoncontract.cli.options` holds what every command shares).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from jsoncontract.cli.options import quiet_sdk_logs, warn

if TYPE_CHECKING:
    from jsoncontract.live.capabilities import ClientProfile
    from jsoncontract.live.catalog import Catalog
    from jsoncontract.live.inject import Injector
    from jsoncontract.live.server import ServerSpec
    from jsoncontract.live.tools import ToolListing
    from jsoncontract.live.wire import ConnectOptions
    from jsoncontract.settings import Config

T = TypeVar("T")


# -- options ------------------------------------------------------------------------------

ServerArg = Annotated[
    list[str] | None,
    typer.Argument(
        metavar="SERVER",
        help="A server name from the config, an http(s):// URL, or -- COMMAND ARGS... (stdio).",
        show_default=False,
    ),
]
HeaderOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--header",
        "-H",
        help="An HTTP header 'Name: value' for every request (repeatable; ${VAR} reads the "
        "environment). Never shown in any report.",
        show_default=False,
    ),
]
EnvOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--env",
        "-e",
        help="An environment variable for a stdio server, KEY=VALUE or KEY (taken from here); "
        "repeatable.",
        show_default=False,
    ),
]
NameOpt = Annotated[
    str | None,
    typer.Option(help="What to call the server in reports and locks.", show_default=False),
]
TimeoutOpt = Annotated[
    float | None,
    typer.Option(
        help="Seconds each request may take: initialize, tools/list, every call (default: "
        "[mcp] timeout, or 10).",
        min=0.001,
        show_default=False,
    ),
]
ConnectTimeoutOpt = Annotated[
    float | None,
    typer.Option(
        help="Seconds to start the server and negotiate (default: --timeout, at least 10).",
        min=0.001,
        show_default=False,
    ),
]
ProtocolOpt = Annotated[
    str,
    typer.Option(
        "--protocol",
        help="Protocol version: auto (server/discover, then initialize), legacy (initialize), "
        "or a version such as 2025-06-18.",
    ),
]
HostConfigOpt = Annotated[
    list[Path] | None,
    typer.Option(
        "--mcp-config",
        help="A host's JSON config (mcpServers) to look server names up in (repeatable).",
        dir_okay=False,
        show_default=False,
    ),
]
StderrOpt = Annotated[
    bool,
    typer.Option(
        "--server-stderr",
        help="Let a stdio server's stderr through (default: kept, and its "
        "last lines quoted when something goes wrong).",
    ),
]
AllowOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--allow",
        help="Call this tool although it is not annotated readOnlyHint: true (repeatable).",
        show_default=False,
    ),
]
AllowWritesOpt = Annotated[
    bool,
    typer.Option(
        "--allow-writes",
        help="Call every tool, read-only or not. Only against a server whose writes do not matter.",
    ),
]
ConcurrencyOpt = Annotated[
    int | None,
    typer.Option(
        help="Calls in flight at once (default: [mcp] concurrency, or 4).",
        min=1,
        max=64,
        show_default=False,
    ),
]


@dataclass(frozen=True, slots=True)
class ServerOptions:
    """How to reach the server a command names: the options of every command that talks to
    one (spread into its signature by :func:`~jsoncontract.cli.options.grouped`)."""

    header: HeaderOpt = None
    env: EnvOpt = None
    name: NameOpt = None
    timeout: TimeoutOpt = None
    connect_timeout: ConnectTimeoutOpt = None
    protocol: ProtocolOpt = "auto"
    mcp_config: HostConfigOpt = None
    server_stderr: StderrOpt = False

    def resolve(
        self,
        target: list[str],
        command: list[str],
        cfg: Config,
        *,
        named: bool = True,
        requires_auth: bool | None = None,
    ) -> ServerSpec:
        """The one server the command line names (the words before and after ``--``);
        ``named=False`` leaves ``--name`` out (one of several servers)."""
        from jsoncontract.live.server import resolve_server

        return resolve_server(
            target,
            command,
            config=cfg,
            host_configs=self.mcp_config or (),
            headers=self.header or (),
            env=self.env or (),
            name=self.name if named else None,
            requires_auth=requires_auth,
        )

    def connect_options(
        self, cfg: Config, spec: ServerSpec, client: ClientOptions | None = None
    ) -> ConnectOptions:
        """Timeouts and negotiation from the command line, the server's entry, then [mcp];
        the client's capabilities from ``client`` (default: roots, sampling and elicitation
        declared, with canned answers).

        Raises:
            ServerError: the mcp extra (the SDK) is missing, which every command that
                contacts a server needs.
        """
        from jsoncontract.errors import UsageError
        from jsoncontract.live.client import require_sdk
        from jsoncontract.live.wire import DEFAULT_TIMEOUT, ConnectOptions

        require_sdk()
        from jsoncontract.pipeline.answers import HANDSHAKE_VERSIONS, MODERN_VERSIONS

        protocol = self.protocol
        known = ("auto", "legacy", *HANDSHAKE_VERSIONS, *MODERN_VERSIONS)
        if protocol not in known:
            raise UsageError(f"--protocol {protocol!r} is not one of: {', '.join(known)}")
        chosen = (
            self.timeout or spec.timeout or cfg.section("mcp").get("timeout") or DEFAULT_TIMEOUT
        )
        chosen_client = client or ClientOptions()
        return ConnectOptions(
            timeout=float(chosen),
            connect_timeout=self.connect_timeout,
            protocol=protocol,
            show_stderr=self.server_stderr,
            client=chosen_client.profile(),
            max_wait=chosen_client.max_wait,
        )


RootOpt = Annotated[
    list[Path] | None,
    typer.Option(
        "--root",
        metavar="DIR",
        help="A directory the client offers the server as a root (roots/list; repeatable). "
        "Paths the probe sends are taken under the first.",
        file_okay=False,
        show_default=False,
    ),
]
SamplingOpt = Annotated[
    str,
    typer.Option(
        "--sampling",
        metavar="reply|decline|off",
        help="How the client answers sampling/createMessage: reply (a fixed text, no model "
        "runs), decline, or off (not declared).",
    ),
]
ElicitationOpt = Annotated[
    str,
    typer.Option(
        "--elicitation",
        metavar="accept|decline|off",
        help="How the client answers elicitation/create: accept (a form filled in from its "
        "schema), decline, or off (not declared). URL elicitations are always declined.",
    ),
]
NoCapabilitiesOpt = Annotated[
    bool,
    typer.Option(
        "--no-capabilities",
        help="Declare no client capability (no roots, sampling or elicitation): what a bare "
        "client sees.",
    ),
]
MaxWaitOpt = Annotated[
    float | None,
    typer.Option(
        "--max-wait",
        metavar="SECONDS",
        help="Seconds a request that keeps sending progress notifications may take in all "
        "(each one restarts --timeout; default: 6 timeouts, at least 60).",
        min=0.001,
        show_default=False,
    ),
]


@dataclass(frozen=True, slots=True)
class ClientOptions:
    """What the client declares and how it answers a server's requests: the options of
    every command that talks to a server (see :mod:`jsoncontract.live.capabilities`)."""

    root: RootOpt = None
    sampling: SamplingOpt = "reply"
    elicitation: ElicitationOpt = "accept"
    no_capabilities: NoCapabilitiesOpt = False
    max_wait: MaxWaitOpt = None

    def profile(self) -> ClientProfile:
        """The client profile these options ask for (a usage error names a bad one)."""
        from jsoncontract.live.capabilities import client_profile

        return client_profile(
            roots=self.root,
            sampling=self.sampling,
            elicitation=self.elicitation,
            none=self.no_capabilities,
        )


ListenOpt = Annotated[
    str | None,
    typer.Option(
        help="Stand in front of a Streamable HTTP server: listen on HOST:PORT (port 0: any "
        "free port; the URL is printed on stderr).",
        show_default=False,
    ),
]
UpstreamOpt = Annotated[
    str | None,
    typer.Option(help="With --listen: the server's endpoint URL.", show_default=False),
]
MaxFrameOpt = Annotated[
    int,
    typer.Option(
        "--max-frame",
        min=1,
        metavar="MB",
        help="The longest frame held whole, in MB (a line; over HTTP, a body once unpacked, "
        "or an event): a longer one is recorded as too_large and passed on as it comes; mcp "
        "guard keeps it away unless --observe (and refuses an HTTP request body past it with "
        "413).",
    ),
]


@dataclass(frozen=True, slots=True)
class ProxyOptions:
    """Where a proxy the host runs in place of its server (``record``, ``guard``) stands:
    in front of a stdio server (the command after ``--``), or of a Streamable HTTP one."""

    listen: ListenOpt = None
    upstream: UpstreamOpt = None
    max_frame: MaxFrameOpt = 64

    def http_upstream(self, server: list[str] | None) -> str | None:
        """The Streamable HTTP server's URL (``None``: the server is a stdio one).

        Raises:
            UsageError: ``--listen`` without ``--upstream`` (or the reverse), a SERVER given
                besides them, or an upstream that is no ``http(s)://`` URL.
        """
        from jsoncontract.errors import UsageError

        if (self.listen is None) != (self.upstream is None):
            raise UsageError("an HTTP proxy needs both --listen HOST:PORT and --upstream URL")
        if self.upstream is None:
            return None
        if server:
            raise UsageError("--upstream names the server; give no SERVER with --listen")
        if not self.upstream.startswith(("http://", "https://")):
            raise UsageError(f"--upstream {self.upstream!r} is not an http(s):// URL")
        return self.upstream

    @property
    def frame_bytes(self) -> int:
        """``--max-frame`` in bytes."""
        return self.max_frame * 2**20


InjectOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--inject",
        help="A fault to inject into tools/call answers: [TOOL:]KIND[=VALUE][@RATE], KIND one "
        "of delay=2s, timeout, is-error, error=-32603, bad-output, malformed, truncate, drop, "
        "list-changed (repeatable).",
        show_default=False,
    ),
]
SeedOpt = Annotated[
    int, typer.Option(help="Seed of the fault decisions (the same seed, the same faults).")
]


@dataclass(frozen=True, slots=True)
class FaultOptions:
    """The faults ``record`` and ``replay`` inject into the answers they pass on."""

    inject: InjectOpt = None
    seed: SeedOpt = 0

    def injector(self) -> Injector:
        """The injector of these rules and seed (a usage error names a rule it cannot read)."""
        from jsoncontract.live.inject import Injector, parse_rule

        return Injector([parse_rule(r) for r in self.inject or ()], self.seed)


# -- the steps of a body ---------------------------------------------------------------------


def split_server(words: list[str] | None) -> tuple[list[str], list[str]]:
    """The words before ``--`` and the command after it (click merges them into one list)."""
    from jsoncontract.cli.app import INVOKED

    given = list(words or [])
    argv = INVOKED.get()
    if "--" not in argv:
        return given, []
    after = len(argv) - argv.index("--") - 1
    after = min(after, len(given))
    return given[: len(given) - after], given[len(given) - after :]


def run_async(main: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine function to its end (Ctrl-C stops it, and the server with it)."""
    import anyio

    quiet_sdk_logs()
    return anyio.run(main)


def fetch_listing(
    spec: ServerSpec, options: ConnectOptions, *, offered: bool = False
) -> ToolListing:
    """Connect, negotiate, and list every tool (``offered``: the resources and prompts
    too)."""
    from jsoncontract.live.tools import fetch_tools

    quiet_sdk_logs()
    return fetch_tools(spec, options, offered=offered)


def report_problems(listing: ToolListing) -> None:
    """Listing problems (a broken tool, stray stdout) as warning lines on stderr."""
    warn(f"{listing.label}: {finding.message}" for finding in listing.problems)


def list_offered(
    words: list[str] | None,
    reach: ServerOptions,
    client: ClientOptions,
    config: Path | None,
    no_config: bool,
    kinds: tuple[str, ...],
) -> list[Catalog]:
    """Connect to the server the words name and list every item of each kind
    (``resources``, ``templates``, ``prompts``)."""
    from jsoncontract.config import load_config
    from jsoncontract.live.catalog import fetch_catalog

    cfg = load_config(config, discover=not no_config)
    spec = reach.resolve(*split_server(words), cfg)
    options = reach.connect_options(cfg, spec, client)
    quiet_sdk_logs()
    catalogs = fetch_catalog(spec, kinds, options)
    for catalog in catalogs:
        warn(f"{catalog.label}: {finding.message}" for finding in catalog.problems)
    return catalogs
