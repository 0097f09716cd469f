"""Make the corpus the engine profiles are measured on (``tests/lint/engines/corpus/``).

Three sets of tool definitions, each an MCP ``tools/list`` result:

- ``bfcl-eval-VERSION.json``: the Berkeley Function Calling Leaderboard's tools, from the
  ``bfcl-eval`` wheel on PyPI (read as a zip, never installed), converted to JSON Schema as
  ``benchmarks/_bfcl.py`` converts them for the real-workload benchmark, one tool per
  distinct input schema (the first name in sorted order keeps it);
- ``mcp-servers.json``: the tools of the real MCP servers the project pins
  (``pyproject.toml``'s ``servers`` extra and ``tests/live/real/package.json``), listed live
  with ``jsoncontract mcp tools``, their names prefixed with the server's;
- ``keywords.json``: one tool per Draft 2020-12 keyword and value worth telling apart
  (formats by name, regex features, repetition sizes), each keyword alone in a property
  schema, with a type beside it, and nested in an array's items.

Run from the repository root, in the environment of the ``test`` extra::

    python tests/lint/engines/make_corpus.py all          # or bfcl, mcp, keywords

The BFCL wheel is fetched with ``pip download --no-deps`` into ``benchmarks/out/wheels/``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent / "corpus"
sys.path.insert(0, str(ROOT / "benchmarks"))

import _bfcl  # noqa: E402

DRAFT = "https://json-schema.org/draft/2020-12/schema"


def write(name: str, tools: list[dict[str, Any]]) -> None:
    HERE.mkdir(exist_ok=True)
    text = json.dumps({"tools": tools}, indent=1, ensure_ascii=False) + "\n"
    (HERE / name).write_text(text, encoding="utf-8")
    print(f"{HERE / name}: {len(tools)} tools", file=sys.stderr)


# -- BFCL -------------------------------------------------------------------------------


def bfcl() -> None:
    wheel = _bfcl.bfcl_wheel(_bfcl.BFCL_VERSION, None, ROOT / "benchmarks" / "out" / "wheels")
    entries, _ = _bfcl.read_bfcl(wheel)
    catalog = _bfcl.build_catalog(entries)
    seen: set[bytes] = set()
    tools = []
    for tool in sorted(catalog.values(), key=lambda t: t["name"]):
        key = orjson.dumps(tool["inputSchema"], option=orjson.OPT_SORT_KEYS)
        if key in seen:
            continue
        seen.add(key)
        tools.append(tool)
    for old in HERE.glob("bfcl-eval-*.json"):
        old.unlink()
    write(f"bfcl-eval-{_bfcl.wheel_version(wheel)}.json", tools)


# -- the real MCP servers ---------------------------------------------------------------

PYPI_SERVERS = {
    "time": [sys.executable, "-m", "mcp_server_time"],
    "git": [sys.executable, "-m", "mcp_server_git"],
    "fetch": [sys.executable, "-m", "mcp_server_fetch"],
}
NPM_SERVERS = {
    "everything": ["mcp-server-everything", "stdio"],
    "filesystem": ["mcp-server-filesystem", str(ROOT)],
    "memory": ["mcp-server-memory"],
}


def mcp() -> None:
    real = ROOT / "tests" / "live" / "real"
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("make_corpus: the npm servers need Node.js and npm")
    subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=real, check=True)
    servers = dict(PYPI_SERVERS)
    for name, (command, *args) in NPM_SERVERS.items():
        servers[name] = [str(real / "node_modules" / ".bin" / command), *args]
    tools = []
    for name, command in servers.items():
        done = subprocess.run(
            [sys.executable, "-m", "jsoncontract", "mcp", "tools", "-f", "json", "--", *command],
            capture_output=True,
            check=True,
            cwd=ROOT,
        )
        for tool in json.loads(done.stdout)["tools"]:
            tools.append({**tool, "name": f"{name}__{tool['name']}"})
    write("mcp-servers.json", tools)


# -- one tool per keyword ---------------------------------------------------------------

FORMATS = (
    "date-time", "date", "time", "duration", "email", "idn-email", "hostname",
    "idn-hostname", "ipv4", "ipv6", "uri", "uri-reference", "iri", "iri-reference",
    "uri-template", "uuid", "json-pointer", "relative-json-pointer", "regex", "unknown-format",
)  # fmt: skip
PATTERNS = (
    "^[a-z]+$", "^\\d+$", "\\d+", "^\\w+$", "\\S", "^\\s*$", "[0-9]{3}", "^[A-Z]{2,2000}$",
    "^[A-Z]{2,2001}$", "^(?=.*[0-9]).+$", "^(?!test).+$", "(?<=a)b", "^(a)\\1$", "\\bword\\b",
    "^x", "x$", "(?i)^abc$", "^[^\\s]+$", "^\\p{L}+$", "^.{1,10}$", "^a|b$", "^[\\u0041-\\u005A]+$",
)  # fmt: skip

#: keyword -> (type beside it, values to try)
KEYWORDS: dict[str, tuple[str | None, list[Any]]] = {
    "type": (
        None,
        ["string", "integer", "number", "boolean", "null", "array", "object", ["string", "null"]],
    ),
    "enum": ("string", [["a", "b"], [1, 2], ["a", 1, None], []]),
    "const": ("string", ["a", 1]),
    "multipleOf": ("number", [5, 0.5]),
    "maximum": ("integer", [10, 10.5]),
    "exclusiveMaximum": ("integer", [10]),
    "minimum": ("integer", [1, -1.5]),
    "exclusiveMinimum": ("integer", [0]),
    "maxLength": ("string", [10, 2000, 2001, 65536]),
    "minLength": ("string", [1, 3000]),
    "pattern": ("string", list(PATTERNS)),
    "format": ("string", list(FORMATS)),
    "maxItems": ("array", [3, 2000, 2001, 65536]),
    "minItems": ("array", [1, 5, 2500]),
    "uniqueItems": ("array", [True, False]),
    "contains": ("array", [{"type": "string"}]),
    "maxContains": ("array", [2]),
    "minContains": ("array", [1]),
    "items": ("array", [{"type": "string"}, True, False]),
    "prefixItems": ("array", [[{"type": "string"}, {"type": "integer"}]]),
    "unevaluatedItems": ("array", [False, {"type": "string"}]),
    "maxProperties": ("object", [2]),
    "minProperties": ("object", [1]),
    "required": ("object", [["a"], []]),
    "properties": (
        "object",
        [{"a": {"type": "string"}}, {"a": {}}, {"a": True}, {"a": {"description": "any value"}}],
    ),
    "patternProperties": ("object", [{"^x_": {"type": "string"}}]),
    "additionalProperties": ("object", [False, True, {"type": "string"}]),
    "propertyNames": ("object", [{"pattern": "^[a-z]+$"}]),
    "unevaluatedProperties": ("object", [False]),
    "dependentRequired": ("object", [{"a": ["b"]}, {}]),
    "dependentSchemas": ("object", [{"a": {"required": ["b"]}}]),
    "allOf": (None, [[{"type": "string"}, {"maxLength": 5}]]),
    "anyOf": (None, [[{"type": "string"}, {"type": "integer"}]]),
    "oneOf": (None, [[{"type": "string"}, {"type": "integer"}]]),
    "not": (None, [{"type": "string"}]),
    "if": ("string", [{"maxLength": 3}]),
    "then": ("string", [{"minLength": 1}]),
    "else": ("string", [{"minLength": 1}]),
    "$ref": (None, ["#/$defs/word"]),
    "$dynamicRef": (None, ["#word"]),
    "$anchor": ("string", ["here"]),
    "$dynamicAnchor": ("string", ["here"]),
    "$id": ("string", ["https://example.com/x"]),
    "$comment": ("string", ["a comment"]),
    "title": ("string", ["A title"]),
    "description": ("string", ["A description"]),
    "default": ("string", ["x"]),
    "deprecated": ("string", [True]),
    "readOnly": ("string", [True]),
    "writeOnly": ("string", [True]),
    "examples": ("string", [["x"]]),
    "contentEncoding": ("string", ["base64"]),
    "contentMediaType": ("string", ["application/json"]),
    "contentSchema": ("string", [{"type": "object"}]),
}
#: Keywords whose meaning needs a partner to show (the partner is added to each placement).
PARTNERS: dict[str, dict[str, Any]] = {
    "then": {"if": {"maxLength": 3}},
    "else": {"if": {"maxLength": 3}},
    "maxContains": {"contains": {"type": "string"}},
    "minContains": {"contains": {"type": "string"}},
    "dependentRequired": {"properties": {"a": {"type": "string"}, "b": {"type": "string"}}},
    "dependentSchemas": {"properties": {"a": {"type": "string"}, "b": {"type": "string"}}},
    "maxProperties": {"properties": {"a": {"type": "string"}, "b": {"type": "string"}}},
    "minProperties": {"properties": {"a": {"type": "string"}}},
    "required": {"properties": {"a": {"type": "string"}}},
    "unevaluatedProperties": {"properties": {"a": {"type": "string"}}},
    "$dynamicRef": {"$dynamicAnchor": "word", "type": "string"},
}


def placements(keyword: str, kind: str | None, value: Any) -> list[tuple[str, Any]]:
    fragment = {**PARTNERS.get(keyword, {}), keyword: value}
    out = [("alone", fragment)]
    if kind is not None:
        out.append(("typed", {"type": kind, **fragment}))
    typed = {"type": kind, **fragment} if kind is not None else fragment
    out.append(("nested", {"type": "array", "items": typed}))
    return out


def keywords() -> None:
    tools = []
    for keyword, (kind, values) in KEYWORDS.items():
        for index, value in enumerate(values):
            for where, fragment in placements(keyword, kind, value):
                schema: dict[str, Any] = {
                    "$schema": DRAFT,
                    "type": "object",
                    "properties": {"v": fragment},
                    "required": ["v"],
                    "additionalProperties": False,
                }
                if keyword == "$ref":
                    schema["$defs"] = {"word": {"type": "string", "maxLength": 20}}
                slug = keyword.lstrip("$")
                tools.append(
                    {
                        "name": f"kw_{slug}_{index}_{where}",
                        "description": f"{keyword} = {json.dumps(value)} ({where})",
                        "inputSchema": schema,
                    }
                )
    write("keywords.json", tools)


def main(argv: list[str]) -> None:
    what = argv[0] if argv else "all"
    for name, make in (("bfcl", bfcl), ("mcp", mcp), ("keywords", keywords)):
        if what in (name, "all"):
            make()


if __name__ == "__main__":
    main(sys.argv[1:])
