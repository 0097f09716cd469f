"""``jsoncontract compat OLD NEW``: which change between two versions of a tool set breaks
its callers, by direction."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from jsoncontract.cli.options import (
    ColorOpt,
    ConfigOpt,
    ExcludeOpt,
    NoConfigOpt,
    OutputOpt,
    class_choices,
    format_choices,
)

if TYPE_CHECKING:
    from jsoncontract.compat.tools import Side
    from jsoncontract.settings import Config

    CompatFormat = str
    FailOn = str
else:
    CompatFormat = format_choices("compat")  # the formats of the reporter table
    FailOn = class_choices()

#: The words that start a live server's command line in place of OLD or NEW.
SERVER_FLAGS = {"--old-server": 0, "--new-server": 1}


def register(app: typer.Typer) -> None:
    """Add the command to the root app."""
    app.command(
        "compat",
        context_settings={"ignore_unknown_options": True},
        no_args_is_help=True,
    )(compat_cli)


# fmt: off
def compat_cli(
    sides: Annotated[list[str], typer.Argument(
        metavar="OLD NEW",
        help="Each a tool file or directory, a pin lock, git:REF:PATH, a server name from "
        "[mcp.servers] or an http(s):// URL. --old-server CMD... or --new-server CMD... "
        "(after OLD NEW; the words up to the other one, or one quoted word) starts a stdio "
        "server in place of one.", show_default=False)],
    *,
    fail_on: Annotated[FailOn | None, typer.Option(
        "--fail-on", help="Exit 1 when a change is at least this bad: breaking, risky, or any "
        "change at all (default: breaking, or [compat] fail_on).", show_default=False)] = None,
    usage: Annotated[list[Path] | None, typer.Option(
        "--usage", metavar="TRACE", help="A trace of captured calls (repeatable): a break "
        "no captured call hits (a tool never called, a property never sent) is risky instead.",
        show_default=False)] = None,
    format: Annotated[CompatFormat | None, typer.Option(
        "--format", "-f", help="Report format (default: text, or [compat] format).",
        show_default=False)] = None,
    output: OutputOpt = None,
    verbose: Annotated[bool, typer.Option(
        "--verbose", "-v", help="List cosmetic changes too (text).")] = False,
    max_shown: Annotated[int | None, typer.Option(
        help="Changes listed per class in a Markdown report (0: all; default 50).", min=0,
        show_default=False)] = None,
    tool: Annotated[str | None, typer.Option(
        help="Name of the tool when a file is a bare JSON Schema.", show_default=False)] = None,
    exclude: ExcludeOpt = None,
    color: ColorOpt = None,
    config: ConfigOpt = None,
    no_config: NoConfigOpt = False,
) -> int:
    # fmt: on
    """Compare two versions of a tool set and class each change by who it breaks:
    breaking, risky, compatible or cosmetic (arguments narrowing breaks callers, results
    widening breaks consumers). Exit 1 when a change is at or above --fail-on."""
    from dataclasses import replace

    from jsoncontract.cli import EXIT_FINDINGS, EXIT_OK
    from jsoncontract.cli.options import write_report
    from jsoncontract.compat import compare, fails
    from jsoncontract.compat.settings import compat_settings
    from jsoncontract.config import load_config

    cfg = load_config(config, discover=not no_config)
    settings = compat_settings(
        cfg, fail_on=fail_on, usage=usage or (), format=format, output=output, color=color,
        max_shown=max_shown, tool=tool, exclude=exclude,
    )  # fmt: skip
    old_word, new_word = _split(sides)
    old = _side(old_word, cfg, settings.tool, settings.exclude)
    new = _side(new_word, cfg, settings.tool, settings.exclude)
    traces = None
    if settings.usage:
        from jsoncontract.compat.usage import read_usage

        traces = read_usage(settings.usage)
    report = compare(old, new, severity=settings.severity, usage=traces)
    shown = replace(settings.report.options, verbose=verbose)
    write_report("compat", replace(settings.report, options=shown), report)
    return EXIT_FINDINGS if fails(report.worst(), settings.fail_on) else EXIT_OK


def _split(words: list[str]) -> tuple[str | list[str], str | list[str]]:
    """OLD and NEW: a word each, or a server's command line after its flag.

    Raises:
        UsageError: not exactly two sides.
    """
    from jsoncontract.errors import UsageError

    files: list[str] = []
    servers: dict[int, list[str]] = {}
    into: list[str] | None = None
    for word in words:
        if word in SERVER_FLAGS:
            if SERVER_FLAGS[word] in servers:
                raise UsageError(f"{word} is given twice")
            into = servers[SERVER_FLAGS[word]] = []
        elif into is not None:
            into.append(word)
        elif word.startswith("-") and len(word) > 1:
            raise UsageError(f"no such option: {word}")
        else:
            files.append(word)
    for side, command in servers.items():
        if not command:
            raise UsageError(f"{'--old-server' if side == 0 else '--new-server'} needs a command")
        if len(command) == 1:
            servers[side] = shlex.split(command[0])
    sides: list[str | list[str]] = []
    for side in (0, 1):
        if side in servers:
            sides.append(servers[side])
        elif files:
            sides.append(files.pop(0))
    if len(sides) != 2 or files:
        raise UsageError(
            "name two sides: OLD NEW (files, directories, locks, git:REF:PATH, servers), or "
            "--old-server CMD... / --new-server CMD... in place of one"
        )
    return sides[0], sides[1]


def _side(word: str | list[str], cfg: Config, tool: str | None, exclude: tuple[str, ...]) -> Side:
    """One side, read from what the word names.

    Raises:
        UsageError: the word names no file, revision or server.
    """
    from jsoncontract.compat.sides import GIT_PREFIX, file_side, git_side

    if isinstance(word, list):
        return _server_side([], word, cfg)
    if word.startswith(GIT_PREFIX):
        return git_side(word, tool_name=tool, exclude=exclude)
    if Path(word).exists() or not _is_server(word, cfg):
        return file_side(word, tool_name=tool, exclude=exclude)
    return _server_side([word], [], cfg)


def _is_server(word: str, cfg: Config) -> bool:
    from jsoncontract.live.server import known_servers

    return word.startswith(("http://", "https://")) or word in known_servers(cfg, ())


def _server_side(target: list[str], command: list[str], cfg: Config) -> Side:
    """The side a live server lists (its tools, pinned as ``mcp pin`` pins them)."""
    from jsoncontract.cli.options import quiet_sdk_logs, warn
    from jsoncontract.compat.tools import Side
    from jsoncontract.live.client import require_sdk
    from jsoncontract.live.linting import pin_listing, server_key
    from jsoncontract.live.server import resolve_server
    from jsoncontract.live.tools import fetch_tools
    from jsoncontract.live.wire import DEFAULT_TIMEOUT, ConnectOptions

    spec = resolve_server(target, command, config=cfg)
    require_sdk()
    timeout: Any = spec.timeout or cfg.section("mcp").get("timeout") or DEFAULT_TIMEOUT
    quiet_sdk_logs()
    listing = fetch_tools(spec, ConnectOptions(timeout=float(timeout)))
    warn(f"{listing.label}: {finding.message}" for finding in listing.problems)
    return Side(listing.label, pin_listing(listing, server_key(listing)))
