"""The real workload of ``bench_real.py``: BFCL's tools and answers as captured traffic.

**The data.** The Berkeley Function Calling Leaderboard publishes its function docs and
possible answers in the ``bfcl-eval`` wheel on PyPI (``bfcl_eval/data/``). The wheel is read
as a zip, never installed (its dependencies are a machine learning stack): ``pip download
--no-deps`` fetches it into ``benchmarks/out/wheels/`` on the first run. The workload is built
once and cached in ``benchmarks/out/real-bfcl-eval-VERSION/``, keyed by the wheel's version,
the sizes, the seed and a hash of this file.

**The tools.** Every function doc of the single-turn categories (``BFCL_v4_*.json``), one tool
per distinct name: 1,853 in bfcl-eval 2026.3.23. A name documented with several schemas
takes its most frequent one. BFCL writes schemas in its own dialect, converted to JSON Schema
(Draft 2020-12) as follows:

- types: ``dict``, ``HashMap``, ``Hashtable`` are ``object``; ``float``, ``double`` are
  ``number``; ``long``, ``short``, ``byte``, ``Bigint`` are ``integer``; ``tuple``, ``list``,
  ``Array``, ``ArrayList``, ``Queue``, ``Stack`` are ``array``; ``String``, ``char`` are
  ``string``; ``bool``, ``Boolean`` are ``boolean``; ``any`` (and an empty type) has no
  ``type`` at all: any JSON value passes (BFCL's own provider mapping sends ``any`` as
  ``string``, which its Java answers would fail);
- an object that lists ``properties`` is closed (``additionalProperties: false``), as BFCL's
  checker rejects a parameter the function does not declare;
- BFCL's ``optional`` flag is dropped (``required`` says the same); every other keyword
  (``required``, ``enum``, ``items``, ``default``, ``format``, ``maximum``...) is kept as
  written, quirks included (an ``integer`` whose ``enum`` lists strings stays unsatisfiable);
- names: dots become underscores, as BFCL itself does for OpenAI, whose tool names may not
  hold dots (``_2`` is added where that makes a name taken: ``regression_model.predict`` and
  ``regression_model_predict`` both exist); the same names are used in every shape.

**The calls.** Each possible answer of a single-turn category lists, per parameter, the values
a correct call may hold, ``""`` meaning "may be left out". Choosing one alternative per
parameter gives a concrete call; up to four distinct ones per answer are kept when the
reference validator (python-jsonschema, formats asserted as ``check`` asserts them) passes them
against the tool's converted schema. Answers none of whose versions pass are left out and
counted: written for another schema of the same name, ``null`` for a string, a date written
``01/15/2021`` for ``format: date``... Multi-turn and memory answers are Python call strings or
plain text, and are left out too. A response is one answer: its calls are parallel tool calls.
Responses are drawn with replacement, uniformly, with a fixed seed, until the trace holds the
calls asked: a call drawn twice is repeated with a new call id, so write tools repeat as
traffic repeats them. Each call is then damaged with probability 0.1 (a call no fault breaks
passes its turn to the next), with one realistic fault, chosen among those its schema allows
and checked to fail the reference validator: a wrong type, a required parameter missing, an
enum value missed by case or a letter, an undeclared parameter (the camelCase or snake_case
twin of a declared one), a number sent as a string, ``null`` for a value.

**The shapes.** The same calls, line for line, as: OpenAI Chat ``{"tool_calls": [...]}``
lines (``chat-bare``); full Chat Completions (``chat``); Responses API objects
(``responses``, without the ``tools`` echo); Anthropic messages (``anthropic``); Gemini
``GenerateContentResponse`` objects (``gemini``); MCP ``tools/call`` requests, one a call
(``mcp``). Each with its envelope's usual fields (ids, model, usage). The tool definitions are
one MCP ``tools/list`` result. Beside each full trace: its first calls (``tiny``, to measure
start-up), and calls one per response that are all valid (``pass``) or all damaged (``fail``).

**The one-schema workload.** The tool with the most distinct valid calls in the pool; its
calls drawn the same way (damaged with the same probability) as a JSONL of bare bodies, and
its schema as a bare JSON Schema file (``$schema`` Draft 2020-12).
"""

from __future__ import annotations

import hashlib
import random
import re
import subprocess
import sys
import zipfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

BFCL_VERSION = "2026.3.23"
#: This builder's own text: a cached workload another version of it built is not reused.
BUILDER = hashlib.blake2b(Path(__file__).read_bytes(), digest_size=4).hexdigest()
SHAPES = ("chat-bare", "chat", "responses", "anthropic", "gemini", "mcp")
DIALECT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
PIP_DOWNLOAD = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary"]


@dataclass(frozen=True)
class Plan:
    """What to build: calls in the trace, one-schema bodies, calls in each of the pass and
    fail files, the tiny inputs' share of the full ones, the seed and the damaged share."""

    calls: int
    one_schema: int
    fail_pass: int
    tiny_share: float
    seed: int = 21
    invalid: float = 0.1

    def tiny(self, calls: int) -> int:
        return max(1, round(calls * self.tiny_share))

    @property
    def key(self) -> str:
        return (
            f"calls{self.calls}-one{self.one_schema}-fp{self.fail_pass}"
            f"-tiny{self.tiny_share:g}-seed{self.seed}-invalid{self.invalid:g}-{BUILDER}"
        )


# --- BFCL's data -------------------------------------------------------------------------


def bfcl_wheel(version: str, given: Path | None, wheels: Path) -> Path:
    """The bfcl-eval wheel: ``given``, or the one in ``wheels``, or fetched there by pip."""
    if given is not None:
        if not given.is_file():
            raise SystemExit(f"bench_real: no wheel at {given}")
        return given
    name = f"bfcl_eval-{version}-py3-none-any.whl"
    if (wheels / name).is_file():
        return wheels / name
    wheels.mkdir(parents=True, exist_ok=True)
    print(
        f"fetching bfcl-eval=={version} with pip download --no-deps into {wheels}", file=sys.stderr
    )
    done = subprocess.run(
        [*PIP_DOWNLOAD, ":all:", "-d", str(wheels), f"bfcl-eval=={version}"],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0 or not (wheels / name).is_file():
        last = (done.stderr.strip().splitlines() or ["no wheel downloaded"])[-1]
        raise SystemExit(f"bench_real: could not fetch bfcl-eval=={version}: {last}")
    return wheels / name


def wheel_version(wheel: Path) -> str:
    """The version a wheel's file name gives."""
    return wheel.name.split("-")[1]


def read_jsonl_member(archive: zipfile.ZipFile, name: str) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in archive.read(name).splitlines() if line.strip()]


def read_bfcl(wheel: Path) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    """(every single-turn entry with function docs, by id; every possible answer)."""
    entries: dict[str, dict[str, Any]] = {}
    answers: list[dict[str, Any]] = []
    with zipfile.ZipFile(wheel) as archive:
        names = sorted(archive.namelist())
        docs = [n for n in names if re.fullmatch(r"bfcl_eval/data/BFCL_v\d+_[a-z_]+\.json", n)]
        for name in docs:
            if "format_sensitivity" in name:  # a map of ids, not entries
                continue
            for entry in read_jsonl_member(archive, name):
                if entry.get("function"):
                    entries[entry["id"]] = entry
        for name in names:
            if name.startswith("bfcl_eval/data/possible_answer/BFCL_"):
                answers.extend(read_jsonl_member(archive, name))
    if not entries or not answers:
        raise SystemExit(f"bench_real: {wheel.name} holds no BFCL function docs or answers")
    return entries, answers


# --- BFCL's dialect to JSON Schema --------------------------------------------------------

#: BFCL type names and their JSON Schema type (``None``: no type, any value).
BFCL_TYPES: dict[str, str | None] = {
    **dict.fromkeys(("dict", "object", "HashMap", "Hashtable"), "object"),
    **dict.fromkeys(("float", "double", "number"), "number"),
    **dict.fromkeys(("integer", "long", "short", "byte", "Bigint"), "integer"),
    **dict.fromkeys(("string", "String", "char"), "string"),
    **dict.fromkeys(("boolean", "bool", "Boolean"), "boolean"),
    **dict.fromkeys(("array", "list", "tuple", "Array", "ArrayList", "Queue", "Stack"), "array"),
    **dict.fromkeys(("any", "Any", ""), None),
}


def to_json_schema(node: dict[str, Any]) -> dict[str, Any]:
    """One BFCL parameter schema as JSON Schema (the rules are in the module's docstring)."""
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "type":
            if not isinstance(value, str) or value not in BFCL_TYPES:
                raise ValueError(f"BFCL type {value!r} has no JSON Schema equivalent")
            if BFCL_TYPES[value] is not None:
                out["type"] = BFCL_TYPES[value]
        elif key == "properties" and isinstance(value, dict):
            out[key] = {name: to_json_schema(sub) for name, sub in value.items()}
        elif key == "items" and isinstance(value, dict):
            out[key] = to_json_schema(value)
        elif key != "optional":
            out[key] = value
    if isinstance(out.get("properties"), dict) and out.get("type", "object") == "object":
        out["additionalProperties"] = False
    return out


def tool_name(bfcl_name: str) -> str:
    return bfcl_name.replace(".", "_")


def build_catalog(entries: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """One MCP tool per distinct BFCL function name: its most frequent definition (the first
    seen among equals), converted. Keyed by BFCL's name."""
    seen: dict[str, Counter[bytes]] = {}
    docs: dict[tuple[str, bytes], dict[str, Any]] = {}
    for entry in entries.values():
        for doc in entry["function"]:
            key = orjson.dumps(doc["parameters"], option=orjson.OPT_SORT_KEYS)
            seen.setdefault(doc["name"], Counter())[key] += 1
            docs.setdefault((doc["name"], key), doc)
    catalog: dict[str, dict[str, Any]] = {}
    taken = {name for name in seen if "." not in name}
    for name, counts in seen.items():
        best = max(counts.items(), key=lambda kv: kv[1])[0]  # first of the most frequent
        doc = docs[(name, best)]
        schema = {"$schema": DIALECT_2020_12, **to_json_schema(doc["parameters"])}
        schema["type"] = "object"
        renamed = name
        if "." in name:
            renamed = base = tool_name(name)
            suffix = 1
            while renamed in taken:  # regression_model.predict and regression_model_predict
                suffix += 1
                renamed = f"{base}_{suffix}"
            taken.add(renamed)
        catalog[name] = {
            "name": renamed,
            "description": doc.get("description", ""),
            "inputSchema": schema,
        }
    return catalog


# --- concrete calls from possible answers -------------------------------------------------


def concrete(value: Any, rng: random.Random) -> Any:
    """A nested possible-answer value made concrete: a dict's values are alternatives."""
    if isinstance(value, dict):
        out = {}
        for key, alternatives in value.items():
            if isinstance(alternatives, list) and alternatives:
                chosen = rng.choice(alternatives)
                if chosen == "":
                    continue
                out[key] = concrete(chosen, rng)
            else:
                out[key] = concrete(alternatives, rng)
        return out
    if isinstance(value, list):
        return [concrete(v, rng) for v in value]
    return value


def concrete_call(answer: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """One concrete call's arguments from a possible answer (one alternative a parameter;
    ``""`` leaves it out)."""
    arguments = {}
    for key, alternatives in answer.items():
        chosen = rng.choice(alternatives) if isinstance(alternatives, list) and alternatives else ""
        if chosen == "":
            continue
        arguments[key] = concrete(chosen, rng)
    return arguments


Call = tuple[str, bytes]  # (BFCL tool name, arguments as compact JSON)


@dataclass
class Pool:
    """The valid calls the answers give, grouped as responses, and what was left out."""

    responses: list[list[Call]]
    left_out: Counter[str] = field(default_factory=Counter)


def answer_pool(
    answers: Sequence[dict[str, Any]],
    catalog: dict[str, dict[str, Any]],
    validators: dict[str, Any],
    rng: random.Random,
    per_answer: int = 4,
) -> Pool:
    """Up to ``per_answer`` distinct concrete versions of every possible answer whose calls
    all pass their tool's schema."""
    pool = Pool([])
    for answer in answers:
        truth = answer.get("ground_truth")
        if not isinstance(truth, list) or not truth or not all(isinstance(c, dict) for c in truth):
            pool.left_out["not a list of calls (multi-turn or memory)"] += 1
            continue
        variants: dict[bytes, list[Call]] = {}
        for _ in range(per_answer * 3):
            calls: list[Call] = []
            for item in truth:
                ((name, params),) = item.items()
                if name not in catalog:
                    break
                arguments = concrete_call(params, rng)
                if not validators[name].is_valid(arguments):
                    break
                calls.append((name, orjson.dumps(arguments)))
            else:
                variants.setdefault(b"\n".join(a for _, a in calls), calls)
            if len(variants) >= per_answer:
                break
        if variants:
            pool.responses.extend(variants.values())
        else:
            pool.left_out["fails its tool's converted schema"] += 1
    return pool


# --- damage --------------------------------------------------------------------------------

FAULTS = ("wrong_type", "missing_required", "enum_miss", "extra_field", "string_for_number", "null")


def _other_type(value: Any) -> Any:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return [value]
    if isinstance(value, str):
        return {"value": value}
    if isinstance(value, list):
        return ",".join(map(str, value))
    return [value]


def _near_miss(value: str, options: Sequence[Any]) -> str:
    for candidate in (value.upper(), value.lower(), value.capitalize(), value + "s", value[:-1]):
        if candidate not in options:
            return candidate
    return value + "_"


def _twin(name: str, taken: Iterable[str]) -> str:
    """An undeclared parameter a model invents: the camelCase or snake_case twin of a declared
    one, or a plausible extra."""
    if "_" in name:
        head, *rest = name.split("_")
        twin = head + "".join(w.capitalize() for w in rest)
    else:
        twin = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()
    taken = set(taken)
    for candidate in (twin, name + "_id", "notes", "metadata"):
        if candidate not in taken:
            return candidate
    return "extra_" + name


def damage(
    arguments: dict[str, Any], schema: dict[str, Any], rng: random.Random
) -> Iterator[tuple[str, dict[str, Any]]]:
    """Damaged versions of valid ``arguments``, one fault each, in a random order of faults
    (the caller keeps the first the reference validator fails)."""
    properties: dict[str, Any] = schema.get("properties") or {}
    present = [k for k in arguments if k in properties]
    faults = list(FAULTS)
    rng.shuffle(faults)
    for fault in faults:
        broken = dict(arguments)
        if fault == "wrong_type":
            typed = [k for k in present if "type" in properties[k]]
            if not typed:
                continue
            key = rng.choice(typed)
            broken[key] = _other_type(broken[key])
        elif fault == "missing_required":
            required = [k for k in schema.get("required", ()) if k in broken]
            if not required:
                continue
            del broken[rng.choice(required)]
        elif fault == "enum_miss":
            enums = [k for k in present if properties[k].get("enum") and isinstance(broken[k], str)]
            if not enums:
                continue
            key = rng.choice(enums)
            broken[key] = _near_miss(broken[key], properties[key]["enum"])
        elif fault == "extra_field":
            base = rng.choice(present) if present else "options"
            broken[_twin(base, properties)] = rng.choice([True, 1, "auto"])
        elif fault == "string_for_number":
            numbers = [
                k
                for k in present
                if isinstance(broken[k], int | float) and not isinstance(broken[k], bool)
            ]
            if not numbers:
                continue
            key = rng.choice(numbers)
            broken[key] = str(broken[key])
        else:
            if not present:
                continue
            broken[rng.choice(present)] = None
        yield fault, broken


def reference(schema: dict[str, Any]) -> Any:
    """The reference validator: python-jsonschema, formats asserted (as ``check`` asserts
    them), so that no call of the workload passes or fails on its formats alone: the bare
    loop, which does not assert them, finds the same calls invalid."""
    from jsonschema import Draft202012Validator

    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


# --- the workload --------------------------------------------------------------------------


@dataclass
class Workload:
    """A built workload in ``folder``: the tools, the trace in every shape, tiny versions, the
    fail and pass files, and the one-schema bodies; ``meta`` holds the counts."""

    folder: Path
    meta: dict[str, Any]

    @property
    def tools(self) -> Path:
        return self.folder / "tools.json"

    def shape(self, shape: str, part: str = "full") -> Path:
        return self.folder / f"{shape}.{part}.jsonl"

    @property
    def schema(self) -> Path:
        return self.folder / "one-schema.json"

    def bodies(self, part: str = "full") -> Path:
        return self.folder / f"one-schema.{part}.jsonl"


@dataclass
class Record:
    """One call of the trace: its tool, arguments, ids and verdict."""

    tool: str
    arguments: bytes
    index: int
    fault: str | None = None

    @property
    def call_id(self) -> str:
        return token(self.index, "call", 24)


_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def token(index: int, salt: str, width: int, alphabet: str = _ALPHABET) -> str:
    """A random-looking id of ``width`` characters, the same for the same index and salt."""
    number = int.from_bytes(hashlib.blake2b(f"{salt}:{index}".encode(), digest_size=24).digest())
    digits = []
    for _ in range(width):
        number, digit = divmod(number, len(alphabet))
        digits.append(alphabet[digit])
    return "".join(digits)


def draw(
    pool: Sequence[list[Call]],
    calls: int,
    invalid: float,
    catalog: dict[str, dict[str, Any]],
    validators: dict[str, Any],
    rng: random.Random,
    *,
    start: int = 0,
) -> tuple[list[list[Record]], Counter[str]]:
    """Responses drawn with replacement until ``calls`` calls; about ``invalid`` of them
    damaged, each with probability ``invalid`` (a call no fault breaks passes it on to the
    next call)."""
    responses: list[list[Record]] = []
    faults: Counter[str] = Counter()
    index, owed = start, 0
    while index - start < calls:
        response = []
        for name, text in rng.choice(pool):
            if index - start == calls:
                break
            record = Record(name, text, index)
            index += 1
            wanted = rng.random() < invalid
            if wanted or owed:
                arguments = orjson.loads(text)
                for fault, broken in damage(arguments, catalog[name]["inputSchema"], rng):
                    if not validators[name].is_valid(broken):
                        record.arguments, record.fault = orjson.dumps(broken), fault
                        faults[fault] += 1
                        break
                if record.fault is not None and not wanted:
                    owed -= 1
                elif record.fault is None and wanted:
                    owed += 1
            response.append(record)
        responses.append(response)
    return responses, faults


# --- the six shapes ------------------------------------------------------------------------

T0 = 1_764_460_800  # 2025-11-30, the timestamps' origin


def _tokens(records: Sequence[Record]) -> tuple[int, int]:
    """Plausible (prompt, completion) token counts for a response."""
    out = sum(len(r.arguments) for r in records) // 3 + 12 * len(records)
    return 900 + 37 * (records[0].index % 41), out


_HEX = "0123456789abcdef"
_LOWER = "0123456789abcdefghijklmnopqrstuvwxyz"


def chat_tool_calls(records: Sequence[Record], names: dict[str, str]) -> list[dict[str, Any]]:
    return [
        {
            "id": "call_" + r.call_id,
            "type": "function",
            "function": {"name": names[r.tool], "arguments": r.arguments.decode()},
        }
        for r in records
    ]


def chat_bare(records: Sequence[Record], names: dict[str, str]) -> list[Any]:
    return [{"tool_calls": chat_tool_calls(records, names)}]


def chat_completion(records: Sequence[Record], names: dict[str, str]) -> list[Any]:
    first = records[0].index
    prompt, completion = _tokens(records)
    return [
        {
            "id": "chatcmpl-" + token(first, "chatcmpl", 29),
            "object": "chat.completion",
            "created": T0 + first,
            "model": "gpt-4.1-2025-04-14",
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": chat_tool_calls(records, names),
                        "refusal": None,
                        "annotations": [],
                    },
                    "logprobs": None,
                    "finish_reason": "tool_calls",
                }
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
                "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
                "completion_tokens_details": {
                    "reasoning_tokens": 0,
                    "audio_tokens": 0,
                    "accepted_prediction_tokens": 0,
                    "rejected_prediction_tokens": 0,
                },
            },
            "service_tier": "default",
            "system_fingerprint": "fp_" + token(first % 7, "fp", 10, _HEX),
        }
    ]


def responses_object(records: Sequence[Record], names: dict[str, str]) -> list[Any]:
    first = records[0].index
    prompt, completion = _tokens(records)
    return [
        {
            "id": "resp_" + token(first, "resp", 48, _HEX),
            "object": "response",
            "created_at": T0 + first,
            "status": "completed",
            "error": None,
            "incomplete_details": None,
            "model": "gpt-4.1-2025-04-14",
            "output": [
                {
                    "id": "fc_" + token(r.index, "fc", 48, _HEX),
                    "type": "function_call",
                    "status": "completed",
                    "arguments": r.arguments.decode(),
                    "call_id": "call_" + r.call_id,
                    "name": names[r.tool],
                }
                for r in records
            ],
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "usage": {
                "input_tokens": prompt,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": completion,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": prompt + completion,
            },
        }
    ]


def anthropic_message(records: Sequence[Record], names: dict[str, str]) -> list[Any]:
    prompt, completion = _tokens(records)
    return [
        {
            "id": "msg_01" + token(records[0].index, "msg", 22),
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5-20250929",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_01" + token(r.index, "toolu", 22),
                    "name": names[r.tool],
                    "input": orjson.Fragment(r.arguments),
                }
                for r in records
            ],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {
                "input_tokens": prompt,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
                "output_tokens": completion,
                "service_tier": "standard",
            },
        }
    ]


def gemini_response(records: Sequence[Record], names: dict[str, str]) -> list[Any]:
    prompt, completion = _tokens(records)
    parts = [
        {
            "functionCall": {
                "name": names[r.tool],
                "args": orjson.Fragment(r.arguments),
                "id": token(r.index, "gemini", 8, _LOWER),
            }
        }
        for r in records
    ]
    return [
        {
            "candidates": [
                {
                    "content": {"parts": parts, "role": "model"},
                    "finishReason": "STOP",
                    "index": 0,
                }
            ],
            "usageMetadata": {
                "promptTokenCount": prompt,
                "candidatesTokenCount": completion,
                "totalTokenCount": prompt + completion,
            },
            "modelVersion": "gemini-2.5-flash",
            "responseId": token(records[0].index, "responseId", 22),
        }
    ]


def mcp_requests(records: Sequence[Record], names: dict[str, str]) -> list[Any]:
    return [
        {
            "jsonrpc": "2.0",
            "id": r.index + 1,
            "method": "tools/call",
            "params": {"name": names[r.tool], "arguments": orjson.Fragment(r.arguments)},
        }
        for r in records
    ]


#: Each shape: the documents (one a line) a response is written as.
WRITERS: dict[str, Callable[[Sequence[Record], dict[str, str]], list[Any]]] = {
    "chat-bare": chat_bare,
    "chat": chat_completion,
    "responses": responses_object,
    "anthropic": anthropic_message,
    "gemini": gemini_response,
    "mcp": mcp_requests,
}


def write_lines(path: Path, documents: Iterable[Any]) -> int:
    """Write one JSON document a line; return the bytes written."""
    with path.open("wb") as out:
        for document in documents:
            out.write(orjson.dumps(document) + b"\n")
    return path.stat().st_size


def counts(responses: Sequence[Sequence[Record]]) -> dict[str, int]:
    calls = [r for response in responses for r in response]
    return {"calls": len(calls), "invalid": sum(r.fault is not None for r in calls)}


def head(responses: Sequence[list[Record]], calls: int) -> list[list[Record]]:
    """The first responses holding ``calls`` calls (the last one cut to fit)."""
    out: list[list[Record]] = []
    left = calls
    for response in responses:
        if left <= 0:
            break
        out.append(response[:left])
        left -= len(out[-1])
    return out


def build_workload(wheel: Path, plan: Plan, root: Path) -> Workload:
    """The workload ``plan`` asks for, from the cache under ``root`` when it was built there."""
    version = wheel_version(wheel)
    folder = root / f"real-bfcl-eval-{version}" / plan.key
    meta_path = folder / "workload.json"
    if meta_path.is_file():  # written last: the folder is complete
        return Workload(folder, orjson.loads(meta_path.read_bytes()))
    print(f"building the workload in {folder}", file=sys.stderr)
    entries, answers = read_bfcl(wheel)
    catalog = build_catalog(entries)
    validators = {name: reference(t["inputSchema"]) for name, t in catalog.items()}
    rng = random.Random(plan.seed)
    pool = answer_pool(answers, catalog, validators, rng)
    names = {bfcl: tool["name"] for bfcl, tool in catalog.items()}
    folder.mkdir(parents=True, exist_ok=True)
    workload = Workload(folder, {})
    write_lines(workload.tools, [{"tools": list(catalog.values())}])

    trace, faults = draw(pool.responses, plan.calls, plan.invalid, catalog, validators, rng)
    tiny = head(trace, plan.tiny(plan.calls))
    flat = draw(pool.responses, plan.fail_pass * 3, 0.5, catalog, validators, rng,
                start=plan.calls)[0]  # fmt: skip
    singles = [r for response in flat for r in response]
    passing = [[r] for r in singles if r.fault is None][: plan.fail_pass]
    failing = [[r] for r in singles if r.fault is not None][: plan.fail_pass]
    parts = {"full": trace, "tiny": tiny, "pass": passing, "fail": failing}
    for part in ("pass", "fail"):  # their first calls, paying the start-up as ``tiny`` does
        parts[f"{part}.tiny"] = head(parts[part], plan.tiny(plan.fail_pass))
    files: dict[str, dict[str, int]] = {}
    for shape, writer in WRITERS.items():
        for part, responses in parts.items():
            path = workload.shape(shape, part)
            size = write_lines(path, (doc for resp in responses for doc in writer(resp, names)))
            files[path.name] = {**counts(responses), "bytes": size}

    # the one-schema workload: the tool with the most distinct valid calls
    distinct: dict[str, set[bytes]] = {}
    for response in pool.responses:
        for name, text in response:
            distinct.setdefault(name, set()).add(text)
    one = max(sorted(distinct), key=lambda n: len(distinct[n]))
    one_pool = [[(one, text)] for text in sorted(distinct[one])]
    bodies, one_faults = draw(one_pool, plan.one_schema, plan.invalid, catalog, validators, rng)
    workload.schema.write_bytes(
        orjson.dumps(catalog[one]["inputSchema"], option=orjson.OPT_INDENT_2) + b"\n"
    )
    for part, responses in (("full", bodies), ("tiny", head(bodies, plan.tiny(plan.one_schema)))):
        path = workload.bodies(part)
        size = write_lines(path, (orjson.Fragment(r.arguments) for resp in responses for r in resp))
        files[path.name] = {**counts(responses), "bytes": size}

    from jsoncontract.business.idempotency import name_writes

    calls = [(r.tool, r.arguments) for response in trace for r in response]
    called = Counter(tool for tool, _ in calls)
    meta = {
        "builder": BUILDER,
        "bfcl_eval": version,
        "seed": plan.seed,
        "invalid_share": plan.invalid,
        "tools": len(catalog),
        "tools_called": len(called),
        "write_tools": sum(bool(name_writes(t["name"])) for t in catalog.values()),
        "write_calls": sum(n for tool, n in called.items() if name_writes(names[tool])),
        "pool_responses": len(pool.responses),
        "pool_calls": sum(len(r) for r in pool.responses),
        "answers_left_out": dict(pool.left_out),
        "responses": len(trace),
        **counts(trace),
        "faults": dict(faults),
        "repeated_calls": len(calls) - len(set(calls)),
        "one_schema": {
            "tool": names[one],
            "distinct_valid_calls": len(distinct[one]),
            **counts(bodies),
            "faults": dict(one_faults),
        },
        "files": files,
    }
    meta_path.write_bytes(orjson.dumps(meta, option=orjson.OPT_INDENT_2))
    workload.meta = meta
    return workload
