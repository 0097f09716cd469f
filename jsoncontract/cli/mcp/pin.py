"""``jsoncontract mcp pin``: what a server advertises, pinned in a lock; ``--check`` reports
the drift."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from jsoncontract.cli.mcp.options import (
    ClientOptions,
    ServerArg,
    ServerOptions,
    fetch_listing,
    report_problems,
    split_server,
)
from jsoncontract.cli.options import (
    ColorOpt,
    ConfigOpt,
    NoConfigOpt,
    OutputOpt,
    class_choices,
    format_choices,
    grouped,
    output_stream,
)

if TYPE_CHECKING:
    PinFormat = str
    FailOn = str
else:
    PinFormat = format_choices("mcp pin")  # the formats of its reporter table
    FailOn = class_choices()


# fmt: off
@grouped
def pin_cli(
    server: ServerArg = None,
    *,
    lock: Annotated[Path, typer.Option(
        help="The lock file. Other servers' entries in it are kept.", dir_okay=False)],
    check: Annotated[bool, typer.Option(
        "--check", help="Compare with the lock instead of writing it; exit 1 on drift.")
    ] = False,
    fail_on: Annotated[FailOn, typer.Option(
        "--fail-on", help="With --check, exit 1 on a change at least this bad: breaking, "
        "risky, or any change (each finding's class is compat's).")] = "any",
    format: Annotated[PinFormat, typer.Option(
        "--format", "-f", help="Report format of --check.")] = "text",
    output: OutputOpt = None,
    reach: ServerOptions,
    client: ClientOptions,
    color: ColorOpt = None,
    config: ConfigOpt = None,
    no_config: NoConfigOpt = False,
) -> int:
    # fmt: on
    """Pin what a server advertises (each tool's name, description, input and output schema
    and annotations); with --check, report what changed since.

    The lock keys the server by --name, its config name, or the name it gives itself.
    """
    from jsoncontract.compat import classes_fail, drift_classes
    from jsoncontract.config import load_config
    from jsoncontract.live.linting import pin_listing, server_key
    from jsoncontract.pin import DriftReport, changed_texts, drift, read_lock, write_lock
    from jsoncontract.reporters import ReportOptions, render

    cfg = load_config(config, discover=not no_config)
    spec = reach.resolve(*split_server(server), cfg)
    options = reach.connect_options(cfg, spec, client)
    listing = fetch_listing(spec, options, offered=True)
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
    locked = _only(read_lock(lock), key)
    findings = drift(locked, current, base=base)
    classes = tuple(drift_classes(locked, current, findings))
    changes = changed_texts(locked, current)
    report = DriftReport(str(lock), current.count(), 1, findings, changes, classes)
    with output_stream(output) as stream:
        render("mcp pin", format, stream, ReportOptions(color=color), report)
    return 1 if classes_fail(classes, str(fail_on)) else 0


def _only(lock: Any, key: str) -> Any:
    """The lock with only ``key``'s entry (other servers and files are not compared)."""
    from jsoncontract.pin import Lock

    out = Lock()
    if key in lock.files:
        out.files[key] = lock.files[key]
    return out
