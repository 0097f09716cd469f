"""``jsoncontract mcp test``: fixture suites run against a live server."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from jsoncontract.cli.mcp.options import (
    AllowOpt,
    AllowWritesOpt,
    ClientOptions,
    ConcurrencyOpt,
    ServerOptions,
    report_problems,
    run_async,
    split_server,
)
from jsoncontract.cli.options import (
    ColorOpt,
    ConfigOpt,
    ContextOpt,
    FailOnOpt,
    NoConfigOpt,
    OutputOpt,
    ProgressOpt,
    RulesOpt,
    exit_code,
    format_choices,
    grouped,
    output_stream,
    warn,
)

if TYPE_CHECKING:
    TestFormat = str
else:
    TestFormat = format_choices("mcp test")  # the formats of its reporter table


# fmt: off
@grouped
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
    reach: ServerOptions,
    client: ClientOptions,
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
    from jsoncontract.business.settings import business_settings
    from jsoncontract.cli.options import item_progress, stderr_is_terminal
    from jsoncontract.config import load_config
    from jsoncontract.errors import UsageError
    from jsoncontract.live.client import connect
    from jsoncontract.live.suites import LiveTestSettings, run_on_server
    from jsoncontract.live.tools import list_tools
    from jsoncontract.reporters import ReportOptions, render
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
    spec = reach.resolve(server_words, command, cfg)
    options = reach.connect_options(cfg, spec, client)
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
                warn(gate.warnings if gate is not None else ())
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
    if dry_run:
        planned = sum(
            1
            for o in report.outcomes
            if o.server is not None and o.server.text.startswith("not sent (dry run)")
        )
        warn([f"dry run: nothing was sent to the server ({planned} call"
              f"{'' if planned == 1 else 's'} planned); the verdicts are the contract's alone"])
    from jsoncontract.settings import fail_threshold

    threshold = fail_threshold(fail_on, cfg)
    return exit_code(None if report.ok else "error", threshold)
