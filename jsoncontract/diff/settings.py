"""The settings of ``jsoncontract diff``: the ``[diff]`` config section and the command
line, merged into one frozen object (the command line wins), and the inputs they name."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jsoncontract.diff.compare import ArrayRule
from jsoncontract.diff.correlate import DEFAULT_FIELDS
from jsoncontract.diff.differ import DiffOptions
from jsoncontract.diff.downstream import parse_ref
from jsoncontract.errors import UsageError
from jsoncontract.settings import ReportOptions, ReportSettings, report_settings

if TYPE_CHECKING:
    from jsoncontract.diff.downstream import DownstreamSchemas
    from jsoncontract.diff.mapping import MappingSet
    from jsoncontract.settings import Config
    from jsoncontract.tools.toolset import ToolSet


@dataclass(frozen=True, slots=True)
class DiffSettings:
    """Everything a ``diff`` run needs.

    The hops come from ``hop_files`` or from ``trace`` (one of the two). ``tools`` may be
    empty (the hops are then compared without checking them). ``downstream`` holds
    ``(tool or None, "FILE[#POINTER]")`` references, relative to ``downstream_base`` when
    they come from the config. ``allow_empty``: a trace that holds no readable call passes
    (else it fails with ``input.no_calls``).
    """

    hop_files: tuple[str, ...]
    trace: Path | None
    options: DiffOptions
    report: ReportSettings
    call_id: str | None = None
    tools: tuple[Path, ...] = ()
    tool: str | None = None
    dialect: str | None = None
    mappings: tuple[Path, ...] = ()
    downstream: tuple[tuple[str | None, str], ...] = ()
    downstream_base: Path | None = None
    allow_empty: bool = False


@dataclass(frozen=True, slots=True)
class DiffInputs:
    """What the settings name, loaded: the tool contracts (``None``: none given), the
    downstream contracts and the declared transforms."""

    tools: ToolSet | None
    downstream: DownstreamSchemas | None
    mappings: MappingSet | None


def diff_settings(
    cfg: Config,
    *,
    hop_files: Sequence[str] | None = None,
    trace: Path | None = None,
    call_id: str | None = None,
    tools: Sequence[Path] | None = None,
    tool: str | None = None,
    dialect: str | None = None,
    mappings: Sequence[Path] | None = None,
    downstream_schemas: Sequence[str] | None = None,
    correlate: Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
    tolerance: float | None = None,
    sets: Sequence[str] | None = None,
    multisets: Sequence[str] | None = None,
    keys: Sequence[str] | None = None,
    show_values: bool = False,
    format: str | None = None,
    output: Path | None = None,
    fail_on: str | None = None,
    rows: str | None = None,
    max_shown: int | None = None,
    verbose: bool = False,
    quiet: bool = False,
    width: int | None = None,
    color: bool | None = None,
    allow_empty: bool = False,
) -> DiffSettings:
    """The settings of a ``diff`` run (``dialect`` ``auto`` or ``None``: detect it).

    Raises:
        UsageError: both hop files and a trace, neither, or a malformed ``--key``.
    """
    section = cfg.section("diff")
    if hop_files and trace is not None:
        raise UsageError("give hop files or --trace, not both")
    if not hop_files and trace is None:
        raise UsageError(
            "nothing to diff: give two or three hop files (model, mcp, downstream), or "
            "--trace FILE.jsonl"
        )
    refs = [parse_ref(r) for r in downstream_schemas or ()]
    base = None
    if not refs and section.get("downstream_schemas"):
        refs = [
            (None if name == "*" else name, ref)
            for name, ref in section["downstream_schemas"].items()
        ]
        base = cfg.root
    fields = correlate or _as_list(section.get("correlation_field")) or list(DEFAULT_FIELDS)
    options = DiffOptions(
        tolerance=tolerance if tolerance is not None else float(section.get("tolerance", 0.0)),
        ignore=tuple(ignore or section.get("ignore", ())),
        arrays=tuple(array_rules(cfg, sets=sets, multisets=multisets, keys=keys)),
        show_values=show_values or bool(section.get("show_values", False)),
        correlate=tuple(fields),
    )
    report_options = ReportOptions(
        color=color,
        rows=str(rows or section.get("rows", "auto")),
        verbose=verbose or bool(hop_files),
        quiet=quiet,
        max_shown=max_shown if max_shown is not None else section.get("max_shown", 50),
        width=width,
        show_values=options.show_values,
    )
    return DiffSettings(
        hop_files=tuple(hop_files or ()),
        trace=trace,
        options=options,
        report=report_settings(
            cfg,
            "diff",
            format=format,
            output=output,
            fail_on=fail_on,
            options=report_options,
        ),
        call_id=call_id,
        tools=tuple(tools or cfg.paths(cfg.get("tools"))),
        tool=tool,
        dialect=None if dialect in (None, "auto") else str(dialect),
        mappings=tuple(mappings or cfg.paths(section.get("mappings"))),
        downstream=tuple(refs),
        downstream_base=base,
        allow_empty=allow_empty or bool(section.get("allow_empty", False)),
    )


def diff_inputs(settings: DiffSettings) -> DiffInputs:
    """Load the tool definitions, downstream schemas and mapping files the settings name
    (mapping paths are checked against the schemas of their hops).

    Raises:
        InputError, ToolLoadError, ConfigError: an input cannot be read or used.
    """
    from jsoncontract.diff.downstream import DownstreamSchemas
    from jsoncontract.diff.mapping import load_mappings
    from jsoncontract.model import Hop
    from jsoncontract.tools.toolset import ToolSet

    toolset = (
        ToolSet.from_paths(settings.tools, tool_name=settings.tool) if settings.tools else None
    )
    downstream = (
        DownstreamSchemas(settings.downstream, base=settings.downstream_base)
        if settings.downstream
        else None
    )

    def schema_of(name: str, hop: Hop) -> Any:
        if hop is Hop.DOWNSTREAM:
            return downstream.raw(name) if downstream is not None else None
        contract = toolset.get(name) if toolset is not None else None
        return contract.input_schema if contract is not None else None

    mappings = load_mappings(settings.mappings, schema_of=schema_of) if settings.mappings else None
    return DiffInputs(toolset, downstream, mappings)


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def array_rules(
    cfg: Config,
    *,
    sets: Sequence[str] | None = None,
    multisets: Sequence[str] | None = None,
    keys: Sequence[str] | None = None,
) -> list[tuple[str, ArrayRule]]:
    """``--set``, ``--multiset`` and ``--key`` first, then the config's ``[diff.arrays]``.

    Raises:
        UsageError: a ``--key`` that is not ``PATH=FIELD[,FIELD]``.
    """
    rules: list[tuple[str, ArrayRule]] = []
    rules.extend((p, ArrayRule("set", (), f"--set {p}")) for p in sets or ())
    rules.extend((p, ArrayRule("multiset", (), f"--multiset {p}")) for p in multisets or ())
    for spec in keys or ():
        path, sep, members = spec.partition("=")
        names = tuple(m.strip() for m in members.split(",") if m.strip())
        if not sep or not path or not names:
            raise UsageError(f"--key {spec!r}: write PATH=FIELD[,FIELD], e.g. --key /lines=sku")
        rules.append((path, ArrayRule("key", names, f"--key {spec}")))
    where = str(cfg.path) if cfg.path is not None else "config"
    for path, spec in cfg.section("diff").get("arrays", {}).items():
        origin = f"{where} [diff.arrays] {path}"
        if spec.startswith("key:"):
            names = tuple(m.strip() for m in spec[4:].split(","))
            rules.append((path, ArrayRule("key", names, origin)))
        else:
            rules.append((path, ArrayRule(spec, (), origin)))
    return rules
