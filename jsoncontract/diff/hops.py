"""Reading hop files, and looking at each hop as that hop sees its payload.

Each hop goes through its own gates, exactly as ``check`` runs them: the envelope (from
reading the capture), the parse gate (the model's ``arguments`` text is parsed first), then
the hop's own schema: the tool's input schema for the model and MCP hops, the downstream
contract for the downstream body. When the parse gate fails, what can still be compared
is kept (the JSON string MCP received instead of an object, the value behind a duplicate
key), so the diff can still say what else changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jsoncontract._files import expand
from jsoncontract._json import NotJSON, load
from jsoncontract.capture.reader import CAPTURE_SUFFIXES, CaptureReader
from jsoncontract.diff.model import HopView
from jsoncontract.errors import InputError, UsageError
from jsoncontract.model import ArgumentsForm, Dialect, Finding, Hop, Severity, ToolCall, locate
from jsoncontract.pipeline.envelope import unknown_tool
from jsoncontract.pipeline.parse import parse_arguments
from jsoncontract.pipeline.schema import schema_findings
from jsoncontract.pointer import ABSENT

if TYPE_CHECKING:
    from jsoncontract.diff.downstream import DownstreamSchemas
    from jsoncontract.tools.toolset import ToolSet

_ERROR = Severity.ERROR


def read_hop_files(
    paths: Sequence[str | Path], *, tool: str | None = None, dialect: Dialect | None = None
) -> list[ToolCall]:
    """Every call in the hop files, in file order.

    A bare JSON body (in no capture dialect) is read as the downstream hop of the tool the
    other files name, so ``model.json mcp.json body.json`` needs no ``--tool``.

    Raises:
        InputError: a file is missing, not JSON, in no known dialect (when the tool
            cannot be told), or holds no tool call.
        UsageError: fewer than two or more than three hop files.
    """
    if not 2 <= len(paths) <= 3:
        raise UsageError(
            f"diff takes two or three hop files (model, mcp, downstream), not {len(paths)}; "
            "for a whole trace use --trace FILE.jsonl"
        )
    for path in paths:
        if Path(path).is_dir():
            raise InputError("is a directory; name one capture file per hop", file=str(path))
        if str(path) != "-":
            expand([path], CAPTURE_SUFFIXES, what="hop")  # a missing file: said plainly
    found: dict[int, list[ToolCall]] = {}
    failed: dict[int, InputError] = {}
    for index, path in enumerate(paths):
        try:
            found[index] = list(CaptureReader(tool=tool, dialect=dialect).read_file(path))
        except InputError as exc:
            failed[index] = exc
    # bodies that do not name their tool, and documents no dialect read (a body may look
    # like a provider's message): read again as bodies of the tool the others call
    nameless = [
        i
        for i, calls in found.items()
        if any(c.hop is Hop.DOWNSTREAM and not c.tool for c in calls)
        or (calls and all(c.hop is None for c in calls))
    ]
    if (failed or nameless) and tool is None:
        names = {c.tool for calls in found.values() for c in calls if c.tool}
        if len(names) == 1:
            guess = names.pop()
            for index in sorted([*failed, *nameless]):
                try:
                    calls = list(CaptureReader(tool=guess, dialect=dialect).read_file(paths[index]))
                except InputError:
                    continue
                found[index] = calls
                failed.pop(index, None)
    if failed:
        raise failed[min(failed)]
    out: list[ToolCall] = []
    for index, path in enumerate(paths):
        calls = [c for c in found[index] if c.hop is not None]
        if not calls:
            problem = next((f for c in found[index] for f in c.load_findings), None)
            why = f" ({problem.message})" if problem is not None else ""
            raise InputError(
                f"holds no tool call{why}; give the capture of one call per hop",
                file=str(path),
            )
        out.extend(calls)
    return out


def evaluate(
    call: ToolCall,
    *,
    tools: ToolSet | None,
    downstream: DownstreamSchemas | None,
    show_values: bool,
) -> HopView:
    """Run the hop's own gates and decide what of it can be compared."""
    hop = call.hop or Hop.DOWNSTREAM
    view = HopView(hop, call)
    findings: list[Finding] = list(call.load_findings) if call.load_findings else []
    if (
        findings
        and call.form is ArgumentsForm.MISSING
        and any(f.severity is _ERROR for f in findings)
    ):
        view.findings = locate(findings, call)
        return view
    name = call.tool
    schema = None
    if hop is Hop.DOWNSTREAM:
        if downstream is not None:
            schema = downstream.get(name)
    elif tools is not None:
        if name is not None and name in tools:
            schema = tools.schema(name)
        elif name is not None:
            findings.append(unknown_tool(name, tools))
    parsed = parse_arguments(call, require_object=hop is not Hop.DOWNSTREAM)
    if parsed.findings:
        findings.extend(parsed.findings)
    if parsed.ok:
        view.value = parsed.value
        view.parsed = True
        if schema is not None:
            if schema.is_valid(parsed.value):
                view.valid = True
            else:
                findings.extend(schema_findings(schema, parsed.value, show_values=show_values))
                view.valid = False
    else:
        view.value = _salvage(call, parsed.value)
    if schema is not None:
        view.schema = schema.label
    view.findings = locate(findings, call) if findings else findings
    return view


def _salvage(call: ToolCall, value: Any) -> Any:
    """What a hop that failed its parse gate still lets us compare."""
    if value is not None:
        return value  # parsed, but with an anomaly (a duplicate key, a huge integer)
    raw = call.arguments
    if call.form is ArgumentsForm.VALUE or call.form is ArgumentsForm.DECODED:
        return raw  # a string or an array where an object belongs: compared as it is
    if call.form is ArgumentsForm.TEXT and isinstance(raw, str):
        try:
            decoded, _ = load(raw)
        except NotJSON:
            return ABSENT
        return decoded
    return ABSENT
