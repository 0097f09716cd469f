"""``jsoncontract mcp``: list, lint, pin, probe and test live MCP servers; record, replay
and break their traffic.

A server is named as ``-- COMMAND ARGS...`` (stdio; the words after ``--``), an
``http(s)://`` URL (Streamable HTTP), or a name from ``[mcp.servers]`` in the project config
(or from the ``mcpServers`` map of the host config files it lists). The commands here only
translate arguments; the work is in :mod:`jsoncontract.live`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from jsoncontract.cli.options import (
    ColorOpt,
    ConfigOpt,
    ContextOpt,
    FailOnOpt,
    NoConfigOpt,
    OutputOpt,
    RulesOpt,
    exit_code,
    format_choices,
    output_stream,
)

if TYPE_CHECKING:
    from jsoncontract.config import Config
    from jsoncontract.live.client import ConnectOptions
    from jsoncontract.live.server import ServerSpec
    from jsoncontract.live.tools import ToolListing

T = TypeVar("T")

HELP = """Live MCP servers: list, lint, pin, probe and test them; record and replay traffic.

SERVER is -- COMMAND ARGS... (stdio), an http(s):// URL (Streamable HTTP, --header for
credentials), or a name from [mcp.servers.NAME] in jsoncontract.toml. The protocol version
is negotiated (server/discover, then initialize) and shown in every report.
"""


def register(app: typer.Typer) -> None:
    """Add the ``mcp`` command group to the root app."""
    group = typer.Typer(
        name="mcp",
        help=HELP,
        no_args_is_help=True,
        add_completion=False,
        rich_markup_mode=None,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    group.command("tools", no_args_is_help=True)(tools_cli)
    group.command("lint", no_args_is_help=True)(lint_cli)
    group.command("pin", no_args_is_help=True)(pin_cli)
    group.command("probe", no_args_is_help=True)(probe_cli)
    group.command("test", no_args_is_help=True)(test_cli)
    group.command("record", no_args_is_help=True)(record_cli)
    group.command("replay", no_args_is_help=True)(replay_cli)
    app.add_typer(group, name="mcp")


# -- shared options ----------------------------------------------------------------------------

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
ProgressOpt = Annotated[
    bool,
    typer.Option(help="Show a progress bar on stderr (only when stderr is a terminal)."),
]


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


def quiet_sdk_logs() -> None:
    """The SDK logs transport problems with tracebacks; the reports say them in one line.
    ``JSONCONTRACT_DEBUG=1`` shows the log instead."""
    import logging
    import os

    root = logging.getLogger()
    if os.environ.get("JSONCONTRACT_DEBUG"):
        logging.basicConfig(level=logging.DEBUG)
        return
    if not any(isinstance(h, logging.NullHandler) for h in root.handlers):
        root.addHandler(logging.NullHandler())


def resolve(
    target: list[str],
    command: list[str],
    *,
    cfg: Config,
    headers: list[str] | None,
    env: list[str] | None,
    name: str | None,
    host_configs: list[Path] | None,
    requires_auth: bool | None = None,
) -> ServerSpec:
    """The one server the command line names (the words before and after ``--``)."""
    from jsoncontract.live.server import resolve_server

    return resolve_server(
        target,
        command,
        config=cfg,
        host_configs=host_configs or (),
        headers=headers or (),
        env=env or (),
        name=name,
        requires_auth=requires_auth,
    )


def connect_options(
    cfg: Config,
    spec: ServerSpec,
    timeout: float | None,
    protocol: str,
    show_stderr: bool,
    connect_timeout: float | None = None,
) -> ConnectOptions:
    """Timeouts and negotiation from the command line, the server's entry, then [mcp].

    Raises:
        ServerError: the mcp extra (the SDK) is missing, which every command that contacts a
            server needs.
    """
    from jsoncontract.errors import UsageError
    from jsoncontract.live.client import DEFAULT_TIMEOUT, ConnectOptions, require_sdk

    require_sdk()
    from jsoncontract.pipeline.answers import HANDSHAKE_VERSIONS, MODERN_VERSIONS

    known = ("auto", "legacy", *HANDSHAKE_VERSIONS, *MODERN_VERSIONS)
    if protocol not in known:
        raise UsageError(f"--protocol {protocol!r} is not one of: {', '.join(known)}")
    chosen = timeout or spec.timeout or cfg.section("mcp").get("timeout") or DEFAULT_TIMEOUT
    return ConnectOptions(
        timeout=float(chosen),
        connect_timeout=connect_timeout,
        protocol=protocol,
        show_stderr=show_stderr,
    )


def run_async(main: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine function to its end (Ctrl-C stops it, and the server with it)."""
    import anyio

    quiet_sdk_logs()
    return anyio.run(main)


def fetch_listing(spec: ServerSpec, options: ConnectOptions) -> ToolListing:
    """Connect, negotiate, and list every tool."""
    from jsoncontract.live.tools import fetch_tools

    quiet_sdk_logs()
    return fetch_tools(spec, options)


def warn(message: str) -> None:
    """One warning line on stderr."""
    sys.stderr.write(f"jsoncontract: warning: {message}\n")


def report_problems(listing: ToolListing) -> None:
    """Listing problems (a broken tool, stray stdout) as warning lines on stderr."""
    for finding in listing.problems:
        warn(f"{listing.label}: {finding.message}")


# -- mcp tools ------------------------------------------------------------------------------


if TYPE_CHECKING:
    ToolsFormat = str
else:
    ToolsFormat = format_choices("mcp tools")  # the formats of its reporter table


# fmt: off
def tools_cli(
    server: ServerArg = None,
    *,
    format: Annotated[ToolsFormat, typer.Option(
        "--format", "-f", help="text, or json: the tools/list result (every page), which "
        "check --tools, lint, pin and fixtures read unchanged.")] = "text",
    output: OutputOpt = None,
    header: HeaderOpt = None,
    env: EnvOpt = None,
    name: NameOpt = None,
    timeout: TimeoutOpt = None,
    connect_timeout: ConnectTimeoutOpt = None,
    protocol: ProtocolOpt = "auto",
    mcp_config: HostConfigOpt = None,
    server_stderr: StderrOpt = False,
    color: ColorOpt = None,
    config: ConfigOpt = None,
    no_config: NoConfigOpt = False,
) -> int:
    # fmt: on
    """List a server's tools (every page of tools/list).

    Exit 1 when the server lists a tool that cannot be used (no name, no inputSchema) or
    writes something else than JSON-RPC to stdout; 2 when it cannot be reached.
    """
    from jsoncontract.config import load_config
    from jsoncontract.reporters import ReportOptions, render

    cfg = load_config(config, discover=not no_config)
    spec = resolve(
        *split_server(server), cfg=cfg, headers=header, env=env, name=name,
        host_configs=mcp_config,
    )
    options = connect_options(cfg, spec, timeout, protocol, server_stderr, connect_timeout)
    listing = fetch_listing(spec, options)
    report_problems(listing)
    with output_stream(output) as stream:
        render("mcp tools", format, stream, ReportOptions(color=color), listing)
    return 1 if listing.problems else 0


# -- mcp lint -------------------------------------------------------------------------------


if TYPE_CHECKING:
    LintFormat = str
else:
    LintFormat = format_choices("mcp lint")  # the formats of its reporter table


# fmt: off
def lint_cli(
    server: ServerArg = None,
    *,
    profile: Annotated[list[str] | None, typer.Option(
        "--profile", "-p", help="Targets to lint for, as lint takes them (default: mcp).",
        show_default=False)] = None,
    mcp_version: Annotated[str | None, typer.Option(
        help="MCP version the mcp profile checks (default: the negotiated one).",
        show_default=False)] = None,
    select: Annotated[list[str] | None, typer.Option(
        help="Run only these rules: codes, code prefixes, names, families, ALL.",
        show_default=False)] = None,
    ignore: Annotated[list[str] | None, typer.Option(
        help="Skip these rules.", show_default=False)] = None,
    format: Annotated[LintFormat | None, typer.Option(
        "--format", "-f", help="Report format (default: text).", show_default=False)] = None,
    output: OutputOpt = None,
    fail_on: FailOnOpt = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the summary.")] = False,
    header: HeaderOpt = None,
    env: EnvOpt = None,
    name: NameOpt = None,
    timeout: TimeoutOpt = None,
    connect_timeout: ConnectTimeoutOpt = None,
    protocol: ProtocolOpt = "auto",
    mcp_config: HostConfigOpt = None,
    server_stderr: StderrOpt = False,
    color: ColorOpt = None,
    config: ConfigOpt = None,
    no_config: NoConfigOpt = False,
) -> int:
    # fmt: on
    """Lint what a server advertises, with the rule catalog of jsoncontract lint.

    Findings name the server, the tool and the JSON Pointer inside the tool. The mcp profile
    checks the negotiated protocol version unless --mcp-version says otherwise.
    """
    from jsoncontract.config import load_config
    from jsoncontract.lint.engine import Linter
    from jsoncontract.lint.settings import build_settings
    from jsoncontract.live.linting import lint_listing, lint_version
    from jsoncontract.reporters import ReportOptions, render
    from jsoncontract.settings import split_values

    cfg = load_config(config, discover=not no_config)
    section = cfg.section("lint")
    spec = resolve(
        *split_server(server), cfg=cfg, headers=header, env=env, name=name,
        host_configs=mcp_config,
    )
    options = connect_options(cfg, spec, timeout, protocol, server_stderr, connect_timeout)
    listing = fetch_listing(spec, options)
    version, note = lint_version(listing.negotiated.version, mcp_version)
    if note:
        warn(note)
    settings = build_settings(
        section,
        config_file=str(cfg.path) if cfg.path else "config",
        profiles=split_values(profile) or ["mcp"],
        mcp_version=version,
        select=split_values(select),
        ignore=split_values(ignore),
    )
    for message in settings.warnings:
        warn(message)
    linter = Linter(settings)
    report = lint_listing(linter, listing)
    fmt = format or section.get("format", "text")
    from jsoncontract.settings import fail_threshold

    threshold = fail_threshold(fail_on, cfg)
    view = ReportOptions(color=color, quiet=quiet, fail_on=threshold)
    with output_stream(output) as stream:
        render("mcp lint", fmt, stream, view, report)
    worst = report.worst()
    return exit_code(worst.value if worst else None, threshold)


# -- mcp pin -------------------------------------------------------------------------------


if TYPE_CHECKING:
    PinFormat = str
else:
    PinFormat = format_choices("mcp pin")  # the formats of its reporter table


# fmt: off
def pin_cli(
    server: ServerArg = None,
    *,
    lock: Annotated[Path, typer.Option(
        help="The lock file. Other servers' entries in it are kept.", dir_okay=False)],
    check: Annotated[bool, typer.Option(
        "--check", help="Compare with the lock instead of writing it; exit 1 on drift.")
    ] = False,
    format: Annotated[PinFormat, typer.Option(
        "--format", "-f", help="Report format of --check.")] = "text",
    output: OutputOpt = None,
    header: HeaderOpt = None,
    env: EnvOpt = None,
    name: NameOpt = None,
    timeout: TimeoutOpt = None,
    connect_timeout: ConnectTimeoutOpt = None,
    protocol: ProtocolOpt = "auto",
    mcp_config: HostConfigOpt = None,
    server_stderr: StderrOpt = False,
    color: ColorOpt = None,
    config: ConfigOpt = None,
    no_config: NoConfigOpt = False,
) -> int:
    # fmt: on
    """Pin what a server advertises (each tool's name, description, input and output schema
    and annotations); with --check, report what changed since.

    The lock keys the server by --name, its config name, or the name it gives itself.
    """
    from jsoncontract.config import load_config
    from jsoncontract.live.linting import pin_listing, server_key
    from jsoncontract.pin import DriftReport, drift, read_lock, write_lock
    from jsoncontract.reporters import ReportOptions, render

    cfg = load_config(config, discover=not no_config)
    spec = resolve(
        *split_server(server), cfg=cfg, headers=header, env=env, name=name,
        host_configs=mcp_config,
    )
    options = connect_options(cfg, spec, timeout, protocol, server_stderr, connect_timeout)
    listing = fetch_listing(spec, options)
    report_problems(listing)
    key = server_key(listing)
    current = pin_listing(listing, key)
    base = lock.parent
    if not check:
        merged = read_lock(lock) if lock.is_file() else None
        note = ""
        if merged is not None:
            if key in merged.files:
                changed = {f.tool for f in drift(_only(merged, key), current, base=base)}
                count = len(changed)
                note = f"; {count} tool{'' if count == 1 else 's'} changed" if changed else ""
            merged.files[key] = current.files[key]
            current = merged
        write_lock(current, lock)
        count = len(current.files[key])
        sys.stderr.write(
            f"jsoncontract: pinned {count} tool{'' if count == 1 else 's'} of {key} in "
            f"{lock}{note}\n"
        )
        return 0
    findings = drift(_only(read_lock(lock), key), current, base=base)
    report = DriftReport(str(lock), current.count(), 1, findings)
    with output_stream(output) as stream:
        render("mcp pin", format, stream, ReportOptions(color=color), report)
    return 1 if findings else 0


def _only(lock: Any, key: str) -> Any:
    """The lock with only ``key``'s entry (other servers and files are not compared)."""
    from jsoncontract.pin import Lock

    out = Lock()
    if key in lock.files:
        out.files[key] = lock.files[key]
    return out


# -- mcp probe -----------------------------------------------------------------------------


if TYPE_CHECKING:
    ProbeFormat = str
else:
    ProbeFormat = format_choices("mcp probe")  # the formats of its reporter table


# fmt: off
def probe_cli(
    server: ServerArg = None,
    *,
    tool: Annotated[list[str] | None, typer.Option(
        "--tool", help="Probe only this tool (repeatable).", show_default=False)] = None,
    allow: AllowOpt = None,
    allow_writes: AllowWritesOpt = False,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Connect and list the tools, then print every call that would be "
        "sent, and send none.")] = False,
    cases: Annotated[str | None, typer.Option(
        help="Case kinds to send, comma-separated: valid, missing-field, wrong-type, "
        "wrong-enum, extra-field, string-for-number, out-of-range, string-arguments "
        "(default: all but the last two).", show_default=False)] = None,
    max_cases: Annotated[int, typer.Option(
        help="At most this many calls per tool (0: all).", min=0)] = 0,
    concurrency: ConcurrencyOpt = None,
    all_servers: Annotated[bool, typer.Option(
        "--all", help="Probe every server the config names.")] = False,
    requires_auth: Annotated[bool | None, typer.Option(
        "--requires-auth/--no-requires-auth", help="The HTTP server requires the credentials "
        "in --header: check that a request without them is refused with 401.",
        show_default=False)] = None,
    format: Annotated[ProbeFormat, typer.Option(
        "--format", "-f", help="Report format.")] = "text",
    output: OutputOpt = None,
    fail_on: FailOnOpt = None,
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="Print only each server's scorecard line.")] = False,
    header: HeaderOpt = None,
    env: EnvOpt = None,
    name: NameOpt = None,
    timeout: TimeoutOpt = None,
    connect_timeout: ConnectTimeoutOpt = None,
    protocol: ProtocolOpt = "auto",
    mcp_config: HostConfigOpt = None,
    server_stderr: StderrOpt = False,
    progress: ProgressOpt = True,
    color: ColorOpt = None,
    config: ConfigOpt = None,
    no_config: NoConfigOpt = False,
) -> int:
    # fmt: on
    """Probe whether a server keeps its own contract: send each tool the calls derived from
    its input schema (valid, missing required, wrong type, wrong enum, unknown property, a
    string for a number) and check what it answers; check the protocol too.

    Only tools annotated readOnlyHint: true are called, unless --allow or --allow-writes
    says otherwise. Exit 1 when the server accepts what its schema forbids (or any finding
    at --fail-on); 2 when a server cannot be probed.
    """
    from jsoncontract.cli.options import item_progress, stderr_is_terminal
    from jsoncontract.config import load_config
    from jsoncontract.errors import UsageError
    from jsoncontract.live.probe import ProbeSettings, parse_kinds, probe_servers
    from jsoncontract.reporters import ReportOptions, render

    cfg = load_config(config, discover=not no_config)
    specs, skipped = _probe_targets(
        server, all_servers, cfg=cfg, header=header, env=env, name=name,
        mcp_config=mcp_config, requires_auth=requires_auth,
    )
    section = cfg.section("mcp")
    settings = ProbeSettings(
        tools=tuple(tool or ()),
        allow=tuple(allow or ()),
        allow_writes=allow_writes,
        dry_run=dry_run,
        kinds=parse_kinds(cases) if cases is not None else ProbeSettings().kinds,
        max_cases=max_cases,
        concurrency=concurrency or section.get("concurrency") or 4,
    )
    if settings.tools and len(specs) > 1:
        raise UsageError("--tool names tools of one server; probe the servers one at a time")
    options = [
        connect_options(cfg, s, timeout, protocol, server_stderr, connect_timeout) for s in specs
    ]
    with item_progress("probing", enabled=progress and stderr_is_terminal()) as tick:

        async def main() -> Any:
            from jsoncontract.live.probe import ProbeReport

            cards = []
            for spec, chosen in zip(specs, options, strict=True):
                report = await probe_servers([spec], settings, chosen, progress=tick)
                cards.extend(report.servers)
            return ProbeReport(cards)

        report = run_async(main)
    from jsoncontract.settings import fail_threshold

    threshold = fail_threshold(fail_on, cfg)
    view = ReportOptions(color=color, quiet=quiet, fail_on=threshold)
    with output_stream(output) as stream:
        render("mcp probe", format, stream, view, report)
    for card in report.servers:
        if card.error is not None:
            sys.stderr.write(f"jsoncontract: error: {card.error}\n")
    for reason in skipped:  # configured, and not probed: said, never passed over
        sys.stderr.write(f"jsoncontract: error: {reason}\n")
    if report.failed or skipped:
        return 2
    worst = report.worst()
    return exit_code(worst.value if worst else None, threshold)


def _probe_targets(
    words: list[str] | None,
    all_servers: bool,
    *,
    cfg: Config,
    header: list[str] | None,
    env: list[str] | None,
    name: str | None,
    mcp_config: list[Path] | None,
    requires_auth: bool | None,
) -> tuple[list[ServerSpec], list[str]]:
    """The servers to probe: one named on the command line, several names or URLs, or
    every configured one (``--all``); and, for ``--all``, why the configured servers that
    cannot be probed cannot (the legacy SSE transport, a broken definition)."""
    from jsoncontract.errors import UsageError
    from jsoncontract.live.server import known_servers, unusable

    skipped: list[str] = []
    target, command = split_server(words)
    if all_servers:
        if target or command:
            raise UsageError("--all probes every configured server; name no server with it")
        found = known_servers(cfg, mcp_config or ())
        if not found:
            raise UsageError(
                "--all: no servers are configured ([mcp.servers] or [mcp] host_configs)"
            )
        target = [n for n, s in found.items() if not isinstance(s, str)]
        skipped = [unusable(n, s) for n, s in found.items() if isinstance(s, str)]
        if not target:
            raise UsageError("--all: no configured server can be probed: " + "; ".join(skipped))
    if command or len(target) <= 1:
        return [
            resolve(target, command, cfg=cfg, headers=header, env=env, name=name,
                    host_configs=mcp_config, requires_auth=requires_auth)
        ], skipped
    if name:
        raise UsageError("--name names one server; probe the servers one at a time")
    return [
        resolve([word], [], cfg=cfg, headers=header, env=env, name=None,
                host_configs=mcp_config, requires_auth=requires_auth)
        for word in target
    ], skipped


# -- mcp test -------------------------------------------------------------------------------


if TYPE_CHECKING:
    TestFormat = str
else:
    TestFormat = format_choices("mcp test")  # the formats of its reporter table


# fmt: off
def test_cli(
    words: Annotated[list[str] | None, typer.Argument(
        metavar="SERVER SUITE_PATH...",
        help="A server (name or URL) then suite files or directories; for a stdio server, "
        "the suites then -- COMMAND ARGS...", show_default=False)] = None,
    *,
    allow: AllowOpt = None,
    allow_writes: AllowWritesOpt = False,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Check the cases and show the calls that would be sent; send "
        "none.")] = False,
    keyword: Annotated[str | None, typer.Option(
        "-k", help="Only cases whose name, tool or tag matches (as test -k).",
        show_default=False)] = None,
    rules: RulesOpt = None,
    context: ContextOpt = None,
    concurrency: ConcurrencyOpt = None,
    format: Annotated[TestFormat, typer.Option(
        "--format", "-f", help="Report format.")] = "text",
    output: OutputOpt = None,
    fail_on: FailOnOpt = None,
    show_values: Annotated[bool, typer.Option(
        help="Quote values of sensitive-looking fields instead of hashing them.")] = False,
    verbose: Annotated[bool, typer.Option(
        "--verbose", "-v", help="List passing and skipped cases too.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the totals.")] = False,
    header: HeaderOpt = None,
    env: EnvOpt = None,
    name: NameOpt = None,
    timeout: TimeoutOpt = None,
    connect_timeout: ConnectTimeoutOpt = None,
    protocol: ProtocolOpt = "auto",
    mcp_config: HostConfigOpt = None,
    server_stderr: StderrOpt = False,
    progress: ProgressOpt = True,
    color: ColorOpt = None,
    config: ConfigOpt = None,
    no_config: NoConfigOpt = False,
) -> int:
    # fmt: on
    """Run fixture suites against a live server: each case through the check pipeline (as
    jsoncontract test runs it, against the server's own tool list) and through tools/call.

    A case fails when the server disagrees with it: it accepts a call the contract rejects,
    refuses one the contract accepts, times out or crashes, or breaks its output schema.
    Write: jsoncontract mcp test SERVER SUITE...  or  jsoncontract mcp test SUITE... --
    COMMAND ARGS...
    """
    from jsoncontract.cli.options import item_progress, stderr_is_terminal
    from jsoncontract.config import load_config
    from jsoncontract.errors import UsageError
    from jsoncontract.live.client import connect
    from jsoncontract.live.suites import LiveTestSettings, run_on_server
    from jsoncontract.live.tools import list_tools
    from jsoncontract.reporters import ReportOptions, render
    from jsoncontract.settings import business_settings
    from jsoncontract.suites.runner import load_suites
    from jsoncontract.suites.select import Selector
    from jsoncontract.tools.toolset import ToolSet

    cfg = load_config(config, discover=not no_config)
    target, command = split_server(words)
    if command:
        server_words: list[str] = []
        suite_words = target
    else:
        if not target:
            raise UsageError("name a server, then the suites: jsoncontract mcp test SERVER "
                             "SUITE_PATH...")
        suite_words = target[1:]
        server_words = target[:1]
    if not suite_words:
        raise UsageError("name the suite files or directories to run against the server")
    paths = [Path(w) for w in suite_words]
    spec = resolve(
        server_words, command, cfg=cfg, headers=header, env=env, name=name,
        host_configs=mcp_config,
    )
    options = connect_options(cfg, spec, timeout, protocol, server_stderr, connect_timeout)
    suites = load_suites(paths)
    select = Selector(keyword) if keyword is not None else None
    settings = LiveTestSettings(
        allow=tuple(allow or ()),
        allow_writes=allow_writes,
        dry_run=dry_run,
        concurrency=concurrency or cfg.section("mcp").get("concurrency") or 4,
    )
    with_business = bool(rules or context is not None or cfg.section("business"))
    business = business_settings(cfg, rules=rules, context=context, show_values=show_values)
    with item_progress("testing", enabled=progress and stderr_is_terminal()) as tick:

        async def main() -> Any:
            async with connect(spec, options) as conn:
                listing = await list_tools(conn)
                # business rules are loaded against the server's own tools
                gate = business.load(ToolSet(listing.contracts())) if with_business else None
                for message in gate.warnings if gate is not None else ():
                    warn(message)
                try:
                    report = await run_on_server(
                        conn, listing, suites, settings, options,
                        business=gate.fresh if gate is not None else None,
                        select=select, show_values=show_values, progress=tick,
                    )
                finally:
                    if gate is not None:
                        gate.close()
                return report, listing

        report, listing = run_async(main)
    report_problems(listing)
    if not report.outcomes:
        raise UsageError("the suites hold no case" + (f" that -k {keyword!r} selects"
                                                      if keyword else ""))
    view = ReportOptions(color=color, verbose=verbose, quiet=quiet)
    with output_stream(output) as stream:
        render("mcp test", format, stream, view, report)
    from jsoncontract.settings import fail_threshold

    threshold = fail_threshold(fail_on, cfg)
    return exit_code(None if report.ok else "error", threshold)


# -- mcp record / replay ---------------------------------------------------------------------

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


def _injector(rules: list[str] | None, seed: int) -> Any:
    from jsoncontract.live.inject import Injector, parse_rule

    return Injector([parse_rule(r) for r in rules or ()], seed)


# fmt: off
def record_cli(
    server: ServerArg = None,
    *,
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", help="The trace to append frames to (JSON Lines, read by check, diff "
        "and fixtures --capture).", dir_okay=False, show_default=False)] = None,
    inject: InjectOpt = None,
    seed: SeedOpt = 0,
    listen: Annotated[str | None, typer.Option(
        help="Proxy Streamable HTTP: listen on HOST:PORT (port 0: any free port; the URL is "
        "printed on stderr).", show_default=False)] = None,
    upstream: Annotated[str | None, typer.Option(
        help="With --listen: the server's endpoint URL.", show_default=False)] = None,
    env: EnvOpt = None,
    name: NameOpt = None,
    mcp_config: HostConfigOpt = None,
    config: ConfigOpt = None,
    no_config: NoConfigOpt = False,
) -> int:
    # fmt: on
    """Record the traffic between an MCP host and a server, and inject faults into it.

    Put it in the host's config in place of the server command:
    jsoncontract mcp record -o trace.jsonl -- COMMAND ARGS...  Every byte is forwarded
    unchanged in both directions; nothing but the server's output is written to stdout; the
    exit code is the server's. For HTTP servers: --listen 127.0.0.1:PORT --upstream URL.
    """
    from jsoncontract.config import load_config
    from jsoncontract.errors import UsageError

    injector = _injector(inject, seed)
    if (listen is None) != (upstream is None):
        raise UsageError("an HTTP proxy needs both --listen HOST:PORT and --upstream URL")
    if output is None and not injector.active:
        raise UsageError("name the trace with -o TRACE.jsonl (or give --inject rules to only "
                         "inject faults)")
    if listen is not None and upstream is not None:
        if server:
            raise UsageError("--upstream names the server; give no SERVER with --listen")
        if injector.active:
            raise UsageError("--inject works on stdio servers (and replay); the HTTP proxy "
                             "records only")
        if not upstream.startswith(("http://", "https://")):
            raise UsageError(f"--upstream {upstream!r} is not an http(s):// URL")
        from jsoncontract.live.record import record_http
        from jsoncontract.live.server import safe_url

        def ready(url: str) -> None:
            sys.stderr.write(f"jsoncontract: recording {safe_url(upstream)} at {url}\n")
            sys.stderr.flush()

        quiet_sdk_logs()
        return record_http(upstream, listen, trace=output, label=safe_url(upstream),
                           on_ready=ready)
    cfg = load_config(config, discover=not no_config)
    spec = resolve(*split_server(server), cfg=cfg, headers=None, env=env, name=name,
                   host_configs=mcp_config)
    if not spec.command:
        raise UsageError(f"{spec.label} is an HTTP server: record it with --listen "
                         f"127.0.0.1:PORT --upstream {spec.endpoint}")
    from jsoncontract.live.record import record_stdio

    return record_stdio(spec, trace=output, injector=injector)


# fmt: off
def replay_cli(
    trace: Annotated[Path, typer.Argument(
        help="A trace of mcp record (or a log of JSON-RPC frames, one per line).",
        dir_okay=False, show_default=False)],
    *,
    inject: InjectOpt = None,
    seed: SeedOpt = 0,
) -> int:
    # fmt: on
    """Serve a recorded session as a stdio MCP server: initialize, tools/list, and each
    recorded tools/call answer by tool and arguments; anything not recorded gets a JSON-RPC
    error saying so (code -32010, or -32601 for a method)."""
    from jsoncontract.live.replay import load_recording, serve_replay

    injector = _injector(inject, seed)
    recording = load_recording(trace)
    if not recording.pages and recording.initialize is None and recording.discover is None:
        warn(f"{trace}: no initialize and no tools/list answer were recorded")
    return serve_replay(recording, injector)
