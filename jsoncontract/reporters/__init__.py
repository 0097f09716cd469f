"""Reporters: every command's results rendered as text, JSON and the formats CI reads.

Each command has one table, format name -> reporter class, written ``"module:Class"`` (a
module starting with ``.`` is one of this package's) and imported on first use: ``--help``
imports no reporter and a command only its own. A table is the single list of its
command's formats: the command line offers exactly its keys, in its order, and the config
schema's ``format`` values are filled in from it. Every reporter implements
:class:`~jsoncontract.reporters.interface.Reporter`.

Modules: ``interface`` (the reporter interface; the options every reporter takes are
:class:`~jsoncontract.settings.ReportOptions`), ``text`` (the styled
text writer every text report shares), ``findings``, ``sarif``, ``github`` and ``junit``
(findings and the renderers of the CI formats), ``markdown`` (summaries for pull requests
and GitHub's step summary, every command's) and ``html_report`` (the pages of ``check`` and
``diff``), then one module per command and family (``check_text``, ``check_json``,
``check_ci``, ``diff_*``, ``lint_*``, ``suite_*``, ``pin``, ``rules``, ``rules_check``,
``live`` for ``mcp tools`` and ``mcp probe``, ``compat``).
"""

from __future__ import annotations

from importlib import import_module
from typing import IO, TYPE_CHECKING, Any, Final

from jsoncontract._lazy import lazy_attributes

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from jsoncontract.reporters.interface import Reporter
    from jsoncontract.settings import ReportOptions

# Imported on first use: ``--help`` reads the tables below and nothing behind them (the
# options live in :mod:`jsoncontract.settings`, which imports the model).
__getattr__ = lazy_attributes(
    __name__, {"Reporter": ".interface", "ReportOptions": "jsoncontract.settings"}
)

CHECK_REPORTERS: Final = {
    "text": ".check_text:TextCheckReporter",
    "json": ".check_json:JsonCheckReporter",
    "jsonl": ".check_json:JsonlCheckReporter",
    "github": ".check_ci:GithubCheckReporter",
    "sarif": ".check_ci:SarifCheckReporter",
    "junit": ".check_ci:JUnitCheckReporter",
    "markdown": ".markdown:MarkdownCheckReporter",
    "html": ".html_report:HtmlCheckReporter",
}
DIFF_REPORTERS: Final = {
    "text": ".diff_text:TextDiffReporter",
    "json": ".diff_json:JsonDiffReporter",
    "patch": ".diff_json:PatchDiffReporter",
    "github": ".diff_ci:GithubDiffReporter",
    "sarif": ".diff_ci:SarifDiffReporter",
    "junit": ".diff_ci:JUnitDiffReporter",
    "markdown": ".markdown:MarkdownDiffReporter",
    "html": ".html_report:HtmlDiffReporter",
}
LINT_REPORTERS: Final = {
    "text": ".lint_text:TextLintReporter",
    "json": ".lint_json:JsonLintReporter",
    "sarif": ".lint_ci:SarifLintReporter",
    "junit": ".lint_ci:JUnitLintReporter",
    "github": ".lint_ci:GithubLintReporter",
    "markdown": ".markdown:MarkdownLintReporter",
}
TEST_REPORTERS: Final = {
    "text": ".suite_text:TextTestReporter",
    "json": ".suite_json:JsonTestReporter",
    "junit": ".suite_ci:JUnitTestReporter",
    "github": ".suite_ci:GithubTestReporter",
    "sarif": ".suite_ci:SarifTestReporter",
    "markdown": ".markdown:MarkdownTestReporter",
}
FIXTURES_REPORTERS: Final = {
    "text": ".suite_text:TextFixturesReporter",
    "json": ".suite_json:JsonFixturesReporter",
}
PIN_REPORTERS: Final = {
    "text": ".pin:TextPinReporter",
    "json": ".pin:JsonPinReporter",
    "markdown": ".pin:MarkdownPinReporter",
}
COMPAT_REPORTERS: Final = {
    "text": ".compat:TextCompatReporter",
    "json": ".compat:JsonCompatReporter",
    "markdown": ".compat:MarkdownCompatReporter",
    "sarif": ".compat:SarifCompatReporter",
    "github": ".compat:GithubCompatReporter",
    "junit": ".compat:JUnitCompatReporter",
}
#: The catalog (``text``, ``json``), and ``rules --check`` in all four formats.
RULES_REPORTERS: Final = {
    "text": ".rules:TextRulesReporter",
    "json": ".rules:JsonRulesReporter",
    "sarif": ".rules_check:SarifRulesCheckReporter",
    "github": ".rules_check:GithubRulesCheckReporter",
}
MCP_TOOLS_REPORTERS: Final = {
    "text": ".live:TextToolsReporter",
    "json": ".live:JsonToolsReporter",
}
MCP_RESOURCES_REPORTERS: Final = {
    "text": ".live_catalog:TextCatalogReporter",
    "json": ".live_catalog:JsonCatalogReporter",
}
MCP_PROBE_REPORTERS: Final = {
    "text": ".live:TextProbeReporter",
    "json": ".live:JsonProbeReporter",
    "junit": ".live:JUnitProbeReporter",
    "sarif": ".live:SarifProbeReporter",
    "github": ".live:GithubProbeReporter",
}

MCP_VERIFY_REPORTERS: Final = {
    "text": ".live_verify:TextVerifyReporter",
    "json": ".live_verify:JsonVerifyReporter",
    "junit": ".live_verify:JUnitVerifyReporter",
    "sarif": ".live_verify:SarifVerifyReporter",
    "github": ".live_verify:GithubVerifyReporter",
    "markdown": ".live_verify:MarkdownVerifyReporter",
}

REDACT_REPORTERS: Final = {
    "text": ".redact:TextRedactReporter",
    "json": ".redact:JsonRedactReporter",
}

#: command -> its table.
REPORTERS: Final[dict[str, dict[str, str]]] = {
    "check": CHECK_REPORTERS,
    "diff": DIFF_REPORTERS,
    "lint": LINT_REPORTERS,
    "test": TEST_REPORTERS,
    "fixtures": FIXTURES_REPORTERS,
    "pin": PIN_REPORTERS,
    "compat": COMPAT_REPORTERS,
    "rules": RULES_REPORTERS,
    "redact": REDACT_REPORTERS,
    # ``mcp`` subcommands: a live server's tools are linted, pinned and tested as files are
    "mcp tools": MCP_TOOLS_REPORTERS,
    "mcp resources": MCP_RESOURCES_REPORTERS,
    "mcp prompts": MCP_RESOURCES_REPORTERS,
    "mcp lint": LINT_REPORTERS,
    "mcp pin": PIN_REPORTERS,
    "mcp probe": MCP_PROBE_REPORTERS,
    "mcp test": TEST_REPORTERS,
    "mcp verify": MCP_VERIFY_REPORTERS,
}


def formats(command: str) -> list[str]:
    """The formats of ``command``, in the order its ``--format`` lists them."""
    return list(REPORTERS[command])


def reporter_class(command: str, fmt: str) -> type[Reporter[Any, Any]]:
    """The reporter of ``command`` for ``fmt``, imported now.

    Raises:
        KeyError: the command has no such format (the command line only offers known ones).
    """
    module, _, name = REPORTERS[command][fmt].partition(":")
    cls: type[Reporter[Any, Any]] = getattr(import_module(module, __name__), name)
    return cls


def render(
    command: str,
    fmt: str,
    stream: IO[bytes],
    options: ReportOptions,
    end: Any,
    results: Iterable[Any] = (),
) -> None:
    """Write one report: build ``command``'s reporter for ``fmt``, hand it every result,
    then close it with ``end`` (see :meth:`Reporter.write`)."""
    render_many(command, [(fmt, stream, options)], end, results)


def render_many(
    command: str,
    targets: Sequence[tuple[str, IO[bytes], ReportOptions]],
    end: Any,
    results: Iterable[Any] = (),
) -> None:
    """Write several reports of one run at once, each ``(format, stream, options)``: every
    result goes to each reporter as it arrives (a stream is read once), then each is
    closed with ``end``."""
    reporters = [
        reporter_class(command, fmt)(stream, _of(options, command))
        for fmt, stream, options in targets
    ]
    if len(reporters) == 1:
        reporters[0].write(end, results)
        return
    takes = [reporter.take for reporter in reporters]
    try:
        for result in results:
            for take in takes:
                take(result)
    except BaseException:  # as Reporter.write: what the reports hold is released
        for reporter in reporters:
            reporter.abort()
        raise
    for reporter in reporters:
        reporter.close(end)


def _of(options: ReportOptions, command: str) -> ReportOptions:
    """The options, saying which command the report is of."""
    from dataclasses import replace

    return options if options.command is not None else replace(options, command=command)


__all__ = [
    "CHECK_REPORTERS",
    "COMPAT_REPORTERS",
    "DIFF_REPORTERS",
    "FIXTURES_REPORTERS",
    "LINT_REPORTERS",
    "MCP_PROBE_REPORTERS",
    "MCP_TOOLS_REPORTERS",
    "PIN_REPORTERS",
    "REDACT_REPORTERS",
    "REPORTERS",
    "RULES_REPORTERS",
    "TEST_REPORTERS",
    "ReportOptions",
    "Reporter",
    "formats",
    "render",
    "render_many",
    "reporter_class",
]
