"""``jsoncontract pin``: lock tool definitions, and check them against the lock."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from jsoncontract.cli.options import (
    ColorOpt,
    ConfigOpt,
    NoConfigOpt,
    OutputOpt,
    among,
    format_choices,
    output_stream,
)

if TYPE_CHECKING:
    PinFormat = str
else:
    PinFormat = format_choices("pin")  # the formats of the reporter table


def register(app: typer.Typer) -> None:
    """Add the command to the root app."""
    app.command("pin", no_args_is_help=False)(pin_cli)


# fmt: off
def pin_cli(
    paths: Annotated[list[Path] | None, typer.Argument(
        help="Tool definition files or directories (default: tools from the config).",
        show_default=False)] = None,
    *,
    lock: Annotated[Path | None, typer.Option(
        help="The lock file (default: jsoncontract.lock next to the config, or here).",
        dir_okay=False, show_default=False)] = None,
    check: Annotated[bool, typer.Option(
        "--check", help="Compare with the lock instead of writing it; exit 1 on drift.")
    ] = False,
    tool: Annotated[str | None, typer.Option(
        help="Name of the tool when a file is a bare JSON Schema.", show_default=False)] = None,
    changed: Annotated[bool, typer.Option(
        "--changed", help="With --check, the paths are changed files, as pre-commit passes "
        "them: check the config's tools when one of them (or the lock) changed, else "
        "nothing.")] = False,
    format: Annotated[PinFormat, typer.Option(
        "--format", "-f", help="Report format.")] = "text",
    output: OutputOpt = None,
    color: ColorOpt = None,
    config: ConfigOpt = None,
    no_config: NoConfigOpt = False,
) -> int:
    # fmt: on
    """Pin each tool's canonical definition (name, description, input and output schema,
    annotations) in a lock file; with --check, report what changed since."""
    import gc

    gc.disable()  # short-lived, allocation-heavy, no cycles worth collecting
    from jsoncontract.config import load_config
    from jsoncontract.errors import UsageError
    from jsoncontract.pin import DEFAULT_LOCK, check_lock, pin, write_lock
    from jsoncontract.reporters import ReportOptions, render

    cfg = load_config(config, discover=not no_config)
    targets: list[Any] = list(paths or cfg.paths(cfg.get("tools")))
    configured = cfg.section("pin").get("lock")
    lock_path = lock or (cfg.root / configured if configured else cfg.root / DEFAULT_LOCK)
    if changed:
        if not check:
            raise UsageError("--changed goes with --check (pin writes the whole lock)")
        tools = cfg.paths(cfg.get("tools"))
        if not tools:
            raise UsageError("--changed needs tools = [...] in the config: the tools to check")
        if not among(list(paths or ()), [*tools, lock_path]):
            sys.stderr.write("jsoncontract: no changed tool definition or lock; nothing to check\n")
            return 0
        targets = list(tools)
    if not targets:
        raise UsageError(
            "no tool definitions: name files or directories, or list them under tools = [...] "
            "in jsoncontract.toml"
        )
    base = lock_path.parent
    current = pin(targets, base=base, tool_name=tool)
    if not check:
        update = _describe_update(lock_path, current, base)
        write_lock(current, lock_path)
        files = len(current.files)
        sys.stderr.write(
            f"jsoncontract: pinned {_tools(current.count())} from {files} "
            f"file{'' if files == 1 else 's'} in {lock_path}{update}\n"
        )
        return 0
    report = check_lock(lock_path, current, base=base)
    with output_stream(output) as stream:
        render("pin", format, stream, ReportOptions(color=color), report)
    return 1 if report.findings else 0


def _describe_update(lock_path: Path, current: Any, base: Path) -> str:
    """``; 2 tools changed`` when an existing lock is being replaced."""
    from jsoncontract.errors import InputError
    from jsoncontract.pin import drift, read_lock

    if not lock_path.is_file():
        return ""
    try:
        findings = drift(read_lock(lock_path), current, base=base)
    except InputError:
        return " (the old lock was unreadable and is replaced)"
    tools = {f.tool for f in findings}
    return f"; {_tools(len(tools))} changed since the last pin" if tools else "; nothing changed"


def _tools(count: int) -> str:
    return f"{count} tool{'' if count == 1 else 's'}"
