"""The catalog of finding codes: every code a command reports, declared once, explained.

A code is stable across releases: CI filters, baselines and suite expectations name it.
Each is declared here, once, with a one-line summary (SARIF's short description, the
README's tables) and a paragraph saying what it means, why it matters and what to do (the
page ``jsoncontract rules CODE`` prints, and the SARIF help of ``check`` and ``test``
findings). The code that reports a finding uses the constant declared here, never the
code's text, so a code cannot be reported without being documented, and the catalog is the
list of what can be reported (``docs/codes.md`` is generated from it; a test keeps it
current).

Codes come in families, one per kind of check (a gate of ``check``, a command): a family
has a prefix (``parse.``), a title, a paragraph, and the commands that report its codes.
Two families are described by pattern, because their codes are open-ended:
``schema.<keyword>`` (any JSON Schema keyword) and ``business.<rule-id>`` (any rule a user
writes). The lint rules (``JC001``...) are a catalog of their own, with a page per rule
(:mod:`jsoncontract.lint.codes`); :func:`lookup` answers for both.

Adding a code: declare it in its family's section below (its constant, its summary, its
paragraph), report it through the constant, and regenerate the docs
(``python -m jsoncontract.codes docs/codes.md``). Adding a family: a :class:`Family`, then
its codes, and (when its codes are composed from a name, as ``pin.<part>_changed``) a table
from the name to the declared code, as :data:`ANOMALY_CODES` and :data:`PIN_CHANGED` are.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from jsoncontract.model import Severity

# -- what a report says about a code (SARIF's rules, the lint rules' pages) ------------------

PROJECT_URL: Final = "https://github.com/jsoncontract/jsoncontract"


@dataclass(frozen=True, slots=True)
class RuleMeta:
    """What a report says about a rule (or a finding code) besides its findings.

    ``summary`` is one short sentence, ``description`` a paragraph saying more (what is
    checked and why; SARIF's ``fullDescription``), ``help_markdown`` the full documentation;
    ``security_severity`` (0 to 10) marks security rules for code-scanning dashboards.
    """

    code: str
    name: str
    summary: str
    severity: Severity = Severity.WARNING
    help_markdown: str = ""
    help_uri: str | None = None
    tags: tuple[str, ...] = ()
    security_severity: float | None = None
    description: str = ""


_LINK: Final = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")


#: A code span: a run of backticks, the code, the same run (CommonMark).
_CODE: Final = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)", re.DOTALL)


def plain_text(markdown: str) -> str:
    """Markdown help as plain text (SARIF's ``help.text``, for viewers that do not render
    Markdown): links spelt ``text (url)``, emphasis and code marks dropped.

    >>> plain_text("Wrapped in a fence (```` ```json ``` ````): see [docs](u), **now**.")
    'Wrapped in a fence (```json ```): see docs (u), now.'
    """
    text = _CODE.sub(lambda m: _unspaced(m.group(2)), markdown)
    text = _LINK.sub(r"\1 (\2)", text)
    return text.replace("**", "")


def _unspaced(code: str) -> str:
    """A code span's text: one space either side is padding when both are there."""
    if len(code) > 2 and code.startswith(" ") and code.endswith(" ") and code.strip():
        return code[1:-1]
    return code


# -- the catalog ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Family:
    """A kind of check: its codes share a prefix, a page section and their commands."""

    name: str
    prefix: str
    title: str
    about: str
    commands: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Code:
    """One finding code (or, with ``pattern``, every code of its family that is not
    declared on its own: ``schema.<keyword>``)."""

    code: str
    summary: str
    doc: str
    family: Family
    severity: Severity = Severity.ERROR
    pattern: bool = False
    name: str = ""

    @property
    def rule_name(self) -> str:
        """The kebab-case name reports give the code (SARIF ``name``): its own, or the code
        spelt with dashes."""
        return self.name or self.code.replace(".", "-").replace("_", "-")

    @property
    def anchor(self) -> str:
        """The fragment of its heading in ``docs/codes.md`` (as GitHub makes it)."""
        return re.sub(r"[^a-z0-9_ -]", "", self.code.lower()).replace(" ", "-")


class Catalog:
    """Finding codes by code, in the order they are declared, and their families."""

    def __init__(self) -> None:
        self.families: list[Family] = []
        self._codes: dict[str, Code] = {}
        self._patterns: list[Code] = []

    def family(
        self,
        name: str,
        title: str,
        about: str,
        *,
        commands: tuple[str, ...],
        prefix: str | None = None,
    ) -> Family:
        """Declare a family (``prefix`` defaults to ``name.``)."""
        family = Family(name, f"{name}." if prefix is None else prefix, title, about, commands)
        self.families.append(family)
        return family

    def declare(
        self,
        family: Family,
        code: str,
        summary: str,
        doc: str,
        *,
        severity: Severity = Severity.ERROR,
        name: str = "",
    ) -> str:
        """Declare one code; returns it, for the constant the reporting code uses.

        Raises:
            ValueError: the code is declared twice, or does not start with its family's
                prefix.
        """
        self._add(Code(code, summary, doc, family, severity, name=name))
        return code

    def pattern(
        self,
        family: Family,
        code: str,
        summary: str,
        doc: str,
        *,
        severity: Severity = Severity.ERROR,
    ) -> Code:
        """Declare the codes of ``family`` that are not declared one by one, written with
        a placeholder (``schema.<keyword>``)."""
        entry = Code(code, summary, doc, family, severity, pattern=True)
        self._add(entry)
        self._patterns.append(entry)
        return entry

    def _add(self, entry: Code) -> None:
        if not entry.code.startswith(entry.family.prefix):
            raise ValueError(f"{entry.code} does not start with {entry.family.prefix}")
        if entry.code in self._codes:
            raise ValueError(f"{entry.code} is declared twice")
        self._codes[entry.code] = entry

    def __iter__(self) -> Iterator[Code]:
        return iter(self._codes.values())

    def __len__(self) -> int:
        return len(self._codes)

    def get(self, code: str) -> Code | None:
        """The entry of ``code``: its own, else its family's pattern, else ``None``."""
        found = self._codes.get(code)
        if found is not None:
            return found
        for entry in self._patterns:
            prefix = entry.family.prefix
            if code.startswith(prefix) and len(code) > len(prefix):
                return entry
        return None

    def of(self, family: Family) -> list[Code]:
        """The codes of ``family``, in the order they are declared."""
        return [c for c in self._codes.values() if c.family is family]


#: Every finding code but the lint rules'.
CATALOG: Final = Catalog()
_code = CATALOG.declare
WARNING: Final = Severity.WARNING

# -- envelope --------------------------------------------------------------------------------

ENVELOPE: Final = CATALOG.family(
    "envelope",
    "Envelope gate",
    "The first gate of every call: is it a well-formed call of its dialect, naming a tool "
    "that exists? The envelope is everything around the arguments: the JSON-RPC frame, the "
    "provider's tool-call object, the stream that delivered it. A call that fails here is "
    "not checked further.",
    commands=("check", "diff", "test"),
)
ENVELOPE_MALFORMED: Final = _code(
    ENVELOPE,
    "envelope.malformed",
    "the call is not a well-formed call of its dialect",
    "The object that should carry the call lacks what its dialect requires: a tool call "
    "without a function object, a `tool_use` block without a name or input, a `tools/call` "
    "request without params, a HAR file without entries. The message names what is missing. "
    "The capture was cut, hand-edited, or written by a producer that does not follow the "
    "provider's format; fix the producer, since a host would reject or misread the call.",
)
ENVELOPE_UNKNOWN_TOOL: Final = _code(
    ENVELOPE,
    "envelope.unknown_tool",
    "the call names a tool that is not in the tool list",
    "The model (or the host) called a tool that none of the tool definitions declares. "
    "Either the model invented or misspelt a name (the hint gives the closest declared "
    "name), the tool was renamed or removed since the capture, or the tool definitions given "
    "to `--tools` are not the ones the agent ran with. A host would answer with an error; "
    "fix the name, or give the right definitions.",
)
ENVELOPE_MISSING_TOOL: Final = _code(
    ENVELOPE,
    "envelope.missing_tool",
    "a downstream body does not say which tool sent it",
    "A bare request body (the downstream hop) carries no tool name, so there is no contract "
    "to check it against. Name the tool with `--tool NAME`, set `[check] tool` in the "
    'config, or wrap the body in a trace record: `{"hop": "downstream", "tool": ..., '
    '"payload": ...}`.',
)
ENVELOPE_MISSING_CALL_ID: Final = _code(
    ENVELOPE,
    "envelope.missing_call_id",
    "the call has no id, so its result cannot be matched to it",
    "Providers give every tool call an id (`id`, `call_id`, `tool_use.id`) so that its "
    "result can be sent back and matched. A call without one cannot be answered reliably "
    "when several run at once, and `diff` cannot pair its hops by id. The capture was "
    "edited or the producer dropped the id; the arguments are still checked.",
    severity=WARNING,
)
ENVELOPE_ARGUMENTS_NOT_STRING: Final = _code(
    ENVELOPE,
    "envelope.arguments_not_string",
    "arguments should be a JSON string in this dialect",
    "OpenAI sends a function call's `arguments` as a JSON-encoded string, which the host "
    "must parse. Here it is already a parsed value: a proxy or an SDK decoded it before "
    "logging, so the capture no longer shows what the model wrote (a code fence or a "
    "truncation would have been lost). The value is checked as it is; capture the raw "
    "response to see the model's own text.",
    severity=WARNING,
)
ENVELOPE_INCOMPLETE_STREAM: Final = _code(
    ENVELOPE,
    "envelope.incomplete_stream",
    "the stream ended before the call was finished",
    "A streamed call (OpenAI chunks, Responses events, Anthropic `input_json_delta`) never "
    "received its closing event: the capture was cut off, or the connection dropped "
    "mid-call. The fragments received are checked, and usually fail as `parse.truncated`. "
    "A host must not execute such a call.",
    severity=WARNING,
)
ENVELOPE_STREAM_MISMATCH: Final = _code(
    ENVELOPE,
    "envelope.stream_mismatch",
    "streamed fragments do not add up to the final arguments",
    "The argument fragments of a stream, concatenated, differ from the complete arguments "
    "the stream delivered at its end: events were lost, duplicated or reordered on the way. "
    "A host that assembles fragments itself would execute different arguments than one "
    "that reads the final event. The final arguments are the ones checked.",
    severity=WARNING,
)
ENVELOPE_UNKNOWN_DIALECT: Final = _code(
    ENVELOPE,
    "envelope.unknown_dialect",
    "a trace line is JSON but in no known capture dialect",
    "A line of a JSONL trace is valid JSON but none of the capture dialects recognises it "
    "(`jsoncontract check --help` lists them), so no call can be read from it. If it is a "
    'bare request body, wrap it as `{"hop": "downstream", "tool": ..., "payload": ...}`. '
    "A line that carries the marks of an LLM convention (a GenAI attribute, a provider "
    "response's type fields) is `envelope.not_read` instead, which names the convention.",
)
ENVELOPE_NOT_READ: Final = _code(
    ENVELOPE,
    "envelope.not_read",
    "a document that looks like LLM traffic, whose calls were not read",
    "The document (a JSON file, a trace line, a span, a log record) carries the marks of an "
    "LLM convention: an OpenTelemetry GenAI, OpenInference, OpenLLMetry or Vercel AI SDK "
    'attribute, a provider response\'s own type fields (`"object": "chat.completion"`, '
    '`"type": "message"` with a `role`, Bedrock\'s `output.message`...). But no capture '
    "dialect read it, or the dialect that took it found tool calls it could not read. The "
    "message names the convention it looks like and the members it found. Its calls were "
    "not checked, so the run cannot pass on them: convert the capture to a dialect "
    "`jsoncontract check --help` lists, force one with `--dialect`, or leave the file out "
    "with `--exclude`. A document with no such mark is `envelope.unknown_dialect`.",
)
ENVELOPE_NO_TOOL_CALL: Final = _code(
    ENVELOPE,
    "envelope.no_tool_call",
    "the capture holds no tool call",
    "The capture is in a known dialect, but holds no tool call: the model answered in text, "
    "or this is another response of the conversation than the one that called a tool. "
    "Nothing was checked in this file; make sure the capture is the one you meant.",
    severity=WARNING,
)
ENVELOPE_DUPLICATE_KEY: Final = _code(
    ENVELOPE,
    "envelope.duplicate_key",
    "a key appears twice in the call's envelope",
    "A member name appears twice in one object around the arguments (the frame, the tool "
    "call object). JSON parsers disagree on which value wins, so two systems reading the "
    "same envelope may see different calls (a different tool, a different id). Fix the "
    "producer of the capture. The same problem inside the arguments is "
    "`parse.duplicate_key`.",
)
ENVELOPE_BIG_INTEGER: Final = _code(
    ENVELOPE,
    "envelope.big_integer",
    "an integer beyond 64 bits in the call's envelope",
    "An integer in the envelope (an id, a count) does not fit in 64 bits; most parsers "
    "(JavaScript, orjson, Go, Java) round it, so the number one system sends is not the one "
    "the next reads. Send such values as strings. Inside the arguments this is "
    "`parse.big_integer`.",
)
ENVELOPE_INEXACT_NUMBER: Final = _code(
    ENVELOPE,
    "envelope.inexact_number",
    "a number a double cannot hold in the call's envelope",
    "A number in the envelope reads as another in a double: a non-zero number as 0 "
    "(`1e-400`), or a fraction as a whole number (`1.0000000000000001`). Inside the "
    "arguments this is `parse.inexact_number`.",
)
ENVELOPE_LONE_SURROGATE: Final = _code(
    ENVELOPE,
    "envelope.lone_surrogate",
    "a lone UTF-16 surrogate in the call's envelope",
    "A string in the envelope holds a `\\ud800`-`\\udfff` escape without its pair: half of "
    "a character, which no UTF-8 encoder can write, so systems replace it, drop it or fail. "
    "The producer split a UTF-16 pair (cutting a string by length, usually). Inside the "
    "arguments this is `parse.lone_surrogate`.",
)
ENVELOPE_INVALID_UTF8: Final = _code(
    ENVELOPE,
    "envelope.invalid_utf8",
    "bytes that are not UTF-8 in the call's envelope",
    "The envelope contains bytes that are not valid UTF-8 (often Latin-1 text, or a "
    "multi-byte character cut in half). JSON text must be UTF-8; parsers reject it or "
    "replace the bytes. Re-encode at the source. Inside the arguments this is "
    "`parse.invalid_utf8`.",
)
ENVELOPE_NAN_INFINITY: Final = _code(
    ENVELOPE,
    "envelope.nan_infinity",
    "NaN or Infinity in the call's envelope",
    "The envelope uses `NaN`, `Infinity`, or a number so large it overflows a double. None "
    "of them is a JSON number: strict parsers reject the document, lenient ones produce a "
    "value the next system cannot write back. Inside the arguments this is "
    "`parse.nan_infinity`.",
)
ENVELOPE_ARGUMENTS_NOT_RECORDED: Final = _code(
    ENVELOPE,
    "envelope.arguments_not_recorded",
    "the capture does not record the call's arguments",
    "The capture holds the call but not its arguments: an OpenTelemetry span without "
    "`gen_ai.tool.call.arguments`, which the GenAI semantic conventions make opt-in. The "
    "argument gates are skipped and only the call's result is checked. Record the "
    "arguments to have them checked too.",
    severity=Severity.INFO,
)
ENVELOPE_TOOL_NOT_OFFERED: Final = _code(
    ENVELOPE,
    "envelope.tool_not_offered",
    "the call names a tool its request did not offer",
    "The capture records the tools offered with the call (the request's `tools`, a span's "
    "tool definitions, the MCP session's latest `tools/list`), and the tool the call names "
    "is not among them: the model invented or misspelt a name, or the agent ran the call "
    "with a tool list other than the one the model saw. A provider or host would refuse it. "
    "The hint gives the closest offered name.",
)
ENVELOPE_OFFERED_SCHEMA_DIFFERS: Final = _code(
    ENVELOPE,
    "envelope.offered_schema_differs",
    "the tool was offered with another schema than `--tools` defines",
    "The request offered the tool with an input schema other than the one the tool "
    "definitions given to `--tools` (or the config) hold: the model wrote its arguments for "
    "the schema it saw. The call is checked against `--tools`; update the definitions, or "
    "check without `--tools` to take each call's contract from its own request.",
    severity=WARNING,
)
ENVELOPE_OFFERED_TOOL_INVALID: Final = _code(
    ENVELOPE,
    "envelope.offered_tool_invalid",
    "the tool's offered definition cannot be used as a contract",
    "The request offered the tool, but its definition is broken: its input schema is not a "
    "valid JSON Schema, or the list defines the name twice with different schemas. A "
    "provider rejects such a request; the call has no contract to be checked against.",
)
ENVELOPE_NO_CONTRACT: Final = _code(
    ENVELOPE,
    "envelope.no_contract",
    "no tool definition applies to the call",
    "No `--tools` (nor `tools` in the config) was given, so each call is checked against "
    "the tools offered in its own request, and the capture records none for this one: a "
    "response logged without its request, an MCP call made before any `tools/list`. Log "
    'the request with its response (`{"request": ..., "response": ...}`), or give the '
    "tool definitions with `--tools`.",
)
ENVELOPE_CALL_ID_FORMAT: Final = _code(
    ENVELOPE,
    "envelope.call_id_format",
    "the call id breaks its provider's rule",
    "The provider accepts only call ids of one form, and this one is not of it: Mistral "
    "refuses a conversation whose tool call ids are not nine letters and digits "
    "(`[a-zA-Z0-9]{9}`), so the next request that sends this call back in its history is "
    "rejected with a 400. Ids made by another provider or by the host's own code are the "
    "usual cause; map them to the provider's form before sending them back.",
    severity=WARNING,
)

# -- parse -----------------------------------------------------------------------------------

PARSE: Final = CATALOG.family(
    "parse",
    "Parse gate",
    "The second gate: are the arguments JSON, and an object? Each way JSON text goes wrong "
    "has its own code, so a report says what the model (or the host) did, and the hint "
    "shows the repaired form where one exists. Nothing is ever repaired in place: a call "
    "that needed repair failed its contract, because the next system may repair it "
    "differently, or not at all.",
    commands=("check", "diff", "test"),
)
PARSE_CODE_FENCE: Final = _code(
    PARSE,
    "parse.code_fence",
    "the JSON is wrapped in a markdown code fence",
    "The arguments are wrapped in a markdown fence (```` ```json ... ``` ````), the way a "
    "model writes JSON in a chat answer. A JSON parser rejects the text. It happens when a "
    "model is asked for JSON in a prompt instead of through tool calling or structured "
    "outputs; ask for bare JSON, or use the provider's strict mode.",
)
PARSE_PROSE: Final = _code(
    PARSE,
    "parse.prose",
    "the JSON is surrounded by prose",
    "The arguments hold a JSON document with text around it (`Sure! Here are the "
    "arguments: {...}`). Extracting the JSON is guesswork (which braces, which of two "
    "documents?), so the call is rejected; the hint shows what extraction would give. Ask "
    "the model for bare JSON.",
)
PARSE_TRUNCATED: Final = _code(
    PARSE,
    "parse.truncated",
    "the JSON ends early (cut off, often at max_tokens)",
    "The text stops inside an unclosed object, array or string. The model hit its output "
    "limit (`max_tokens`, `finish_reason: length`), or a stream was cut. Never execute a "
    "truncated call, even if a repair would parse: the missing part may have changed its "
    "meaning. Raise the limit, or make the arguments shorter.",
)
PARSE_TRAILING_COMMA: Final = _code(
    PARSE,
    "parse.trailing_comma",
    "a comma right before a closing bracket",
    "A comma comes right before `}` or `]`, as JavaScript and Python allow and JSON does "
    "not. Strict parsers reject the call; lenient ones accept it, so the same call passes "
    "on one system and fails on the next. The hint shows the text without the comma.",
)
PARSE_SINGLE_QUOTES: Final = _code(
    PARSE,
    "parse.single_quotes",
    "strings in single quotes",
    "Strings or keys are in single quotes: the model wrote a Python or JavaScript literal "
    "instead of JSON. JSON strings use double quotes; the hint shows the repaired text when "
    "the literal is unambiguous.",
)
PARSE_PYTHON_LITERAL: Final = _code(
    PARSE,
    "parse.python_literal",
    "True, False or None instead of true, false, null",
    "The text uses Python's `True`, `False` or `None`: the arguments were produced with "
    "`str()` of a Python value instead of `json.dumps()`, or the model imitated Python. "
    "JSON has `true`, `false` and `null`.",
)
PARSE_NAN_INFINITY: Final = _code(
    PARSE,
    "parse.nan_infinity",
    "NaN or Infinity used as a number",
    "A value is `NaN`, `Infinity` or `-Infinity` (or a number so large it overflows a "
    "double), which JSON does not allow. Python's `json.dumps` writes them by default, so "
    "they appear when a Python producer serialises a float it did not check. Send `null`, a "
    "string, or leave the member out.",
)
PARSE_COMMENT: Final = _code(
    PARSE,
    "parse.comment",
    "a comment inside the JSON",
    "The text contains `//` or `/* */` comments, which JSON does not have (JSON5 and JSONC "
    "do). Strict parsers reject it. Remove the comments; the hint shows the text without "
    "them.",
)
PARSE_CONTROL_CHARACTER: Final = _code(
    PARSE,
    "parse.control_character",
    "a raw control character inside a string",
    "A string contains a raw newline, tab or other control character. JSON requires them "
    "escaped (`\\n`, `\\t`); strict parsers reject the text. Escape them; the hint shows "
    "the escaped text.",
)
PARSE_DUPLICATE_KEY: Final = _code(
    PARSE,
    "parse.duplicate_key",
    "a key appears twice; parsers disagree on which value wins",
    "A member name appears twice in one object of the arguments. JSON leaves the meaning "
    "open: most parsers keep the last value, some the first, some reject the document, so "
    "the value the tool acts on depends on its parser (a classic way to smuggle a value "
    "past a validator). Send each key once. The finding points at the repeated member.",
)
PARSE_BIG_INTEGER: Final = _code(
    PARSE,
    "parse.big_integer",
    "an integer beyond 64 bits, which most parsers round",
    "An integer in the arguments does not fit in 64 bits. JavaScript, orjson, Go and Java "
    "lose its precision, so the number the tool acts on is not the number that was sent "
    "(an order id, an amount in minor units). Send it as a string, or use a smaller unit.",
)
PARSE_INEXACT_NUMBER: Final = _code(
    PARSE,
    "parse.inexact_number",
    "a number a double reads as another (1e-400 as 0, a fraction as whole)",
    "A number in the arguments cannot be held by a double, and the double it becomes says "
    "something else: `1e-400` becomes 0, `1.0000000000000001` becomes 1 and passes "
    '`"type": "integer"`. Parsers in JavaScript, Go, Java and Python read it that way, so '
    "the tool acts on another number than the one sent. Send it as a string, or round it "
    "to what a double holds.",
)
PARSE_INVALID_UTF8: Final = _code(
    PARSE,
    "parse.invalid_utf8",
    "bytes that are not UTF-8",
    "The arguments contain bytes that are not valid UTF-8: text in another encoding "
    "(Latin-1, usually), or a multi-byte character cut in half. JSON text must be UTF-8; "
    "parsers reject the bytes or replace them with U+FFFD, silently changing the value. "
    "Re-encode at the source.",
)
PARSE_LONE_SURROGATE: Final = _code(
    PARSE,
    "parse.lone_surrogate",
    "a lone UTF-16 surrogate, which UTF-8 cannot encode",
    "A string holds a `\\ud800`-`\\udfff` escape without its pair: half of a character "
    "(an emoji cut by a length limit, usually). No UTF-8 encoder can write it, so the next "
    "system replaces it, drops it, or fails. Fix the producer's string handling.",
)
PARSE_NOT_OBJECT: Final = _code(
    PARSE,
    "parse.not_object",
    "the arguments are not a JSON object",
    "The arguments parse as JSON, but as an array, a string, a number or `null`. Tool "
    "arguments are always an object keyed by parameter name (OpenAI, Anthropic, Gemini and "
    "MCP all say so). Wrap the values in an object.",
)
PARSE_STRING_ARGUMENTS: Final = _code(
    PARSE,
    "parse.string_arguments",
    "an object sent as a JSON string where the object belongs",
    'The arguments are a JSON string holding an object (`"{\\"city\\": ...}"`) where the '
    "object itself belongs, typically MCP `params.arguments`: the host forwarded the "
    "model's `arguments` text without `JSON.parse`. Some servers decode it leniently and "
    "hide the bug, others reject every call. Send the parsed object.",
)
PARSE_DOUBLE_ENCODED: Final = _code(
    PARSE,
    "parse.double_encoded",
    "the arguments were JSON-encoded twice",
    "The arguments text is JSON, but its value is a string that itself holds the object: "
    "the producer called `json.dumps` (or `JSON.stringify`) on text that was already JSON. "
    "Encode once; the hint shows the object decoded twice.",
)
PARSE_EMPTY: Final = _code(
    PARSE,
    "parse.empty",
    "the arguments are empty",
    "The arguments text is empty or only whitespace, which is not JSON. A call without "
    'arguments sends `"{}"`; an empty string usually means the model stopped before '
    "writing them.",
)
PARSE_MISSING: Final = _code(
    PARSE,
    "parse.missing",
    "the call carries no arguments at all",
    "The call has no arguments member at all (no `arguments`, `input` or `args`). Providers "
    "always send one, `{}` for a call without parameters, so the capture or the producer "
    "dropped it.",
)
PARSE_TOO_DEEP: Final = _code(
    PARSE,
    "parse.too_deep",
    "nested more than 1024 levels deep",
    "The JSON nests objects or arrays more than 1,024 levels deep. No tool argument needs "
    "that depth, and deep nesting is a common way to exhaust a parser's stack; jsoncontract "
    "stops reading there instead of crashing.",
)
PARSE_TOO_LARGE: Final = _code(
    PARSE,
    "parse.too_large",
    "a trace line longer than the line limit",
    "A line of a JSONL trace is longer than the line limit and was skipped without being "
    "parsed, so a huge or runaway event cannot exhaust memory. Split the event into smaller "
    "lines.",
)
PARSE_INVALID_JSON: Final = _code(
    PARSE,
    "parse.invalid_json",
    "not JSON, for another reason",
    "The text is not JSON, and none of the specific faults above explains why: an unquoted "
    "key, a missing comma, text that is not a payload at all. The message gives the "
    "parser's reason and position.",
)

#: What a JSON parser would hide (:attr:`jsoncontract.model.Anomaly.kind`) -> the code that
#: reports it inside the arguments, and in the envelope around them.
ANOMALY_CODES: Final = {
    "duplicate_key": (PARSE_DUPLICATE_KEY, ENVELOPE_DUPLICATE_KEY),
    "big_integer": (PARSE_BIG_INTEGER, ENVELOPE_BIG_INTEGER),
    "inexact_number": (PARSE_INEXACT_NUMBER, ENVELOPE_INEXACT_NUMBER),
    "lone_surrogate": (PARSE_LONE_SURROGATE, ENVELOPE_LONE_SURROGATE),
    "invalid_utf8": (PARSE_INVALID_UTF8, ENVELOPE_INVALID_UTF8),
    "nan_infinity": (PARSE_NAN_INFINITY, ENVELOPE_NAN_INFINITY),
}

# -- schema ----------------------------------------------------------------------------------

SCHEMA: Final = CATALOG.family(
    "schema",
    "Schema gate",
    "The third gate: do the parsed arguments satisfy the tool's input schema? Codes are "
    "`schema.<keyword>`, named after the JSON Schema keyword that failed (`schema.required`, "
    "`schema.enum`...), with the JSON Pointer of the failing value and of the keyword in "
    "the schema.",
    commands=("check", "diff", "test"),
)
SCHEMA_KEYWORD: Final = CATALOG.pattern(
    SCHEMA,
    "schema.<keyword>",
    "the arguments break the tool's JSON Schema at this keyword",
    "The arguments parsed, but break the tool's own input schema at the keyword in the "
    "code: a required property is missing (`schema.required`), a value is outside an enum "
    "(`schema.enum`), of another type (`schema.type`), an undeclared member is present "
    "(`schema.additionalProperties`), a string breaks its `format` or `pattern`, a number "
    "its bounds. The model ignored or misread the schema, or the schema is stricter than "
    "what the tool accepts; either way the contract is broken. The hint names the closest "
    "allowed value or property where there is one. Schemas are Draft 2020-12 unless they "
    "say otherwise, with formats asserted.",
)

# -- business --------------------------------------------------------------------------------

BUSINESS: Final = CATALOG.family(
    "business",
    "Business gate",
    "The last gate: what a schema cannot say. Codes are `business.<rule-id>` for the rules "
    "written in rules files (`--rules`, `[business] rules`), and `business.idempotency.*` "
    "for the checks of write tools across a whole run.",
    commands=("check", "test"),
)
BUSINESS_RULE: Final = CATALOG.pattern(
    BUSINESS,
    "business.<rule-id>",
    "a business rule fails",
    "A rule of a rules file rejected the call: its CEL expression (or Python function) "
    "came out false for the arguments, the reference data and the context. The code ends "
    "with the rule's `id`, the message and hint are the rule's own, and the path is its "
    "`fieldPath`. A rule that cannot be evaluated (a missing field, a type error) is "
    "reported under the same code with the keyword `evaluation_error`. "
    "`docs/business-rules.md` describes the rules format.",
)
BUSINESS_IDEMPOTENCY_CONFLICT: Final = _code(
    BUSINESS,
    "business.idempotency.conflict",
    "an idempotency key reused with different arguments",
    "A write call carries an idempotency key that an earlier call of the same tool, at the "
    "same hop, used with different arguments. A server that honours keys will refuse this "
    "call or silently keep the first request, so the change is lost. Use a new key for a "
    "new request; reuse a key only to retry the identical request. The severity is set by "
    "`[business.idempotency] conflict`.",
)
BUSINESS_IDEMPOTENCY_MISSING_KEY: Final = _code(
    BUSINESS,
    "business.idempotency.missing_key",
    "a write call without an idempotency key",
    "A call of a tool that writes (by its MCP annotations, the config's `write_tools`, or "
    "its verb) carries no idempotency key, so a retry after a timeout may write twice. When "
    "the tool's schema has a key field the finding is per call; when it has none, once per "
    "tool. Send a unique key with every write. The severity is set by "
    "`[business.idempotency] missing_key`.",
    severity=WARNING,
)
BUSINESS_IDEMPOTENCY_DOUBLE_WRITE: Final = _code(
    BUSINESS,
    "business.idempotency.double_write",
    "the same write, without a key, made twice",
    "The same write (same tool, same hop, same arguments, no idempotency key) appears "
    "again, under another call id or without one: probably a retry that wrote twice. The "
    "message says where the first write was. Give each write an idempotency key. The "
    "severity is set by `[business.idempotency] double_write`.",
    severity=WARNING,
)

# -- diff ------------------------------------------------------------------------------------

DIFF: Final = CATALOG.family(
    "diff",
    "Diff findings",
    "`jsoncontract diff` checks each hop against its own contract (the envelope, parse and "
    "schema codes above) and reports these codes about the comparison itself: hops that "
    "cannot be paired or compared, and mapping files that do not match what happened.",
    commands=("diff",),
)
DIFF_TOOL_MISMATCH: Final = _code(
    DIFF,
    "diff.tool_mismatch",
    "the hops of one call name different tools",
    "Two hops paired as one call name different tools: the adapter renamed the tool on the "
    "way, or the pairing joined hops of different calls. Check the pairing (`--correlate`, "
    "call ids) or the adapter's tool routing.",
)
DIFF_UNPAIRED: Final = _code(
    DIFF,
    "diff.unpaired",
    "only one hop of a call was found",
    "A call seen at one hop has no other hop in the trace sharing its id or following it "
    "with the same tool, so there is nothing to compare it with. Capture the other hops, or "
    "carry the model's call id in MCP `params._meta` or the trace record's context (see "
    "`--correlate`).",
    severity=WARNING,
)
DIFF_MAPPING_NOT_APPLIED: Final = _code(
    DIFF,
    "diff.mapping_not_applied",
    "a transform the mapping declares did not happen",
    "A mapping file declares a transform between two hops (a rename, a drop, a default, a "
    "conversion), but the later hop does not show it: the member was not renamed, still "
    "there, or holds another value. The adapter does not do what the mapping says; fix one "
    "or the other.",
)
DIFF_CONVERT_FAILED: Final = _code(
    DIFF,
    "diff.convert_failed",
    "a declared conversion cannot be applied to the value",
    "A mapping declares a conversion (a date format, a unit scale, a value map) for a "
    "member whose value does not fit it: a date in another format, a string where a number "
    "is scaled, a value the map does not list. The adapter will meet the same value; "
    "extend the conversion or fix the producer.",
)
DIFF_MAPPING_UNKNOWN_PATH: Final = _code(
    DIFF,
    "diff.mapping_unknown_path",
    "a mapping names a path no schema of its hop allows",
    "A transform of a mapping file names a path that the schema of its hop cannot hold, so "
    "the transform can never match (a misspelt member, a path of another tool). The hint "
    "names the closest member the schema has.",
    severity=WARNING,
)
DIFF_MAPPING_UNUSED: Final = _code(
    DIFF,
    "diff.mapping_unused",
    "a transform matched no member in the whole run",
    "A transform of a mapping file matched no member in any compared call: its path or "
    "tool name is wrong, or it describes a transform the adapter no longer makes. Check it, "
    "or remove it.",
    severity=WARNING,
)

DIFFERENCE: Final = CATALOG.family(
    "difference",
    "Differences between hops",
    "Each difference between two consecutive hops of a call gets one of these codes (they "
    "have no prefix), both JSON Pointers and both values. A difference a mapping file or an "
    "array rule declares is expected (severity `info`); any other is an error.",
    commands=("diff",),
    prefix="",
)
DIFFERENCE_DROPPED: Final = _code(
    DIFFERENCE,
    "dropped",
    "a member of the earlier hop is missing in the later one",
    "A member the earlier hop sent is absent from the later hop: the adapter lost it, so "
    "the system behind it never sees a value the model chose. Forward it, or declare "
    '`{"op": "drop"}` in a mapping file if dropping it is intended.',
)
DIFFERENCE_ADDED: Final = _code(
    DIFFERENCE,
    "added",
    "a member appears that the earlier hop did not have",
    "The later hop holds a member the earlier one did not send: the adapter added a default "
    'or a derived value. If that is intended, declare it (`"op": "default"`) so the '
    "diff expects it.",
)
DIFFERENCE_RENAMED: Final = _code(
    DIFFERENCE,
    "renamed",
    "the same value under another name in the same object",
    "A member disappeared and a member with the same value appeared in the same object "
    "(`startDate` became `dateFrom`): the adapter renamed it. If the new name is intended, "
    'declare `{"op": "rename"}`; otherwise keep the name the contract uses.',
)
DIFFERENCE_MOVED: Final = _code(
    DIFFERENCE,
    "moved",
    "the same value in another object",
    "A value reappears at another place of the document (`/customerId` became "
    '`/customer/id`). If the new place is intended, declare `{"op": "move"}` in a mapping '
    "file.",
)
DIFFERENCE_COERCED: Final = _code(
    DIFFERENCE,
    "coerced",
    "the same meaning in another JSON type",
    'The value kept its meaning but changed its JSON type: `5` became `"5"`, `"true"` '
    "became `true`, `1.0` became `1`, `1` became `true`. A strict system on the next hop "
    "rejects it, a lenient one guesses. Send the type the next hop expects, or declare the "
    'conversion (`{"op": "convert"}`).',
)
DIFFERENCE_RE_ENCODED: Final = _code(
    DIFFERENCE,
    "re-encoded",
    "an object or array became its JSON text, or the reverse",
    "A value was sent as JSON text instead of the value itself (or decoded on the way). The "
    "classic case is a host forwarding the model's `arguments` string to MCP without "
    "`JSON.parse`. Parse the text once, where it enters, and pass the value on; the "
    "comparison continues inside the decoded text.",
)
DIFFERENCE_VALUE_CHANGED: Final = _code(
    DIFFERENCE,
    "value-changed",
    "another value, or another type with another meaning",
    'The value changed (`"2025-10-01"` became `"01/10/2025"`, `{}` became `[]`, `true` '
    "became `0`). If it is a declared conversion (a date format, a unit), add "
    '`{"op": "convert"}` to a mapping file; otherwise the adapter corrupts the value.',
)
DIFFERENCE_REORDERED: Final = _code(
    DIFFERENCE,
    "reordered",
    "an array holds the same items in another order",
    "An array holds the same items in another order. When order carries meaning (steps, "
    "ranked results) the adapter broke it; when it does not, say so with `--set PATH`, "
    "`--multiset PATH` or `--key PATH=FIELD` (or `arrays` in a mapping file), and the "
    "difference becomes expected.",
)
DIFFERENCE_TRUNCATED: Final = _code(
    DIFFERENCE,
    "truncated",
    "a text cut short on its way back",
    "On the return leg, a text of the result (a content block, a message) is a prefix of "
    "what the earlier hop sent: a proxy, a logger or a size limit cut it. The caller reads "
    "half an answer, often half of a JSON document; raise the limit, or make the tool "
    "return less.",
)

# -- pin -------------------------------------------------------------------------------------

PIN: Final = CATALOG.family(
    "pin",
    "Pinned tools",
    "`jsoncontract pin --check` compares the tool definitions with the lock file and "
    "reports what changed since they were pinned and reviewed: tools added or removed, and "
    "for each changed tool which part and, inside a schema, which JSON Pointer.",
    commands=("pin",),
)
PIN_TOOL_ADDED: Final = _code(
    PIN,
    "pin.tool_added",
    "a tool that is not in the lock",
    "A tool definition has no entry in the lock: it is new, or was renamed. A new tool is "
    "new behaviour the model can call; review it, then run `jsoncontract pin`.",
)
PIN_TOOL_REMOVED: Final = _code(
    PIN,
    "pin.tool_removed",
    "a pinned tool that no longer exists",
    "A tool of the lock is gone from its file (or the file is gone). Agents and prompts "
    "that call it will fail; review the removal, then run `jsoncontract pin`.",
)
PIN_DESCRIPTION_CHANGED: Final = _code(
    PIN,
    "pin.description_changed",
    "a tool's description changed since it was pinned",
    "A tool's description differs from the pinned one. Descriptions steer the model (and "
    "are where prompt injection hides in a tool catalog), so a changed description is a "
    "changed behaviour even when the schema is the same. Review the new text, then run "
    "`jsoncontract pin`.",
)
PIN_INPUT_SCHEMA_CHANGED: Final = _code(
    PIN,
    "pin.input_schema_changed",
    "a tool's input schema changed since it was pinned",
    "A tool's input schema differs from the pinned one, at the JSON Pointer the finding "
    "names: an enum value added, a property made optional, a bound relaxed. A host that "
    "cached the old schema validates against the wrong contract. Review the change, then "
    "run `jsoncontract pin`.",
)
PIN_OUTPUT_SCHEMA_CHANGED: Final = _code(
    PIN,
    "pin.output_schema_changed",
    "a tool's output schema changed since it was pinned",
    "A tool's output schema differs from the pinned one, at the JSON Pointer the finding "
    "names. Consumers of its results may break; review the change, then run "
    "`jsoncontract pin`.",
)
PIN_ANNOTATIONS_CHANGED: Final = _code(
    PIN,
    "pin.annotations_changed",
    "a tool's annotations changed since they were pinned",
    "A tool's MCP annotations differ from the pinned ones (say `readOnlyHint` flipped). "
    "Hosts use them to decide what needs the user's confirmation; review the change, then "
    "run `jsoncontract pin`.",
)

PIN_TITLE_CHANGED: Final = _code(
    PIN,
    "pin.title_changed",
    "a tool's title changed since it was pinned",
    "A tool's own `title` (MCP) differs from the pinned one. Hosts show it to the user in "
    "place of the name; review it, then run `jsoncontract pin`.",
)
PIN_DEFINITION_CHANGED: Final = _code(
    PIN,
    "pin.definition_changed",
    "another member of a tool's definition changed since it was pinned",
    "A member of the tool definition besides its name, title, description, schemas and "
    "annotations changed: MCP's `execution`, `icons` or `_meta`, OpenAI's `strict`. Hosts "
    "and providers act on them; review the change, then run `jsoncontract pin`.",
)

#: The parts ``pin`` compares after the name -> the code of a change to that part.
PIN_CHANGED: Final = {
    "description": PIN_DESCRIPTION_CHANGED,
    "input_schema": PIN_INPUT_SCHEMA_CHANGED,
    "output_schema": PIN_OUTPUT_SCHEMA_CHANGED,
    "annotations": PIN_ANNOTATIONS_CHANGED,
    "title": PIN_TITLE_CHANGED,
    "extra": PIN_DEFINITION_CHANGED,
}

# -- compat ----------------------------------------------------------------------------------

COMPAT: Final = CATALOG.family(
    "compat",
    "Compatibility of two tool sets",
    "`jsoncontract compat OLD NEW` compares two versions of a tool set and classes each "
    "change by who it can break: `breaking` (a call or a result that was valid is not any "
    "more), `risky` (behaviour may change, or the change cannot be classified), "
    "`compatible`, `cosmetic`. Arguments flow from the caller to the tool, so narrowing an "
    "input schema breaks; results flow back, so widening an output schema breaks. "
    "[Compatibility checks](compat.md) lists every check with an example; "
    "`pin --check` gives each drift finding the same class.",
    commands=("compat",),
)
COMPAT_TOOL_REMOVED: Final = _code(
    COMPAT,
    "compat.tool_removed",
    "a tool of the old set is gone",
    "A tool of the old version is not in the new one. Every agent, prompt and host that "
    "calls it fails; keep it (deprecated in its description) for a release, or ship the "
    "removal as a major version.",
)
COMPAT_TOOL_RENAMED: Final = _code(
    COMPAT,
    "compat.tool_renamed",
    "a tool is offered under another name, with the same schemas",
    "A tool of the old version is gone and a tool of the new one has exactly its input and "
    "output schemas under another name: a rename. Callers of the old name fail; keep the "
    "old name as an alias for a release.",
)
COMPAT_TOOL_ADDED: Final = _code(
    COMPAT,
    "compat.tool_added",
    "a new tool",
    "The new version offers a tool the old one did not. No existing call changes; the "
    "model may start calling it, so review its description and annotations.",
    severity=Severity.INFO,
)
COMPAT_DESCRIPTION_CHANGED: Final = _code(
    COMPAT,
    "compat.description_changed",
    "a tool's or a property's description changed",
    "A description is the prompt the model reads when it chooses a tool and fills in its "
    "arguments: a changed one can change which calls are made and with what, with the "
    "schema unchanged. The report shows the words that changed; review them as you would "
    "a prompt change.",
    severity=WARNING,
)
COMPAT_TITLE_CHANGED: Final = _code(
    COMPAT,
    "compat.title_changed",
    "a title changed (the tool's, an annotation's or a schema's)",
    "Titles are for display: the tool's `title`, `annotations.title`, and a schema's "
    "`title` (which generators such as pydantic fill in from class names). No call or "
    "result is validated against them, so the change is cosmetic.",
    severity=Severity.INFO,
)
COMPAT_HINT_RISKIER: Final = _code(
    COMPAT,
    "compat.hint_riskier",
    "an MCP annotation now says the tool is riskier",
    "An annotation moved toward risk, read with MCP's defaults when absent (`readOnlyHint` "
    "false, `destructiveHint` true, `idempotentHint` false, `openWorldHint` true): "
    "`readOnlyHint` true to false, `destructiveHint` false to true, `idempotentHint` true to "
    "false, or `openWorldHint` false to true. Hosts that called the tool without asking "
    "the user, or retried it freely, should not any more; review what changed in the tool.",
    severity=WARNING,
)
COMPAT_HINT_SAFER: Final = _code(
    COMPAT,
    "compat.hint_safer",
    "an MCP annotation now says the tool is safer",
    "An annotation moved away from risk (read with MCP's defaults when absent): the tool "
    "now says it is read-only, not destructive, idempotent or closed-world. No call "
    "breaks; hosts may ask the user less, so the claim had better be true.",
    severity=Severity.INFO,
)
COMPAT_HINT_RESTATED: Final = _code(
    COMPAT,
    "compat.hint_restated",
    "an MCP annotation now states MCP's default",
    "An annotation was added or removed with the value MCP assumes when it is absent "
    "(`readOnlyHint` false, `destructiveHint` true, `idempotentHint` false, `openWorldHint` "
    "true): the hint means what it meant.",
    severity=Severity.INFO,
)
COMPAT_OUTPUT_SCHEMA_ADDED: Final = _code(
    COMPAT,
    "compat.output_schema_added",
    "a tool now declares an output schema",
    "The new version declares `outputSchema` where the old one declared none: results "
    "that were anything are now promised a shape, which consumers may rely on.",
    severity=Severity.INFO,
)
COMPAT_OUTPUT_SCHEMA_REMOVED: Final = _code(
    COMPAT,
    "compat.output_schema_removed",
    "a tool no longer declares its output schema",
    "The new version drops `outputSchema`: its results are no longer promised a shape, "
    "and it need not send `structuredContent` at all. Consumers that read the structured "
    "result break.",
)
COMPAT_UNKNOWN_FIELD: Final = _code(
    COMPAT,
    "compat.unknown_field",
    "a member of the tool definition whose effect is not classified changed",
    "A member of the tool definition other than its name, title, description, schemas and "
    "the four MCP hints changed: `execution`, `_meta`, another annotation, OpenAI's "
    "`strict`. Hosts may act on it, and its effect is not known here, so it is risky; "
    "review it.",
    severity=WARNING,
)
COMPAT_TYPE_NARROWED: Final = _code(
    COMPAT,
    "compat.type_narrowed",
    "a schema accepts fewer JSON types",
    '`type` lost a type (`["string", "null"]` to `"string"`, `number` to `integer`) or '
    "was added where any type went. A value of the dropped type is refused: breaking in "
    "an input schema, compatible in an output schema.",
)
COMPAT_TYPE_WIDENED: Final = _code(
    COMPAT,
    "compat.type_widened",
    "a schema accepts more JSON types",
    '`type` gained a type (`integer` to `number`, `string` to `["string", "null"]`) or '
    "was removed. Compatible in an input schema; in an output schema consumers get values "
    "of a type they did not handle: breaking.",
)
COMPAT_ENUM_VALUE_REMOVED: Final = _code(
    COMPAT,
    "compat.enum_value_removed",
    "an allowed value was removed from enum or const",
    "A value that `enum` (or `const`) allowed is no longer allowed. Callers that send it "
    "fail: breaking in an input schema; compatible in an output schema.",
)
COMPAT_ENUM_VALUE_ADDED: Final = _code(
    COMPAT,
    "compat.enum_value_added",
    "an allowed value was added to enum",
    "`enum` allows a value it did not. Compatible in an input schema; in an output schema a "
    "consumer that switches over the values meets one it does not know: breaking.",
)
COMPAT_VALUE_RESTRICTED: Final = _code(
    COMPAT,
    "compat.value_restricted",
    "enum or const was added where any value went",
    "A value that was free is now restricted to a list (`enum`) or one value (`const`). "
    "Breaking in an input schema; compatible in an output schema.",
)
COMPAT_VALUE_UNRESTRICTED: Final = _code(
    COMPAT,
    "compat.value_unrestricted",
    "enum or const was removed",
    "A value restricted to a list or one value is now free. Compatible in an input schema; "
    "breaking in an output schema.",
)
COMPAT_BOUND_TIGHTENED: Final = _code(
    COMPAT,
    "compat.bound_tightened",
    "a bound was added or tightened",
    "`minimum`, `maximum` (or their exclusive forms), `minLength`, `maxLength`, "
    "`minItems`, `maxItems`, `minProperties`, `maxProperties`, `minContains`, "
    "`maxContains` or `multipleOf` now refuses values it accepted. Breaking in an input "
    "schema; compatible in an output schema.",
)
COMPAT_BOUND_LOOSENED: Final = _code(
    COMPAT,
    "compat.bound_loosened",
    "a bound was removed or loosened",
    "A bound now accepts values it refused. Compatible in an input schema; in an output "
    "schema consumers get values outside the range they were promised: breaking.",
)
COMPAT_PATTERN_ADDED: Final = _code(
    COMPAT,
    "compat.pattern_added",
    "a string now has a pattern",
    "A `pattern` was added: strings that do not match it are refused. Breaking in an input "
    "schema; compatible in an output schema.",
)
COMPAT_PATTERN_REMOVED: Final = _code(
    COMPAT,
    "compat.pattern_removed",
    "a string's pattern was removed",
    "A `pattern` was removed: any string is accepted. Compatible in an input schema; "
    "breaking in an output schema.",
)
COMPAT_PATTERN_CHANGED: Final = _code(
    COMPAT,
    "compat.pattern_changed",
    "a string's pattern changed",
    "A `pattern` was rewritten. Strings are drawn from the old pattern and tried on the new "
    "one (and the reverse): a string one accepts and the other refuses is quoted, and makes "
    "the change breaking in the direction it breaks; when none is found the change is "
    "risky, since two regular expressions cannot in general be compared.",
)
COMPAT_FORMAT_ADDED: Final = _code(
    COMPAT,
    "compat.format_added",
    "a string now has an asserted format",
    "A `format` that jsoncontract asserts (`date`, `email`, `uuid`...) was added: strings "
    "that are not of the format are refused. Breaking in an input schema; compatible in "
    "an output schema.",
)
COMPAT_FORMAT_REMOVED: Final = _code(
    COMPAT,
    "compat.format_removed",
    "a string's asserted format was removed",
    "An asserted `format` was removed. Compatible in an input schema; breaking in an "
    "output schema.",
)
COMPAT_FORMAT_CHANGED: Final = _code(
    COMPAT,
    "compat.format_changed",
    "a string's format changed, or a format that is not asserted changed",
    "A `format` changed to another (`date` to `date-time`), which refuses values the old one "
    "accepted; a change within a known inclusion (`email` to `idn-email`, `uri` to `iri`) "
    "is a widening or a narrowing. A format jsoncontract does not assert (`int64`, a custom "
    "name) is only an annotation here, but a server's validator may assert it: risky.",
)
COMPAT_UNIQUE_ITEMS_ADDED: Final = _code(
    COMPAT,
    "compat.unique_items_added",
    "an array's items must now be unique",
    "`uniqueItems` became true: an array with a repeated item is refused. Breaking in an "
    "input schema; compatible in an output schema.",
)
COMPAT_UNIQUE_ITEMS_REMOVED: Final = _code(
    COMPAT,
    "compat.unique_items_removed",
    "an array's items need no longer be unique",
    "`uniqueItems` is no longer true. Compatible in an input schema; breaking in an output schema.",
)
COMPAT_REQUIRED_ADDED: Final = _code(
    COMPAT,
    "compat.required_added",
    "a member is now required",
    "A name was added to `required`: an object without it is refused. Breaking in an input "
    "schema (every caller that left it out fails); compatible in an output schema.",
)
COMPAT_REQUIRED_REMOVED: Final = _code(
    COMPAT,
    "compat.required_removed",
    "a member is no longer required",
    "A name was removed from `required`. Compatible in an input schema; in an output schema "
    "consumers that read the member may not find it: breaking.",
)
COMPAT_PROPERTY_REMOVED: Final = _code(
    COMPAT,
    "compat.property_removed",
    "a property's schema was removed",
    "A property is no longer declared. Under `additionalProperties: false` (or a closed "
    "`unevaluatedProperties`) a value that sends it is refused: breaking in an input "
    "schema. In an open object the member is now unconstrained: compatible in an input "
    "schema, breaking in an output schema.",
)
COMPAT_PROPERTY_ADDED: Final = _code(
    COMPAT,
    "compat.property_added",
    "a property is newly declared",
    "A property was declared. In a closed object it was refused and is now accepted: "
    "compatible in an input schema, breaking in an output one. In an open object it "
    "was unconstrained and now has a schema: only a caller that sent an undeclared member "
    "of that name can fail, so it is risky in an input schema (`--usage` says whether any "
    "captured call sent it), compatible in an output one.",
)
COMPAT_ADDITIONAL_PROPERTIES_CLOSED: Final = _code(
    COMPAT,
    "compat.additional_properties_closed",
    "an object now refuses members it does not declare",
    "`additionalProperties` (or `unevaluatedProperties`) became false: members that are not "
    "declared are refused. Breaking in an input schema; compatible in an output schema.",
)
COMPAT_ADDITIONAL_PROPERTIES_OPENED: Final = _code(
    COMPAT,
    "compat.additional_properties_opened",
    "an object now accepts members it does not declare",
    "`additionalProperties` (or `unevaluatedProperties`) is no longer false. Compatible in "
    "an input schema; breaking in an output schema, whose consumers may meet members they "
    "were promised would not come.",
)
COMPAT_DEPENDENCY_ADDED: Final = _code(
    COMPAT,
    "compat.dependency_added",
    "a member now requires others, or a schema",
    "`dependentRequired` or `dependentSchemas` (`dependencies` before Draft 2019-09) gained "
    "a condition: an object that has the member must now also have others, or match a "
    "schema. Breaking in an input schema; compatible in an output schema.",
)
COMPAT_DEPENDENCY_REMOVED: Final = _code(
    COMPAT,
    "compat.dependency_removed",
    "a member no longer requires others, or a schema",
    "A `dependentRequired` or `dependentSchemas` condition was removed. Compatible in an "
    "input schema; breaking in an output schema.",
)
COMPAT_CONDITION_ADDED: Final = _code(
    COMPAT,
    "compat.condition_added",
    "an if/then/else condition was added",
    "An `if` with `then` or `else` was added: values that meet (or miss) the condition must "
    "now also match another schema. Breaking in an input schema; compatible in an output "
    "schema.",
)
COMPAT_CONDITION_REMOVED: Final = _code(
    COMPAT,
    "compat.condition_removed",
    "an if/then/else condition was removed",
    "An `if` with its `then` and `else` was removed. Compatible in an input schema; "
    "breaking in an output schema.",
)
COMPAT_CONDITION_CHANGED: Final = _code(
    COMPAT,
    "compat.condition_changed",
    "the `if` of a condition changed",
    "The schema an `if` tests changed, so other values take the `then` and the `else` "
    "branches: which values are accepted changes both ways, and is not classified. Risky; "
    "changes inside `then` and `else` under the same `if` are classified as usual.",
    severity=WARNING,
)
COMPAT_SUBSCHEMA_ADDED: Final = _code(
    COMPAT,
    "compat.subschema_added",
    "a value must now match one more schema",
    "An entry of `allOf`, or a whole `anyOf`, `oneOf`, `not` or `contains`, was added: a "
    "value must match it as well. Breaking in an input schema; compatible in an output "
    "schema.",
)
COMPAT_SUBSCHEMA_REMOVED: Final = _code(
    COMPAT,
    "compat.subschema_removed",
    "a value need no longer match a schema",
    "An entry of `allOf`, or a whole `anyOf`, `oneOf`, `not` or `contains`, was removed. "
    "Compatible in an input schema; breaking in an output schema.",
)
COMPAT_BRANCH_ADDED: Final = _code(
    COMPAT,
    "compat.branch_added",
    "an anyOf or oneOf gained a branch",
    "An alternative was added: values that match it are accepted too. Compatible in an "
    "input schema, breaking in an output schema. In a `oneOf` whose branches may overlap, "
    "a value may now match two branches and be refused (`compat.branches_overlap`).",
)
COMPAT_BRANCH_REMOVED: Final = _code(
    COMPAT,
    "compat.branch_removed",
    "an anyOf or oneOf lost a branch",
    "An alternative was removed: values only it accepted are refused. Breaking in an input "
    "schema; compatible in an output schema.",
)
COMPAT_BRANCHES_OVERLAP: Final = _code(
    COMPAT,
    "compat.branches_overlap",
    "a changed oneOf has branches that may overlap",
    "A `oneOf` accepts a value that matches exactly one branch. When its branches are not "
    "told apart by type or by a `const` member, widening one branch can make a value match "
    "two and be refused, and narrowing one can accept a value that matched two: risky, "
    "besides what each branch's changes say.",
    severity=WARNING,
)
COMPAT_SCHEMA_CLOSED: Final = _code(
    COMPAT,
    "compat.schema_closed",
    "a schema now refuses every value",
    'A subschema became `false` (or `{"not": {}}`): every value that reaches it is refused, '
    "for instance the items of an array. Breaking in an input schema; compatible in an "
    "output schema.",
)
COMPAT_SCHEMA_OPENED: Final = _code(
    COMPAT,
    "compat.schema_opened",
    "a schema that refused every value now accepts some",
    "A subschema that was `false` now accepts values. Compatible in an input schema; "
    "breaking in an output schema.",
)
COMPAT_REF_EQUIVALENT: Final = _code(
    COMPAT,
    "compat.ref_equivalent",
    "a schema is now reached through a $ref to an identical definition (or the reverse)",
    "A schema written in place became a `$ref` to a definition that says the same (or a "
    "`$ref` was inlined, or points at another identical definition): what is accepted is "
    "the same. Local `$ref`s are followed on both sides; they are never fetched.",
    severity=Severity.INFO,
)
COMPAT_REF_CHANGED: Final = _code(
    COMPAT,
    "compat.ref_changed",
    "a $ref that is not followed changed",
    "A `$ref` by the `$id` of an embedded schema (`urn:...`, a URL) changed: the comparison "
    "follows `#` pointers and anchors only, so what it points at is not compared: risky. "
    "(A reference to another document is refused before any comparison: jsoncontract never "
    "fetches a schema.)",
    severity=WARNING,
)
COMPAT_EQUIVALENT_REWRITE: Final = _code(
    COMPAT,
    "compat.equivalent_rewrite",
    "a keyword was rewritten with the same meaning",
    'The schema is written differently but accepts the same values: `"string"` as '
    '`["string"]`, an `enum` of one value as `const`, `required` or `enum` reordered, '
    "`1` as `1.0`.",
    severity=Severity.INFO,
)
COMPAT_EXAMPLE_CHANGED: Final = _code(
    COMPAT,
    "compat.example_changed",
    "examples or a $comment changed",
    "`examples`, `example` and `$comment` are not used for validation. Cosmetic, although "
    "a model may read examples: review them when they illustrate a changed contract.",
    severity=Severity.INFO,
)
COMPAT_DEFAULT_CHANGED: Final = _code(
    COMPAT,
    "compat.default_changed",
    "a default value changed",
    "`default` does not change what is valid, but a tool that fills in an omitted argument "
    "with it now behaves differently for every call that omits it, and a model may read "
    "it: risky.",
    severity=WARNING,
)
COMPAT_DEPRECATED_CHANGED: Final = _code(
    COMPAT,
    "compat.deprecated_changed",
    "a schema was marked deprecated, or no longer is",
    "`deprecated` does not change what is valid; it warns callers to stop sending a value. "
    "No call breaks now.",
    severity=Severity.INFO,
)
COMPAT_DIALECT_RESTATED: Final = _code(
    COMPAT,
    "compat.dialect_restated",
    "`$schema` names the same draft",
    "`$schema` was added, removed or respelt, naming the draft the schema was already read "
    "as (Draft 2020-12 when absent): nothing changes.",
    severity=Severity.INFO,
)
COMPAT_DIALECT_CHANGED: Final = _code(
    COMPAT,
    "compat.dialect_changed",
    "`$schema` names another draft",
    "The schema is now read as another draft of JSON Schema, in which some keywords mean "
    "something else (`items` as an array, `exclusiveMinimum` as a boolean, `$ref` "
    "siblings): risky.",
    severity=WARNING,
)
COMPAT_UNKNOWN_KEYWORD: Final = _code(
    COMPAT,
    "compat.unknown_keyword",
    "a keyword whose effect is not classified changed",
    "A keyword jsoncontract does not classify changed: an extension (`x-...`), `nullable`, "
    "`readOnly`, `contentMediaType`, `$id`, `$anchor`, `$dynamicRef`... A validator or a "
    "host may act on it, so the change is risky.",
    severity=WARNING,
)
COMPAT_DEFINITIONS_CHANGED: Final = _code(
    COMPAT,
    "compat.definitions_changed",
    "`$defs` or `definitions` changed without changing what any schema accepts",
    "A definition was added, removed, renamed or edited, and every `$ref` that reaches it "
    "was compared through it: what it changes is reported where it is used, and the rest "
    "(an unused definition, a definition moved) is cosmetic.",
    severity=Severity.INFO,
)
COMPAT_UNCLASSIFIED: Final = _code(
    COMPAT,
    "compat.unclassified",
    "a change no check classifies",
    "A difference between the two definitions that no check explains. A change that "
    "cannot be classified is risky, never compatible: a `compatible` verdict is a promise "
    "that no call that was valid fails.",
    severity=WARNING,
)
COMPAT_TOO_DEEP: Final = _code(
    COMPAT,
    "compat.too_deep",
    "a schema is nested too deeply to compare",
    "The schemas are nested deeper than the comparison follows (64 levels, `$ref`s "
    "included); what changed below is not classified: risky.",
    severity=WARNING,
)

# -- suite -----------------------------------------------------------------------------------

SUITE: Final = CATALOG.family(
    "suite",
    "Fixture cases",
    "`jsoncontract test` reports each case that did not pass under `suite.<mismatch>`, the "
    "kind of mismatch (SARIF rules; the JUnit failure type is the mismatch alone): "
    "`suite.accepted` for a contract weakness, the others for a case that fails in another "
    "way than it says; `mcp test` adds the `suite.server_*` codes, where a live server "
    "disagrees with a case.",
    commands=("test", "mcp test"),
)
SUITE_ACCEPTED: Final = _code(
    SUITE,
    "suite.accepted",
    "a negative case the contract accepts: the contract is weaker than the case says it should be",
    "A case that should fail (a missing field, a wrong enum value, an extra member) passed "
    "every gate: the contract lets through what it should reject, typically an object "
    "without `additionalProperties: false` or a string without its enum. Tighten the "
    "schema (or the rule); if the case is wrong, edit its expectation (`test --update` "
    "accepts the current outcome).",
)
SUITE_UNEXPECTED_FAILURE: Final = _code(
    SUITE,
    "suite.unexpected_failure",
    "a case expected to pass fails",
    "A case expected to pass fails a gate: the contract became stricter than the case (a "
    "new required property, a narrower enum), or the case's input is out of date. The "
    "message says where and why it fails.",
)
SUITE_WRONG_STAGE: Final = _code(
    SUITE,
    "suite.wrong_stage",
    "a negative case fails at another gate than expected",
    "A negative case fails, but at another gate than it says (at `parse` where `schema` was "
    "expected): it no longer tests what it was written for.",
)
SUITE_WRONG_REASON: Final = _code(
    SUITE,
    "suite.wrong_reason",
    "a negative case fails for another reason than expected",
    "A negative case fails at the expected gate, but with another code or keyword: the "
    "contract rejects the input for another reason than the one the case guards.",
)
SUITE_WRONG_PATH: Final = _code(
    SUITE,
    "suite.wrong_path",
    "a negative case fails for the expected reason at another place",
    "A negative case fails with the expected code, but at another JSON Pointer: the schema "
    "changed shape around the tested member.",
)
SUITE_WRONG_FIELDS: Final = _code(
    SUITE,
    "suite.wrong_fields",
    "a call carries other argument fields than recorded",
    "A regression case recorded which argument fields a captured call carries; the call now "
    "carries others (a field dropped or added on the way).",
)
SUITE_WRONG_TOOL: Final = _code(
    SUITE,
    "suite.wrong_tool",
    "a captured call goes to another tool than recorded",
    "The capture of a regression case now calls another tool than the case recorded: the "
    "model, or the adapter's routing, chose another tool for the same request.",
)
SUITE_WRONG_HOP: Final = _code(
    SUITE,
    "suite.wrong_hop",
    "a captured call is at another hop than expected",
    "The captured call of a case is at another hop (model, MCP, downstream) than the case expects.",
)
SUITE_NO_CALL: Final = _code(
    SUITE,
    "suite.no_call",
    "a capture holds no call the case can check",
    "The capture of a case cannot be read, holds no tool call, or not the call the case "
    "asks for (`call`).",
)
SUITE_TOOL_MISSING: Final = _code(
    SUITE,
    "suite.tool_missing",
    "a suite's tool is not in the tool list",
    "A suite belongs to a tool that none of the tool definitions declares any more: the "
    "tool was renamed or removed, or `--tools` names other definitions. Its cases cannot "
    "run.",
)

SUITE_SERVER_ACCEPTED: Final = _code(
    SUITE,
    "suite.server_accepted",
    "the contract rejects the call, and the live server took it",
    "`mcp test` sent a case the contract rejects (a missing field, a wrong type) to a live "
    "server with `tools/call`, and the server accepted it: the server is laxer than the "
    "schema it advertises, so a model that breaks the schema is not stopped. Make the "
    "server validate its input against its own `inputSchema`.",
)
SUITE_SERVER_REJECTED: Final = _code(
    SUITE,
    "suite.server_rejected",
    "the contract accepts the call, and the live server refused it",
    "`mcp test` sent a case the contract accepts to a live server, and the server answered "
    "with an error: the server is stricter than the schema it advertises, so a model that "
    "follows the schema still fails. Loosen the server, or tighten the schema to what it "
    "really accepts.",
)
SUITE_SERVER_FAILED: Final = _code(
    SUITE,
    "suite.server_failed",
    "the live server did not answer the call properly",
    "`mcp test` sent a case to a live server, which did not answer in time, crashed, or "
    "answered with something that is not a JSON-RPC response. The message says which: a "
    "host calling the tool would meet the same.",
)
SUITE_SERVER_RESULT: Final = _code(
    SUITE,
    "suite.server_result",
    "the live server's result breaks the tool's output schema",
    "`mcp test` sent a case to a live server, which answered, but its `structuredContent` "
    "breaks the tool's `outputSchema` (or is missing although the tool declares one): "
    "clients that rely on the output schema will misread the result. Fix the tool's "
    "`structuredContent`.",
)

#: Why a case did not pass (:class:`jsoncontract.suites.model.Mismatch`, by value) -> its
#: code.
SUITE_CODES: Final = {
    "accepted": SUITE_ACCEPTED,
    "unexpected_failure": SUITE_UNEXPECTED_FAILURE,
    "wrong_stage": SUITE_WRONG_STAGE,
    "wrong_reason": SUITE_WRONG_REASON,
    "wrong_path": SUITE_WRONG_PATH,
    "wrong_fields": SUITE_WRONG_FIELDS,
    "wrong_tool": SUITE_WRONG_TOOL,
    "wrong_hop": SUITE_WRONG_HOP,
    "no_call": SUITE_NO_CALL,
    "tool_missing": SUITE_TOOL_MISSING,
    "server_accepted": SUITE_SERVER_ACCEPTED,
    "server_rejected": SUITE_SERVER_REJECTED,
    "server_failed": SUITE_SERVER_FAILED,
    "server_result": SUITE_SERVER_RESULT,
}

# -- fixtures --------------------------------------------------------------------------------

FIXTURES: Final = CATALOG.family(
    "fixtures",
    "Fixture generation",
    "`jsoncontract fixtures` reports, per tool, what it could not generate and what "
    "regenerating would change.",
    commands=("fixtures",),
)
FIXTURES_CANNOT_GENERATE: Final = _code(
    FIXTURES,
    "fixtures.cannot_generate",
    "no cases could be derived for a tool",
    "The generator found no valid instance of the tool's input schema (the schema admits "
    "none: contradictory bounds, an impossible pattern, a recursion without an exit), or "
    "could not derive cases from it. A schema no call can pass is a broken contract; fix "
    "it, or write a case named `valid` by hand to derive the others from.",
)
FIXTURES_OUT_OF_DATE: Final = _code(
    FIXTURES,
    "fixtures.out_of_date",
    "a suite is missing or would change (--check)",
    "With `--check`, a suite file does not exist yet, or regenerating it would add, change "
    "or remove cases: the schema changed since the suite was written. Run "
    "`jsoncontract fixtures` without `--check` and commit the suite.",
)
FIXTURES_STALE: Final = _code(
    FIXTURES,
    "fixtures.stale",
    "a case is no longer generated from the schema",
    "A generated case of the suite is no longer derived from the current schema (the "
    "property it breaks is gone, say). It is kept, since it may have been edited; `--prune` "
    "removes it when it was never edited.",
    severity=WARNING,
)
FIXTURES_SKIPPED: Final = _code(
    FIXTURES,
    "fixtures.skipped",
    "a case that could not be built",
    "One case could not be built, with the reason: an optional member the valid instance "
    "leaves out (its pattern could not be satisfied), a bound too large to write a case "
    "past, an object on which every candidate name for an extra member is declared. The "
    "other cases of the tool are written.",
    severity=WARNING,
)

# -- rules --check ---------------------------------------------------------------------------

RULES: Final = CATALOG.family(
    "rules",
    "Rules files",
    "`jsoncontract rules --check` reports every problem of every business rules file, "
    "checked against the tool catalog without any traffic; loading rules for `check`, "
    "`test` and `fixtures` stops at the first error among them (exit 2) and prints the "
    "warnings. `docs/business-rules.md` explains how expressions are typed against the "
    "schemas.",
    commands=("rules --check", "check", "test", "fixtures"),
)
RULES_INVALID: Final = _code(
    RULES,
    "rules.invalid",
    "the rules file cannot be used",
    "The rules file cannot be used: it is not TOML, breaks the rules schema, names reference "
    "data that does not load, a Python rule that does not import, or uses a rule id twice. "
    "The message says which, with the line; the other files are still checked.",
    name="invalid-rules-file",
)
RULES_SYNTAX: Final = _code(
    RULES,
    "rules.syntax",
    "an expression that is not valid CEL",
    "A rule's expression (or its message expression) does not parse as CEL; the message "
    "gives the position. Such a rule could never run.",
    name="cel-syntax-error",
)
RULES_UNDECLARED: Final = _code(
    RULES,
    "rules.undeclared",
    "an expression the CEL checker rejects",
    "The CEL checker rejects the expression before any schema is consulted: an undeclared "
    "variable or dataset, an unknown function, or literals of the wrong types. The hint "
    "names the closest declared name.",
    name="cel-check-error",
)
RULES_UNKNOWN_TOOL: Final = _code(
    RULES,
    "rules.unknown-tool",
    "rules for a tool that no tools file defines",
    "The file has rules for a tool that none of the tool definitions declares (renamed or "
    "removed): they never run, so the checks they stood for silently stopped. An error for "
    "`rules --check`; a warning when `check` loads the rules, since one rules file may "
    "serve several catalogs. Rename the rules' tool, or remove them.",
    name="rule-for-unknown-tool",
)
RULES_UNKNOWN_FIELD: Final = _code(
    RULES,
    "rules.unknown-field",
    "a rule reads a field the tool's schema cannot have",
    "A rule reads a field, or is scoped to one, that the tool's input schema cannot have: "
    "misspelt, or renamed or removed in the schema since the rule was written. The rule "
    "would fail on every call; the hint names the closest field.",
    name="unknown-field",
)
RULES_TYPE_MISMATCH: Final = _code(
    RULES,
    "rules.type-mismatch",
    "an operator or function applied to kinds it has no overload for",
    "Checked against the schema's types, the expression applies an operator or function to "
    "kinds it has no overload for (a number added to a string), iterates over something "
    "that is neither a list nor a map, or compares values that can never be equal. It "
    "would fail on every call.",
    name="type-mismatch",
)
RULES_NUMBER_MIXING: Final = _code(
    RULES,
    "rules.number-mixing",
    "arithmetic that fails for an int or for a double",
    "A JSON `number` arrives as an int or a double, as it was written (`5` or `5.5`), and "
    "CEL does not mix them: the expression's arithmetic works for one and fails for the "
    "other. Convert explicitly (`double(self.amount)`).",
    name="number-mixing",
)
RULES_RESULT_TYPE: Final = _code(
    RULES,
    "rules.result-type",
    "a rule that does not give a bool, or a message that does not give a string",
    "A rule's expression does not evaluate to a bool, or its `messageExpression` does not "
    "evaluate to a string, for the types the schema gives: the rule cannot pass or fail as "
    "written.",
    name="wrong-result-type",
)
RULES_COST: Final = _code(
    RULES,
    "rules.cost",
    "an expression whose worst-case cost is over the budget",
    "The estimated worst-case cost of the expression, from the schema's bounds (the "
    "longest strings, the largest arrays), is over the cost budget (`--cost-budget`, "
    "`[business] cost_budget`). One call could make the rule run for a long time; bound "
    "the schema (`maxLength`, `maxItems`) or simplify the expression.",
    name="over-cost-budget",
)
RULES_OPTIONAL_FIELD: Final = _code(
    RULES,
    "rules.optional-field",
    "a field the schema does not require, read without a check",
    "The rule reads a field the schema does not require, without `has()`, the `?` syntax "
    "or a `scope`: on calls without the field the rule fails to evaluate instead of "
    "passing. Guard the read.",
    severity=WARNING,
    name="optional-field-read",
)
RULES_NULLABLE_FIELD: Final = _code(
    RULES,
    "rules.nullable-field",
    "a value that may be null, used where null fails",
    "The schema allows the value to be null, and the rule uses it where null fails (in "
    "arithmetic, a comparison, a function call) without a null check: calls that send null "
    "make the rule fail to evaluate.",
    severity=WARNING,
    name="nullable-field-used",
)
RULES_FIELD_PATH: Final = _code(
    RULES,
    "rules.field-path",
    "a fieldPath at a field the schema cannot have",
    "The rule's `fieldPath` points at a field the tool's schema cannot have, so its findings "
    "would point at a place that does not exist (the field was renamed, usually). Update "
    "the path.",
    severity=WARNING,
    name="unknown-field-path",
)
RULES_ITERATIONS: Final = _code(
    RULES,
    "rules.iterations",
    "a rule that may run more steps than the runtime allows",
    "In the worst case the schema allows, the rule runs more comprehension steps than the "
    "runtime allows in one evaluation; on such calls it is reported as not evaluated. "
    "Bound the arrays it iterates (`maxItems`).",
    severity=WARNING,
    name="may-exceed-iterations",
)

#: What the schema-aware checker of rules finds, by its name for it -> the code.
RULES_PROBLEMS: Final = {
    "unknown-field": RULES_UNKNOWN_FIELD,
    "type-mismatch": RULES_TYPE_MISMATCH,
    "number-mixing": RULES_NUMBER_MIXING,
    "result-type": RULES_RESULT_TYPE,
    "cost": RULES_COST,
    "optional-field": RULES_OPTIONAL_FIELD,
    "nullable-field": RULES_NULLABLE_FIELD,
    "field-path": RULES_FIELD_PATH,
    "iterations": RULES_ITERATIONS,
}

# -- mcp -------------------------------------------------------------------------------------

MCP: Final = CATALOG.family(
    "mcp",
    "Live MCP servers",
    "`jsoncontract mcp` connects to a live server; these codes are about what it lists and "
    "how it behaves on the wire, found while listing its tools (`mcp tools`, `mcp lint`, "
    "`mcp probe`). The listing goes on without what is broken.",
    commands=("mcp tools", "mcp lint", "mcp probe"),
)
MCP_TOOL_UNUSABLE: Final = _code(
    MCP,
    "mcp.tool_unusable",
    "a listed tool has no name, a repeated name, or no inputSchema object",
    "A tool of the server's `tools/list` cannot be used: it has no name, the name of "
    "another tool, or no `inputSchema` object. A host cannot call it reliably; it is left "
    "out of everything else the command does.",
    name="tool-unusable",
)
MCP_CURSOR_INVALID: Final = _code(
    MCP,
    "mcp.cursor_invalid",
    "tools/list returned a nextCursor that is not a string",
    "A page of `tools/list` carries a `nextCursor` that is not a string, as the MCP "
    "specification requires: clients cannot ask for the next page, so the tools after it "
    "are invisible to them.",
    name="cursor-invalid",
)
MCP_CURSOR_LOOP: Final = _code(
    MCP,
    "mcp.cursor_loop",
    "tools/list pagination never ends (a cursor came back)",
    "A `nextCursor` the server already returned came back: a client that follows the "
    "cursors would list tools forever. The listing stops there.",
    name="cursor-loop",
)
MCP_STDOUT_NOISE: Final = _code(
    MCP,
    "mcp.stdout_noise",
    "a stdio server wrote something that is not a JSON-RPC message to stdout",
    "A stdio server wrote a line to stdout that is not a JSON-RPC message (a log line, a "
    "banner). stdout is the protocol channel: strict clients drop the connection, others "
    "lose a message. Log to stderr.",
    name="stdout-noise",
)

PROBE: Final = CATALOG.family(
    "probe",
    "Probing a live server",
    "`jsoncontract mcp probe` sends each tool it may call the calls derived from its own "
    "input schema, and checks the protocol once per server; these codes say where the "
    "server does not keep its own contract. `docs/mcp.md` has the table of what the schema "
    "says, what the server did, and the code.",
    commands=("mcp probe",),
)
PROBE_ACCEPTED_INVALID: Final = _code(
    PROBE,
    "probe.accepted_invalid",
    "the server accepted arguments its own input schema rejects",
    "The server accepted a call its own `inputSchema` rejects (a missing required member, "
    "a wrong type, a value outside its enum): it does not validate what it advertises, so "
    "a model that breaks the schema is not stopped. The finding names the keyword and the "
    "pointer.",
    name="accepted-invalid-arguments",
)
PROBE_COERCED: Final = _code(
    PROBE,
    "probe.coerced",
    "the server accepted a string where its input schema says a number",
    'The server accepted `"20"` where its schema says a number: it coerces types silently, '
    "so a model that sends strings is never corrected, and another server of the same tool "
    "may reject the call.",
    name="coerced-string-to-number",
)
PROBE_REJECTED_VALID: Final = _code(
    PROBE,
    "probe.rejected_valid",
    "the server rejected arguments its input schema accepts",
    "The server rejected a call its own `inputSchema` accepts: it is stricter than it says "
    "(or the call needs state the probe cannot give, like an id that exists). Models "
    "following the schema will fail here.",
    severity=WARNING,
    name="rejected-valid-arguments",
)
PROBE_TIMEOUT: Final = _code(
    PROBE,
    "probe.timeout",
    "a call got no answer within the timeout",
    "A `tools/call` got no answer within the timeout (`--timeout`). A host would hang or "
    "give up the same way.",
    name="call-timed-out",
)
PROBE_CRASHED: Final = _code(
    PROBE,
    "probe.crashed",
    "the server process ended (or hung up) during a call",
    "The server process ended, or the connection was closed, while a call was running: the "
    "call's arguments crash it. The probe restarts the server for the next call.",
    name="server-crashed",
)
PROBE_INVALID_ANSWER: Final = _code(
    PROBE,
    "probe.invalid_answer",
    "the answer to a call is not a JSON-RPC response",
    "The server answered a call with something that is not a JSON-RPC response (no "
    "`result` or `error`, a wrong id): clients cannot read it.",
    name="invalid-answer",
)
PROBE_SCHEMA_INVALID: Final = _code(
    PROBE,
    "probe.schema_invalid",
    "a tool's inputSchema is not a valid JSON Schema, so no call can be derived",
    "The tool's `inputSchema` is not a valid JSON Schema, so no call can be derived from it "
    "and the tool is not probed. `mcp lint` says what is wrong with it.",
    name="input-schema-invalid",
)
PROBE_NO_CASES: Final = _code(
    PROBE,
    "probe.no_cases",
    "no valid call can be derived from a tool's inputSchema",
    "The generator found no call the tool's `inputSchema` accepts (contradictory bounds, a "
    "pattern it cannot satisfy), so the tool is not probed. A schema no call can pass is a "
    "broken contract.",
    severity=WARNING,
    name="no-valid-call",
)
PROBE_UNKNOWN_METHOD: Final = _code(
    PROBE,
    "probe.unknown_method",
    "an unknown method was not answered with -32601",
    "A request for a method the server does not have was not answered with the JSON-RPC "
    "error -32601 (method not found), as JSON-RPC requires: clients cannot tell a missing "
    "feature from a failure.",
    severity=WARNING,
    name="unknown-method-answer",
)
PROBE_MALFORMED_REQUEST: Final = _code(
    PROBE,
    "probe.malformed_request",
    "a malformed request was not answered with -32600",
    "A malformed request (a `method` that is a number, `params` that is a string) was not "
    "answered with the JSON-RPC error -32600 (invalid request): the server accepts or "
    "ignores input it should refuse.",
    severity=WARNING,
    name="malformed-request-answer",
)
PROBE_LIST_CHANGED_UNDECLARED: Final = _code(
    PROBE,
    "probe.list_changed_undeclared",
    "the server sent tools/list_changed without declaring capabilities.tools.listChanged",
    "The server sent `notifications/tools/list_changed` without declaring "
    "`capabilities.tools.listChanged` at initialization: clients that trust the declared "
    "capabilities ignore the notification and keep a stale tool list.",
    severity=WARNING,
    name="list-changed-undeclared",
)
PROBE_AUTH_NOT_ENFORCED: Final = _code(
    PROBE,
    "probe.auth_not_enforced",
    "a request without the credential headers was not refused with 401",
    "With `--requires-auth`, an `initialize` request sent without the credential headers "
    "was not refused with HTTP 401: anyone who can reach the endpoint can use the server.",
    name="auth-not-enforced",
)
PROBE_CAPABILITY_UNDECLARED: Final = _code(
    PROBE,
    "probe.capability_undeclared",
    "the server sent a request for a capability the client did not declare",
    "The server sent `roots/list`, `sampling/createMessage` or `elicitation/create` to a "
    "client that did not declare that capability: a host without it refuses the request, "
    "and the tool that needed it fails.",
    severity=WARNING,
    name="capability-undeclared",
)
PROBE_RESOURCE_UNREADABLE: Final = _code(
    PROBE,
    "probe.resource_unreadable",
    "a listed resource could not be read",
    "`resources/read` of a resource the server lists was answered with an error, a timeout "
    "or a result without contents: a host that offers the resource to a model gets nothing.",
    name="resource-unreadable",
)
PROBE_PROMPT_FAILED: Final = _code(
    PROBE,
    "probe.prompt_failed",
    "a listed prompt could not be got with arguments its definition accepts",
    "`prompts/get` of a prompt the server lists, with every required argument given, was "
    "answered with an error, a timeout or a result without messages.",
    name="prompt-failed",
)
PROBE_AUTH_DISCOVERY: Final = _code(
    PROBE,
    "probe.auth_discovery",
    "the 401 does not lead a client to the authorization server",
    "A refused request must carry `WWW-Authenticate: Bearer` with `resource_metadata` (MCP "
    "authorization, RFC 9728), whose protected-resource metadata names the resource and its "
    "authorization servers, whose metadata (RFC 8414) a client can fetch: otherwise a client "
    "cannot obtain a token.",
    severity=WARNING,
    name="auth-discovery",
)
PROBE_AUTH_AUDIENCE: Final = _code(
    PROBE,
    "probe.auth_audience",
    "a token issued for another audience was accepted",
    "A request carrying a token the user supplied as issued for another resource was not "
    "refused: a server must accept only tokens issued for itself (MCP authorization, token "
    "audience validation), or a token stolen from another service works here.",
    name="auth-audience",
)

RESULT: Final = CATALOG.family(
    "result",
    "Tool results",
    "What came back for a call: the `result` stage of `check` runs for every call whose "
    "result the capture holds (a tool message, a `tool_result` block, an MCP response, a "
    "span), after the gates on its arguments and whether they passed or not; `mcp probe` "
    "and `mcp test` check what a live server answers to `tools/call`. A result is checked "
    "against its dialect, the MCP schema's `CallToolResult` for the negotiated protocol "
    "version, the tool's `outputSchema`, JSON-RPC's error object, the result contract, and "
    "for what should never leave a server (stack traces, error pages, secrets). "
    "`docs/results.md` has the details.",
    commands=("check", "mcp probe", "mcp test"),
)
RESULT_MALFORMED: Final = _code(
    RESULT,
    "result.malformed",
    "the result is not a well-formed answer of its dialect",
    "A result in the capture lacks what its dialect requires: a JSON-RPC response with both "
    "or neither of `result` and `error`, a `tools/call` result without a `content` list, an "
    "`isError` or `is_error` that is not a boolean, a tool message without content or "
    "without the id of the call it answers. The message names what is wrong. The model or "
    "the host that receives it may reject it, or match it to no call.",
)
RESULT_ENVELOPE: Final = _code(
    RESULT,
    "result.envelope",
    "a tools/call result breaks the MCP schema's CallToolResult",
    "The result of a `tools/call` breaks the MCP specification's `CallToolResult` for the "
    "negotiated protocol version (a content item without its `type`, `isError` that is not "
    "a boolean): clients may fail to read it.",
    name="result-envelope",
)
RESULT_STRUCTURED_CONTENT: Final = _code(
    RESULT,
    "result.structured_content",
    "structuredContent breaks the tool's outputSchema",
    "The result's `structuredContent` breaks the tool's own `outputSchema`: clients that "
    "rely on the output schema will misread the result. The finding names the keyword and "
    "the pointer.",
    name="structured-content-invalid",
)
RESULT_STRUCTURED_CONTENT_MISSING: Final = _code(
    RESULT,
    "result.structured_content_missing",
    "a tool with an outputSchema returned no structuredContent",
    "The tool declares an `outputSchema`, but a successful result carries no "
    "`structuredContent`, which the MCP specification requires in that case.",
    name="structured-content-missing",
)
RESULT_OUTPUT_SCHEMA_INVALID: Final = _code(
    RESULT,
    "result.output_schema_invalid",
    "a tool's outputSchema is not a valid JSON Schema",
    "The tool's `outputSchema` is not a valid JSON Schema, so its results cannot be checked "
    "(and clients cannot validate them either).",
    name="output-schema-invalid",
)
RESULT_INVALID_ARGUMENTS_ANSWER: Final = _code(
    RESULT,
    "result.invalid_arguments_answer",
    "invalid arguments were rejected, but not as the negotiated protocol version says",
    "The server rejected invalid arguments, but not the way the negotiated protocol "
    "version says: from 2025-11-25 with an `isError` result (so the model sees the error "
    "and can correct the call), before with the JSON-RPC error -32602.",
    severity=WARNING,
    name="invalid-arguments-answer",
)
RESULT_UNKNOWN_TOOL_ANSWER: Final = _code(
    RESULT,
    "result.unknown_tool_answer",
    "a call of a tool that does not exist was not answered with a JSON-RPC error",
    "A call of a tool the server does not have (or, in a capture, that the session's latest "
    "`tools/list` does not hold) was not answered with a JSON-RPC error, as every protocol "
    "version says: a client cannot tell the missing tool from a failed call. An `isError` "
    "result is a warning; accepting the call is an error.",
    severity=WARNING,
    name="unknown-tool-answer",
)
RESULT_MALFORMED_ERROR: Final = _code(
    RESULT,
    "result.malformed_error",
    "a JSON-RPC error object lacks an integer code or a string message",
    "An error object the server returned lacks an integer `code` or a string `message`, as "
    "JSON-RPC requires: clients may fail to read the error itself.",
    name="malformed-error-object",
)
RESULT_RESERVED_ERROR_CODE: Final = _code(
    RESULT,
    "result.reserved_error_code",
    "an error code in the range JSON-RPC reserves, which JSON-RPC does not define",
    "The server answered with an error code in the range JSON-RPC reserves for itself "
    "(-32768 to -32000) that JSON-RPC does not define: clients may take it for a protocol "
    "error. Use a code outside the range for the application's own errors.",
    severity=WARNING,
    name="reserved-error-code",
)
RESULT_TEXT_MIRROR: Final = _code(
    RESULT,
    "result.text_mirror",
    "structuredContent has no text block mirroring it as JSON, or one that says something else",
    "The MCP specification asks a tool that returns `structuredContent` to mirror it as JSON "
    "in a text block, for clients that do not read structured content. Without one the "
    "finding is info; with one whose JSON says something else (the two answers disagree) "
    "it is a warning. The JSON need not be byte for byte the same.",
    severity=Severity.INFO,
)
RESULT_CONTRACT: Final = _code(
    RESULT,
    "result.contract",
    "the result breaks the result contract (ok / error / data)",
    "A result shaped as the result contract's envelope (`ok`, `error`, `data`) contradicts "
    "itself: `ok` that is not a boolean, `ok: true` with an `error`, `ok: false` without "
    "one, or an error flag on the wire with `ok: true`. The caller cannot tell whether the "
    "call worked.",
    severity=WARNING,
)
RESULT_ERROR_WITHOUT_CODE: Final = _code(
    RESULT,
    "result.error_without_code",
    "an error result without a stable machine-readable code",
    "An error result says what went wrong in prose only: an `error` that is a bare string, "
    "an error object without `code`, or a code that is prose. A model or a program cannot "
    "branch on it reliably. A stable code reads as an identifier (`ORDER_NOT_FOUND`, "
    "`E1042`, `order.not_found`) or is an integer; a JSON-RPC error's code and a span's "
    "`error.type` count.",
    severity=WARNING,
)
RESULT_STACK_TRACE: Final = _code(
    RESULT,
    "result.stack_trace",
    "the result holds a stack trace (Python, JavaScript, Java, Go, .NET)",
    "The result holds a stack trace: the server passed an exception through to the "
    "caller. It tells the model nothing it can act on, and tells anyone reading the "
    "conversation about the server's code, paths and libraries. Catch the exception and "
    "return an error with a code. The finding names the language and the number of frames.",
)
RESULT_HTML_ERROR_PAGE: Final = _code(
    RESULT,
    "result.html_error_page",
    "the result is an HTML error page, not data",
    "The result (or a string in it) is an HTML document that is an error: a gateway or a "
    "web server answered in place of the tool (`502 Bad Gateway`), and the adapter passed "
    "the page on as the result. The finding shows the page's title, any secret in it "
    "masked. Return an error with a code instead.",
)
RESULT_SECRET: Final = _code(
    RESULT,
    "result.secret",
    "the result holds a secret (an API key, a token, a private key...), reported by kind and hash",
    "The result holds something that has the form of a secret (an API key of a known "
    "provider, a token, a private key): it is now in the conversation, in logs and in the "
    "model provider's hands. One finding per distinct secret, by kind, a hash and its "
    "place, never the secret itself. Rotate the secret, and stop the tool from returning "
    "it.",
)

# -- session ---------------------------------------------------------------------------------

SESSION: Final = CATALOG.family(
    "session",
    "Across a run",
    "What no single call shows, found over the whole run of `check` once each call's gates "
    "have run: calls of one turn, retries, results without their call or calls without "
    "their result, and an MCP session's tool lists. They are reported over the run (the "
    "JSON report's top-level `findings`, the text report's `RUN` section), with the place "
    "of the call or message that shows them.",
    commands=("check",),
)
SESSION_ORPHAN_RESULT: Final = _code(
    SESSION,
    "session.orphan_result",
    "a result whose call is not in the capture",
    "A result answers a call id that no call of the capture holds. In a conversation "
    "history it is an error: providers reject a history whose tool result names an unknown "
    "call id, so keep each result's id equal to its call's. Elsewhere it is a warning: the "
    "trace started mid-session, or the response that made the call was not recorded; "
    "record the whole session.",
)
SESSION_LATE_RESULT: Final = _code(
    SESSION,
    "session.late_result",
    "a result that arrived after its call was checked without it",
    "A result came too far after its call (more lines, or files, than `--result-window`) "
    "to be paired with it: the call was checked without its result, and the result was "
    "checked on its own (its leaks, its envelope, its structured content), reported over "
    "the run. Business rules over the result, which need the call's arguments, did not "
    "run. Pass a larger `--result-window` (or `[check] result_window`).",
    severity=WARNING,
)
SESSION_CONFLICTING_RESULT: Final = _code(
    SESSION,
    "session.conflicting_result",
    "a second result for one call that says something else than the first",
    "One call got two results that differ: two tool messages for one call id, or a later "
    "history that shows another result (or other arguments) than the one the model was "
    "given. Which one the model saw cannot be told. Both are checked; the second is "
    "reported over the run. Answer each call once, and never edit a history's results.",
    severity=WARNING,
)
SESSION_REUSED_CALL_ID: Final = _code(
    SESSION,
    "session.reused_call_id",
    "one call id given to calls of other tools or other arguments",
    "A model-hop call id (an OpenAI `call_...`, an Anthropic `toolu_...`, a Gemini id, a "
    "span's `gen_ai.tool.call.id`) names another call than the one first seen with it: "
    "another tool, or other arguments. Each is counted and checked as a call of its own; "
    "a result of that id can no longer be told to answer one or the other. The same call "
    "seen again (a history, an execute-tool span) keeps its id and is one call. Give "
    "every call an id of its own; a retry is a new call with a new id.",
    severity=WARNING,
)
SESSION_MISSING_RESULT: Final = _code(
    SESSION,
    "session.missing_result",
    "a call got no result, though later calls did (or an MCP request was never answered)",
    "A call got no result though a later call of its scope got one (the host dropped it, or "
    "the server never answered), or an MCP request is still unanswered when the capture "
    "ends in a session whose other requests were answered. The last calls of a "
    "conversation are legitimately unanswered, and a capture of calls alone misses nothing.",
    severity=WARNING,
)
SESSION_PARALLEL_SIDE_EFFECTS: Final = _code(
    SESSION,
    "session.parallel_side_effects",
    "payments, messages or deletions in one assistant turn, which the host may run at once",
    "A call with a serial side effect (a payment, a message, a deletion, an MCP tool with "
    "`destructiveHint: true`) shares its assistant turn with another call: hosts may run "
    "the calls of one turn at once, in any order. Ask for such calls one at a time "
    "(`parallel_tool_calls: false`), or make them safe to reorder.",
    severity=WARNING,
)
SESSION_UNLISTED_TOOL: Final = _code(
    SESSION,
    "session.unlisted_tool",
    "a call of a tool the latest tools/list of its session does not hold",
    "A `tools/call` names a tool that the latest complete `tools/list` of its MCP session "
    "does not hold: the host called a tool the server no longer offers (or never did). "
    "Sessions whose capture holds no list are not judged.",
)
SESSION_STALE_TOOL_LIST: Final = _code(
    SESSION,
    "session.stale_tool_list",
    "a call made after list_changed, before the tools were listed again",
    "The server sent `notifications/tools/list_changed`, and the host called a tool before "
    "listing the tools again: it used a list the server said was out of date.",
    severity=WARNING,
)
SESSION_INPUT_SCHEMA_CHANGED: Final = _code(
    SESSION,
    "session.input_schema_changed",
    "a tool's inputSchema changed between two lists of one session",
    "A tool's `inputSchema` differs between two lists of one MCP session: calls built "
    "against the first are checked against the second. Pin tools (`jsoncontract pin`) to "
    "see such changes before they reach a session.",
    severity=WARNING,
)
SESSION_LIST_CHANGED_UNDECLARED: Final = _code(
    SESSION,
    "session.list_changed_undeclared",
    "list_changed from a server that did not declare capabilities.tools.listChanged",
    "The server sent `notifications/tools/list_changed` although its `initialize` answer "
    "did not declare `capabilities.tools.listChanged`: clients that trust the declared "
    "capabilities ignore it and keep a stale list. Reported once per session.",
    severity=WARNING,
)
SESSION_IDENTICAL_RETRY: Final = _code(
    SESSION,
    "session.identical_retry",
    "a failed call retried identically, more times than allowed",
    "A call whose result was an error was repeated with the same arguments more than "
    "`identical_retries` times in a row (default 2): the model does not read the error, or "
    "the error does not say what to change. Make the error say it.",
    severity=WARNING,
)
SESSION_UNRELATED_CHANGE: Final = _code(
    SESSION,
    "session.unrelated_change",
    "a retry after an error changed arguments the error did not name",
    "The retry of a failed call changes a member the error named, and others it did not "
    "name: the model changed more than it was told to, and the retry may do something "
    "else than the request meant.",
    severity=WARNING,
)
SESSION_NEW_IDEMPOTENCY_KEY: Final = _code(
    SESSION,
    "session.new_idempotency_key",
    "a write retried after an error under a new idempotency key",
    "A write was retried after an error with only its idempotency key changed: if the "
    "first attempt did write, the server cannot tell the retry from a new write, and it "
    "writes twice. Reuse the key when retrying the same request.",
    severity=WARNING,
)

# -- guard ---------------------------------------------------------------------------------

GUARD: Final = CATALOG.family(
    "guard",
    "The guard in line",
    "`jsoncontract mcp guard` answers in the server's place when it cannot pass a call on; "
    "these codes say why, in its answers and in the decisions its trace marks. Every other "
    "refusal carries the code of the gate that refused (`schema.*`, `business.*`, `pin.*`, "
    "`session.identical_retry`...).",
    commands=("mcp guard",),
)
GUARD_SERVER_EXITED: Final = _code(
    GUARD,
    "guard.server_exited",
    "the server exited while a request was in flight",
    "The server's process ended before it answered: the guard answers the request itself "
    "and starts the server again (its handshake replayed), up to `restarts` times. A call "
    "that was in flight may or may not have taken effect: look before retrying a write.",
)
GUARD_NO_TOOL_LIST: Final = _code(
    GUARD,
    "guard.no_tool_list",
    "the server did not give the guard its tool list, so no call can be checked",
    "The guard asks the server for `tools/list` before it checks the first call (and again "
    "after `notifications/tools/list_changed`); the server did not answer it in time, or "
    "answered with an error. Calls are refused until it does: the guard never passes on a "
    "call it could not check.",
)
GUARD_MALFORMED_FRAME: Final = _code(
    GUARD,
    "guard.malformed_frame",
    "a frame that is not a JSON-RPC message, kept from the other side",
    "A line on the wire is not JSON, or is JSON but no JSON-RPC request, notification or "
    "response. From the client, the guard answers it with a JSON-RPC error (-32700, "
    "-32600) and does not pass it on; from the server, it is not passed on to the client. "
    "Either way the session goes on.",
    severity=WARNING,
)
GUARD_FRAME_TOO_LARGE: Final = _code(
    GUARD,
    "guard.frame_too_large",
    "a frame longer than --max-frame, which the guard cannot check",
    "The guard holds at most `--max-frame` MB (64) of one line over stdio, of one body (once "
    "unpacked) or server-sent event over HTTP; a longer frame cannot be judged, so it is kept "
    "from the other side (with `--observe`, passed on as it comes). "
    "A request from the client is answered with JSON-RPC error -32600; an answer of the "
    "server is replaced by this error for the request it answered, when its id comes before "
    "its result (as the SDKs write it). The trace records a `too_large` event with the size.",
    severity=WARNING,
)

# -- input ---------------------------------------------------------------------------------

INPUT: Final = CATALOG.family(
    "input",
    "Input files",
    "A directory given to a command is read file by file: a file that cannot be read is "
    "reported with these codes, at the file, and the other files are still read. A file "
    "named on the command line that cannot be read stops the command instead (exit 2). A "
    "run that read no call at all is reported here too: input that was not understood "
    "never passes.",
    commands=("check", "diff", "lint"),
)
INPUT_UNREADABLE: Final = _code(
    INPUT,
    "input.unreadable",
    "a file found in a directory cannot be read",
    "A file found in a directory is not JSON or YAML, is too large, is compressed, or holds "
    "a broken tool definition; the message says which. The other files were read, so the "
    "run goes on, but this file was not checked at all. Fix the file, or leave it out with "
    "`--exclude GLOB` (or `exclude` in the config).",
)
INPUT_NO_CALLS: Final = _code(
    INPUT,
    "input.no_calls",
    "the run read no tool call",
    "Every file was read, but no tool call came out of them: the captures are of another "
    "kind than the ones meant (a log, a metrics export, the tools file), the model answered "
    "in text only, or the calls sit where no dialect reads them (each such document is "
    "reported too, as `envelope.not_read` or `envelope.unknown_dialect`). A contract "
    "checker that checked nothing has nothing to pass, so the run fails. When an empty run "
    "is expected (a quiet hour of a live log), pass `--allow-empty` (or `allow_empty = "
    "true` under `[check]` or `[diff]` in the config).",
)

# -- report ----------------------------------------------------------------------------------

REPORT: Final = CATALOG.family(
    "report",
    "Reports",
    "Notices a report gives about itself rather than about the input.",
    commands=("check", "diff", "lint", "test", "rules", "mcp"),
)
REPORT_RESULTS_LEFT_OUT: Final = _code(
    REPORT,
    "report.results_left_out",
    "the SARIF report leaves findings out to stay within GitHub's limits",
    "GitHub code scanning rejects a SARIF run holding more than 25,000 results, so a "
    "larger report keeps the most severe findings, up to that limit, and this notice says "
    "how many were left out. Every finding is in the JSON report (`--format json`); fix "
    "the most frequent codes first, or compare with a baseline (`--baseline`) so only new "
    "findings are reported.",
    severity=Severity.INFO,
)

# -- composing codes -------------------------------------------------------------------------


def schema_code(keyword: str) -> str:
    """``schema.<keyword>``: the code of a schema finding at ``keyword``."""
    return SCHEMA.prefix + keyword


def business_code(rule_id: str) -> str:
    """``business.<rule-id>``: the code of a finding of the rule ``rule_id``."""
    return BUSINESS.prefix + rule_id


def describe(code: str) -> str:
    """The one-line summary of a code (for a pattern: its summary and the variable part).

    >>> describe("parse.code_fence")
    'the JSON is wrapped in a markdown code fence'
    >>> describe("schema.enum")
    "the arguments break the tool's JSON Schema at this keyword: enum"
    """
    entry = CATALOG.get(code)
    if entry is None:
        return code
    if entry.pattern and code != entry.code:
        return f"{entry.summary}: {code.removeprefix(entry.family.prefix)}"
    return entry.summary


def find(word: str) -> str:
    """The finding code ``word`` names, as the catalog spells it (case does not count).

    Raises:
        LookupError: the catalog has no such code; the message names the closest one.
    """
    key = word.strip()
    for candidate in (key, key.lower()):
        if CATALOG.get(candidate) is not None:
            return candidate
    from jsoncontract._spelling import did_you_mean

    guess = did_you_mean(key, [c.code for c in CATALOG if not c.pattern])
    tip = f"; did you mean {guess!r}?" if guess else " (docs/codes.md lists them)"
    raise LookupError(f"unknown code {word!r}{tip}")


# -- documentation ---------------------------------------------------------------------------

#: Where the pages generated from the catalog are published.
DOCS_URL: Final = "https://github.com/jsoncontract/jsoncontract/blob/main/docs/codes.md"


def code_markdown(entry: Code, code: str | None = None) -> str:
    """The page of one code (``jsoncontract rules CODE``, the SARIF help): ``code`` is the
    code asked for, when ``entry`` is its family's pattern."""
    asked = code or entry.code
    family = entry.family
    rows = [("Code", f"`{asked}`")]
    if entry.pattern and asked != entry.code:
        rows.append(("Pattern", f"`{entry.code}`"))
    rows += [
        ("Family", f"{family.name}: {family.title.lower()}"),
        ("Severity", entry.severity.value),
        ("Reported by", ", ".join(f"`{c}`" for c in family.commands)),
    ]
    table = "| | |\n|---|---|\n" + "".join(f"| {k} | {v} |\n" for k, v in rows)
    return f"# {asked}\n\n{_sentence(describe(asked))}\n\n{table}\n{entry.doc}\n"


def code_rule(code: str, severity: Severity | None = None) -> RuleMeta:
    """What a report (SARIF) says about ``code``: its summary, its page as help, and the
    link to its entry in ``docs/codes.md``. ``severity`` is the level of its findings when
    it differs from the catalog's default (a rule's own severity)."""
    entry = CATALOG.get(code)
    return RuleMeta(
        code=code,
        name=entry.rule_name if entry is not None and not entry.pattern else _dashed(code),
        summary=describe(code),
        description=plain_text(entry.doc) if entry is not None else "",
        severity=severity or (entry.severity if entry is not None else Severity.ERROR),
        help_markdown=code_markdown(entry, code) if entry is not None else "",
        help_uri=f"{DOCS_URL}#{entry.anchor}" if entry is not None else None,
    )


def _dashed(code: str) -> str:
    return code.replace(".", "-").replace("_", "-")


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + "."


def catalog_markdown() -> str:
    """``docs/codes.md``: every family and code of the catalog."""
    lines = [
        "# Finding codes",
        "",
        "Generated from `jsoncontract/codes.py` by `python -m jsoncontract.codes docs/codes.md`;"
        " do not edit.",
        "`jsoncontract rules CODE` prints one code's entry. The lint rules (`JC001`...) have",
        "their own pages: [rules/README.md](rules/README.md).",
        "",
        "| family | codes | reported by |",
        "|---|---|---|",
    ]
    for family in CATALOG.families:
        count = len(CATALOG.of(family))
        commands = ", ".join(f"`{c}`" for c in family.commands)
        anchor = re.sub(r"[^a-z0-9 -]", "", family.title.lower()).replace(" ", "-")
        lines.append(f"| [{family.title}](#{anchor}) | {count} | {commands} |")
    for family in CATALOG.families:
        lines += ["", f"## {family.title}", "", family.about]
        for entry in CATALOG.of(family):
            severity = "" if entry.severity is Severity.ERROR else f" ({entry.severity.value})"
            lines += [
                "",
                f"### `{entry.code}`",
                "",
                f"{_sentence(entry.summary)}{severity} {entry.doc}",
            ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """``python -m jsoncontract.codes [FILE] [--check]``: write ``docs/codes.md`` (or say
    whether it is stale)."""
    from pathlib import Path

    args = sys.argv[1:] if argv is None else argv
    rest = [a for a in args if a != "--check"]
    path = Path(rest[0] if rest else "docs/codes.md")
    text = catalog_markdown()
    current = path.read_text(encoding="utf-8") if path.is_file() else None
    if "--check" in args:
        if current != text:
            sys.stdout.write(f"stale: {path}\n")
            return 1
        return 0
    if current != text:
        path.write_text(text, encoding="utf-8")
        sys.stdout.write(f"wrote {path}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
