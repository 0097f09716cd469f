"""Tool and parameter names: unique, and in the alphabet each target accepts."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Final

from jsoncontract.lint.profiles import ANTHROPIC, ANTHROPIC_STRICT, GEMINI, MCP, OPENAI_STRICT
from jsoncontract.lint.rule import ALL, Family, FileRule, Issue, NodeRule, ToolRule, by_profile
from jsoncontract.model import Severity

if TYPE_CHECKING:
    from jsoncontract.lint.context import FileCtx, Node, ToolCtx

E, W = Severity.ERROR, Severity.WARNING
OPENAI_NAME: Final = re.compile(r"[a-zA-Z0-9_-]{1,64}")
GEMINI_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]{0,127}")
GEMINI_PARAMETER: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
MCP_NAME: Final = re.compile(r"[A-Za-z0-9_.-]{1,128}")
_OUTSIDE_OPENAI: Final = re.compile(r"[^a-zA-Z0-9_-]")


def _bad_characters(name: str, allowed: re.Pattern[str]) -> str:
    chars = sorted({c for c in name if not allowed.fullmatch(c)})
    return ", ".join(repr(c) for c in chars)


class ToolNameDuplicate(FileRule):
    """## What it does
    Finds two tools with the same name in one tool list (one file).

    ## Why is this bad?
    Anthropic rejects the request ("Tool names must be unique"); MCP says names SHOULD be
    unique within a server; OpenAI and Gemini pick one of the two at random from the model's
    point of view. The call the model makes goes to whichever definition the host kept.

    ## Example
    ```json
    {"tools": [{"name": "search", "input_schema": {"type": "object"}},
               {"name": "search", "input_schema": {"type": "object"}}]}
    ```

    ## Use instead
    Give each tool its own name (`search_orders`, `search_invoices`).

    ## References
    - Anthropic Messages API error `tools: Tool names must be unique` (observed)
    - MCP specification 2025-11-25, "Tool names" (unique within a server)
    """

    code = "JC005"
    name = "tool-name-duplicate"
    family = Family.NAMES
    summary = "Two tools in one list have the same name"
    profiles = by_profile({ALL: E})

    def check(self, file: FileCtx, active: frozenset[str]) -> Iterator[Issue]:
        first: dict[str, ToolCtx] = {}
        for tool in file.tools:
            seen = first.get(tool.name)
            if seen is None:
                first[tool.name] = tool
                continue
            line = seen.contract.source.line
            yield Issue(
                f"tool name {tool.name!r} is already used by the tool at line {line}",
                tool.member("name"),
                hint="rename one of them; a host keeps only one",
                tool=tool,
            )


class ToolNameInvalidForOpenAIAnthropic(ToolRule):
    """## What it does
    Checks tool names against `^[a-zA-Z0-9_-]{1,64}$`, the pattern OpenAI and Anthropic
    enforce: letters, digits, `_` and `-`, at most 64 characters.

    ## Why is this bad?
    One bad name fails the whole request, not just that tool: OpenAI answers
    `Invalid 'tools[0].function.name': string does not match pattern`. MCP allows `.` and
    (per SEP-986) `/` in names and up to 128 characters, so a server named
    `github.get_me` works in an MCP inspector and breaks every OpenAI call once a host
    forwards it. It is an error under the OpenAI and Anthropic profiles and a portability
    warning elsewhere.

    ## Example
    ```json
    {"name": "orders.create", "inputSchema": {"type": "object"}}
    ```

    ## Use instead
    ```json
    {"name": "orders_create", "inputSchema": {"type": "object"}}
    ```

    ## References
    - OpenAI Python SDK, `FunctionDefinition.name` ("a-z, A-Z, 0-9, underscores and dashes,
      maximum length of 64")
    - Anthropic tool use docs (`^[a-zA-Z0-9_-]{1,64}$`)
    - MCP specification 2025-11-25, "Tool names"
    """

    code = "JC010"
    name = "tool-name-invalid-for-openai-anthropic"
    family = Family.NAMES
    summary = "A tool name outside ^[a-zA-Z0-9_-]{1,64}$"
    profiles = by_profile({ALL: W, OPENAI_STRICT: E, ANTHROPIC: E, ANTHROPIC_STRICT: E})

    def check(self, tool: ToolCtx, active: frozenset[str]) -> Iterator[Issue]:
        name = tool.name
        if OPENAI_NAME.fullmatch(name):
            return
        problems = []
        bad = _bad_characters(name, re.compile(r"[a-zA-Z0-9_-]"))
        if bad:
            problems.append(f"has {bad}")
        if len(name) > 64:
            problems.append(f"is {len(name)} characters long (64 at most)")
        suggestion = _OUTSIDE_OPENAI.sub("_", name)[:64] or "tool"
        yield Issue(
            f"tool name {name!r} {' and '.join(problems)}; OpenAI and Anthropic reject the "
            "whole request",
            tool.member("name"),
            hint=f"rename it, e.g. {suggestion!r}",
        )


class ToolNameInvalidForGemini(ToolRule):
    """## What it does
    Checks tool names against Gemini's rule: start with a letter or `_`, then letters,
    digits, `_`, `.`, `:` or `-`, at most 128 characters. Names longer than
    `gemini.max_name_length` (default 64) or holding `:` get a warning: older Gemini and
    Vertex references allow 64 characters and no colon.

    ## Why is this bad?
    Gemini rejects the function declaration, and with it the request.

    ## Example
    ```json
    {"functionDeclarations": [{"name": "1st-search", "parameters": {"type": "OBJECT"}}]}
    ```

    ## Use instead
    ```json
    {"functionDeclarations": [{"name": "first_search", "parameters": {"type": "OBJECT"}}]}
    ```

    ## References
    - python-genai, `FunctionDeclaration.name` ("Must start with a letter or an underscore
      ... maximum length of 128"); Vertex AI v1beta1 references (64, no colons)
    """

    code = "JC011"
    name = "tool-name-invalid-for-gemini"
    family = Family.GEMINI
    summary = "gemini: a tool name Gemini rejects"
    profiles = by_profile({GEMINI: E})

    def check(self, tool: ToolCtx, active: frozenset[str]) -> Iterator[Issue]:
        name = tool.name
        limit = tool.settings.limits.gemini.max_name_length
        if not GEMINI_NAME.fullmatch(name):
            yield Issue(
                f"tool name {name!r} is not a Gemini function name (a letter or _ first, then "
                "letters, digits, _ . : -, 128 characters at most)",
                tool.member("name"),
                hint="rename it with letters, digits and underscores",
            )
        elif len(name) > limit or ":" in name:
            why = f"is longer than {limit} characters" if len(name) > limit else "has ':'"
            yield Issue(
                f"tool name {name!r} {why}; older Gemini and Vertex AI versions reject it",
                tool.member("name"),
                hint="keep names to 64 characters of letters, digits and underscores",
                severity=W,
            )


class ToolNameInvalidForMCP(ToolRule):
    """## What it does
    For MCP 2025-11-25 and later, checks tool names against the specification's guidance:
    1 to 128 characters, only `A-Z a-z 0-9 _ - .`, no spaces or other characters. A `/` is
    reported separately: SEP-986 and the conformance suite allow it, the specification page
    does not.

    ## Why is this bad?
    Clients use the name as an identifier in URLs, logs and provider requests; spaces and
    punctuation break some of them, and conformance tests fail.

    ## Example
    ```json
    {"name": "Search Orders!", "inputSchema": {"type": "object"}}
    ```

    ## Use instead
    ```json
    {"name": "search_orders", "inputSchema": {"type": "object"}}
    ```

    ## References
    - MCP specification 2025-11-25, server/tools, "Tool Names"
    - SEP-986; @modelcontextprotocol/conformance check `tools-name-format`
    """

    code = "JC012"
    name = "tool-name-invalid-for-mcp"
    family = Family.MCP
    summary = "mcp: a tool name outside the MCP character set"
    profiles = by_profile({MCP: W})
    mcp_versions = frozenset({"2025-11-25", "2026-07-28"})

    def check(self, tool: ToolCtx, active: frozenset[str]) -> Iterator[Issue]:
        name = tool.name
        if MCP_NAME.fullmatch(name):
            return
        if MCP_NAME.fullmatch(name.replace("/", "_")):
            message = (
                f"tool name {name!r} has '/', which SEP-986 allows but the specification's "
                "tool-name rules do not"
            )
        else:
            bad = _bad_characters(name, re.compile(r"[A-Za-z0-9_.-]"))
            message = f"tool name {name!r} " + (
                f"has {bad}" if bad else f"is {len(name)} characters long (1 to 128)"
            )
        yield Issue(message, tool.member("name"), hint="use only A-Z a-z 0-9 _ - .")


class ParameterNameInvalidForGemini(NodeRule):
    """## What it does
    In Gemini `parameters` (the OpenAPI subset), checks property names against
    `^[A-Za-z_][A-Za-z0-9_]{0,63}$`.

    ## Why is this bad?
    Gemini rejects function declarations whose parameter names contain `-`, `.` or spaces,
    or start with a digit.

    ## Example
    ```json
    {"name": "search", "parameters": {"type": "OBJECT",
      "properties": {"start-date": {"type": "STRING"}}}}
    ```

    ## Use instead
    ```json
    {"name": "search", "parameters": {"type": "OBJECT",
      "properties": {"start_date": {"type": "STRING"}}}}
    ```

    ## References
    - python-genai, `Schema` and `FunctionDeclaration` (parameter names)
    """

    code = "JC043"
    name = "parameter-name-invalid-for-gemini"
    family = Family.GEMINI
    summary = "gemini: a parameter name Gemini's OpenAPI parameters reject"
    profiles = by_profile({GEMINI: E})
    triggers = frozenset({"@property"})
    openapi = True

    def check(self, node: Node, active: frozenset[str]) -> Iterator[Issue]:
        name = node.prop
        if name is None or GEMINI_PARAMETER.fullmatch(name):
            return
        yield Issue(
            f"parameter name {name!r} is not accepted in Gemini parameters (a letter or _ "
            "first, then letters, digits and _, 64 at most)",
            node.pointer(),
            hint=f"rename it, e.g. {re.sub(r'[^A-Za-z0-9_]', '_', name)!r}",
            schema_path=node.schema_path(),
        )
