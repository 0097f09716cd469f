"""``jsoncontract mcp verify``: a recorded session replayed against a server, the answers
diffed."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from jsoncontract.cli.mcp.options import ClientOptions, ServerOptions, run_async, split_server
from jsoncontract.cli.options import (
    ColorOpt,
    ConfigOpt,
    NoConfigOpt,
    OutputOpt,
    format_choices,
    grouped,
    output_stream,
)

if TYPE_CHECKING:
    from jsoncontract.live.verify import VerifyReport

    VerifyFormat = str
else:
    VerifyFormat = format_choices("mcp verify")  # the formats of its reporter table


# fmt: off
@grouped
def verify_cli(
    words: Annotated[list[str] | None, typer.Argument(
        metavar="TRACE SERVER",
        help="A trace of mcp record (or a log of JSON-RPC frames), then the server: a name, "
        "a URL, or -- COMMAND ARGS...", show_default=False)] = None,
    *,
    ignore: Annotated[list[str] | None, typer.Option(
        "--ignore", metavar="POINTER",
        help="A JSON Pointer whose value may change (* for one token, ** for any "
        "depth: /result/content/*/text); repeatable.", show_default=False)] = None,
    format: Annotated[VerifyFormat, typer.Option(
        "--format", "-f", help="Report format.")] = "text",
    output: OutputOpt = None,
    reach: ServerOptions,
    client: ClientOptions,
    color: ColorOpt = None,
    config: ConfigOpt = None,
    no_config: NoConfigOpt = False,
) -> int:
    # fmt: on
    """Replay the client's requests of a recorded session against a server and diff each
    answer with the recorded one (type-strict, every difference classified).

    The negotiation is the connection's own; every other request is sent again in order.
    Exit 1 on a difference, 2 when the trace or the server cannot be used.
    """
    from jsoncontract.config import load_config
    from jsoncontract.errors import UsageError
    from jsoncontract.live.verify import verify_server
    from jsoncontract.reporters import ReportOptions, render

    target, command = split_server(words)
    if not target:
        raise UsageError("name the trace, then the server: jsoncontract mcp verify TRACE SERVER")
    trace = Path(target[0])
    if not trace.is_file():
        raise UsageError(f"{trace}: no such trace file")
    cfg = load_config(config, discover=not no_config)
    spec = reach.resolve(target[1:], command, cfg)
    options = reach.connect_options(cfg, spec, client)
    patterns = tuple(ignore or ())
    for pattern in patterns:
        if not pattern.startswith("/"):
            raise UsageError(f"--ignore {pattern!r}: a JSON Pointer starts with /")

    async def main() -> VerifyReport:
        return await verify_server(trace, spec, options, patterns)

    report = run_async(main)
    with output_stream(output) as stream:
        render("mcp verify", format, stream, ReportOptions(color=color), report)
    if not report.ok:
        different = report.summary()["different"]
        sys.stderr.write(f"jsoncontract: {different} answer(s) differ from {trace}\n")
    return 0 if report.ok else 1
