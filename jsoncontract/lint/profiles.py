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
LLGUIDANCE: Final = "llguidance"
OUTLINES: Final = "outlines"
XGRAMMAR: Final = "xgrammar"
LLAMA_CPP: Final = "llama-cpp"

#: Every provider profile, in the order listings show them (``--profile all``).
PROFILES: Final = (GENERIC, OPENAI_STRICT, ANTHROPIC, ANTHROPIC_STRICT, GEMINI, MCP)
#: The local inference engines that compile a schema into a decoding grammar
#: (:mod:`jsoncontract.lint.engines` holds what each accepts).
ENGINE_PROFILES: Final = (LLGUIDANCE, OUTLINES, XGRAMMAR, LLAMA_CPP)
#: Servers named for the engines they run: ``-p vllm`` is its three structured-output
#: backends (xgrammar by default, llguidance and outlines by ``--structured-outputs-config``),
#: ``-p ollama`` the grammar of the llama.cpp it embeds.
UMBRELLAS: Final = {"vllm": (XGRAMMAR, LLGUIDANCE, OUTLINES), "ollama": (LLAMA_CPP,)}

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
    LLGUIDANCE: "llguidance, the grammar engine of vLLM's guidance backend, SGLang and "
    "llama.cpp's --llguidance builds",
    OUTLINES: "outlines-core, the regex engine of Outlines and vLLM's outlines backend",
    XGRAMMAR: "XGrammar, vLLM's default structured-output backend, and SGLang's",
    LLAMA_CPP: "llama.cpp's JSON-Schema-to-GBNF converter and grammar parser (llama-server, "
    "Ollama, LM Studio)",
}

#: Profiles that lint a tool as if it were sent with ``strict: true``; a tool whose own
#: definition says ``strict: false`` (in a dialect that has the flag) is exempt from them.
STRICT_PROFILES: Final = {
    OPENAI_STRICT: ("openai-chat", "openai-responses"),
    ANTHROPIC_STRICT: ("anthropic",),
}

MCP_VERSIONS: Final = ("2025-06-18", "2025-11-25", "2026-07-28")
DEFAULT_MCP_VERSION: Final = "2025-11-25"
