"""``jsoncontract mcp probe``: does a live server keep the contract it advertises?
(:mod:`jsoncontract.live.probe` does the work.)"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from jsoncontract.cli.mcp.options import (
    AllowOpt,
    AllowWritesOpt,
    ClientOptions,
    ConcurrencyOpt,
    ServerArg,
    ServerOptions,
    run_async,
    split_server,
)
from jsoncontract.cli.options import (
    ColorOpt,
    ConfigOpt,
    FailOnOpt,
    NoConfigOpt,
    OutputOpt,
    ProgressOpt,
    exit_code,
    format_choices,
    grouped,
    output_stream,
)

if TYPE_CHECKING:
    from jsoncontract.live.server import ServerSpec
    from jsoncontract.settings import Config


if TYPE_CHECKING:
    ProbeFormat = str
else:
    ProbeFormat = format_choices("mcp probe")  # the formats of its reporter table


# fmt: off
@grouped
def probe_cli(
    server: ServerArg = None,
    *,
    tool: Annotated[list[str] | None, typer.Option(
        "--tool", help="Probe only this tool (repeatable).", show_default=False)] = None,
    allow: AllowOpt = None,
    allow_writes: AllowWritesOpt = False,
    allow_open_world: Annotated[bool, typer.Option(
        "--allow-open-world", help="Call tools that may reach the outside world "
        "(openWorldHint true or absent), and read web resources. Never in CI.")] = False,
    seed: Annotated[list[str] | None, typer.Option(
        "--seed", metavar="NAME=VALUE",
        help="A value for the valid calls: NAME=VALUE (every property of that "
        "name) or TOOL.NAME=VALUE; VALUE is JSON when it parses, else a string "
        "(repeatable).", show_default=False)] = None,
    seed_trace: Annotated[Path | None, typer.Option(
        "--seed-trace", metavar="TRACE",
        help="A trace of mcp record: the arguments of the calls the server "
        "accepted become seeds.", dir_okay=False, show_default=False)] = None,
    baseline: Annotated[Path | None, typer.Option(
        "--baseline", metavar="FILE",
        help="A previous mcp probe report (-f json or sarif): only findings it "
        "does not hold decide the exit code.", dir_okay=False, show_default=False)] = None,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Connect and list the tools, then print every call that would be "
        "sent and why each skipped tool is skipped; send none.")] = False,
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
        "in --header: check that a request without them is refused with 401, and that the "
        "refusal leads to its authorization server (RFC 9728).",
        show_default=False)] = None,
    foreign_token: Annotated[str | None, typer.Option(
        "--foreign-token", metavar="TOKEN",
        help="With --requires-auth: a bearer token issued for another "
        "resource (${VAR} reads the environment); the server must refuse it. Never shown.",
        show_default=False)] = None,
    malformed_wait: Annotated[float, typer.Option(
        "--malformed-wait", metavar="SECONDS",
        help="Seconds to wait for the answer to a malformed request.",
        min=0.001)] = 0.25,
    format: Annotated[ProbeFormat, typer.Option(
        "--format", "-f", help="Report format.")] = "text",
    output: OutputOpt = None,
    fail_on: FailOnOpt = None,
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="Print only each server's scorecard line.")] = False,
    reach: ServerOptions,
    client: ClientOptions,
    progress: ProgressOpt = True,
    color: ColorOpt = None,
    config: ConfigOpt = None,
    no_config: NoConfigOpt = False,
) -> int:
    # fmt: on
    """Probe whether a server keeps its own contract: send each tool the calls derived from
    its input schema (valid, missing required, wrong type, wrong enum, unknown property, a
    string for a number) and check what it answers; check the protocol too.

    Valid calls use realistic values (seeds, the schema's examples, examples in the
    descriptions, formats, well-known names, paths under --root), and the report says where
    each came from. Only tools annotated readOnlyHint: true and openWorldHint: false are
    called, unless --allow, --allow-writes or --allow-open-world says otherwise. Exit 1 when
    the server accepts what its schema forbids (or any finding at --fail-on); 2 when a
    server cannot be probed.
    """
    from jsoncontract.cli.options import item_progress, stderr_is_terminal
    from jsoncontract.config import load_config
    from jsoncontract.errors import UsageError
    from jsoncontract.live.probe import ProbeSettings, parse_kinds, probe_servers
    from jsoncontract.reporters import ReportOptions, render

    cfg = load_config(config, discover=not no_config)
    specs, skipped = _probe_targets(
        server, all_servers, reach, cfg=cfg, requires_auth=requires_auth
    )
    section = cfg.section("mcp")
    from jsoncontract.live.probe.arguments import parse_seed, trace_seeds

    seeds = [parse_seed(s) for s in seed or ()]
    if seed_trace is not None:
        seeds.extend(trace_seeds(seed_trace))
    known = None
    if baseline is not None:
        from jsoncontract.baseline import Baseline

        known = Baseline.load(baseline, command="probe")
    token = None
    if foreign_token is not None:
        from jsoncontract.live.server import expand_variables

        if not requires_auth and not any(s.requires_auth for s in specs):
            raise UsageError("--foreign-token goes with --requires-auth (an HTTP server that "
                             "requires credentials)")
        token = expand_variables(foreign_token, "--foreign-token")
    settings = ProbeSettings(
        tools=tuple(tool or ()),
        allow=tuple(allow or ()),
        allow_writes=allow_writes,
        allow_open_world=allow_open_world,
        seeds=tuple(seeds),
        malformed_wait=malformed_wait,
        foreign_token=token,
        dry_run=dry_run,
        kinds=parse_kinds(cases) if cases is not None else ProbeSettings().kinds,
        max_cases=max_cases,
        concurrency=concurrency or section.get("concurrency") or 4,
    )
    if settings.tools and len(specs) > 1:
        raise UsageError("--tool names tools of one server; probe the servers one at a time")
    options = [
        reach.connect_options(cfg, s, client) for s in specs
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
    if known is not None:
        report.mark(known)
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
    reach: ServerOptions,
    *,
    cfg: Config,
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
        found = known_servers(cfg, reach.mcp_config or ())
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
            reach.resolve(target, command, cfg, requires_auth=requires_auth)
        ], skipped
    if reach.name:
        raise UsageError("--name names one server; probe the servers one at a time")
    return [
        reach.resolve([word], [], cfg, named=False, requires_auth=requires_auth)
        for word in target
    ], skipped
