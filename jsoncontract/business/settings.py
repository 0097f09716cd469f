"""The settings of the business gate (:class:`BusinessSettings`, which ``check``, ``test``
and ``mcp test`` build it from) and of ``jsoncontract rules --check``: the ``[business]``
config section and the command line, merged into one frozen object (the command line
wins)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jsoncontract.errors import UsageError
from jsoncontract.settings import ReportOptions, ReportSettings, report_settings, tool_paths

if TYPE_CHECKING:
    from jsoncontract.business.gate import BusinessRules
    from jsoncontract.business.rules import RulesCheck
    from jsoncontract.settings import Config
    from jsoncontract.tools.toolset import ToolSet


@dataclass(frozen=True, slots=True)
class RulesCheckSettings:
    """Everything ``rules --check`` needs: the rules files, the tool definitions they are
    checked against, the reference data of the config (relative to ``data_base``, named
    ``data_label`` in messages), and the limits rules run under."""

    files: tuple[str | Path, ...]
    tools: tuple[Path, ...]
    report: ReportSettings
    tool: str | None = None
    data: Mapping[str, Any] = field(default_factory=dict)
    data_base: Path | None = None
    data_label: str = "config"
    python_timeout: float = 1.0
    cost_budget: int | None = None

    def check(self, tools: ToolSet) -> RulesCheck:
        """Check the rules files against ``tools``
        (:func:`jsoncontract.business.rules.check_rules`)."""
        from jsoncontract.business.rules import check_rules

        return check_rules(
            self.files,
            tools=tools,
            data=self.data,
            data_base=self.data_base,
            data_label=self.data_label,
            python_timeout=self.python_timeout,
            cost_budget=self.cost_budget,
        )


def rules_check_settings(
    cfg: Config,
    *,
    files: Sequence[str] | None = None,
    tools: Sequence[Path] | None = None,
    tool: str | None = None,
    cost_budget: int | None = None,
    format: str | None = None,
    output: Path | None = None,
    fail_on: str | None = None,
    verbose: bool = False,
    quiet: bool = False,
    color: bool | None = None,
) -> RulesCheckSettings:
    """The settings of ``rules --check``: the files named, else the config's
    ``[business] rules``.

    Raises:
        UsageError: no rules files, or no tool definitions.
    """
    from jsoncontract.business import cost_budget as budget_of

    section = cfg.section("business")
    paths: tuple[str | Path, ...] = tuple(files or ()) or tuple(cfg.paths(section.get("rules")))
    if not paths:
        raise UsageError(
            "no rules files: name them (jsoncontract rules --check rules.toml), or list "
            "them under [business] rules = [...] in jsoncontract.toml"
        )
    label = str(cfg.path) if cfg.path is not None else "config"
    return RulesCheckSettings(
        files=paths,
        tools=tool_paths(tools, cfg),
        report=report_settings(
            cfg,
            format=format,
            output=output,
            fail_on=fail_on,
            options=ReportOptions(color=color, verbose=verbose, quiet=quiet),
        ),
        tool=tool,
        data=section.get("data") or {},
        data_base=cfg.root,
        data_label=f"{label} [business.data]",
        python_timeout=float(section.get("python_timeout", 1.0)),
        cost_budget=budget_of(section, cost_budget),
    )


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
