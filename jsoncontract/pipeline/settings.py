"""The settings of ``jsoncontract check``: the ``[check]`` config section and the command
line, merged into one frozen object (the command line wins)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final

from jsoncontract.business.settings import BusinessSettings, business_settings
from jsoncontract.capture.ledger import WINDOW
from jsoncontract.errors import UsageError
from jsoncontract.pipeline.contracts import SessionSettings
from jsoncontract.pipeline.result import ResultSettings
from jsoncontract.settings import (
    ReportOptions,
    ReportSettings,
    exclude_patterns,
    report_settings,
    tool_paths,
)

if TYPE_CHECKING:
    from jsoncontract.model import ToolContract
    from jsoncontract.settings import Config


@dataclass(frozen=True, slots=True)
class CheckSettings:
    """Everything a ``check`` run needs.

    ``dialect`` is the dialect every capture is read as (``None``: detected); ``tool`` the
    tool of bare downstream bodies (and the name of a bare JSON Schema); ``result_window``
    how many lines (or files) a call waits for its result before it is checked without one;
    ``results`` and ``session`` the checks of the ``[results]`` and ``[session]`` sections;
    ``exclude`` the globs of files left out when a directory is walked; ``jobs`` the worker
    processes (``None``: one per core); ``spark`` the Spark master to check on (``None``:
    here); ``allow_empty`` whether a run that reads no call passes (else it fails with
    ``input.no_calls``); ``follow`` whether the one capture is followed as it grows (see
    :func:`follow_problem`). Which results the report lists is ``report.options.results``.
    No ``tools``: each call is checked against the tools offered with it (:attr:`capture`).
    """

    captures: tuple[str, ...]
    tools: tuple[Path, ...]
    business: BusinessSettings
    report: ReportSettings
    tool: str | None = None
    dialect: str | None = None
    show_values: bool = False
    result_window: int = WINDOW
    results: ResultSettings = field(default_factory=ResultSettings)
    session: SessionSettings = field(default_factory=SessionSettings)
    exclude: tuple[str, ...] = ()
    jobs: int | None = None
    spark: str | None = None
    allow_empty: bool = False
    follow: bool = False

    @property
    def capture(self) -> bool:
        """Whether each call's contract is the tools offered with it (no ``--tools``, nor
        ``tools`` in the config)."""
        return not self.tools


#: The report formats written as the run goes, one call at a time: those ``--follow`` takes.
FOLLOW_FORMATS: Final = ("text", "jsonl")
#: Captures that cannot be read a line at a time as they grow.
_NOT_FOLLOWED: Final = (".json", ".sse", ".har", ".yaml", ".yml", ".gz", ".zst")


def follow_problem(
    captures: Sequence[str], *, format: str, jobs: int | None, spark: str | None
) -> str | None:
    """Why ``check --follow`` cannot follow ``captures`` as asked, or ``None``: it follows
    one JSON Lines file (or standard input) in this process, and writes each verdict as it
    is known (:data:`FOLLOW_FORMATS`)."""
    if spark is not None:
        return "--follow checks each line as it is written, here: it does not run on Spark"
    if jobs is not None and jobs > 1:
        return "--follow checks each line as it is written, in one process: leave out --jobs"
    if len(captures) != 1:
        return f"--follow follows one file (or - for standard input), not {len(captures)}"
    if format not in FOLLOW_FORMATS:
        return (
            f"--follow writes each verdict as it is known: --format text or jsonl, not {format} "
            "(for a whole report, check the file once it is written)"
        )
    name = captures[0]
    if name != "-":
        if Path(name).is_dir():
            return f"--follow follows one file, and {name} is a directory"
        suffix = Path(name).suffix.lower()
        if suffix in _NOT_FOLLOWED:
            how = "zcat" if suffix == ".gz" else "zstdcat" if suffix == ".zst" else "tail -F"
            return (
                f"--follow reads JSON Lines (one event a line) as they are written, not a "
                f"{suffix} file; a trace of lines under that name can be piped: {how} {name} "
                "| jsoncontract check --follow -"
            )
    return None


#: What ``--tools`` is given to take every call's contract from its capture.
CAPTURE: Final = "capture"
#: Where tool definitions can come from, said when there are none.
NO_TOOLS: Final = (
    "no tool definitions: pass --tools PATH, list them under tools = [...] in "
    "jsoncontract.toml, or check captures that record the tools offered to the model (a "
    "request logged with its response, a request body's tools, an MCP tools/list)"
)


def capture_contract(tools: Sequence[Path | str] | None, cfg: Config) -> bool:
    """Whether every call's contract is the tools offered with it: ``--tools capture``, or
    neither ``--tools`` nor the config's ``tools``."""
    if tools:
        return [str(t) for t in tools] == [CAPTURE]
    return not cfg.get("tools")


def trace_tools(
    cfg: Config,
    *,
    captures: Sequence[str] | None,
    tools: Sequence[Path] | None = None,
    spark: str | None = None,
) -> list[ToolContract]:
    """The tools a trace of ``mcp guard`` carries (the list it enforced), when neither
    ``--tools`` nor the config names any; empty otherwise, or when no capture carries them.

    Raises:
        UsageError: the run is on Spark, which reads the tools from files.
    """
    if not capture_contract(tools, cfg) or not captures:
        return []
    from jsoncontract.capture.mcp_trace import embedded_tools

    found = embedded_tools(captures, exclude=tuple(cfg.get("exclude", ()) or ()))
    if not found:
        return []
    if spark is not None:
        raise UsageError(
            "check --spark reads the tools from files: name them with --tools (the trace's "
            "own tool list is read by a local check)"
        )
    import orjson

    from jsoncontract.model import Dialect
    from jsoncontract.tools.loader import load_tool_file

    label = f"{captures[0]} (the tools the guard enforced)"
    return load_tool_file(label, data=orjson.dumps({"tools": found}), dialect=Dialect.MCP)


def check_settings(
    cfg: Config,
    *,
    captures: Sequence[str] | None,
    tools: Sequence[Path] | None = None,
    tool: str | None = None,
    dialect: str | None = None,
    rules: Sequence[Path] | None = None,
    context: str | None = None,
    show_values: bool = False,
    format: str | None = None,
    output: Path | None = None,
    fail_on: str | None = None,
    color: bool | None = None,
    max_shown: int | None = None,
    verbose: bool = False,
    quiet: bool = False,
    result_window: int | None = None,
    listed: str | None = None,
    jobs: int | None = None,
    spark: str | None = None,
    exclude: Sequence[str] | None = None,
    baseline: Path | None = None,
    embedded: bool = False,
    allow_empty: bool = False,
    follow: bool = False,
) -> CheckSettings:
    """The settings of a ``check`` run (``dialect`` ``auto`` or ``None``: detect it).
    ``embedded``: the captures carry the tool list (a trace of ``mcp guard``), so no tool
    definitions need be named. Without ``tools`` (or with ``capture``), and none in the
    config, each call is checked against the tools offered with it (no paths). ``follow``:
    follow the one capture as it grows; every call is then listed as its verdict is known
    (unless ``listed`` or ``quiet`` say otherwise), and none is held back by ``max_shown``.

    Raises:
        UsageError: no captures, a context that is not a JSON object, or ``follow`` asked
            of what cannot be followed (:func:`follow_problem`).
    """
    section = cfg.section("check")
    if not captures:
        raise UsageError("no captures given: name capture files or directories, or - for stdin")
    paths = () if embedded or capture_contract(tools, cfg) else tool_paths(tools, cfg)
    chosen = str(dialect or section.get("dialect", "auto"))
    reveal = show_values or bool(section.get("show_values", False))
    if max_shown is None:
        max_shown = 0 if follow else section.get("max_shown", 50)
    options = ReportOptions(
        results=str(listed or section.get("results", "all")),
        color=color,
        max_shown=max_shown,
        verbose=verbose or follow,
        quiet=quiet,
        show_values=reveal,
    )
    report = report_settings(
        cfg,
        "check",
        format=format,
        output=output,
        fail_on=fail_on,
        options=options,
        baseline=baseline,
    )
    if follow:
        problem = follow_problem(captures, format=report.format, jobs=jobs, spark=spark)
        if problem is not None:
            raise UsageError(problem)
    return CheckSettings(
        captures=tuple(captures),
        tools=paths,
        business=business_settings(cfg, rules=rules, context=context, show_values=reveal),
        report=report,
        tool=tool or section.get("tool"),
        dialect=None if chosen == "auto" else chosen,
        show_values=reveal,
        result_window=result_window
        if result_window is not None
        else int(section.get("result_window", WINDOW)),
        results=ResultSettings.from_config(cfg.section("results")),
        session=SessionSettings.from_config(
            cfg.section("session"),
            cfg.section("business").get("idempotency"),
            cfg.section("results"),
        ),
        exclude=exclude_patterns(exclude, cfg),
        jobs=jobs or section.get("jobs"),
        spark=spark,
        allow_empty=allow_empty or bool(section.get("allow_empty", False)),
        follow=follow,
    )
