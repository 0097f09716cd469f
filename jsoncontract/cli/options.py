"""What the commands share: their common options, the choices derived from the library's
tables, and the helpers every command body is made of.

A command body is five steps, each one line or a few::

    settings = check_settings(load_config(...), captures=..., ...)  # settings (library)
    toolset = ToolSet.from_paths(settings.tools, ...)                # build
    with business_gate(settings.business, toolset) as business:     # build
        results = iter_check(...)                                    # run (library)
        write_report("check", settings.report, summary, results)     # report
    return exit_code(summary.worst(), settings.report.fail_on)       # exit code

The settings are built in the library (config plus flags, validated before any input is
read); the helpers here are the only ones that touch stdout and stderr besides the
reporters. No command module imports another: what two commands share lives here.
Exceptions become exit codes in one place only, :func:`jsoncontract.cli.run`.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import io
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from enum import StrEnum
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any, cast, get_type_hints

import typer

from jsoncontract.cli import EXIT_FINDINGS, EXIT_OK
from jsoncontract.errors import InputError

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from jsoncontract.baseline import Baseline
    from jsoncontract.business.gate import BusinessRules
    from jsoncontract.business.settings import BusinessSettings
    from jsoncontract.model import Severity
    from jsoncontract.reporters.progress import CallProgress
    from jsoncontract.settings import ReportOptions, ReportSettings
    from jsoncontract.tools.toolset import ToolSet

    Progress = Callable[[int, int], None]


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
ProgressOpt = Annotated[
    bool,
    typer.Option(help="Show a progress bar on stderr (only when stderr is a terminal)."),
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

# -- option groups ------------------------------------------------------------------------


def grouped(command: Callable[..., int]) -> Callable[..., int]:
    """``command`` with each parameter whose type is a dataclass (an option group, such as
    the options that name an MCP server) spread into the group's fields, in its place.

    typer reads one parameter per option from a command's signature, so options that many
    commands share would be listed again in each; a group is defined once, as a frozen
    dataclass whose fields are annotated like any option, and the command receives it built::

        @grouped
        def tools_cli(server: ServerArg = None, *, reach: ServerOptions, color: ColorOpt = None)

    The options appear in ``--help`` where the group stands, in the order of its fields.
    """
    signature = inspect.signature(command, eval_str=True)
    groups: dict[str, tuple[Any, tuple[str, ...]]] = {}
    params: list[inspect.Parameter] = []
    for param in signature.parameters.values():
        group = param.annotation
        if not (isinstance(group, type) and dataclasses.is_dataclass(group)):
            params.append(param)
            continue
        hints = get_type_hints(group, include_extras=True)
        names = tuple(f.name for f in dataclasses.fields(group))
        params.extend(
            inspect.Parameter(
                field.name,
                inspect.Parameter.KEYWORD_ONLY,
                default=field.default,
                annotation=hints[field.name],
            )
            for field in dataclasses.fields(group)
        )
        groups[param.name] = (group, names)
    taken = [p.name for p in params]
    if len(set(taken)) != len(taken):
        raise TypeError(f"{command.__name__}: an option group repeats a parameter name")

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> int:
        for name, (group, names) in groups.items():
            kwargs[name] = group(**{n: kwargs.pop(n) for n in names})
        return command(*args, **kwargs)

    spread = signature.replace(parameters=params)
    run.__signature__ = spread  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in params}
    run.__annotations__["return"] = signature.return_annotation
    return run


# -- choices derived from the library's tables ----------------------------------------------


def format_choices(command: str) -> type[StrEnum]:
    """The choices of ``--format`` for ``command``: an enum of exactly the formats in its
    reporter table (:data:`jsoncontract.reporters.REPORTERS`), in the table's order."""
    from jsoncontract.reporters import formats

    members = [(name, name) for name in formats(command)]
    choices: type[StrEnum] = StrEnum(f"{command.capitalize()}Format", members)  # type: ignore[misc]
    return choices


def class_choices() -> type[StrEnum]:
    """The choices of ``compat --fail-on`` and ``pin --check --fail-on``: a compatibility
    class, or ``any`` change (:data:`jsoncontract.compat.model.FAIL_ON`)."""
    from jsoncontract.compat.model import FAIL_ON

    members = [(name, name) for name in FAIL_ON]
    choices: type[StrEnum] = StrEnum("ClassFailOn", members)  # type: ignore[misc]
    return choices


def dialect_choices() -> type[StrEnum]:
    """The choices of ``--dialect``: ``auto`` (detect), then every built-in dialect of the
    capture registry (:data:`jsoncontract.capture.registry.BUILT_IN`), in the order it lists
    them."""
    from jsoncontract.capture.registry import built_in_names

    members = [(name, name) for name in ("auto", *built_in_names())]
    choices: type[StrEnum] = StrEnum("DialectChoice", members)  # type: ignore[misc]
    return choices


def kind_choices() -> type[StrEnum]:
    """The choices of ``fixtures --kind``: the case kinds the generator derives
    (:data:`jsoncontract.suites.kinds.DERIVED_KINDS`), in the order it writes them."""
    from jsoncontract.suites.kinds import DERIVED_KINDS

    members = [(kind.value, kind.value) for kind in DERIVED_KINDS]
    choices: type[StrEnum] = StrEnum("Kind", members)  # type: ignore[misc]
    return choices


# -- the steps of a command body -----------------------------------------------------------


def warn(messages: Iterable[str]) -> None:
    """Write each message as a warning on stderr (the report is never interrupted)."""
    for message in messages:
        sys.stderr.write(f"jsoncontract: warning: {message}\n")


def quiet_sdk_logs() -> None:
    """The SDK logs transport problems with tracebacks; the reports say them in one line.
    ``JSONCONTRACT_DEBUG=1`` shows the log instead."""
    import logging
    import os

    root = logging.getLogger()
    if os.environ.get("JSONCONTRACT_DEBUG"):
        logging.basicConfig(level=logging.DEBUG)
        return
    if not any(isinstance(h, logging.NullHandler) for h in root.handlers):
        root.addHandler(logging.NullHandler())


def note(message: str) -> None:
    """Write one line about the run on stderr (``fixed 3 in tools.json``)."""
    sys.stderr.write(f"jsoncontract: {message}\n")


@contextmanager
def business_gate(settings: BusinessSettings, tools: ToolSet) -> Iterator[BusinessRules]:
    """The business gate of a run, its load-time warnings written to stderr; closed (its
    Python rule workers stopped) when the block ends."""
    gate = settings.load(tools)
    try:
        warn(gate.warnings)
        yield gate
    finally:
        gate.close()


def write_report(
    command: str,
    settings: ReportSettings,
    end: Any,
    results: Iterable[Any] = (),
    *,
    progress: CallProgress | None = None,
    flush: bool = False,
) -> None:
    """Render ``command``'s report in the chosen format to stdout or the output file
    (which only appears, complete, when the report is finished), and, in GitHub Actions,
    its Markdown summary to the job's summary page (:func:`reports`). ``progress``: a bar
    on stderr that follows ``results``, the report printed above it on a shared terminal.
    ``flush``: a report read as it is written (``check --follow``): every write reaches
    stdout, or the output file, at once, and no step summary is added."""
    from jsoncontract.reporters import formats, render_many

    summary = "markdown" in formats(command) and not flush
    with (
        reports(
            settings.format, settings.output, settings.options, summary=summary, flush=flush
        ) as targets,
        progress or nullcontext(),
    ):
        if progress is not None:
            targets = [(fmt, progress.above(stream), how) for fmt, stream, how in targets]
            results = progress.track(results)
        render_many(command, targets, end, results)


def result_runs(command: str, fmt: str) -> bool:
    """Whether every report a run writes takes runs of encoded results (see
    :attr:`~jsoncontract.reporters.interface.Reporter.takes_result_runs`): the one asked
    for, and no Markdown step summary besides it."""
    from jsoncontract.reporters import formats, reporter_class

    if not reporter_class(command, fmt).takes_result_runs:
        return False
    return not ("markdown" in formats(command) and os.environ.get(STEP_SUMMARY_ENV))


def load_baseline(path: Path | None, command: str, root: str) -> Baseline | None:
    """The baseline named by ``--baseline`` (its notes said on stderr), or ``None``.

    Raises:
        InputError: the file cannot be read, or is no report of ``command``.
    """
    if path is None:
        return None
    from jsoncontract.baseline import Baseline

    baseline = Baseline.load(path, command=command, root=root)
    warn(baseline.notes)
    return baseline


def note_skipped(skipped: Sequence[tuple[str, str]], what: str) -> None:
    """Say on stderr which files found in directories were skipped, and why (at most five
    by name)."""
    for file, why in skipped[:5]:
        note(f"note: skipped {file}: {why}")
    if len(skipped) > 5:
        note(f"note: skipped {len(skipped) - 5} more files that hold no {what}")


def exit_code(worst: Severity | str | None, fail_on: str) -> int:
    """0 or 1, from the most severe finding and the ``--fail-on`` threshold."""
    from jsoncontract.settings import fails

    return EXIT_FINDINGS if fails(worst, fail_on) else EXIT_OK


@contextmanager
def output_stream(
    path: Path | None, what: str = "the report", *, live: bool = False, flush: bool = False
) -> Iterator[IO[bytes]]:
    """stdout, or the named output through :func:`jsoncontract._files.output_file`: a file
    that only appears, complete, when the report is finished (a device or a FIFO is written
    to, a symbolic link keeps leading to the report), and a line on stderr then says where
    ``what`` went.

    A report to stdout that is not a terminal is held until the run ends and written only
    when it ends without an error, so that a pipe or a log never gets half a report before
    an exit code 2; ``live`` (a JSON Lines report, read as it comes) writes as it goes.
    ``flush`` (a report read while the run goes on, ``check --follow``): every write
    reaches stdout at once, and a named output is written as it goes, in place (as a log
    is), rather than when it is complete.
    """
    if flush:
        with _flushed(path) as stream:
            yield stream
        if path is not None:
            note(f"wrote {what} to {path}")
        return
    if path is None:
        if sys.stdout is None or getattr(sys.stdout, "closed", False):
            raise InputError("standard output is closed; write the report to a file with -o")
        out = sys.stdout.buffer  # taken now: a rule's print is sent to stderr meanwhile
        try:
            if live or sys.stdout.isatty():
                yield out
            else:  # in memory up to 32 MB, then in an anonymous temporary file
                with tempfile.SpooledTemporaryFile(max_size=HELD_IN_MEMORY) as held:
                    yield cast("IO[bytes]", _Held(held, out))  # a binary stream, as IO is
                    held.seek(0)
                    shutil.copyfileobj(held, out, 1 << 20)
            out.flush()
        except BrokenPipeError:
            raise ReaderGone from None
        return
    from jsoncontract._files import output_file

    with output_file(path) as stream:
        yield stream
    note(f"wrote {what} to {path}")


@contextmanager
def _flushed(path: Path | None) -> Iterator[IO[bytes]]:
    """stdout, or the file ``path`` opened in place, each write flushed through."""
    if path is None:
        if sys.stdout is None or getattr(sys.stdout, "closed", False):
            raise InputError("standard output is closed; write the report to a file with -o")
        try:
            yield cast("IO[bytes]", _Flushing(sys.stdout.buffer))
        except BrokenPipeError:
            raise ReaderGone from None
        return
    if path.is_dir():
        raise InputError("cannot write: is a directory", file=str(path))
    try:
        stream = path.open("wb")
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror or exc}", file=str(path)) from None
    with stream:
        yield cast("IO[bytes]", _Flushing(stream))


class _Flushing(io.BufferedIOBase):
    """A stream whose every write is flushed to its destination (a report read while it is
    written: ``tail -F | jq``)."""

    def __init__(self, destination: IO[bytes]) -> None:
        super().__init__()
        self._destination = destination

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        written = self._destination.write(data)
        self._destination.flush()
        return written

    def fileno(self) -> int:
        return self._destination.fileno()

    def isatty(self) -> bool:
        return self._destination.isatty()


class _Held(io.BufferedIOBase):
    """A report held until the run ends, that answers questions about where it goes (its
    ``fileno``: a pipe or a regular file, which decides colour) for the stream it will be
    written to, not for the temporary file it is held in."""

    def __init__(self, held: IO[bytes], destination: IO[bytes]) -> None:
        super().__init__()
        self._held = held
        self._destination = destination

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        return self._held.write(data)

    def fileno(self) -> int:
        return self._destination.fileno()

    def isatty(self) -> bool:
        return False  # held only when the destination is no terminal


class ReaderGone(Exception):
    """The reader of standard output went away (``| head``): the run stops quietly.

    Raised in place of ``BrokenPipeError``, which click would turn into exit code 1."""


#: Where GitHub Actions collects a step's Markdown summary.
STEP_SUMMARY_ENV = "GITHUB_STEP_SUMMARY"


@contextmanager
def reports(
    fmt: str,
    output: Path | None,
    options: ReportOptions,
    *,
    summary: bool = True,
    flush: bool = False,
) -> Iterator[list[tuple[str, IO[bytes], ReportOptions]]]:
    """The reports of a run, as ``(format, stream, options)``: the one asked for (stdout, or
    the ``--output`` file; ``flush``: written through as it comes, see
    :func:`output_stream`), and, with ``summary`` and when ``GITHUB_STEP_SUMMARY`` names a
    file, a Markdown summary appended to it once the run has finished (cut to what is left
    of GitHub's 1 MiB for the step; nothing when too little is left)."""
    from dataclasses import replace

    from jsoncontract.reporters.markdown import STEP_SUMMARY_BYTES

    target = os.environ.get(STEP_SUMMARY_ENV) if summary else None
    page: io.BytesIO | None = None
    live = fmt == "jsonl"  # read as it comes: written as it goes
    with output_stream(output, f"the {fmt} report", live=live, flush=flush) as stream:
        outputs = [(fmt, stream, options)]
        if target:
            try:
                used = Path(target).stat().st_size
            except OSError:
                used = 0
            room = STEP_SUMMARY_BYTES - used
            if room >= 4096:
                page = io.BytesIO()
                outputs.append(("markdown", page, replace(options, color=False, max_bytes=room)))
            else:
                warn(
                    [f"{STEP_SUMMARY_ENV} is full (GitHub takes 1 MiB per step); no summary added"]
                )
        yield outputs
    if page is not None:
        try:
            with Path(target or "").open("ab") as file:  # appended: other steps wrote theirs
                file.write(page.getvalue())
        except OSError as exc:
            warn([f"cannot write the step summary to {target}: {exc.strerror or exc}"])


# -- progress on stderr --------------------------------------------------------------------

#: Fewer items than this finish before a bar helps.
MIN_ITEMS = 200
#: Fewer bytes than this finish before a bar helps.
MIN_BYTES = 5_000_000


def stderr_is_terminal() -> bool:
    """Whether progress can be shown (stderr is a terminal)."""
    return sys.stderr is not None and sys.stderr.isatty()


@contextmanager
def item_progress(label: str, *, enabled: bool) -> Iterator[Progress | None]:
    """A ``(done, total)`` callback drawing a bar on stderr (``None`` when disabled).

    The bar appears only once the total is known to be at least :data:`MIN_ITEMS`, and
    disappears when the run ends.
    """
    if not enabled:
        yield None
        return
    state: dict[str, Any] = {}

    def update(done: int, total: int) -> None:
        if total < MIN_ITEMS:
            return
        bar = state.get("bar")
        if bar is None:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeRemainingColumn,
            )

            columns = (TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
            bar = state["bar"] = Progress(*columns, console=Console(stderr=True), transient=True)
            bar.start()
            state["task"] = bar.add_task(label, total=total)
        bar.update(state["task"], completed=done)

    try:
        yield update
    finally:
        if "bar" in state:
            state["bar"].stop()
