"""What the finding renderers (SARIF, JUnit, GitHub) take: findings plus rule metadata.

They are shared by every command that reports findings (``lint``, ``pin``, fixture runs):
a renderer receives :class:`~jsoncontract.model.Finding` values, a table of
:class:`RuleMeta` by code, and returns text. Nothing here knows where findings come from.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath
from typing import Final

from jsoncontract._version import __version__
from jsoncontract.model import Severity

PROJECT_URL: Final = "https://github.com/jsoncontract/jsoncontract"


@dataclass(frozen=True, slots=True)
class RuleMeta:
    """What a report says about a rule (or a finding code) besides its findings.

    ``help_markdown`` is the full documentation; ``security_severity`` (0 to 10) marks
    security rules for code-scanning dashboards.
    """

    code: str
    name: str
    summary: str
    severity: Severity = Severity.WARNING
    help_markdown: str = ""
    help_uri: str | None = None
    tags: tuple[str, ...] = ()
    security_severity: float | None = None


@dataclass(frozen=True, slots=True)
class ToolInfo:
    """The program that produced the report."""

    name: str = "jsoncontract"
    version: str = __version__
    uri: str = PROJECT_URL


def portable_path(path: str) -> str:
    """A file path with forward slashes and without a leading ``./`` (for SARIF and CI)."""
    text = PurePath(path).as_posix()
    return text[2:] if text.startswith("./") else text
