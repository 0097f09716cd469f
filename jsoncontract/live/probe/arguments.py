"""Realistic arguments for a probe's valid calls, each value with where it came from.

A valid call made of placeholders (``"example timezone"``) is rejected by any server that
checks its input beyond the schema, and then nothing after it is learnt: the output schema
is never checked, and a negative case rejected for the placeholder's sake looks like a
correct rejection. So each value of a valid call is taken from the first of these that
gives one the schema accepts:

1. a **seed**: ``--seed NAME=VALUE`` (every property of that name), ``--seed
   TOOL.NAME=VALUE``, the server's ``seeds`` in the config, or ``--seed-trace TRACE``
   (the arguments of recorded calls the server accepted);
2. the schema's ``const``, ``examples``, ``default`` or ``enum``;
3. an example quoted in the property's description (``e.g. 'America/New_York'``, ``such
   as 2024-01-15``);
4. a value for its ``format`` (date-time, email, uri, uuid...) or for a well-known field
   name (timezone, currency, country, language; a path under the first root the client
   offers);
5. a value matching its ``pattern``, or within its bounds;
6. a placeholder.

:func:`valid_calls` gives the full call and a second one with the required members only,
each a :class:`Arguments` whose ``sources`` say, by JSON Pointer, where each value came from.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import orjson

from jsoncontract.errors import UsageError

if TYPE_CHECKING:
    from jsoncontract.model import ToolContract
    from jsoncontract.suites.instance import Node
    from jsoncontract.validation import CompiledSchema

#: Where a value came from, in the order they are tried.
SEED: Final = "seed"
SCHEMA: Final = "schema"
DESCRIPTION: Final = "description"
FORMAT: Final = "format"
NAME: Final = "field name"
ROOT: Final = "root"
PATTERN: Final = "pattern"
BOUNDS: Final = "bounds"
PLACEHOLDER: Final = "placeholder"

#: ``e.g. 'America/New_York'``, ``for example "x"``, ``such as 2024-01-15``.
_QUOTED_EXAMPLE: Final = re.compile(
    r"""(?ix)\b(?:e\.?\s?g\.?|for\ example|for\ instance|such\ as|example|like)\s*[:,]?\s*
    (?:'([^'\n]{1,200})'|"([^"\n]{1,200})"|`([^`\n]{1,200})`|([^\s,;()'"`]{1,200}))"""
)
#: Well-known field names and a value a real system accepts.
_WELL_KNOWN: Final[tuple[tuple[re.Pattern[str], Any], ...]] = (
    (re.compile(r"(?i)^(time_?zone|tz|timezone_?name|iana_?timezone)$|_timezone$"), "UTC"),
    (re.compile(r"(?i)^(currency|currency_?code)$|_currency$"), "USD"),
    (re.compile(r"(?i)^(country|country_?code)$|_country$"), "US"),
    (re.compile(r"(?i)^(language|lang|language_?code)$"), "en"),
    (re.compile(r"(?i)^locale$"), "en-US"),
    (re.compile(r"(?i)^(email|e_?mail_?address)$|_email$"), "user@example.com"),
    (re.compile(r"(?i)^(url|uri|link|href)$|_url$"), "https://example.com/"),
    (re.compile(r"(?i)^(date|day)$|_date$"), "2024-01-15"),
    (re.compile(r"(?i)^(time)$|_time$"), "09:30"),
)
#: Names of a value that is a local path (a file or a directory).
_PATH_NAME: Final = re.compile(
    r"(?i)^(path|paths|file|filename|file_?path|dir|directory|folder|root|cwd|repo|repo_?path"
    r"|repository|workspace|source|destination|target)$|_(path|dir|directory|file|folder)$"
)
_DIRECTORY_NAME: Final = re.compile(
    r"(?i)(dir|directory|folder|repo|repository|root|cwd|workspace)"
)


@dataclass(frozen=True, slots=True)
class Seed:
    """A value given for a property: for every tool, or one (``tool``)."""

    name: str
    value: Any
    tool: str | None = None
    #: how it was given, for reports: ``--seed``, ``config``, ``trace.jsonl:12``
    origin: str = "--seed"


@dataclass(slots=True)
class Seeds:
    """Every seed, looked up by tool and property name."""

    given: list[Seed] = field(default_factory=list)

    def find(self, tool: str, name: str) -> Seed | None:
        """The seed for ``name`` in ``tool``: one for this tool first, then one for every
        tool; the first given wins."""
        for seed in self.given:
            if seed.tool == tool and seed.name == name:
                return seed
        for seed in self.given:
            if seed.tool is None and seed.name == name:
                return seed
        return None

    def __bool__(self) -> bool:
        return bool(self.given)


def parse_seed(text: str, tools: Iterable[str] = (), origin: str = "--seed") -> Seed:
    """``NAME=VALUE`` or ``TOOL.NAME=VALUE``; VALUE is read as JSON when it parses, else
    as a string. A dotted NAME is ``TOOL.NAME`` when the part before the dot is a tool of
    ``tools`` (or ``tools`` is empty).

    Raises:
        UsageError: no ``=``, or no name.
    """
    name, found, raw = text.partition("=")
    name = name.strip()
    if not found or not name:
        raise UsageError(f"{origin} {text!r}: write NAME=VALUE or TOOL.NAME=VALUE")
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        value = raw
    known = set(tools)
    head, dot, tail = name.partition(".")
    if dot and tail and (not known or head in known):
        return Seed(tail, value, head, origin)
    return Seed(name, value, None, origin)


def config_seeds(table: Mapping[str, Any], where: str) -> list[Seed]:
    """The seeds of a server's ``seeds`` table in the config (``NAME = VALUE`` or
    ``"TOOL.NAME" = VALUE``; TOML values are JSON values already)."""
    out = []
    for key, value in table.items():
        head, dot, tail = key.partition(".")
        if dot and tail:
            out.append(Seed(tail, value, head, where))
        else:
            out.append(Seed(key, value, None, where))
    return out


def trace_seeds(path: Path) -> list[Seed]:
    """Seeds from a recorded session: the arguments of every ``tools/call`` the server
    answered with a result that is not ``isError``, by tool, then by name for every tool
    (first recorded wins).

    Raises:
        InputError: the trace cannot be read.
    """
    from jsoncontract.live.trace import CLIENT, read_frames

    pending: dict[Any, tuple[str, Any, int]] = {}
    by_tool: list[Seed] = []
    by_name: list[Seed] = []
    named: set[str] = set()
    pinned: set[tuple[str, str]] = set()
    for frame in read_frames(path):
        message = frame.message
        if not isinstance(message, dict):
            continue
        key = _id_key(message.get("id"))
        if message.get("method") == "tools/call" and frame.direction in (None, CLIENT):
            params = message.get("params")
            if isinstance(params, dict) and isinstance(params.get("name"), str):
                pending[key] = (params["name"], params.get("arguments"), frame.line)
            continue
        if "method" in message or key not in pending or not frame.delivered:
            continue
        tool, arguments, line = pending.pop(key)
        result = message.get("result")
        if not isinstance(result, dict) or result.get("isError") is True:
            continue
        if not isinstance(arguments, dict):
            continue
        origin = f"{path.name}:{line}"
        for name, value in arguments.items():
            if (tool, name) not in pinned:
                pinned.add((tool, name))
                by_tool.append(Seed(name, value, tool, origin))
            if name not in named:
                named.add(name)
                by_name.append(Seed(name, value, None, origin))
    return by_tool + by_name


def _id_key(value: Any) -> Any:
    return (type(value).__name__, value) if isinstance(value, str | int) else None


@dataclass(frozen=True, slots=True)
class Arguments:
    """A valid call's arguments and, by JSON Pointer, where each value came from
    (``seed --seed``, ``schema examples``, ``description``, ``format date``...)."""

    value: dict[str, Any]
    sources: dict[str, str]
    #: every member, or the required members only
    required_only: bool = False

    def placeholders(self) -> list[str]:
        """The pointers whose value is a placeholder."""
        return [p for p, s in self.sources.items() if s == PLACEHOLDER]


def valid_calls(
    tool: ToolContract,
    compiled: CompiledSchema,
    *,
    seeds: Seeds | None = None,
    roots: Sequence[Path] = (),
) -> tuple[list[Arguments], str | None]:
    """The full valid call and, when it differs, the one with required members only;
    ``([], why)`` when no valid call can be built."""
    from jsoncontract.suites.generate import build_valid

    built = build_valid(tool, compiled)
    if built.error is not None or not isinstance(built.value, dict):
        return [], built.error or "no valid instance"
    full = _realistic(tool, compiled, built.value, seeds or Seeds(), roots, False)
    calls = [full]
    minimal = _required_only(tool, compiled)
    if minimal is not None:
        lean = _realistic(tool, compiled, minimal, seeds or Seeds(), roots, True)
        if lean.value != full.value:
            calls.append(lean)
    return calls, None


def _required_only(tool: ToolContract, compiled: CompiledSchema) -> dict[str, Any] | None:
    from jsoncontract._schema_walk import CannotGenerate, Resolver, Unsatisfiable
    from jsoncontract.suites.instance import BuildOptions, InstanceBuilder

    builder = InstanceBuilder(
        Resolver(tool.input_schema), None, BuildOptions(include_optional=False)
    )
    try:
        value = builder.build()
    except (Unsatisfiable, CannotGenerate, RecursionError):
        return None
    return value if isinstance(value, dict) and compiled.is_valid(value) else None


def _realistic(
    tool: ToolContract,
    compiled: CompiledSchema,
    base: dict[str, Any],
    seeds: Seeds,
    roots: Sequence[Path],
    required_only: bool,
) -> Arguments:
    """``base`` with each value replaced by the best one the schema accepts."""
    from jsoncontract._schema_walk import CannotGenerate, Resolver, Unsatisfiable
    from jsoncontract.suites.instance import annotate

    value: dict[str, Any] = orjson.loads(orjson.dumps(base))
    sources: dict[str, str] = {}
    try:
        nodes = annotate(Resolver(tool.input_schema), value)
    except (Unsatisfiable, CannotGenerate):
        return Arguments(value, {}, required_only)
    replaced: list[str] = []
    for node in nodes:
        pointer = node.pointer
        if not pointer or any(pointer.startswith(r + "/") for r in replaced):
            continue
        name = _name_of(pointer)
        leaf = not isinstance(node.value, dict | list)
        described = _description(tool.input_schema, pointer)
        for source, candidate in _candidates(tool.name, name, node, seeds, roots, described):
            if candidate is _KEEP:
                if leaf or source == SEED:
                    sources[pointer] = source
                break
            if _fits(compiled, value, pointer, candidate):
                _set(value, pointer, candidate)
                sources[pointer] = source
                if not leaf or isinstance(candidate, dict | list):
                    replaced.append(pointer)
                break
        else:
            if leaf:
                sources[pointer] = PLACEHOLDER
    return Arguments(value, sources, required_only)


_BOUND_KEYS: Final = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
#: "keep the value the generator wrote" (it already came from this source)
_KEEP: Final = object()


def _description(schema: Any, pointer: str) -> str | None:
    """The description of the property at ``pointer`` (through ``properties`` and
    ``items``; the effective schema of a node keeps no annotations)."""
    from jsoncontract.pointer import pointer_tokens

    node = schema
    for token in pointer_tokens(pointer):
        if not isinstance(node, dict):
            return None
        properties = node.get("properties")
        if token.isdigit() and isinstance(node.get("items"), dict):
            node = node["items"]
        elif isinstance(properties, dict) and token in properties:
            node = properties[token]
        else:
            return None
    found = node.get("description") if isinstance(node, dict) else None
    return found if isinstance(found, str) else None


def _candidates(
    tool: str,
    name: str | None,
    node: Node,
    seeds: Seeds,
    roots: Sequence[Path],
    description: str | None,
) -> Iterable[tuple[str, Any]]:
    """(source, value) pairs in the order they are tried."""
    schema = node.eff.schema
    if name is not None:
        seed = seeds.find(tool, name)
        if seed is not None:
            yield f"{SEED} {seed.origin}", seed.value
    if isinstance(node.value, dict | list):
        return
    for key in ("const", "examples", "default", "enum"):
        if key in schema:
            yield f"{SCHEMA} {key}", _KEEP
            return
    description = description or schema.get("description")
    if isinstance(description, str):
        for text in description_examples(description):
            yield DESCRIPTION, text
            parsed = _json_or_none(text)
            if parsed is not None and not isinstance(parsed, str):
                yield DESCRIPTION, parsed
    if isinstance(schema.get("format"), str):
        yield f"{FORMAT} {schema['format']}", _KEEP
        return
    if name is not None:
        if roots and _PATH_NAME.search(name):
            yield ROOT, str(_path_under(roots[0], name, tool))
        for pattern, known in _WELL_KNOWN:
            if pattern.search(name):
                yield NAME, known
    if node.eff.patterns:
        yield PATTERN, _KEEP
        return
    number = isinstance(node.value, int | float) and not isinstance(node.value, bool)
    if number and any(k in schema for k in _BOUND_KEYS):
        yield BOUNDS, _KEEP


def well_known(name: str) -> Any:
    """A value a real system accepts for a well-known field name, else ``None``."""
    for pattern, known in _WELL_KNOWN:
        if pattern.search(name):
            return known
    return None


def description_examples(text: str) -> list[str]:
    """The examples a description quotes: ``e.g. 'America/New_York'``, ``such as
    2024-01-15``, ``(for example "EUR")``."""
    out = []
    for match in _QUOTED_EXAMPLE.finditer(text):
        found = next(g for g in match.groups() if g is not None)
        found = found.strip().rstrip(".")
        if found and found not in out:
            out.append(found)
    return out


def _json_or_none(text: str) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return None


def _path_under(root: Path, name: str, tool: str) -> Path:
    """A path under ``root`` for a property named ``name``: the root itself for a
    directory, else its first file (sorted), else the root."""
    wants_dir = bool(_DIRECTORY_NAME.search(name)) or bool(
        re.search(r"(?i)(list|tree|search|director|folder|repo|git)", tool)
    )
    if wants_dir and not re.search(r"(?i)file", name):
        return root
    try:
        files = sorted(p for p in root.iterdir() if p.is_file() and not p.name.startswith("."))
    except OSError:
        return root
    return files[0] if files else root


def _name_of(pointer: str) -> str | None:
    """The property name a pointer ends with (``None`` for an array item)."""
    from jsoncontract.pointer import pointer_tokens

    tokens = pointer_tokens(pointer)
    if not tokens or tokens[-1].isdigit():
        return None
    return tokens[-1]


def _set(document: Any, pointer: str, value: Any) -> None:
    from jsoncontract.pointer import pointer_tokens

    tokens = pointer_tokens(pointer)
    target = document
    for token in tokens[:-1]:
        target = target[int(token)] if isinstance(target, list) else target[token]
    last = tokens[-1]
    if isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value


def _fits(compiled: CompiledSchema, document: dict[str, Any], pointer: str, value: Any) -> bool:
    """Whether the document with ``value`` at ``pointer`` is still valid."""
    trial = orjson.loads(orjson.dumps(document))
    _set(trial, pointer, value)
    return compiled.is_valid(trial)
