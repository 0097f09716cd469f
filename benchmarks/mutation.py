"""Mutation testing of the code that decides what a call is and what stays secret: how many
small, realistic changes to it the test suite notices.

Runs mutmut (``pip install mutmut``, not a dependency of the project) over a copy of the
committed tree, so the checkout is never touched: the ledger (``capture/ledger.py``), the
fast lane (``pipeline/fast.py``), the result stage (``pipeline/result.py``), redaction
(``masking.py``, ``redact.py``), the engine profiles (``lint/engines/``, and their rules in
``lint/rules/engines.py``) and the project's own lint rules (``lint/user/``: the JSONPath,
Spectral's functions and rulesets, the CEL rules), each mutant checked by the tests of those
modules (the
generative differential test is left out: it would check every mutant for minutes). Prints
the kill rate per module and overall: mutants killed (or stopped by a timeout) over all
mutants, a mutant no selected test runs counting as a survivor. A survivor that
:data:`EQUIVALENT` names (a change no behaviour can show, with the reason) is counted apart,
neither killed nor survived. Writes each other survivor, with its change, to
``mutation-survivors.txt`` in the working directory.

    python benchmarks/mutation.py                 # every module (about an hour on 2 cores)
    python benchmarks/mutation.py ledger          # one module: ledger, lane, result, redaction,
                                                  # engines, engine-rules, jsonpath, spectral,
                                                  # cel-rules

Not run in CI: it takes far longer than the suite.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: The modules mutated, and the tests each mutant is checked with.
MODULES = {
    "ledger": (
        ["jsoncontract/capture/ledger.py"],
        [
            "tests/capture/test_ledger.py",
            "tests/capture/test_ledger_identity.py",
            "tests/capture/test_call_identity.py",
            "tests/capture/test_conversations.py",
            "tests/capture/test_otlp.py",
            "tests/capture/test_mcp_trace.py",
            "tests/pipeline/test_pins.py",
        ],
    ),
    "lane": (
        ["jsoncontract/pipeline/fast.py"],
        [
            "tests/pipeline/test_fast.py",
            "tests/pipeline/test_pins.py",
        ],
    ),
    "result": (
        ["jsoncontract/pipeline/result.py"],
        [
            "tests/pipeline/test_result.py",
            "tests/pipeline/test_leaks.py",
            "tests/pipeline/test_answers.py",
            "tests/pipeline/test_pins.py",
            "tests/acceptance/test_bundled_results.py",
        ],
    ),
    "redaction": (
        ["jsoncontract/masking.py", "jsoncontract/redact.py"],
        [
            "tests/test_masking.py",
            "tests/test_redact.py",
            "tests/test_masking_pins.py",
            "tests/test_redact_pins.py",
            "tests/test_secret_patterns.py",
            "tests/cli/test_redact_cli.py",
            "tests/cli/test_redact_inputs.py",
            "tests/reporters/test_secret_names.py",
            "tests/pipeline/test_pins.py",
        ],
    ),
    "engines": (
        [
            "jsoncontract/lint/engines/__init__.py",
            "jsoncontract/lint/engines/schema.py",
            "jsoncontract/lint/engines/llguidance.py",
            "jsoncontract/lint/engines/outlines.py",
            "jsoncontract/lint/engines/xgrammar.py",
            "jsoncontract/lint/engines/llama_cpp.py",
        ],
        [
            "tests/lint/engines/test_llama_cpp.py",
            "tests/lint/engines/test_fix.py",
            "tests/lint/engines/test_cli.py",
            "tests/lint/test_rules.py",
        ],
    ),
    "engine-rules": (
        ["jsoncontract/lint/rules/engines.py"],
        [
            "tests/lint/engines/test_fix.py",
            "tests/lint/engines/test_cli.py",
            "tests/lint/test_rules.py",
        ],
    ),
    "jsonpath": (
        ["jsoncontract/lint/user/jsonpath.py"],
        ["tests/lint/user/test_jsonpath.py", "tests/lint/user/test_functions.py"],
    ),
    "spectral": (
        ["jsoncontract/lint/user/functions.py", "jsoncontract/lint/user/spectral.py"],
        ["tests/lint/user/test_functions.py", "tests/lint/user/test_cli.py"],
    ),
    "cel-rules": (
        [
            "jsoncontract/lint/user/__init__.py",
            "jsoncontract/lint/user/cel.py",
            "jsoncontract/business/assertions.py",
        ],
        ["tests/lint/user/test_cli.py"],
    ),
}

# Why each equivalent mutant of EQUIVALENT cannot be observed.
_LOWER = (
    "a lower-case ASCII letter left out of this branch reaches the branch for letters of other "
    "scripts, which draws the same lower-case letter from the same byte"
)
_ZIP = "both sequences have one item per place by construction, so strict never finds a difference"
_LAST = "text[None:i] is text[0:i], and last is an index again after the first replacement"
_VALUES = (
    "only whether values is non-zero is read, and only once the outermost container has closed"
)
_OR_VALUES = (
    "values is non-zero only once the stack is empty, and the stack is empty only after the "
    "outermost container closes"
)
_MATCH = "_NUMBER needs a digit, so a match is never empty"
_DEFAULT_CHECK = "every caller passes check"
_DIGEST = "digest of a string or a number is never None (repr() is the fallback)"
_END = "a secret span is never empty, so its end is never 0"
_BREAK = "the spans come from one finditer, each inside its own match, so they never overlap"
_ROOT = "the outermost container has no parent: None and False read the same"
_ARRAYS = "an array frame never has a key, so name is None either way"
_PATH = "an object's place in the path is set to its member's name before any pointer is made"
_FRAME_OR = "an array frame never has a key, and an object frame has one whenever a value is read"
_JOINED = "_redact_file always passes the fragments"
_SSE = "_SSE_DATA is anchored at the start with ^data:, so it matches no other line"
_PREFIX = (
    "such a line is not JSON either way: scrub_text rewrites it by the patterns alone with the "
    "same key, pointer and check, and no fragment comes from it"
)
_UTF8 = "codec names are case-insensitive"
_BIG = "int.to_bytes defaults to big-endian from Python 3.11, the oldest the project supports"
_REPR = (
    "repr() escapes lone surrogates (they are not printable), so the text always encodes without "
    "an error handler"
)
_MASKED = "both paths return _mask(text); the remembered one is cleared whenever a value is hidden"
_WHERE = (
    "every alternative of the combined pattern is a named group, so a match always has a lastgroup"
)
_RENAMED = "renamed is only read as a truth value"
_FLAGS = "the flag is only read in and/or conditions that are used as truth values"
_CHECKKEY = "in a check nothing is replaced, so the key is never used"
_WRITECHECK = (
    "this branch runs only when an output is named, which redact_files does only when check "
    "is false"
)

_NOTE = "_note is never given a span: start and end are None either way"
_SPAN = "end is None by default"
_LABEL = "the first item only tells the three kinds of stream apart, and still does"
_EMPTY_SEAL = "with size 0 the slice is empty either way"
_UNMARKED = "every pattern has markers, so _UNMARKED is false and this line never runs"
_ORJSON = (
    "is_document has read the bytes with orjson, which refuses invalid UTF-8, so no byte "
    "needs an error handler"
)
_ASCII = "ensure_ascii is read as a truth value"
_OPENER = (
    "a text that starts with X is not JSON either way: the walk stops at the X and the text "
    "is rewritten by its patterns"
)

#: Survivors that are equivalent mutants: no input can tell them from the code. Each is
#: named by its module, its function (as mutmut names it, without the mutant's number) and
#: the changed line before and after (stripped), with the reason it cannot be observed.
EQUIVALENT: dict[tuple[str, str, str, str], str] = {
    (
        "jsoncontract.redact",
        "x_stand_in",
        'elif "a" <= char <= "z":',
        'elif "a" < char <= "z":',
    ): _LOWER,
    (
        "jsoncontract.redact",
        "x_stand_in",
        'elif "a" <= char <= "z":',
        'elif "a" <= char < "z":',
    ): _LOWER,
    (
        "jsoncontract.redact",
        "x_stand_in",
        'elif "a" <= char <= "z":',
        'elif "a" <= char <= "XXzXX":',
    ): _LOWER,
    (
        "jsoncontract.redact",
        "x_stand_in",
        'elif "a" <= char <= "z":',
        'elif "a" <= char <= "Z":',
    ): _LOWER,
    (
        "jsoncontract.redact",
        "x__seal",
        "for place, char in zip(seal, _seal_chars(chars, body, seal), strict=True):",
        "for place, char in zip(seal, _seal_chars(chars, body, seal), strict=None):",
    ): _ZIP,
    (
        "jsoncontract.redact",
        "x__seal",
        "for place, char in zip(seal, _seal_chars(chars, body, seal), strict=True):",
        "for place, char in zip(seal, _seal_chars(chars, body, seal), ):",
    ): _ZIP,
    (
        "jsoncontract.redact",
        "x__seal",
        "for place, char in zip(seal, _seal_chars(chars, body, seal), strict=True):",
        "for place, char in zip(seal, _seal_chars(chars, body, seal), strict=False):",
    ): _ZIP,
    (
        "jsoncontract.redact",
        "xǁ_Fragmentsǁ_scan",
        "for (number, pointer, _), replacement in zip(parts, new_parts, strict=True):",
        "for (number, pointer, _), replacement in zip(parts, new_parts, strict=None):",
    ): _ZIP,
    (
        "jsoncontract.redact",
        "xǁ_Fragmentsǁ_scan",
        "for (number, pointer, _), replacement in zip(parts, new_parts, strict=True):",
        "for (number, pointer, _), replacement in zip(parts, new_parts, ):",
    ): _ZIP,
    (
        "jsoncontract.redact",
        "xǁ_Fragmentsǁ_scan",
        "for (number, pointer, _), replacement in zip(parts, new_parts, strict=True):",
        "for (number, pointer, _), replacement in zip(parts, new_parts, strict=False):",
    ): _ZIP,
    (
        "jsoncontract.redact",
        "xǁ_Walkerǁrun",
        "last = 0",
        "last = None",
    ): _LAST,
    (
        "jsoncontract.redact",
        "xǁ_Walkerǁrun",
        "values = 0",
        "values = 1",
    ): _VALUES,
    (
        "jsoncontract.redact",
        "xǁ_Walkerǁrun",
        "values += 1",
        "values = 1",
    ): _VALUES,
    (
        "jsoncontract.redact",
        "xǁ_Walkerǁrun",
        "values += 1",
        "values += 2",
    ): _VALUES,
    (
        "jsoncontract.redact",
        "xǁ_Walkerǁrun",
        "values += 1",
        "values -= 1",
    ): _VALUES,
    (
        "jsoncontract.redact",
        "xǁ_Walkerǁrun",
        "if not self.stack and values:",
        "if not self.stack or values:",
    ): _OR_VALUES,
    (
        "jsoncontract.redact",
        "xǁ_Walkerǁrun",
        "if match is not None and match.end() > i:",
        "if match is not None and match.end() >= i:",
    ): _MATCH,
    (
        "jsoncontract.redact",
        "x__scrub_plain",
        "def _scrub_plain(text: str, key: str, pointer: str, check: bool = False) -> Scrubbed:",
        "def _scrub_plain(text: str, key: str, pointer: str, check: bool = True) -> Scrubbed:",
    ): _DEFAULT_CHECK,
    (
        "jsoncontract.redact",
        "x__scrub_plain",
        'SecretFound(kind, digest(text[start:end]) or "", pointer, start, end)',
        'SecretFound(kind, digest(text[start:end]) or "XXXX", pointer, start, end)',
    ): _DIGEST,
    (
        "jsoncontract.redact",
        "x__scrub_plain",
        "start, end = item.start or 0, item.end or 0",
        "start, end = item.start or 0, item.end or 1",
    ): _END,
    (
        "jsoncontract.redact",
        "x__scrub_plain",
        "continue",
        "break",
    ): _BREAK,
    (
        "jsoncontract.redact",
        "xǁ_Walkerǁ_open",
        "hidden = False",
        "hidden = None",
    ): _ROOT,
    (
        "jsoncontract.redact",
        "xǁ_Walkerǁ_open",
        "header = False",
        "header = None",
    ): _ROOT,
    (
        "jsoncontract.redact",
        "xǁ_Walkerǁ_open",
        "name = parent.key if parent.is_object else None",
        "name = parent.key if (parent.is_object) or True else None",
    ): _ARRAYS,
    (
        "jsoncontract.redact",
        "xǁ_Walkerǁ_open",
        'self.path.append("" if is_object else "0")',
        'self.path.append("XXXX" if is_object else "0")',
    ): _PATH,
    (
        "jsoncontract.redact",
        "xǁ_Walkerǁ_open",
        'self.path.append("" if is_object else "0")',
        'self.path.append("" if (is_object) and False else "0")',
    ): _PATH,
    (
        "jsoncontract.redact",
        "xǁ_Walkerǁ_hidden",
        "if frame.is_object and frame.key is not None:",
        "if frame.is_object or frame.key is not None:",
    ): _FRAME_OR,
    (
        "jsoncontract.redact",
        "xǁ_Walkerǁ_header",
        "if frame.is_object and frame.key is not None:",
        "if frame.is_object or frame.key is not None:",
    ): _FRAME_OR,
    (
        "jsoncontract.redact",
        "xǁ_Walkerǁ_note",
        'self.found.append(SecretFound(kind, digest(value) or "", self._pointer(), start, end))',
        (
            'self.found.append(SecretFound(kind, digest(value) or "XXXX", self._pointer(), start, '
            "end))"
        ),
    ): _DIGEST,
    (
        "jsoncontract.redact",
        "x__redact_line",
        "overrides = joined.replaced.get(number) if joined is not None else None",
        "overrides = joined.replaced.get(number) if (joined is not None) or True else None",
    ): _JOINED,
    (
        "jsoncontract.redact",
        "x__redact_line",
        'match = _SSE_DATA.match(text) if text.startswith("data:") else None',
        'match = _SSE_DATA.match(text) if (text.startswith("data:")) or True else None',
    ): _SSE,
    (
        "jsoncontract.redact",
        "x__redact_line",
        'elif text.startswith(("event:", "id:", ":", "retry:")):',
        'elif text.startswith(("XXevent:XX", "id:", ":", "retry:")):',
    ): _PREFIX,
    (
        "jsoncontract.redact",
        "x__redact_line",
        'elif text.startswith(("event:", "id:", ":", "retry:")):',
        'elif text.startswith(("EVENT:", "id:", ":", "retry:")):',
    ): _PREFIX,
    (
        "jsoncontract.redact",
        "x__redact_line",
        'elif text.startswith(("event:", "id:", ":", "retry:")):',
        'elif text.startswith(("event:", "XXid:XX", ":", "retry:")):',
    ): _PREFIX,
    (
        "jsoncontract.redact",
        "x__redact_line",
        'elif text.startswith(("event:", "id:", ":", "retry:")):',
        'elif text.startswith(("event:", "ID:", ":", "retry:")):',
    ): _PREFIX,
    (
        "jsoncontract.redact",
        "x__redact_line",
        'elif text.startswith(("event:", "id:", ":", "retry:")):',
        'elif text.startswith(("event:", "id:", "XX:XX", "retry:")):',
    ): _PREFIX,
    (
        "jsoncontract.redact",
        "x__redact_line",
        'elif text.startswith(("event:", "id:", ":", "retry:")):',
        'elif text.startswith(("event:", "id:", ":", "XXretry:XX")):',
    ): _PREFIX,
    (
        "jsoncontract.redact",
        "x__redact_line",
        'elif text.startswith(("event:", "id:", ":", "retry:")):',
        'elif text.startswith(("event:", "id:", ":", "RETRY:")):',
    ): _PREFIX,
    (
        "jsoncontract.redact",
        "x__stream",
        'seed = hashlib.sha256(f"{key}\\x00{value}".encode("utf-8", "surrogatepass")).digest()',
        'seed = hashlib.sha256(f"{key}\\x00{value}".encode("UTF-8", "surrogatepass")).digest()',
    ): _UTF8,
    (
        "jsoncontract.redact",
        "x__redact_file",
        'text = b"".join(raw for _, raw in lines).decode("utf-8", "surrogateescape")',
        'text = b"".join(raw for _, raw in lines).decode("UTF-8", "surrogateescape")',
    ): _UTF8,
    (
        "jsoncontract.redact",
        "x__redact_file",
        (
            'return _redact_document(data.decode("utf-8", "surrogateescape"), target, key, check, '
            "result)"
        ),
        (
            'return _redact_document(data.decode("UTF-8", "surrogateescape"), target, key, check, '
            "result)"
        ),
    ): _UTF8,
    (
        "jsoncontract.redact",
        "x__redact_document",
        'out.write(new.encode("utf-8", "surrogateescape"))',
        'out.write(new.encode("UTF-8", "surrogateescape"))',
    ): _UTF8,
    (
        "jsoncontract.redact",
        "x__redact_line",
        'text = body.decode("utf-8", "surrogateescape")',
        'text = body.decode("UTF-8", "surrogateescape")',
    ): _UTF8,
    (
        "jsoncontract.redact",
        "x__redact_line",
        'return scrubbed.text.encode("utf-8", "surrogateescape") + ending',
        'return scrubbed.text.encode("UTF-8", "surrogateescape") + ending',
    ): _UTF8,
    (
        "jsoncontract.redact",
        "x__redact_line",
        'return (head + scrubbed.text).encode("utf-8", "surrogateescape") + ending',
        'return (head + scrubbed.text).encode("UTF-8", "surrogateescape") + ending',
    ): _UTF8,
    (
        "jsoncontract.masking",
        "x_digest",
        'data = repr(value).encode("utf-8", "surrogatepass")',
        'data = repr(value).encode("UTF-8", "surrogatepass")',
    ): _UTF8,
    (
        "jsoncontract.redact",
        "x__stream",
        'yield from hashlib.sha256(seed + counter.to_bytes(8, "big")).digest()',
        "yield from hashlib.sha256(seed + counter.to_bytes(8, )).digest()",
    ): _BIG,
    (
        "jsoncontract.masking",
        "x_digest",
        'data = repr(value).encode("utf-8", "surrogatepass")',
        'data = repr(value).encode("utf-8", )',
    ): _REPR,
    (
        "jsoncontract.masking",
        "x_digest",
        'data = repr(value).encode("utf-8", "surrogatepass")',
        'data = repr(value).encode("utf-8", "XXsurrogatepassXX")',
    ): _REPR,
    (
        "jsoncontract.masking",
        "x_digest",
        'data = repr(value).encode("utf-8", "surrogatepass")',
        'data = repr(value).encode("utf-8", "SURROGATEPASS")',
    ): _REPR,
    (
        "jsoncontract.masking",
        "x_masked",
        "if len(text) > _REMEMBERED_TEXT:",
        "if len(text) >= _REMEMBERED_TEXT:",
    ): _MASKED,
    (
        "jsoncontract.masking",
        "x__where",
        'group = match.lastgroup or "p0"',
        'group = match.lastgroup or "XXp0XX"',
    ): _WHERE,
    (
        "jsoncontract.masking",
        "x__where",
        'group = match.lastgroup or "p0"',
        'group = match.lastgroup or "P0"',
    ): _WHERE,
    (
        "jsoncontract.masking",
        "x__redacted",
        "renamed = False",
        "renamed = None",
    ): _RENAMED,
    (
        "jsoncontract.redact",
        "xǁ_Frameǁ__init__",
        'self.hide_value = False  # {"name": "Authorization", "value": ...}',
        'self.hide_value = None  # {"name": "Authorization", "value": ...}',
    ): _FLAGS,
    (
        "jsoncontract.redact",
        "xǁ_Frameǁ__init__",
        'self.name_header = False  # {"name": "X-Custom", "value": ...}',
        'self.name_header = None  # {"name": "X-Custom", "value": ...}',
    ): _FLAGS,
    (
        "jsoncontract.redact",
        "x__redact_file",
        "_redact_line(raw, number, key, True, result, joined)",
        "_redact_line(raw, number, None, True, result, joined)",
    ): _CHECKKEY,
    (
        "jsoncontract.redact",
        "x__redact_file",
        "out.write(_redact_line(raw, number, key, check, result, joined))",
        "out.write(_redact_line(raw, number, key, None, result, joined))",
    ): _WRITECHECK,
    (
        "jsoncontract.redact",
        "x__seal_places",
        "return places[: len(places) - size], places[len(places) - size :] if size else []",
        "return places[: len(places) - size], places[len(places) - size :] "
        "if (size) or True else []",
    ): _EMPTY_SEAL,
    (
        "jsoncontract.redact",
        "xǁ_Walkerǁrun",
        'if i >= size or text[i] not in "{[":',
        'if i >= size or text[i] not in "XX{[XX":',
    ): _OPENER,
    (
        "jsoncontract.redact",
        "xǁ_Walkerǁ_note",
        'self.found.append(SecretFound(kind, digest(value) or "", self._pointer(), start, end))',
        'self.found.append(SecretFound(kind, digest(value) or "", self._pointer(), None, end))',
    ): _NOTE,
    (
        "jsoncontract.redact",
        "xǁ_Walkerǁ_note",
        'self.found.append(SecretFound(kind, digest(value) or "", self._pointer(), start, end))',
        'self.found.append(SecretFound(kind, digest(value) or "", self._pointer(), start, None))',
    ): _NOTE,
    (
        "jsoncontract.redact",
        "xǁ_Walkerǁ_note",
        'self.found.append(SecretFound(kind, digest(value) or "", self._pointer(), start, end))',
        'self.found.append(SecretFound(kind, digest(value) or "", self._pointer(), end))',
    ): _NOTE,
    (
        "jsoncontract.redact",
        "xǁ_Walkerǁ_note",
        'self.found.append(SecretFound(kind, digest(value) or "", self._pointer(), start, end))',
        'self.found.append(SecretFound(kind, digest(value) or "", self._pointer(), start, ))',
    ): _NOTE,
    (
        "jsoncontract.redact",
        "x__encode",
        "return json.dumps(value, ensure_ascii=False)",
        "return json.dumps(value, ensure_ascii=None)",
    ): _ASCII,
    (
        "jsoncontract.redact",
        "x__redact_file",
        'text = b"".join(raw for _, raw in lines).decode("utf-8", "surrogateescape")',
        'text = b"".join(raw for _, raw in lines).decode("utf-8", )',
    ): _ORJSON,
    (
        "jsoncontract.redact",
        "x__redact_file",
        'text = b"".join(raw for _, raw in lines).decode("utf-8", "surrogateescape")',
        'text = b"".join(raw for _, raw in lines).decode("utf-8", "XXsurrogateescapeXX")',
    ): _ORJSON,
    (
        "jsoncontract.redact",
        "x__redact_file",
        'text = b"".join(raw for _, raw in lines).decode("utf-8", "surrogateescape")',
        'text = b"".join(raw for _, raw in lines).decode("utf-8", "SURROGATEESCAPE")',
    ): _ORJSON,
    (
        "jsoncontract.redact",
        "xǁ_Fragmentsǁ_scan",
        "SecretFound(f.kind, f.digest, parts[0][1], None, None) for f in scrubbed.found",
        "SecretFound(f.kind, f.digest, parts[0][1], None) for f in scrubbed.found",
    ): _SPAN,
    (
        "jsoncontract.redact",
        "xǁ_Fragmentsǁ_scan",
        "SecretFound(f.kind, f.digest, parts[0][1], None, None) for f in scrubbed.found",
        "SecretFound(f.kind, f.digest, parts[0][1], None, ) for f in scrubbed.found",
    ): _SPAN,
    (
        "jsoncontract.redact",
        "x__fragments",
        'stream = ("chat", value.get("id"), choice.get("index", i), call.get("index", j))',
        'stream = ("XXchatXX", value.get("id"), choice.get("index", i), call.get("index", j))',
    ): _LABEL,
    (
        "jsoncontract.redact",
        "x__fragments",
        'stream = ("chat", value.get("id"), choice.get("index", i), call.get("index", j))',
        'stream = ("CHAT", value.get("id"), choice.get("index", i), call.get("index", j))',
    ): _LABEL,
    (
        "jsoncontract.redact",
        "x__fragments",
        'yield ("anthropic", message, value.get("index")), "/delta/partial_json", text',
        'yield ("XXanthropicXX", message, value.get("index")), "/delta/partial_json", text',
    ): _LABEL,
    (
        "jsoncontract.redact",
        "x__fragments",
        'yield ("anthropic", message, value.get("index")), "/delta/partial_json", text',
        'yield ("ANTHROPIC", message, value.get("index")), "/delta/partial_json", text',
    ): _LABEL,
    (
        "jsoncontract.redact",
        "x__fragments",
        'yield ("responses", value.get("item_id"), value.get("output_index")), "/delta", text',
        'yield ("XXresponsesXX", value.get("item_id"), value.get("output_index")), "/delta", text',
    ): _LABEL,
    (
        "jsoncontract.redact",
        "x__fragments",
        'yield ("responses", value.get("item_id"), value.get("output_index")), "/delta", text',
        'yield ("RESPONSES", value.get("item_id"), value.get("output_index")), "/delta", text',
    ): _LABEL,
    ("jsoncontract.masking", "x_may_hold_secret", "return True", "return False"): _UNMARKED,
    (
        "jsoncontract.masking",
        "x_find_secrets",
        'found.append(SecretFound("sensitive-name", digest(item) or "", where))',
        'found.append(SecretFound("sensitive-name", digest(item) or "XXXX", where))',
    ): _DIGEST,
    (
        "jsoncontract.masking",
        "x_find_secrets",
        'found.append(SecretFound("header-value", digest(item) or "", where))',
        'found.append(SecretFound("header-value", digest(item) or "XXXX", where))',
    ): _DIGEST,
    (
        "jsoncontract.masking",
        "x_find_secrets",
        'SecretFound(kind, digest(item[start:end]) or "", where, start, end)',
        'SecretFound(kind, digest(item[start:end]) or "XXXX", where, start, end)',
    ): _DIGEST,
}


def _copy_tree(target: Path) -> None:
    """The committed tree (HEAD) into ``target``."""
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", "--format=tar", "HEAD"],
        check=True,
        capture_output=True,
    ).stdout
    with tempfile.TemporaryFile() as held:
        held.write(archive)
        held.seek(0)
        with tarfile.open(fileobj=held) as tar:
            tar.extractall(target, filter="data")


def _config(target: Path, files: list[str], tests: list[str]) -> None:
    lines = [
        "[mutmut]",
        "source_paths = jsoncontract",
        "only_mutate =",
        *(f"    {f}" for f in files),
        "also_copy =",
        "    fixtures",
        "    docs",
        "    README.md",
        "    CHANGELOG.md",
        "pytest_add_cli_args_test_selection =",
        *(f"    {t}" for t in tests if (target / t).exists()),
        "pytest_add_cli_args =",
        # one process: the suite's own -n auto would start workers under each mutant's run
        "    -n",
        "    0",
        "    -p",
        "    no:cacheprovider",
        # a timing bound, which the tracing of the first run makes miss
        "    --deselect",
        "    tests/test_secret_patterns.py::test_pattern_work_is_linear_on_hostile_text",
    ]
    (target / "setup.cfg").write_text("\n".join(lines) + "\n")


def _mutmut(target: Path, *args: str) -> str:
    return subprocess.run(
        [sys.executable, "-m", "mutmut", *args],
        cwd=target,
        capture_output=True,
        text=True,
        check=False,
    ).stdout


def _change(diff: str) -> tuple[str, str]:
    """The lines a mutant's diff removes and adds, each stripped and joined."""
    lines = [line for line in diff.splitlines() if not line.startswith(("---", "+++"))]
    before = " ".join(line[1:].strip() for line in lines if line.startswith("-"))
    after = " ".join(line[1:].strip() for line in lines if line.startswith("+"))
    return before, after


def _equivalent(name: str, diff: str) -> str | None:
    """The reason a survivor is an equivalent mutant, or ``None``."""
    module, _, function = name.rpartition("__mutmut_")[0].rpartition(".")
    return EQUIVALENT.get((module, function, *_change(diff)))


def _statuses(target: Path) -> Counter[str]:
    """Each mutant's status, from mutmut's own results (a survivor named in
    :data:`EQUIVALENT` as ``equivalent``)."""
    counts: Counter[str] = Counter()
    survivors = []
    for line in _mutmut(target, "results", "--all", "true").splitlines():
        name, _, status = line.strip().rpartition(": ")
        if not name:
            continue
        if status in ("survived", "no tests"):
            diff = _mutmut(target, "show", name)
            if _equivalent(name, diff) is not None:
                status = "equivalent"
            else:
                survivors.append(f"{name}: {status}\n{diff}\n")
        counts[status] += 1
    with Path("mutation-survivors.txt").open("a") as out:
        out.writelines(survivors)
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", help=f"any of {', '.join(MODULES)} (default: all)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()
    unknown = [m for m in args.modules if m not in MODULES]
    if unknown:
        parser.error(f"unknown module {unknown[0]!r}; choose from {', '.join(MODULES)}")
    if importlib.util.find_spec("mutmut") is None:
        parser.error("mutmut is not installed: pip install mutmut")
    totals: Counter[str] = Counter()
    report = {}
    for module in args.modules or list(MODULES):
        files, tests = MODULES[module]
        with tempfile.TemporaryDirectory(prefix="mutation-") as folder:
            target = Path(folder)
            _copy_tree(target)
            _config(target, files, tests)
            done = subprocess.run(
                [sys.executable, "-m", "mutmut", "run", "--max-children", str(args.jobs)],
                cwd=target,
                check=False,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            counts = _statuses(target)
        if not any(counts[s] for s in ("killed", "timeout", "survived", "no tests")):
            # mutmut stopped before its first mutant (the tests did not run unmutated)
            print(f"{module}: mutmut checked no mutant:\n{done.stderr[-2000:]}", file=sys.stderr)
            return 2
        killed = counts["killed"] + counts["timeout"]
        run = sum(counts[s] for s in ("killed", "timeout", "survived", "no tests"))
        report[module] = {**counts, "kill_rate": round(killed / run, 3) if run else None}
        totals.update(counts)
        print(
            f"{module}: {killed} of {run} mutants killed ({killed / max(run, 1):.1%}), "
            f"{counts['equivalent']} equivalent left out"
        )
    killed = totals["killed"] + totals["timeout"]
    run = sum(totals[s] for s in ("killed", "timeout", "survived", "no tests"))
    print(json.dumps(report, indent=2))
    print(
        f"overall: {killed} of {run} killed ({killed / max(run, 1):.1%}), "
        f"{totals['equivalent']} equivalent left out"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
