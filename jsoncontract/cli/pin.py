"""``jsoncontract pin``: lock tool definitions, and check them against the lock."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

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
    from jsoncontract.pin import Lock

    PinFormat = str
    FailOn = str
else:
    PinFormat = format_choices("pin")  # the formats of the reporter table
    FailOn = class_choices()


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
    fail_on: Annotated[FailOn, typer.Option(
        "--fail-on", help="With --check, exit 1 on a change at least this bad: breaking, "
        "risky, or any change (each finding's class is compat's).")] = "any",
    changed: Annotated[bool, typer.Option(
        "--changed", help="With --check, the paths are changed files, as pre-commit passes "
        "them: check the config's tools when one of them (or the lock) changed, else "
        "nothing.")] = False,
    tool: Annotated[str | None, typer.Option(
        help="Name of the tool when a file is a bare JSON Schema.", show_default=False)] = None,
    format: Annotated[PinFormat, typer.Option(
        "--format", "-f", help="Report format.")] = "text",
    output: OutputOpt = None,
    exclude: ExcludeOpt = None,
    color: ColorOpt = None,
    config: ConfigOpt = None,
    no_config: NoConfigOpt = False,
) -> int:
    # fmt: on
    """Pin each tool's canonical definition (name, description, input and output schema,
    annotations) in a lock file; with --check, report what changed since."""
    from jsoncontract.cli.options import note, note_skipped, write_report
    from jsoncontract.compat import classes_fail, drift_classes
    from jsoncontract.config import load_config
    from jsoncontract.pin import check_lock, pin, pin_settings, write_lock

    settings = pin_settings(
        load_config(config, discover=not no_config),
        paths=paths, lock=lock, check=check, tool=tool, format=format, output=output,
        color=color, changed=changed, exclude=exclude,
    )  # fmt: skip
    if not settings.paths:
        note("no changed tool definition or lock; nothing to check")
        return 0
    skipped: list[tuple[str, str]] = []
    current = pin(
        settings.paths, base=settings.base, tool_name=settings.tool, exclude=settings.exclude,
        skipped=skipped,
    )  # fmt: skip
    note_skipped(skipped, "tool definition")
    if not settings.check:
        update = _describe_update(settings.lock, current, settings.base)
        write_lock(current, settings.lock)
        files = len(current.files)
        note(
            f"pinned {_tools(current.count())} from {files} file{'' if files == 1 else 's'} "
            f"in {settings.lock}{update}"
        )
        return 0
    report = check_lock(settings.lock, current, base=settings.base, classify=drift_classes)
    write_report("pin", settings.report, report)
    return 1 if classes_fail(report.classes, str(fail_on)) else 0


def _describe_update(lock_path: Path, current: Lock, base: Path) -> str:
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
