"""Options shared by several commands, and the helpers that act on them."""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated

import typer

from jsoncontract.cli import EXIT_FINDINGS, EXIT_OK
from jsoncontract.errors import InputError, UsageError

if TYPE_CHECKING:
    from jsoncontract.config import Config


#: Bytes of a report to a pipe held in memory until the run ends; more go to an anonymous
#: temporary file (never visible by name, gone when the run ends).
HELD_IN_MEMORY = 32 * 1024 * 1024


class FailOn(StrEnum):
    """The lowest severity that makes the exit code 1."""

    error = "error"
    warning = "warning"
    info = "info"
    never = "never"


OutputOpt = Annotated[
    Path | None,
    typer.Option(
        "--output",
        "-o",
        help="Write the report to this file instead of stdout.",
        dir_okay=False,
        show_default=False,
    ),
]
FailOnOpt = Annotated[
    FailOn | None,
    typer.Option(
        "--fail-on",
        help="Exit 1 when a finding is at least this severe (default: error, or the config).",
        show_default=False,
        case_sensitive=False,
    ),
]
ConfigOpt = Annotated[
    Path | None,
    typer.Option(
        "--config",
        help="Use this config file instead of searching for jsoncontract.toml / pyproject.toml.",
        dir_okay=False,
        show_default=False,
    ),
]
NoConfigOpt = Annotated[bool, typer.Option("--no-config", help="Ignore any project config file.")]
RulesOpt = Annotated[
    list[Path] | None,
    typer.Option(
        "--rules",
        "-r",
        help="Business rules file (TOML; repeatable). Default: the config's business.rules.",
        show_default=False,
        dir_okay=False,
    ),
]
ContextOpt = Annotated[
    str | None,
    typer.Option(
        "--context",
        help="The context business rules read (caller, role, tenant, now): a JSON object, "
        "or @FILE.",
        show_default=False,
    ),
]
ColorOpt = Annotated[
    bool | None,
    typer.Option(
        "--color/--no-color",
        help="Force styled output on or off (default: on for a terminal unless NO_COLOR).",
        show_default=False,
    ),
]


def format_choices(command: str) -> type[StrEnum]:
    """The choices of ``--format`` for ``command``: an enum of exactly the formats in its
    reporter table (:data:`jsoncontract.reporters.REPORTERS`), in the table's order."""
    from jsoncontract.reporters import formats

    members = [(name, name) for name in formats(command)]
    choices: type[StrEnum] = StrEnum(f"{command.capitalize()}Format", members)  # type: ignore[misc]
    return choices


def tool_paths(given: list[Path] | None, cfg: Config) -> list[Path]:
    """The tool definition paths: ``--tools``, else the config's ``tools``.

    Raises:
        UsageError: neither names any.
    """
    paths = list(given or cfg.paths(cfg.get("tools")))
    if not paths:
        raise UsageError(
            "no tool definitions: pass --tools PATH, or list them under tools = [...] in "
            "jsoncontract.toml"
        )
    return paths


def exit_code(worst: str | None, fail_on: str) -> int:
    """0 or 1, from the most severe finding and the ``--fail-on`` threshold."""
    if worst is None or fail_on == "never":
        return EXIT_OK
    from jsoncontract.model import Severity

    return EXIT_FINDINGS if Severity(worst).rank >= Severity(fail_on).rank else EXIT_OK


@contextmanager
def output_stream(path: Path | None, *, live: bool = False) -> Iterator[IO[bytes]]:
    """stdout, or the named output through :func:`jsoncontract._files.output_file`: a file
    that only appears, complete, when the report is finished (a device or a FIFO is written
    to, a symbolic link keeps leading to the report).

    A report to stdout that is not a terminal is held until the run ends and written only
    when it ends without an error, so that a pipe or a log never gets half a report before
    an exit code 2; ``live`` (a JSON Lines report, read as it comes) writes as it goes.
    """
    if path is None:
        if sys.stdout is None or getattr(sys.stdout, "closed", False):
            raise InputError("standard output is closed; write the report to a file with -o")
        out = sys.stdout.buffer  # taken now: a rule's print is sent to stderr meanwhile
        try:
            if live or sys.stdout.isatty():
                yield out
            else:  # in memory up to 32 MB, then in an anonymous temporary file
                with tempfile.SpooledTemporaryFile(max_size=HELD_IN_MEMORY) as held:
                    yield held
                    held.seek(0)
                    shutil.copyfileobj(held, out, 1 << 20)
            out.flush()
        except BrokenPipeError:
            raise ReaderGone from None
        return
    from jsoncontract._files import output_file

    with output_file(path) as stream:
        yield stream


class ReaderGone(Exception):
    """The reader of standard output went away (``| head``): the run stops quietly.

    Raised in place of ``BrokenPipeError``, which click would turn into exit code 1."""


def stderr_is_terminal() -> bool:
    """Whether progress can be shown (stderr is a terminal)."""
    return sys.stderr is not None and sys.stderr.isatty()
