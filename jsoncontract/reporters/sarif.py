"""SARIF 2.1.0: findings for code-scanning dashboards (GitHub, GitLab, Azure DevOps).

One run; the driver lists every rule given (id, name, short and full description, help in
text and Markdown, help URI, default level, tags, and ``security-severity`` for security
rules). Each result carries its rule, level, message, file/line/column region, a logical
location (tool and JSON Pointer), and a partial fingerprint built from code, file, tool and
pointer, so a dashboard keeps tracking a finding when lines move. Suppressed findings are
included with their justification, which is how SARIF consumers expect suppressions.

:func:`sarif_log` renders a command's :class:`~jsoncontract.reporters.findings.FindingSet`,
whatever text its findings quote.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import orjson

from jsoncontract._json import printable
from jsoncontract.model import Finding, Severity
from jsoncontract.reporters.findings import (
    FindingSet,
    RuleMeta,
    ToolInfo,
    fingerprint,
    portable_path,
    printable_finding,
)

SARIF_SCHEMA: Final = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS: Final = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _rule(meta: RuleMeta) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": meta.code,
        "name": meta.name,
        "shortDescription": {"text": meta.summary},
        "fullDescription": {"text": meta.summary},
        "defaultConfiguration": {"level": LEVELS[meta.severity]},
    }
    if meta.help_markdown:
        out["help"] = {"text": meta.help_markdown, "markdown": meta.help_markdown}
    if meta.help_uri:
        out["helpUri"] = meta.help_uri
    properties: dict[str, Any] = {}
    if meta.tags:
        properties["tags"] = list(meta.tags)
    if meta.security_severity is not None:
        properties["security-severity"] = f"{meta.security_severity:.1f}"
    if properties:
        out["properties"] = properties
    return out


def _result(finding: Finding, index: dict[str, int], justification: str | None) -> dict[str, Any]:
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
    if source is not None:
        physical: dict[str, Any] = {
            "artifactLocation": {"uri": portable_path(source.file), "uriBaseId": "%SRCROOT%"}
        }
        if source.line is not None:
            region: dict[str, Any] = {"startLine": source.line}
            if source.column is not None:
                region["startColumn"] = source.column
            physical["region"] = region
        location: dict[str, Any] = {"physicalLocation": physical}
        if finding.tool is not None:
            location["logicalLocations"] = [
                {"fullyQualifiedName": f"{finding.tool}{finding.path}", "kind": "member"}
            ]
        result["locations"] = [location]
    elif finding.tool is not None:  # no file (a live server): the tool and the pointer
        result["locations"] = [
            {
                "logicalLocations": [
                    {"fullyQualifiedName": f"{finding.tool}{finding.path}", "kind": "member"}
                ]
            }
        ]
    result["partialFingerprints"] = {"jsoncontract/v1": fingerprint(finding)}
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


def render_sarif(
    findings: Sequence[Finding],
    rules: Mapping[str, RuleMeta],
    *,
    tool: ToolInfo | None = None,
    suppressed: Sequence[tuple[Finding, str]] = (),
) -> str:
    """The SARIF 2.1.0 log of ``findings`` (and suppressed findings with their reasons).

    Arguments:
        findings: the findings to report, in order.
        rules: metadata of the rules the driver lists, by code (findings of codes not in
            the table are reported without a ``ruleIndex``).
        tool: the producing program.
        suppressed: findings silenced by configuration, with the stated reason.
    """
    info = tool or ToolInfo()
    metas = list(rules.values())
    index = {meta.code: i for i, meta in enumerate(metas)}
    results = [_result(f, index, None) for f in findings]
    results.extend(_result(f, index, reason) for f, reason in suppressed)
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": info.name,
                        "version": info.version,
                        "semanticVersion": info.version,
                        "informationUri": info.uri,
                        "rules": [_rule(meta) for meta in metas],
                    }
                },
                "columnKind": "unicodeCodePoints",
                "invocations": [{"executionSuccessful": True}],
                "results": results,
            }
        ],
    }
    return orjson.dumps(log, option=orjson.OPT_INDENT_2).decode() + "\n"


def sarif_log(found: FindingSet) -> bytes:
    """The SARIF log of a command's findings, as UTF-8.

    Text UTF-8 cannot hold (lone surrogates from a capture's invalid bytes, in a tool name,
    key or file name) is spelt out as ``\\udXXX`` escapes rather than failing the report.
    """
    try:
        return render_sarif(found.findings, found.rules, suppressed=found.suppressed).encode()
    except (orjson.JSONEncodeError, UnicodeEncodeError):
        findings = [printable_finding(f) for f in found.findings]
        suppressed = [(printable_finding(f), printable(reason)) for f, reason in found.suppressed]
        return render_sarif(findings, found.rules, suppressed=suppressed).encode()


__all__ = ["LEVELS", "SARIF_SCHEMA", "fingerprint", "render_sarif", "sarif_log"]
