"""Reports of ``jsoncontract mcp``: a server's tool list, and probe scorecards.

Every report starts by naming the server, its transport and the protocol version that was
negotiated (and how). Probe reports come in the formats of every other command: text
(a scorecard per server), json, junit (a suite per tool, a case per call), sarif and
github (a finding per result, located at the server and tool, since there is no file).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, Never

import orjson

from jsoncontract.masking import masked, masked_value
from jsoncontract.model import Severity
from jsoncontract.reporters.interface import Reporter
from jsoncontract.reporters.text import SEVERITY_STYLE, LineWriter, Segment, plural

if TYPE_CHECKING:
    from jsoncontract.live.probe.model import ProbeReport, ServerProbe, ToolProbe
    from jsoncontract.live.server import ServerSpec
    from jsoncontract.live.tools import ToolListing
    from jsoncontract.live.wire import Negotiated
    from jsoncontract.settings import ReportOptions

_RANK: Final = {"error": 2, "warning": 1, "info": 0, "never": 3}


def server_line(spec: ServerSpec, negotiated: Negotiated | None) -> list[Segment]:
    """``workbench 0.9.0 · MCP 2026-07-28 (server/discover) · stdio: python server.py``."""
    out: list[Segment] = []
    info = negotiated.server_info if negotiated is not None else None
    name = spec.name or (info.get("name") if info and isinstance(info.get("name"), str) else None)
    out.append((str(name or spec.label), "bold"))
    if info and isinstance(info.get("version"), str):
        out.append((f" {info['version']}", "bold"))
    if negotiated is not None:
        out.append((" · ", "dim"))
        out.append((negotiated.describe(), "cyan"))
    out.append((" · ", "dim"))
    out.append((spec.describe(), "dim"))
    return out


# -- mcp tools -------------------------------------------------------------------------------


class TextToolsReporter(Reporter[Never, "ToolListing"]):
    """The tool list for people: name, safety, description, then the arguments."""

    def close(self, listing: ToolListing) -> None:
        """Write the server line, the count, and a row (or two) per usable tool."""
        _write_tools_text(listing, LineWriter(self.stream, self.options.color, self.options.width))


def _write_tools_text(listing: ToolListing, out: LineWriter) -> None:
    count = len(listing.tools)
    pages = f"{listing.pages} page{'s' if listing.pages != 1 else ''}"
    lines: list[list[Segment]] = [
        server_line(listing.server, listing.negotiated),
        [(f"{count} tool{'s' if count != 1 else ''} ({pages}, {_ms(listing.seconds)})", "")],
        [],
    ]
    usable = listing.usable()
    width = max((len(str(t.get("name", ""))) for t in usable), default=4)
    for tool in usable:
        lines.append(
            [
                ("  ", ""),
                (f"{tool['name']:<{width}}", "bold magenta"),
                ("  ", ""),
                (f"{_safety(tool):<11}", _SAFETY_STYLE.get(_safety(tool), "")),
                ("  ", ""),
                (_first_line(tool.get("description")), ""),
            ]
        )
        arguments = masked(argument_summary(tool.get("inputSchema")))
        if arguments:
            lines.append([("  " + " " * (width + 15), ""), (arguments, "dim")])
    out.write(lines)
    out.close()


_SAFETY_STYLE: Final = {"read-only": "green", "destructive": "red", "writes": "yellow"}


def _safety(tool: dict[str, Any]) -> str:
    annotations = tool.get("annotations")
    if not isinstance(annotations, dict):
        return "unannotated"
    if annotations.get("readOnlyHint") is True:
        return "read-only"
    if annotations.get("destructiveHint") is False:
        return "writes"
    return "destructive"


def _first_line(text: Any) -> str:
    if not isinstance(text, str) or not text.strip():
        return "(no description)"
    first = masked(text.strip().splitlines()[0])
    return first if len(first) <= 80 else first[:77] + "..."


def argument_summary(schema: Any) -> str:
    """``order_id: string*, limit: integer`` (``*``: required; enums listed when short)."""
    if not isinstance(schema, dict):
        return ""
    properties = schema.get("properties")
    if not isinstance(properties, dict) or not properties:
        return "(no arguments)" if schema.get("additionalProperties") is False else ""
    listed = schema.get("required")
    required: list[Any] = listed if isinstance(listed, list) else []
    parts = []
    for name, node in properties.items():
        star = "*" if name in required else ""
        parts.append(f"{name}: {_type_of(node)}{star}")
    return ", ".join(parts)


def _type_of(node: Any) -> str:
    if not isinstance(node, dict):
        return "any"
    enum = node.get("enum")
    if isinstance(enum, list) and 0 < len(enum) <= 5:
        return " | ".join(orjson.dumps(v).decode() for v in enum)
    kind = node.get("type")
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind)
    if isinstance(kind, str):
        if kind == "array" and isinstance(node.get("items"), dict):
            return f"{_type_of(node['items'])}[]"
        return kind
    for key in ("anyOf", "oneOf"):
        if isinstance(node.get(key), list):
            return " | ".join(_type_of(branch) for branch in node[key])
    return "any"


def _ms(seconds: float | None) -> str:
    if seconds is None:
        return ""
    return f"{seconds * 1000:.0f} ms" if seconds >= 0.0095 else f"{seconds * 1000:.1f} ms"


class JsonToolsReporter(Reporter[Never, "ToolListing"]):
    """The ``tools/list`` result (every page), indented for review and diffs."""

    def close(self, listing: ToolListing) -> None:
        """Write the result object."""
        self.stream.write(orjson.dumps(listing.result(), option=orjson.OPT_INDENT_2) + b"\n")


# -- mcp probe -------------------------------------------------------------------------------


class TextProbeReporter(Reporter[Never, "ProbeReport"]):
    """A scorecard per server: protocol checks, a row per tool, the findings, the verdict."""

    def close(self, report: ProbeReport) -> None:
        """Write every server's scorecard."""
        out = LineWriter(self.stream, self.options.color, self.options.width)
        for index, card in enumerate(report.servers):
            if index:
                out.write([[]])
            out.write(_card_lines(card, self.options))
        out.close()


def _card_lines(card: ServerProbe, options: ReportOptions) -> list[list[Segment]]:
    lines: list[list[Segment]] = [server_line(card.server, card.negotiated)]
    if card.error is not None:
        lines.append([("  could not probe: ", "bold red"), (card.error, "")])
        return lines
    quiet = options.quiet
    if not quiet and card.client is not None:
        lines.append(_client_line(card.client))
    if not quiet:
        lines.append([("protocol", "bold")])
        width = max(len(c.name) for c in card.protocol) if card.protocol else 8
        for check in card.protocol:
            status = _STATUS[check.ok]
            lines.append(
                [
                    ("  ", ""),
                    status,
                    (f" {check.name:<{width}}  ", ""),
                    (check.detail, ""),
                    (f"  {_ms(check.seconds)}" if check.seconds is not None else "", "dim"),
                ]
            )
        lines.extend(_tool_table(card))
        lines.extend(_extra_lines(card))
        if card.dry_run:
            lines.extend(_plan_lines(card))
    findings = card.all_findings()
    if findings and not quiet:
        lines.append([("findings", "bold")])
        for finding in findings:
            lines.extend(probe_finding_lines(finding))
    lines.append(_verdict(card))
    return lines


def _client_line(client: dict[str, Any]) -> list[Segment]:
    """``client  declares roots, sampling, elicitation; served roots/list 1``."""
    declared = ", ".join(client.get("declared") or ()) or "no capability"
    text = f"declares {declared}"
    roots = client.get("roots") or []
    if "roots" in (client.get("declared") or ()):
        text += f" ({len(roots)} root{'s' if len(roots) != 1 else ''})"
    served = client.get("served") or {}
    if served:
        text += "; served " + ", ".join(f"{m} {n}" for m, n in served.items())
    return [("client ", "bold"), (text, "dim")]


def _extra_lines(card: ServerProbe) -> list[list[Segment]]:
    if not card.extras:
        return []
    lines: list[list[Segment]] = [[("resources and prompts", "bold")]]
    lines.extend(
        [
            ("  ", ""),
            _STATUS[extra.ok],
            (f" {extra.method} ", ""),
            (masked(extra.target), "magenta"),
            ("  ", ""),
            (extra.detail, ""),
            (f"  {_ms(extra.seconds)}" if extra.seconds is not None else "", "dim"),
        ]
        for extra in card.extras
    )
    return lines


def probe_finding_lines(finding: Any) -> list[list[Segment]]:
    """``  error   probe.coerced get_stock: string-for-number:/quantity: accepted ...`` and
    the hint (the case name in the message says where; the tool says which)."""
    severity = finding.severity
    line: list[Segment] = [
        ("  ", ""),
        (f"{severity.value:<7}", SEVERITY_STYLE[severity]),
        (" ", ""),
        (finding.code, "bold"),
        (" ", ""),
    ]
    if finding.tool:
        line.append((finding.tool, "magenta"))
        line.append((": ", ""))
    line.append((finding.message, ""))
    lines = [line]
    if finding.hint:
        lines.append([(" " * 10, ""), ("hint: ", "dim"), (finding.hint, "dim")])
    return lines


_STATUS: Final[dict[bool | None, Segment]] = {
    True: ("ok  ", "green"),
    False: ("FAIL", "bold red"),
    None: ("--  ", "dim"),
}
_COLUMNS: Final = (
    ("accepted", "accepted"),
    ("isError", "tool-error"),
    ("JSON-RPC", "protocol-error"),
    ("timeout", "timeout"),
    ("crashed", "crashed"),
)


def _tool_table(card: ServerProbe) -> list[list[Segment]]:
    if not card.tools:
        return [[("tools: none to probe", "bold")]]
    width = max(max(len(t.name) for t in card.tools), 5)
    head = f"{'tools':<{width + 2}}  {'calls':>5}" + "".join(f"  {c:>8}" for c, _ in _COLUMNS)
    lines: list[list[Segment]] = [[(head + f"  {'p50':>9}", "bold")]]
    for tool in card.tools:
        if tool.skipped is not None:
            lines.append(
                [(f"  {tool.name:<{width}}  ", "magenta"), (f"not called: {tool.skipped}", "dim")]
            )
            continue
        counts = tool.counts()
        latency = tool.latency()
        row: list[Segment] = [
            (f"  {tool.name:<{width}}", "magenta"),
            (f"  {len(tool.sent):>5}", ""),
        ]
        for _, key in _COLUMNS:
            value = counts.get(key, 0)
            row.append(
                (f"  {value:>8}", "" if not value or key in ("tool-error", "accepted") else "red")
            )
        median = f"{latency['p50']} ms" if latency else "-"
        row.append((f"  {median:>9}", "dim"))
        bad = sum(1 for r in tool.results if not r.ok and r.not_sent is None)
        if bad:
            row.append((f"  {bad} with findings", "red"))
        if tool.inconclusive:
            row.append(("  inconclusive: no valid call was accepted", "yellow"))
        lines.append(row)
    return lines


def _plan_lines(card: ServerProbe) -> list[list[Segment]]:
    if not any(tool.results for tool in card.tools):
        return []
    lines: list[list[Segment]] = [[("would call (dry run; nothing was sent)", "bold")]]
    for tool in card.tools:
        for result in tool.results:
            request = result.case.request()
            request["arguments"] = masked_value(request["arguments"])
            params = orjson.dumps(request).decode()
            lines.append([("  tools/call ", "dim"), (params, "")])
            if result.case.sources:
                sources = ", ".join(f"{p} {s}" for p, s in result.case.sources.items())
                lines.append([("    values: ", "dim"), (sources, "dim")])
    return lines


def _verdict(card: ServerProbe) -> list[Segment]:
    summary = card.summary()
    answers = summary["answers"]
    sev = summary["by_severity"]
    if card.dry_run:
        planned = sum(len(t.results) for t in card.tools)
        parts = [
            f"dry run: would call {summary['tools_called']} of {summary['tools']} tools",
            f"{planned} calls; nothing was sent",
        ]
    else:
        parts = [
            f"{summary['tools_called']} of {summary['tools']} tools called",
            f"{summary['calls']} calls",
        ]
    details = []
    if summary["accepted_invalid"]:
        details.append(f"{summary['accepted_invalid']} invalid accepted")
    if summary["coerced"]:
        details.append(f"{summary['coerced']} coerced")
    if answers.get("timeout"):
        details.append(f"{answers['timeout']} timed out")
    if answers.get("crashed"):
        details.append(f"{answers['crashed']} crashed")
    if summary["tools_inconclusive"]:
        details.append(f"{summary['tools_inconclusive']} inconclusive")
    checks = summary["protocol_checks"]
    text = ", ".join(parts)
    if details:
        text += " (" + ", ".join(details) + ")"
    text += f"; protocol checks {checks['passed']} passed, {checks['failed']} failed"
    text += f"; {plural(sev['error'], 'error')}, {plural(sev['warning'], 'warning')}"
    style = "bold red" if sev["error"] else "bold yellow" if sev["warning"] else "bold green"
    return [("scorecard: ", "bold"), (text, style)]


class JsonProbeReporter(Reporter[Never, "ProbeReport"]):
    """``{"version": 1, "summary": {...}, "servers": [...]}``."""

    def close(self, report: ProbeReport) -> None:
        """Write the report object."""
        self.stream.write(orjson.dumps(report.to_dict(), option=orjson.OPT_APPEND_NEWLINE))


class SarifProbeReporter(Reporter[Never, "ProbeReport"]):
    """SARIF 2.1.0: a result per finding, its logical location the tool and pointer."""

    def close(self, report: ProbeReport) -> None:
        """Write the SARIF log."""
        from jsoncontract.live.codes import rule_metas
        from jsoncontract.reporters.findings import FindingSet
        from jsoncontract.reporters.sarif import sarif_log

        findings = [_unfiled(f) for f in report.all_findings()]
        used = {f.code for f in findings}
        metas = {c: m for c, m in rule_metas().items() if c in used}
        command = self.options.command or "mcp probe"
        found = FindingSet(findings, metas, root=self.options.root, command=command)
        self.stream.write(sarif_log(found))


def _unfiled(finding: Any) -> Any:
    """A finding without a file location (a server is not a file in the repository)."""
    from dataclasses import replace

    return replace(finding, source=None)


class GithubProbeReporter(Reporter[Never, "ProbeReport"]):
    """Workflow annotations (no file: they show on the run), then a plain summary line."""

    def close(self, report: ProbeReport) -> None:
        """Write an annotation per finding, one per server that could not be probed."""
        from dataclasses import replace

        from jsoncontract.live.codes import CODES
        from jsoncontract.reporters.github import annotations_from_findings, render_github

        names = {code: name for code, (name, _, _) in CODES.items()}
        stream = self.stream
        for card in report.servers:
            findings = [_unfiled(f) for f in card.all_findings()]
            annotations = [
                replace(a, message=f"{card.label}: {a.message}")
                for a in annotations_from_findings(findings, names)
            ]
            stream.write(render_github(annotations).encode("utf-8", "backslashreplace"))
            if card.error is not None:
                stream.write(render_github([_error_annotation(card)]).encode())
        stream.write(_summary_line(report).encode())


def _error_annotation(card: ServerProbe) -> Any:
    from jsoncontract.reporters.github import Annotation

    return Annotation("error", f"{card.label}: could not probe: {card.error}", title="mcp probe")


def _summary_line(report: ProbeReport) -> str:
    findings = report.all_findings()
    errors = sum(1 for f in findings if f.severity is Severity.ERROR)
    warnings = sum(1 for f in findings if f.severity is Severity.WARNING)
    servers = len(report.servers)
    return (
        f"jsoncontract mcp probe: {servers} server{'s' if servers != 1 else ''}, "
        f"{errors} error{'s' if errors != 1 else ''}, "
        f"{warnings} warning{'s' if warnings != 1 else ''}\n"
    )


class JUnitProbeReporter(Reporter[Never, "ProbeReport"]):
    """JUnit XML: per server, a suite for the protocol checks and one per tool; a case per
    check and per call, failing when it has a finding at or above ``--fail-on``."""

    def close(self, report: ProbeReport) -> None:
        """Write the XML."""
        self.stream.write(_junit(report, self.options.fail_on).encode())


def _junit(report: ProbeReport, fail_on: str) -> str:
    from jsoncontract.reporters.junit import JUnitCase, JUnitFailure, JUnitSuite, render_junit

    threshold = _RANK.get(fail_on, 2)
    suites: list[JUnitSuite] = []

    def failure(findings: list[Any]) -> JUnitFailure | None:
        failing = [f for f in findings if f.severity.rank >= threshold]
        if not failing:
            return None
        first = failing[0]
        text = "\n".join(
            f"{f.severity.value} {f.code}: {f.message}" + (f"\nhint: {f.hint}" if f.hint else "")
            for f in failing
        )
        return JUnitFailure(first.message, f"{first.code} {first.severity.value}", text)

    for card in report.servers:
        if card.error is not None:
            suites.append(
                JUnitSuite(
                    card.label,
                    [
                        JUnitCase(
                            "connect",
                            card.label,
                            failure=JUnitFailure(card.error, "mcp.unreachable error", card.error),
                        )
                    ],
                )
            )
            continue
        protocol = JUnitSuite(f"{card.label}: protocol")
        for check in card.protocol:
            case = JUnitCase(
                check.name,
                f"{card.label}.protocol",
                failure=failure(check.findings),
                skipped="does not apply" if check.ok is None else None,
                time=check.seconds or 0.0,
                system_out=check.detail,
            )
            protocol.cases.append(case)
        protocol.cases.append(
            JUnitCase("server", f"{card.label}.protocol", failure=failure(card.findings))
        )
        suites.append(protocol)
        suites.extend(_tool_suite(card.label, tool, failure) for tool in card.tools)
    return render_junit(suites, name="jsoncontract mcp probe")


def _tool_suite(label: str, tool: ToolProbe, failure: Callable[[list[Any]], Any]) -> Any:
    from jsoncontract.reporters.junit import JUnitCase, JUnitSuite

    suite = JUnitSuite(f"{label}: {tool.name}")
    classname = f"{label}.{tool.name}"
    if tool.skipped is not None:
        suite.cases.append(JUnitCase(tool.name, classname, skipped=tool.skipped))
        return suite
    if tool.findings:
        suite.cases.append(JUnitCase(tool.name, classname, failure=failure(tool.findings)))
    for result in tool.results:
        answer = result.answer.phrase(result.code) if result.answer is not None else ""
        suite.cases.append(
            JUnitCase(
                result.case.name,
                classname,
                failure=failure(result.findings),
                skipped=result.not_sent,
                time=result.seconds or 0.0,
                system_out=f"{answer}: {result.said}" if result.said else answer or None,
            )
        )
        suite.time += result.seconds or 0.0
    return suite
