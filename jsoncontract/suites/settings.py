"""The settings of ``jsoncontract fixtures`` and ``jsoncontract test``: the ``[fixtures]``
and ``[test]`` config sections and the command line, merged into frozen objects (the
command line wins). Both commands find suites in the same place (:func:`suite_dir`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from jsoncontract.business.settings import BusinessSettings, business_settings
from jsoncontract.errors import ConfigError, UsageError
from jsoncontract.settings import ReportOptions, ReportSettings, report_settings, tool_paths
from jsoncontract.suites.instance import DEFAULT_MAX_DEPTH
from jsoncontract.suites.kinds import DERIVED_KINDS, CaseKind
from jsoncontract.suites.select import Selector

if TYPE_CHECKING:
    from jsoncontract.settings import Config

#: Where ``test`` looks for suites when neither the command line nor the config says.
DEFAULT_SUITE_DIR: Final = "fixtures"


def suite_dir(cfg: Config, given: Path | None, *, required: bool = False) -> Path:
    """The suite directory: the argument, the config's ``[fixtures] suite_dir``, or (unless
    ``required``) ``fixtures``.

    Raises:
        UsageError: ``required`` and neither the argument nor the config names one.
    """
    if given is not None:
        return given
    configured = cfg.section("fixtures").get("suite_dir")
    if isinstance(configured, str) and configured:
        return cfg.root / configured
    if required:
        where = cfg.path if cfg.path is not None else "jsoncontract.toml"
        raise UsageError(
            "no suite directory given: name it (jsoncontract fixtures --tools PATH SUITE_DIR), "
            f"or set suite_dir under [fixtures] in {where}"
        )
    return Path(DEFAULT_SUITE_DIR)


@dataclass(frozen=True, slots=True)
class FixturesSettings:
    """Everything a ``fixtures`` run needs (see
    :func:`~jsoncontract.suites.generate.generate_suites` for the generation values)."""

    directory: Path
    tools: tuple[Path, ...]
    business: BusinessSettings
    report: ReportSettings
    tool: str | None = None
    seed: int | None = None
    default_seed: int = 0
    kinds: tuple[CaseKind, ...] = DERIVED_KINDS
    captures: tuple[Path, ...] = ()
    prune: bool = False
    check: bool = False
    max_depth: int = DEFAULT_MAX_DEPTH


def fixtures_settings(
    cfg: Config,
    *,
    directory: Path | None = None,
    tools: Sequence[Path] | None = None,
    tool: str | None = None,
    seed: int | None = None,
    kinds: Sequence[str] | None = None,
    rules: Sequence[Path] | None = None,
    context: str | None = None,
    captures: Sequence[Path] | None = None,
    prune: bool = False,
    check: bool = False,
    max_depth: int | None = None,
    format: str | None = None,
    output: Path | None = None,
    fail_on: str | None = None,
    quiet: bool = False,
    color: bool | None = None,
) -> FixturesSettings:
    """The settings of a ``fixtures`` run.

    Raises:
        UsageError: no suite directory, no tool definitions, or a context that is not a
            JSON object.
    """
    section = cfg.section("fixtures")
    chosen = kinds or section.get("kinds")
    return FixturesSettings(
        # business rules contribute cases, and regression cases record their outcome
        # through the same gates `test` will use
        directory=suite_dir(cfg, directory, required=True),
        tools=tool_paths(tools, cfg),
        business=business_settings(cfg, rules=rules, context=context),
        report=report_settings(
            cfg,
            format=format,
            output=output,
            fail_on=fail_on,
            options=ReportOptions(color=color, quiet=quiet),
        ),
        tool=tool,
        seed=seed,
        default_seed=int(section.get("seed", 0)),
        kinds=tuple(CaseKind(k) for k in chosen) if chosen else DERIVED_KINDS,
        captures=tuple(captures or ()),
        prune=prune,
        check=check,
        max_depth=max_depth or int(section.get("max_depth", DEFAULT_MAX_DEPTH)),
    )


@dataclass(frozen=True, slots=True)
class TestSettings:
    """Everything a ``test`` run needs. ``suites`` are the suite files and directories to
    run; ``select`` the compiled ``-k`` expression; ``update`` accepts the current outcome
    of every failing case. ``warnings`` are about the config (a deprecated key)."""

    __test__ = False  # not a pytest test class, despite the name

    suites: tuple[Path, ...]
    tools: tuple[Path, ...]
    business: BusinessSettings
    report: ReportSettings
    tool: str | None = None
    select: Selector | None = None
    update: bool = False
    show_values: bool = False
    max_depth: int | None = None
    warnings: tuple[str, ...] = ()


def testing_settings(
    cfg: Config,
    *,
    suites: Sequence[Path] | None = None,
    tools: Sequence[Path] | None = None,
    tool: str | None = None,
    rules: Sequence[Path] | None = None,
    context: str | None = None,
    keyword: str | None = None,
    update: bool = False,
    show_values: bool = False,
    format: str | None = None,
    output: Path | None = None,
    fail_on: str | None = None,
    verbose: bool = False,
    quiet: bool = False,
    color: bool | None = None,
    baseline: Path | None = None,
) -> TestSettings:
    """The settings of a ``test`` run (named so that pytest does not take it for a test).

    Raises:
        UsageError: a ``-k`` expression that does not parse, no tool definitions, or a
            context that is not a JSON object.
        ConfigError: both ``[test] format`` and its old name ``[fixtures] test_format``.
    """
    warnings: list[str] = []
    fmt = format or _configured_format(cfg, warnings)
    return TestSettings(
        suites=tuple(suites or [suite_dir(cfg, None)]),
        select=Selector(keyword) if keyword is not None else None,
        tools=tool_paths(tools, cfg),
        tool=tool,
        business=business_settings(cfg, rules=rules, context=context, show_values=show_values),
        report=report_settings(
            cfg,
            format=fmt,
            output=output,
            fail_on=fail_on,
            options=ReportOptions(
                color=color, verbose=verbose, quiet=quiet, show_values=show_values
            ),
            baseline=baseline,
        ),
        update=update,
        show_values=show_values,
        max_depth=cfg.section("fixtures").get("max_depth"),
        warnings=tuple(warnings),
    )


def _configured_format(cfg: Config, warnings: list[str]) -> str:
    """``[test] format``, or its deprecated old name ``[fixtures] test_format``, or text.

    Raises:
        ConfigError: both are set.
    """
    new = cfg.section("test").get("format")
    old = cfg.section("fixtures").get("test_format")
    where = str(cfg.path) if cfg.path is not None else "config"
    if old is None:
        return str(new or "text")
    if new is not None:
        raise ConfigError(
            "sets both [test] format and [fixtures] test_format (its old name): keep "
            "[test] format only",
            file=where,
        )
    warnings.append(
        f"{where}: [fixtures] test_format is the old name of [test] format; it still works, "
        "but move it"
    )
    return str(old)
