"""The settings of a ``compat`` run: the two sides, the threshold, the classes the config
gives checks, the usage traces and the report."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from jsoncontract.compat.model import FAIL_ON, CompatClass
from jsoncontract.errors import ConfigError, UsageError

if TYPE_CHECKING:
    from jsoncontract.settings import Config, ReportSettings


@dataclass(frozen=True, slots=True)
class CompatSettings:
    """Everything a ``compat`` run needs besides the sides themselves: the lowest class
    that fails it (``any``: any change), the class each configured check is given instead
    of its own, the traces of ``--usage``, the report, and how tool files are read."""

    report: ReportSettings
    fail_on: str = "breaking"
    severity: dict[str, CompatClass] = field(default_factory=dict)
    usage: tuple[Path, ...] = ()
    tool: str | None = None
    exclude: tuple[str, ...] = ()


def severity_table(table: object, *, where: str = "[compat.severity]") -> dict[str, CompatClass]:
    """``[compat.severity]``: check code -> class, checked.

    Raises:
        ConfigError: a code that is no compat check, or a value that is no class.
    """
    from jsoncontract import codes
    from jsoncontract._spelling import did_you_mean

    if not isinstance(table, dict):
        raise ConfigError(f"{where} must be a table of CODE = CLASS")
    known = [c.code for c in codes.CATALOG.of(codes.COMPAT)]
    out: dict[str, CompatClass] = {}
    for code, value in table.items():
        if code not in known:
            guess = did_you_mean(str(code), known)
            tip = f"; did you mean {guess!r}?" if guess else " (docs/compat.md lists them)"
            raise ConfigError(f"{where}: {code!r} is no compatibility check{tip}")
        try:
            out[code] = CompatClass(value)
        except ValueError:
            classes = ", ".join(c.value for c in CompatClass)
            raise ConfigError(f"{where}: {code} = {value!r} is not one of {classes}") from None
    return out


def compat_settings(
    cfg: Config,
    *,
    fail_on: str | None = None,
    usage: Sequence[Path] = (),
    format: str | None = None,
    output: Path | None = None,
    color: bool | None = None,
    max_shown: int | None = None,
    tool: str | None = None,
    exclude: Sequence[str] | None = None,
) -> CompatSettings:
    """The settings of a ``compat`` run: the command line over ``[compat]`` over the
    defaults (fail on ``breaking``, the ``text`` format).

    Raises:
        UsageError: ``--fail-on`` is not one of ``breaking``, ``risky``, ``any``.
        ConfigError: ``[compat.severity]`` names an unknown check or class.
    """
    from jsoncontract.settings import (
        ReportOptions,
        exclude_patterns,
        fail_threshold,
        report_settings,
    )

    section = cfg.section("compat")
    threshold = fail_threshold(fail_on, cfg, section="compat", default="breaking")
    if threshold not in FAIL_ON:
        raise UsageError(f"--fail-on {threshold!r} is not one of: {', '.join(FAIL_ON)}")
    options = ReportOptions(
        color, max_shown=50 if max_shown is None else max_shown, fail_on=threshold
    )
    report = report_settings(cfg, "compat", format=format, output=output, options=options)
    return CompatSettings(
        report=report,
        fail_on=threshold,
        severity=severity_table(section.get("severity", {})),
        usage=tuple(usage),
        tool=tool,
        exclude=exclude_patterns(exclude, cfg),
    )
