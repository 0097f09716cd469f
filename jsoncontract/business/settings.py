"""The settings of ``jsoncontract rules --check``: the ``[business]`` config section and the
command line, merged into one frozen object (the command line wins)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jsoncontract.errors import UsageError
from jsoncontract.reporters.interface import ReportOptions
from jsoncontract.settings import ReportSettings, report_settings, tool_paths

if TYPE_CHECKING:
    from jsoncontract.business.rules import RulesCheck
    from jsoncontract.config import Config
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
