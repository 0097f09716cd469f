"""Linting tool definitions against a documented rule catalog and provider profiles.

    >>> from jsoncontract.lint import lint
    >>> report = lint(["fixtures/lint/weak-tools.json"], profiles=["generic"])
    >>> sorted({f.finding.code for f in report.findings})[:3]
    ['JC010', 'JC020', 'JC054']

The library returns data and never prints; :mod:`jsoncontract.reporters` renders it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jsoncontract.lint.context import LintSettings
from jsoncontract.lint.report import LintFinding, LintReport

if TYPE_CHECKING:
    from jsoncontract.baseline import Baseline


def lint(
    paths: Iterable[str | Path],
    *,
    settings: LintSettings | None = None,
    profiles: Sequence[str] | None = None,
    baseline: Baseline | None = None,
    **options: Any,
) -> LintReport:
    """Lint tool files; ``settings`` or the keyword options of
    :func:`~jsoncontract.lint.settings.build_settings` choose profiles and rules. With a
    ``baseline``, each finding is marked ``new`` or ``unchanged``
    (:mod:`jsoncontract.baseline`), and only new ones make :meth:`LintReport.worst`.

    Raises:
        InputError, ToolLoadError: a file cannot be read, is not JSON, or is in no dialect.
        UsageError, ConfigError: an unknown rule, profile or limit.
    """
    from jsoncontract.lint.engine import Linter
    from jsoncontract.lint.settings import build_settings

    if settings is None:
        settings = build_settings(None, profiles=profiles, **options)
    report = Linter(settings).lint_paths(paths)
    if baseline is not None:
        report.mark_baseline(baseline)
    return report


__all__ = ["LintFinding", "LintReport", "LintSettings", "lint"]
