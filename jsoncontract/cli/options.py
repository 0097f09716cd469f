"""Options shared by several commands, and the helpers that act on them."""

from __future__ import annotations

import os
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
    from jsoncontract.baseline import Baseline
    from jsoncontract.config import Config
    from jsoncontract.reporters.interface import ReportOptions


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
ExcludeOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--exclude",
        help="Leave out files matching this glob when walking directories: a name "
        "(package.json), a path (fixtures/old/*), or a directory (build/) (repeatable).",
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


BaselineOpt = Annotated[
    Path | None,
    typer.Option(
        "--baseline",
        help="A previous report of this command (--format json, or sarif): findings it "
        "holds are marked unchanged and do not fail the run; only new ones do.",
        dir_okay=False,
        show_default=False,
    ),
]
ChangedOpt = Annotated[
    bool,
    typer.Option(
        "--changed",
        help="The paths are changed files, as pre-commit passes them: only those among the "
        "config's tools count, and a file that holds no tool definition is skipped.",
    ),
]


def among(files: list[Path], roots: list[Path]) -> list[Path]:
    """The files that are one of ``roots`` or inside one (all of them when there are no
    roots)."""
    if not roots:
        return list(files)
    resolved = [root.resolve() for root in roots]
    out = []
    for file in files:
        here = file.resolve()
        if any(here == root or root in here.parents for root in resolved):
            out.append(file)
    return out


def load_baseline(path: Path | None, command: str, cfg: Config) -> Baseline | None:
    """The baseline named by ``--baseline`` (its notes said on stderr), or ``None``."""
    if path is None:
        return None
    from jsoncontract.baseline import Baseline

    baseline = Baseline.load(path, command=command, root=report_root(cfg))
    for note in baseline.notes:
        sys.stderr.write(f"jsoncontract: warning: {note}\n")
    return baseline


def note_skipped(skipped: list[tuple[str, str]], what: str) -> None:
    """Say on stderr which files found in directories were skipped, and why (at most five
    by name)."""
    for file, why in skipped[:5]:
        sys.stderr.write(f"jsoncontract: note: skipped {file}: {why}\n")
    if len(skipped) > 5:
        sys.stderr.write(
            f"jsoncontract: note: skipped {len(skipped) - 5} more files that hold no {what}\n"
        )


def report_root(cfg: Config) -> str:
    """The directory CI reports write paths relative to: the git work tree, else the
    config file's directory, else the working directory (see
    :func:`~jsoncontract.reporters.findings.project_root`)."""
    from jsoncontract.reporters.findings import project_root

    return str(project_root(cfg.path.parent if cfg.path is not None else None))


def exit_code(worst: str | None, fail_on: str) -> int:
    """0 or 1, from the most severe finding and the ``--fail-on`` threshold."""
    if worst is None or fail_on == "never":
        return EXIT_OK
    from jsoncontract.model import Severity

    return EXIT_FINDINGS if Severity(worst).rank >= Severity(fail_on).rank else EXIT_OK


@contextmanager
def output_stream(path: Path | None, what: str = "the report") -> Iterator[IO[bytes]]:
    """stdout, or a file that only appears, complete, when the report is finished (and a
    line on stderr then says where it went)."""
    if path is None:
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror or exc}", file=str(path)) from None
    try:
        with os.fdopen(fd, "wb") as stream:
            yield stream
        umask = os.umask(0)  # read it: a temporary file is private (0600), a report is not
        os.umask(umask)
        Path(temp).chmod(0o666 & ~umask)
        Path(temp).replace(path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    sys.stderr.write(f"jsoncontract: wrote {what} to {path}\n")


#: Where GitHub Actions collects a step's Markdown summary.
STEP_SUMMARY_ENV = "GITHUB_STEP_SUMMARY"


@contextmanager
def reports(
    fmt: str, output: Path | None, options: ReportOptions
) -> Iterator[list[tuple[str, IO[bytes], ReportOptions]]]:
    """The reports of a run, as ``(format, stream, options)``: the one asked for (stdout, or
    the ``--output`` file), and, when ``GITHUB_STEP_SUMMARY`` names a file, a Markdown
    summary appended to it once the run has finished (cut to what is left of GitHub's
    1 MiB for the step; nothing when too little is left)."""
    import io
    from dataclasses import replace

    from jsoncontract.reporters.markdown import STEP_SUMMARY_BYTES

    target = os.environ.get(STEP_SUMMARY_ENV)
    summary: io.BytesIO | None = None
    with output_stream(output, f"the {fmt} report") as stream:
        outputs = [(fmt, stream, options)]
        if target:
            try:
                used = Path(target).stat().st_size
            except OSError:
                used = 0
            room = STEP_SUMMARY_BYTES - used
            if room >= 4096:
                summary = io.BytesIO()
                outputs.append(("markdown", summary, replace(options, color=False, max_bytes=room)))
            else:
                sys.stderr.write(
                    f"jsoncontract: warning: {STEP_SUMMARY_ENV} is full (GitHub takes 1 MiB "
                    "per step); no summary added\n"
                )
        yield outputs
    if summary is not None:
        try:
            with Path(target or "").open("ab") as file:  # appended: other steps wrote theirs
                file.write(summary.getvalue())
        except OSError as exc:
            sys.stderr.write(
                f"jsoncontract: warning: cannot write the step summary to {target}: "
                f"{exc.strerror or exc}\n"
            )


def stderr_is_terminal() -> bool:
    """Whether progress can be shown (stderr is a terminal)."""
    return sys.stderr.isatty()
