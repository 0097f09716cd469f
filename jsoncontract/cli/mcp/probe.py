"""``jsoncontract mcp probe``: does a live server keep the contract it advertises?
(:mod:`jsoncontract.live.probe` does the work.)"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from jsoncontract.cli.mcp.options import (
    AllowOpt,
    AllowWritesOpt,
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
    reach: ServerOptions,
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
        server, all_servers, reach, cfg=cfg, requires_auth=requires_auth
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
        reach.connect_options(cfg, s) for s in specs
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
