"""Gemini captures: ``candidates[].content.parts[].functionCall {id?, name, args}``.

Gemini streams whole parts (each chunk is a complete ``GenerateContentResponse``), so no
reassembly is needed. Both the REST spelling (``functionCall``) and the Python SDK's
(``function_call``) are read. A call without ``args`` means no arguments.
"""

from __future__ import annotations

from typing import Any

from jsoncontract.capture.base import DocContext, envelope, make_call, text
from jsoncontract.model import ArgumentsForm, Dialect, Finding, ToolCall

_GEMINI = Dialect.GEMINI


def function_call(node: dict[str, Any], ctx: DocContext, pointer: str, out: list[ToolCall]) -> None:
    """One ``functionCall`` object."""
    findings: list[Finding] = []
    name = text(node, "name")
    if not name:
        findings.append(envelope("envelope.malformed", "the functionCall has no name"))
    if "args" in node:
        arguments: Any = node["args"]
        args: str | None = pointer + "/args"
    else:
        arguments, args = {}, None
    out.append(
        make_call(
            ctx,
            _GEMINI,
            tool=name,
            call_id=node.get("id"),
            arguments=arguments,
            form=ArgumentsForm.VALUE,
            node=pointer,
            args=args,
            findings=findings,
        )
    )


def part(node: dict[str, Any], ctx: DocContext, pointer: str, out: list[ToolCall]) -> None:
    """A content part; only ``functionCall`` parts hold calls."""
    for key in ("functionCall", "function_call"):
        call = node.get(key)
        if isinstance(call, dict):
            function_call(call, ctx, f"{pointer}/{key}", out)


def content(node: dict[str, Any], ctx: DocContext, out: list[ToolCall], pointer: str = "") -> None:
    """A ``Content`` object: ``{role, parts}``."""
    parts = node.get("parts")
    if isinstance(parts, list):
        for i, item in enumerate(parts):
            if isinstance(item, dict):
                part(item, ctx, f"{pointer}/parts/{i}", out)


def response(node: dict[str, Any], ctx: DocContext, out: list[ToolCall]) -> None:
    """A ``GenerateContentResponse`` (or one streamed chunk of it)."""
    candidates = node.get("candidates")
    if not isinstance(candidates, list):
        return
    for i, candidate in enumerate(candidates):
        if isinstance(candidate, dict) and isinstance(candidate.get("content"), dict):
            content(candidate["content"], ctx, out, f"/candidates/{i}/content")
