"""SARIF 2.1.0: findings for code-scanning dashboards (GitHub, GitLab, Azure DevOps).

One run, categorised by command (``automationDetails.id`` ``jsoncontract/check/``, so the
analyses of ``check``, ``lint`` and ``test`` uploaded for one commit do not replace each
other). The driver lists every rule given (id, name, short and full description, help in
text and Markdown, help URI, default level, tags, and ``security-severity`` for security
rules). Each result carries its rule, level, message, file/line/column region, a logical
location (tool and JSON Pointer), and a partial fingerprint built from code, file, tool and
pointer, so a dashboard keeps tracking a finding when lines move. Files are written
relative to the project root (``%SRCROOT%``, which ``originalUriBaseIds`` defines).
Suppressed findings are included with their justification, which is how SARIF consumers
expect suppressions; with a baseline, each result says its ``baselineState``.

GitHub code scanning rejects a run with more than 25,000 results and shows at most 10 tags
per rule (docs.github.com, "SARIF results exceed one or more limits"): a larger report keeps
the most severe results (in report order) and ends with one notice result saying how many
were left out and how to see them; tags are cut to 10.

:func:`sarif_log` renders a command's :class:`~jsoncontract.reporters.findings.FindingSet`,
whatever text its findings quote.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final
from urllib.parse import quote

import orjson

from jsoncontract import codes
from jsoncontract._json import printable
from jsoncontract.codes import RuleMeta, plain_text
from jsoncontract.model import Finding, Severity, Source
from jsoncontract.project import fingerprint, is_relative, portable_path, project_root
from jsoncontract.reporters.findings import FindingSet, ToolInfo, printable_finding

SARIF_SCHEMA: Final = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS: Final = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
#: GitHub code scanning rejects a run holding more results than this.
MAX_RESULTS: Final = 25_000
#: Tags GitHub shows per rule (it rejects more than 20).
MAX_TAGS: Final = 10
#: The code of the notice that ends a report cut to :data:`MAX_RESULTS`.
LEFT_OUT: Final = codes.REPORT_RESULTS_LEFT_OUT
SRCROOT: Final = "%SRCROOT%"

LEFT_OUT_RULE: Final = codes.code_rule(LEFT_OUT)


def _rule(meta: RuleMeta) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": meta.code,
        "name": meta.name,
        "shortDescription": {"text": meta.summary},
    }
    if meta.description:
        out["fullDescription"] = {"text": meta.description}
    out["defaultConfiguration"] = {"level": LEVELS[meta.severity]}
    if meta.help_markdown:
        out["help"] = {"text": plain_text(meta.help_markdown), "markdown": meta.help_markdown}
    if meta.help_uri:
        out["helpUri"] = meta.help_uri
    properties: dict[str, Any] = {}
    if meta.tags:
        properties["tags"] = list(meta.tags[:MAX_TAGS])
    if meta.security_severity is not None:
        properties["security-severity"] = f"{meta.security_severity:.1f}"
    if properties:
        out["properties"] = properties
    return out


def artifact_location(file: str, root: str) -> dict[str, Any]:
    """Where a file is, for SARIF: relative to ``%SRCROOT%`` inside the project, an
    absolute ``file:`` URI outside it."""
    spelt = portable_path(file, root)
    if is_relative(spelt):
        return {"uri": quote(spelt, safe="/"), "uriBaseId": SRCROOT}
    return {"uri": Path(spelt).as_uri()}


def physical_location(source: Source, root: str) -> dict[str, Any]:
    """A file and, when known, the region (line and column) in it."""
    physical: dict[str, Any] = {"artifactLocation": artifact_location(source.file, root)}
    if source.line is not None:
        region: dict[str, Any] = {"startLine": source.line}
        if source.column is not None:
            region["startColumn"] = source.column
        physical["region"] = region
    return physical


def _result(
    finding: Finding, index: dict[str, int], justification: str | None, root: str
) -> dict[str, Any]:
    message = finding.message
    if finding.hint:
        message = f"{message}\nHint: {finding.hint}"
    result: dict[str, Any] = {
        "ruleId": finding.code,
        "level": LEVELS[finding.severity],
        "message": {"text": message},
    }
    if finding.code in index:
        result["ruleIndex"] = index[finding.code]
    source = finding.source
    logical = (
        [{"fullyQualifiedName": f"{finding.tool}{finding.path}", "kind": "member"}]
        if finding.tool is not None
        else None
    )
    if source is not None:
        location: dict[str, Any] = {"physicalLocation": physical_location(source, root)}
        if logical is not None:
            location["logicalLocations"] = logical
        result["locations"] = [location]
    elif logical is not None:  # no file (a live server): the tool and the pointer
        result["locations"] = [{"logicalLocations": logical}]
    result["partialFingerprints"] = {"jsoncontract/v1": fingerprint(finding, root)}
    if finding.baseline is not None:
        result["baselineState"] = finding.baseline._value_
    properties = {
        k: v
        for k, v in (
            ("tool", finding.tool),
            ("jsonPointer", finding.path),
            ("keyword", finding.keyword),
            ("schemaPath", finding.schema_path),
        )
        if v is not None
    }
    if properties:
        result["properties"] = properties
    if justification is not None:
        result["suppressions"] = [{"kind": "external", "justification": justification}]
    return result


def _within_limit(
    entries: list[tuple[Finding, str | None]], limit: int
) -> tuple[list[tuple[Finding, str | None]], list[Finding]]:
    """At most ``limit`` entries: the most severe (reported before suppressed), in their
    order; and the findings left out, most severe first."""
    if len(entries) <= limit:
        return entries, []
    order = sorted(
        range(len(entries)),
        key=lambda i: (entries[i][1] is not None, -entries[i][0].severity.rank, i),
    )
    kept = sorted(order[:limit])
    return [entries[i] for i in kept], [entries[i][0] for i in order[limit:]]


def left_out_message(count: int, limit: int = MAX_RESULTS) -> str:
    """What the notice of a cut report says."""
    noun = "result was" if count == 1 else "results were"
    return (
        f"{count:,} more {noun} left out of this report: GitHub code scanning accepts at "
        f"most {limit:,} results per run, and the most severe were kept. The JSON report "
        "(--format json) lists every finding."
    )


def render_sarif(
    findings: Sequence[Finding],
    rules: Mapping[str, RuleMeta],
    *,
    tool: ToolInfo | None = None,
    suppressed: Sequence[tuple[Finding, str]] = (),
    root: str | Path | None = None,
    command: str | None = None,
    left_out: int = 0,
    max_results: int = MAX_RESULTS,
) -> str:
    """The SARIF 2.1.0 log of ``findings`` (and suppressed findings with their reasons).

    Arguments:
        findings: the findings to report, in order.
        rules: metadata of the rules the driver lists, by code (findings of codes not in
            the table are reported without a ``ruleIndex``).
        tool: the producing program.
        suppressed: findings silenced by configuration, with the stated reason.
        root: the directory files are written relative to (default:
            :func:`~jsoncontract.project.project_root`).
        command: the command that found them: the run's ``automationDetails`` category.
        left_out: findings the caller already dropped to stay within ``max_results``.
        max_results: the most results one run may hold, the notice of a cut included.
    """
    info = tool or ToolInfo()
    base = os.path.abspath(root if root is not None else project_root())  # noqa: PTH100
    entries: list[tuple[Finding, str | None]] = [(f, None) for f in findings]
    entries.extend(suppressed)
    cut = left_out > 0 or len(entries) > max_results  # then one result is the notice
    entries, dropped = _within_limit(entries, max_results - 1 if cut else max_results)
    missing = left_out + len(dropped)
    metas = list(rules.values())
    if missing:
        metas.append(LEFT_OUT_RULE)
    index = {meta.code: i for i, meta in enumerate(metas)}
    results = [_result(f, index, reason, base) for f, reason in entries]
    invocation: dict[str, Any] = {"executionSuccessful": True}
    if missing:
        notice = Finding(LEFT_OUT, Severity.INFO, left_out_message(missing, max_results))
        if dropped and dropped[0].source is not None:  # shown where the first left out is
            notice = Finding(LEFT_OUT, Severity.INFO, notice.message, source=dropped[0].source)
        results.append(_result(notice, index, None, base))
        invocation["toolExecutionNotifications"] = [
            {"level": "note", "message": {"text": notice.message}}
        ]
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": info.name,
                "version": info.version,
                "semanticVersion": info.version,
                "informationUri": info.uri,
                "rules": [_rule(meta) for meta in metas],
            }
        },
    }
    if command is not None:
        run["automationDetails"] = {"id": f"{info.name}/{command.replace(' ', '-')}/"}
    run["originalUriBaseIds"] = {SRCROOT: {"uri": Path(base).as_uri().rstrip("/") + "/"}}
    run["columnKind"] = "unicodeCodePoints"
    run["invocations"] = [invocation]
    run["results"] = results
    log = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
    return orjson.dumps(log, option=orjson.OPT_INDENT_2).decode() + "\n"


def sarif_log(found: FindingSet) -> bytes:
    """The SARIF log of a command's findings, as UTF-8.

    Text UTF-8 cannot hold (lone surrogates from a capture's invalid bytes, in a tool name,
    key or file name) is spelt out as ``\\udXXX`` escapes rather than failing the report.
    """
    options: dict[str, Any] = {
        "root": found.root,
        "command": found.command,
        "left_out": found.left_out,
    }
    try:
        return render_sarif(
            found.findings, found.rules, suppressed=found.suppressed, **options
        ).encode()
    except (orjson.JSONEncodeError, UnicodeEncodeError):
        findings = [printable_finding(f) for f in found.findings]
        suppressed = [(printable_finding(f), printable(reason)) for f, reason in found.suppressed]
        return render_sarif(findings, found.rules, suppressed=suppressed, **options).encode()


__all__ = [
    "LEFT_OUT",
    "LEVELS",
    "MAX_RESULTS",
    "SARIF_SCHEMA",
    "fingerprint",
    "left_out_message",
    "render_sarif",
    "sarif_log",
]
