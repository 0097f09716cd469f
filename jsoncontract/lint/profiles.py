"""Lint profiles: who will read the tool definitions, and which MCP protocol version.

A profile names a target. ``generic`` holds the contract-quality rules every target shares;
every other profile runs those too, and adds (or tightens) the rules of its provider. Several
profiles lint in one run: a rule runs once, at the highest severity any selected profile
gives it, and each finding names the profiles it matters for.
"""

from __future__ import annotations

from typing import Final

GENERIC: Final = "generic"
OPENAI_STRICT: Final = "openai-strict"
ANTHROPIC: Final = "anthropic"
ANTHROPIC_STRICT: Final = "anthropic-strict"
GEMINI: Final = "gemini"
MCP: Final = "mcp"

#: Every profile, in the order listings show them.
PROFILES: Final = (GENERIC, OPENAI_STRICT, ANTHROPIC, ANTHROPIC_STRICT, GEMINI, MCP)

PROFILE_HELP: Final = {
    GENERIC: "contract quality for any target: closed objects, closed sets, bounds, "
    "idempotency keys, descriptions, valid schemas",
    OPENAI_STRICT: "OpenAI function calling with strict: true (Structured Outputs subset, "
    "limits, names)",
    ANTHROPIC: "Anthropic tool use (names, input_schema shape)",
    ANTHROPIC_STRICT: "Anthropic strict tool use (the structured-outputs subset and its limits)",
    GEMINI: "Gemini function declarations (names, parameters in the OpenAPI subset, "
    "parametersJsonSchema)",
    MCP: "Model Context Protocol servers, for the protocol version of --mcp-version",
}

#: Profiles that lint a tool as if it were sent with ``strict: true``; a tool whose own
#: definition says ``strict: false`` (in a dialect that has the flag) is exempt from them.
STRICT_PROFILES: Final = {
    OPENAI_STRICT: ("openai-chat", "openai-responses"),
    ANTHROPIC_STRICT: ("anthropic",),
}

MCP_VERSIONS: Final = ("2025-06-18", "2025-11-25", "2026-07-28")
DEFAULT_MCP_VERSION: Final = "2025-11-25"
