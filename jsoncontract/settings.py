"""What the settings of every command share: the report, the threshold, tools, rules.

Each command turns the project config and its command-line values into one frozen
settings object, built here in the library (``check_settings`` in
:mod:`jsoncontract.pipeline.settings`, ``diff_settings`` in :mod:`jsoncontract.diff.settings`,
``command_settings`` in :mod:`jsoncontract.lint.settings`, ``fixtures_settings`` and
``testing_settings`` in :mod:`jsoncontract.suites.settings`, ``pin_settings`` in
:mod:`jsoncontract.pin`), so that a command's body is: settings, build, run, report, exit
code. The command line wins over the config, the config over the defaults; a bad value
fails here, before any input is read.

The parts they share live in this module: the project config they start from
(:class:`Config`), how a person wants to see a report (:class:`ReportOptions`, which every
reporter takes), where and how the report is written and when a run fails
(:class:`ReportSettings`, with the one resolution of ``--fail-on``), and the tool
definitions to read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

from jsoncontract.errors import InputError, UsageError
from jsoncontract.model import Severity

#: The values of ``--fail-on`` and of the config's ``fail_on``: a severity, or ``never``.
FAIL_ON: Final = (*(s.value for s in Severity), "never")


# -- the project config ---------------------------------------------------------------------

#: The largest config file read (a device or a pipe is read no further).
MAX_CONFIG_BYTES: Final = 16 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Config:
    """A loaded configuration: its file (``None`` when there is none) and its table."""

    path: Path | None = None
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def root(self) -> Path:
        """The directory that relative paths in the file start from."""
        return self.path.parent if self.path is not None else Path.cwd()

    def section(self, name: str) -> dict[str, Any]:
        """One section (``[check]``, ``[lint]``...), empty when absent."""
        value = self.data.get(name)
        return value if isinstance(value, dict) else {}

    def get(self, key: str, default: Any = None) -> Any:
        """A top-level value."""
        return self.data.get(key, default)

    def paths(self, values: list[str] | None) -> list[Path]:
        """Paths from the file, made relative to it."""
        return [self.root / v for v in values or ()]


def read_config(path: Path) -> bytes:
    """A config file's bytes (empty is fine: no settings), read no further than
    :data:`MAX_CONFIG_BYTES` (a device or a pipe has no end).

    Raises:
        InputError: the file cannot be read, or is larger.
    """
    try:
        with path.open("rb") as stream:
            raw = stream.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise InputError(exc.strerror or str(exc), file=str(path)) from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise InputError(f"over the {MAX_CONFIG_BYTES // 2**20} MiB limit", file=str(path))
    return raw


# -- the report -------------------------------------------------------------------------------


def fail_threshold(
    given: str | None, cfg: Config, *, section: str | None = None, default: str = "error"
) -> str:
    """The lowest severity (or class) that fails a run: ``--fail-on``, else the config's
    ``fail_on`` (of ``section`` when the command has its own, as ``[compat]``), else
    ``default``."""
    table = cfg.section(section) if section is not None else cfg.data
    return str(given or table.get("fail_on", default))


def fails(worst: Severity | str | None, fail_on: str) -> bool:
    """Whether a run whose most severe finding is ``worst`` fails at ``fail_on``.

    >>> fails(Severity.WARNING, "error"), fails("warning", "warning"), fails(None, "info")
    (False, True, False)
    >>> fails(Severity.ERROR, "never")
    False
    """
    if worst is None or fail_on == "never":
        return False
    return Severity(worst).rank >= Severity(fail_on).rank


@dataclass(frozen=True, slots=True)
class ReportOptions:
    """How a person wants to see a report. Every reporter takes the same options and reads
    the ones its format has a use for.

    ``color``: style the text (``None``: decide from the stream, a terminal and ``NO_COLOR``
    unset). ``width``: the columns to lay text out for (``None``: the terminal's).
    ``verbose``: show what passed too. ``quiet``: show only the summary. ``max_shown``: items
    with findings written in full by a text report (0 = all). ``rows``: which members the
    ``diff`` table shows (``auto``: every member when a call has few, else the changed ones;
    ``all``; ``changed``). ``statistics``: count findings per code (``lint`` text).
    ``fail_on``: the lowest severity of a finding that makes a failing test case
    (``lint --format junit``). ``results``: which results of a streamed run a report lists
    (``all``; ``findings``: those with any finding; ``failed``: those that failed a gate);
    the summary counts every one. ``root``: the directory CI formats write paths relative to
    (``None``: :func:`~jsoncontract.project.project_root`). ``show_values``:
    quote sensitive-looking values in the payloads a report shows (HTML) instead of hashing
    them. ``max_bytes``: the most a report may write, 0 for no limit (a Markdown step
    summary: GitHub takes 1 MiB per step); a report cut short says so. ``command``: the
    command the report is of (``mcp lint`` renders with ``lint``'s reporters; SARIF's
    category says which), filled in by :func:`jsoncontract.reporters.render`.
    """

    color: bool | None = None
    width: int | None = None
    verbose: bool = False
    quiet: bool = False
    max_shown: int = 50
    rows: str = "auto"
    statistics: bool = False
    fail_on: str = "error"
    results: str = "all"
    root: str | None = None
    show_values: bool = False
    max_bytes: int = 0
    command: str | None = None


@dataclass(frozen=True, slots=True)
class ReportSettings:
    """How a command reports: the format, where the report goes (``None``: stdout), the
    presentation options, and the lowest severity that fails the run."""

    format: str = "text"
    output: Path | None = None
    options: ReportOptions = field(default_factory=ReportOptions)
    fail_on: str = "error"
    baseline: Path | None = None

    def fails(self, worst: Severity | str | None) -> bool:
        """Whether a run whose most severe finding is ``worst`` fails (exit code 1)."""
        return fails(worst, self.fail_on)

    @property
    def root(self) -> str:
        """The directory CI formats write paths relative to (see :func:`report_root`)."""
        return self.options.root or "."


def report_settings(
    cfg: Config,
    section: str | None = None,
    *,
    format: str | None,
    output: Path | None = None,
    fail_on: str | None = None,
    options: ReportOptions | None = None,
    baseline: Path | None = None,
) -> ReportSettings:
    """The report of a command: ``format``, else the ``format`` of the config's
    ``section`` (for a command that has one), else ``text``; the threshold from
    :func:`fail_threshold`; paths in CI formats relative to :func:`report_root` (unless
    ``options`` names a root); ``baseline``: the previous report whose findings do not
    count toward the exit code (``--baseline``)."""
    default = cfg.section(section).get("format", "text") if section is not None else "text"
    options = options or ReportOptions()
    if options.root is None:
        options = replace(options, root=report_root(cfg))
    return ReportSettings(
        format=str(format or default),
        output=output,
        options=options,
        fail_on=fail_threshold(fail_on, cfg),
        baseline=baseline,
    )


def report_root(cfg: Config) -> str:
    """The directory CI reports write paths relative to: the git work tree, else the
    config file's directory, else the working directory (see
    :func:`~jsoncontract.project.project_root`)."""
    from jsoncontract.project import project_root

    return str(project_root(cfg.path.parent if cfg.path is not None else None))


def exclude_patterns(given: Iterable[str] | None, cfg: Config) -> tuple[str, ...]:
    """The globs of files left out when a directory is walked: the config's ``exclude``,
    then ``--exclude``."""
    return (*(str(p) for p in cfg.get("exclude", ()) or ()), *(given or ()))


def tool_paths(
    given: Iterable[Path | str] | None, cfg: Config, *, how: str = "pass --tools PATH"
) -> tuple[Path, ...]:
    """The tool definition files and directories: those given, else the config's ``tools``.

    Arguments:
        how: how the command line names them, for the error (``pass --tools PATH``).

    Raises:
        UsageError: neither names any.
    """
    paths = tuple(Path(p) for p in given or ()) or tuple(cfg.paths(cfg.get("tools")))
    if not paths:
        raise UsageError(
            f"no tool definitions: {how}, or list them under tools = [...] in jsoncontract.toml"
        )
    return paths


def among(files: Sequence[Path | str], roots: Sequence[Path]) -> list[Path]:
    """The files that are one of ``roots`` or inside one (all of them when there are no
    roots): of the changed files pre-commit passes (``--changed``), those the config's
    paths name."""
    if not roots:
        return [Path(f) for f in files]
    resolved = [root.resolve() for root in roots]
    out = []
    for file in files:
        here = Path(file).resolve()
        if any(here == root or root in here.parents for root in resolved):
            out.append(Path(file))
    return out


def split_values(values: Sequence[str] | None) -> list[str] | None:
    """``--select a,b --select c`` -> ``[a, b, c]``; ``None`` when the option was not given.

    >>> split_values(["JC020, JC021", "closure"]), split_values(None)
    (['JC020', 'JC021', 'closure'], None)
    """
    if values is None:
        return None
    return [part.strip() for value in values for part in value.split(",") if part.strip()]
