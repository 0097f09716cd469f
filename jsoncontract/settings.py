"""What the settings of every command share: the report, the threshold, tools, rules.

Each command turns the project config and its command-line values into one frozen
settings object, built here in the library (``check_settings`` in
:mod:`jsoncontract.pipeline.settings`, ``diff_settings`` in :mod:`jsoncontract.diff.settings`,
``command_settings`` in :mod:`jsoncontract.lint.settings`, ``fixtures_settings`` and
``testing_settings`` in :mod:`jsoncontract.suites.settings`, ``pin_settings`` in
:mod:`jsoncontract.pin`), so that a command's body is: settings, build, run, report, exit
code. The command line wins over the config, the config over the defaults; a bad value
fails here, before any input is read.

The parts they share live in this module: where and how the report is written and when a
run fails (:class:`ReportSettings`, with the one resolution of ``--fail-on``), the tool
definitions to read, and the business gate to build.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from jsoncontract.errors import UsageError
from jsoncontract.model import Severity
from jsoncontract.reporters.interface import ReportOptions

if TYPE_CHECKING:
    from jsoncontract.business.gate import BusinessRules
    from jsoncontract.config import Config
    from jsoncontract.tools.toolset import ToolSet

#: The values of ``--fail-on`` and of the config's ``fail_on``: a severity, or ``never``.
FAIL_ON: Final = (*(s.value for s in Severity), "never")


def fail_threshold(given: str | None, cfg: Config) -> str:
    """The lowest severity that fails a run: ``--fail-on``, else the config's ``fail_on``,
    else ``error``."""
    return str(given or cfg.get("fail_on", "error"))


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


@dataclass(frozen=True, slots=True)
class BusinessSettings:
    """The business gate of a run: rules files (``None``: the config's ``[business]
    rules``), the context given on the command line (``None``: the config's), and whether
    messages quote sensitive-looking values."""

    config: Config
    rules: tuple[Path, ...] | None = None
    context: dict[str, Any] | None = None
    show_values: bool = False

    def load(self, tools: ToolSet) -> BusinessRules:
        """Build the gate (:func:`jsoncontract.business.load_business`); the caller closes
        it, and reports its load-time ``warnings``.

        Raises:
            RulesError: a rules file, a rule, or reference data cannot be used.
            ConfigError: the ``[business]`` config is inconsistent.
        """
        from jsoncontract.business import load_business

        return load_business(
            self.rules,
            config=self.config,
            context=self.context,
            tools=tools,
            show_values=self.show_values,
        )


def business_settings(
    cfg: Config,
    *,
    rules: Iterable[Path] | None = None,
    context: str | None = None,
    show_values: bool = False,
) -> BusinessSettings:
    """The business gate from ``--rules``, ``--context`` (a JSON object or ``@FILE``) and
    ``--show-values``.

    Raises:
        UsageError: the context is not a JSON object, or its file cannot be read.
    """
    parsed = None
    if context is not None:
        from jsoncontract.business.context import parse_context

        parsed = parse_context(context)
    return BusinessSettings(
        cfg,
        tuple(rules) if rules is not None else None,
        parsed,
        show_values,
    )
