"""Gemini: ``candidates[].content.parts[].functionCall {id?, name, args}``.

Gemini streams whole parts (each chunk is a complete ``GenerateContentResponse``), so no
reassembly is needed. Both the REST spelling (``functionCall``) and the Python SDK's
(``function_call``) are read. A call without ``args`` means no arguments. Tool definitions
are ``{"functionDeclarations": [{name, description, parameters | parametersJsonSchema}]}``;
``parameters`` and ``response`` are written in the OpenAPI 3.0 subset.
"""

from __future__ import annotations

from typing import Any, Final

from jsoncontract.capture.base import DocContext, envelope, make_call, text
from jsoncontract.capture.interface import Handler, ToolLayout
from jsoncontract.model import ArgumentsForm, Dialect, Finding, Hop, ToolCall

#: Members of a Gemini ``Tool`` that enable a provider-hosted tool (no client-side schema).
HOSTED_TOOLS: Final = frozenset(
    {
        "googleSearch",
        "google_search",
        "googleSearchRetrieval",
        "google_search_retrieval",
        "enterpriseWebSearch",
        "enterprise_web_search",
        "codeExecution",
        "code_execution",
        "urlContext",
        "url_context",
        "retrieval",
        "fileSearch",
        "file_search",
        "googleMaps",
        "google_maps",
        "computerUse",
        "computer_use",
    }
)
_INPUT: Final = ("parametersJsonSchema", "parameters_json_schema", "parameters")


def function_call(
    node: dict[str, Any], ctx: DocContext, out: list[ToolCall], pointer: str = ""
) -> None:
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
            DIALECT,
            tool=name,
            call_id=node.get("id"),
            arguments=arguments,
            form=ArgumentsForm.VALUE,
            node=pointer,
            args=args,
            findings=findings,
        )
    )


def part(node: dict[str, Any], ctx: DocContext, out: list[ToolCall], pointer: str = "") -> None:
    """A content part; only ``functionCall`` parts hold calls."""
    for member in ("functionCall", "function_call"):
        call = node.get(member)
        if isinstance(call, dict):
            function_call(call, ctx, out, f"{pointer}/{member}")


def content(node: dict[str, Any], ctx: DocContext, out: list[ToolCall], pointer: str = "") -> None:
    """A ``Content`` object: ``{role, parts}``."""
    parts = node.get("parts")
    if isinstance(parts, list):
        for i, item in enumerate(parts):
            if isinstance(item, dict):
                part(item, ctx, out, f"{pointer}/parts/{i}")


def response(node: dict[str, Any], ctx: DocContext, out: list[ToolCall], pointer: str = "") -> None:
    """A ``GenerateContentResponse`` (or one streamed chunk of it)."""
    candidates = node.get("candidates")
    if not isinstance(candidates, list):
        return
    for i, candidate in enumerate(candidates):
        if isinstance(candidate, dict) and isinstance(candidate.get("content"), dict):
            content(candidate["content"], ctx, out, f"{pointer}/candidates/{i}/content")


def _is_tool(entry: dict[str, Any]) -> bool:
    return any(member in entry for member in _INPUT)


class Gemini:
    """The Gemini dialect (``generateContent`` and its SDKs)."""

    name: Final = Dialect.GEMINI
    hop: Final = Hop.MODEL
    mark: Final = "candidates"
    tools: Final = ToolLayout(
        _is_tool,
        input=tuple("/" + member for member in _INPUT),
        # ``output_schema`` is the convention some catalogs add to every dialect
        output=("/output_schema", "/responseJsonSchema", "/response_json_schema", "/response"),
        openapi=frozenset({"/parameters", "/response"}),
        input_required=False,
        lists=("functionDeclarations", "function_declarations"),
        hosted=HOSTED_TOOLS,
    )

    def new_state(self) -> None:
        """Gemini streams whole parts: nothing to remember."""

    def whole(self, value: dict[str, Any], state: None) -> Handler | None:
        """A whole ``GenerateContentResponse`` (or one streamed chunk of it)."""
        return response if isinstance(value["candidates"], list) else None

    def part(self, value: dict[str, Any], state: None) -> Handler | None:
        """A ``Content``, a part, or a bare function call."""
        if isinstance(value.get("parts"), list):
            return content
        # the SDK's function_call (no "arguments": that is OpenAI's legacy member)
        call = value.get("function_call")
        if isinstance(value.get("functionCall"), dict) or (
            isinstance(call, dict) and "arguments" not in call
        ):
            return part
        if isinstance(value.get("name"), str) and "args" in value:
            return function_call
        return None


DIALECT: Final = Gemini()
