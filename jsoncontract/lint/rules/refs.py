"""``$ref``: references that leave the document, do not resolve, loop, or recurse."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final
from urllib.parse import unquote

from jsoncontract._spelling import did_you_mean
from jsoncontract.lint.context import REF_OVERRIDES_SIBLINGS, Node, Site, ToolCtx
from jsoncontract.lint.profiles import ANTHROPIC_STRICT, GEMINI, OPENAI_STRICT
from jsoncontract.lint.rule import ALL, Family, Issue, NodeRule, ToolRule, by_profile
from jsoncontract.model import Severity
from jsoncontract.pointer import (
    ABSENT,
    Absent,
    escape_pointer_token,
    get,
    get_in,
    pointer_tokens,
)

E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO
#: Keywords that annotate without constraining (allowed next to ``$ref`` by the OpenAI
#: Agents SDK).
ANNOTATIONS: Final = frozenset(
    {
        "description",
        "title",
        "default",
        "examples",
        "$comment",
        "deprecated",
        "readOnly",
        "writeOnly",
        "$id",
        "$anchor",
        "$schema",
        "$defs",
        "definitions",
    }
)
_MAX_REFS: Final = 2000


def _from_raw(site: Site, pointer: str) -> str:
    """A pointer into an OpenAPI original, as a pointer into its translation."""
    if not site.openapi:
        return pointer
    return "/".join(
        "$defs" if t == "defs" else "$ref" if t == "ref" else t for t in pointer.split("/")
    )


def target_of(site: Site, ref: str) -> str | Absent | None:
    """Where a ``$ref`` points inside the site: a schema-relative pointer, ``None`` when it
    points outside the document, or :data:`ABSENT` when it resolves to nothing."""
    base, _, fragment = ref.partition("#")
    prefix = ""
    if base:
        found = site.anchors.get(base)
        if found is None:
            return None
        prefix = found
    if not fragment:
        return prefix
    if fragment.startswith("/"):
        pointer = prefix + unquote(fragment)
        document = site.raw if site.openapi else site.schema
        absent = get(document, pointer) is ABSENT  # mypy: an `is` test on Any narrows ABSENT
        if absent:
            return ABSENT
        return _from_raw(site, pointer)
    anchored: str | None = site.anchors.get(fragment)
    return anchored if anchored is not None else ABSENT


def _is_network(ref: str) -> bool:
    return ref.startswith(("http://", "https://", "//"))


class RefOutsideDocument(ToolRule):
    """## What it does
    Checks that every `$ref` points inside the schema's own document (`#/$defs/...`,
    `#anchor`, or a `$id` declared in the document).

    ## Why is this bad?
    A reference to a URL or another file makes the schema depend on something the model,
    the provider and the server may each resolve differently, or not at all. Fetching it is
    a network request driven by untrusted data: MCP 2026-07-28 says clients MUST NOT
    dereference network references automatically, Anthropic strict mode rejects external
    references, and jsoncontract never fetches them, so the reference cannot be checked.

    ## Example
    ```json
    {"type": "object",
     "properties": {"address": {"$ref": "https://example.com/schemas/address.json"}}}
    ```

    ## Use instead
    ```json
    {"type": "object",
     "properties": {"address": {"$ref": "#/$defs/address"}},
     "$defs": {"address": {"type": "object", "properties": {"city": {"type": "string"}}}}}
    ```

    ## References
    - MCP specification 2026-07-28, "JSON Schema usage" (SEP-2106: no network `$ref`)
    - Anthropic structured outputs: external `$ref` not supported
    """

    code = "JC003"
    name = "ref-outside-document"
    family = Family.HYGIENE
    summary = "A $ref points to a URL or another file"
    profiles = by_profile({ALL: E})
    security_severity = 5.0

    def check(self, tool: ToolCtx, active: frozenset[str]) -> Iterator[Issue]:
        for site in tool.sites:
            for node in site.refs:
                ref = node.value.get("$ref")
                if not isinstance(ref, str) or target_of(site, ref) is not None:
                    continue
                if _is_network(ref):
                    message = (
                        f"$ref {ref!r} points to the network; jsoncontract never fetches it "
                        "and MCP clients must not dereference it"
                    )
                else:
                    message = (
                        f"$ref {ref!r} points to another document; it is resolved by nobody "
                        "who only sees this tool definition"
                    )
                yield Issue(
                    message,
                    node.pointer("$ref"),
                    keyword="$ref",
                    hint="copy the target under $defs and refer to it as #/$defs/<name>",
                    schema_path=node.schema_path("$ref"),
                )


class RefUnresolved(ToolRule):
    """## What it does
    Checks that every local `$ref` resolves to a node of the document, and that no chain of
    references loops back on itself before reaching a schema (`a` refers to `b`, `b` to
    `a`, or `{"$ref": "#"}` at the root).

    ## Why is this bad?
    A reference to nothing makes the whole schema fail to compile in most validators, so
    every call to the tool fails; some clients drop the tool instead. A loop of references
    has no meaning at all and sends naive resolvers into endless recursion.

    ## Example
    ```json
    {"type": "object", "properties": {"to": {"$ref": "#/$defs/adress"}},
     "$defs": {"address": {"type": "string"}}}
    ```

    ## Use instead
    ```json
    {"type": "object", "properties": {"to": {"$ref": "#/$defs/address"}},
     "$defs": {"address": {"type": "string"}}}
    ```

    ## References
    - JSON Schema 2020-12 core, section 8.2.3 (`$ref`)
    - OpenAI Agents SDK, `strict_schema.py` (circular `$ref` chains are an error)
    """

    code = "JC004"
    name = "ref-unresolved"
    family = Family.HYGIENE
    summary = "A local $ref resolves to nothing, or references loop"
    profiles = by_profile({ALL: E})

    def check(self, tool: ToolCtx, active: frozenset[str]) -> Iterator[Issue]:
        for site in tool.sites:
            document = site.raw if site.openapi else site.schema
            for node in site.refs:
                ref = node.value.get("$ref")
                if not isinstance(ref, str):
                    continue
                target = target_of(site, ref)
                if target is None:
                    continue
                if target is ABSENT:
                    yield Issue(
                        f"$ref {ref!r} does not resolve: the document has no such node",
                        node.pointer("$ref"),
                        keyword="$ref",
                        hint=_closest_target(document, ref),
                        schema_path=node.schema_path("$ref"),
                    )
                    continue
                loop = _loop(site, node.path, str(target))
                if loop is not None:
                    yield Issue(
                        f"$ref {ref!r} starts a chain of references that never reaches a "
                        f"schema: {loop}",
                        node.pointer("$ref"),
                        keyword="$ref",
                        hint="point one of them at a real schema",
                        schema_path=node.schema_path("$ref"),
                    )


def _closest_target(document: Any, ref: str) -> str | None:
    pointer = ref.partition("#")[2]
    parent, _, last = pointer.rpartition("/")
    container = get(document, unquote(parent))
    if isinstance(container, dict):
        guess = did_you_mean(last, container)
        if guess:
            return f"did you mean #{parent}/{guess}?"
        if container:
            return f"{parent or '/'} holds: {', '.join(list(container)[:10])}"
    return "point it at a node that exists (usually under #/$defs)"


def _loop(site: Site, start: str, target: str) -> str | None:
    """The loop of pure references starting at ``start``, described, or ``None``."""
    seen = [start]
    current = target
    for _ in range(64):
        if current in seen:
            if current != start:
                return None  # a loop further on is reported at its own start
            return " -> ".join(f"#{p}" for p in [*seen, current])
        node = get(site.schema, current)
        if not isinstance(node, dict) or not isinstance(node.get("$ref"), str):
            return None
        seen.append(current)
        nxt = target_of(site, node["$ref"])
        if not isinstance(nxt, str):
            return None
        current = nxt
    return None


class SchemaRecursive(ToolRule):
    """## What it does
    Finds recursive schemas: a `$ref` that leads back into the schema that contains it
    (a tree of `children`, a linked list).

    ## Why is this bad?
    Anthropic strict tool use rejects recursive schemas with a 400. Gemini unrolls cycles
    only a few levels and only through properties that are not required (a required
    recursive property can never be satisfied); its OpenAPI `parameters` cannot express
    recursion at all. OpenAI Structured Outputs supports recursion.

    ## Example
    ```json
    {"type": "object", "properties": {"node": {"$ref": "#/$defs/node"}},
     "$defs": {"node": {"type": "object", "properties": {
       "name": {"type": "string"},
       "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
       "required": ["name", "children"]}}}
    ```

    ## Use instead
    Bound the depth explicitly (`level1`, `level2` objects), or pass the structure as a
    flat list of `{id, parent_id}` records.

    ## References
    - Anthropic structured outputs, "limitations" (recursive schemas not supported)
    - Gemini `Schema` / `responseJsonSchema` docs in python-genai (cycles unrolled to a
      limited degree, only within non-required properties)
    - Pydantic AI, `GoogleOpenAPISchemaTransformer` (recursive `$ref` is an error)
    """

    code = "JC033"
    name = "schema-recursive"
    family = Family.ANTHROPIC
    summary = "A schema refers back to itself (recursion)"
    profiles = by_profile({ANTHROPIC_STRICT: E, GEMINI: E})

    def check(self, tool: ToolCtx, active: frozenset[str]) -> Iterator[Issue]:
        for site in tool.sites:
            cycle = _cycle(site)
            if cycle is None:
                continue
            node, target, path = cycle
            ref = node.value["$ref"]
            where = f"$ref {ref!r} at #{node.path} leads back into #{target}"
            if ANTHROPIC_STRICT in active:
                yield Issue(
                    f"the schema is recursive ({where}); Anthropic strict tool use rejects it",
                    node.pointer("$ref"),
                    keyword="$ref",
                    hint="bound the depth explicitly, or flatten the structure into a list",
                    profiles=(ANTHROPIC_STRICT,),
                    schema_path=node.schema_path("$ref"),
                )
            if GEMINI in active:
                if site.openapi:
                    yield Issue(
                        f"the schema is recursive ({where}); Gemini OpenAPI parameters cannot "
                        "express recursion",
                        node.pointer("$ref"),
                        keyword="$ref",
                        hint="use parametersJsonSchema, or flatten the structure",
                        profiles=(GEMINI,),
                        schema_path=node.schema_path("$ref"),
                    )
                elif not _through_optional(site, path):
                    yield Issue(
                        f"the schema recurses through required properties only ({where}); "
                        "Gemini unrolls cycles only through non-required properties",
                        node.pointer("$ref"),
                        keyword="$ref",
                        hint="make one property on the cycle optional",
                        severity=W,
                        profiles=(GEMINI,),
                        schema_path=node.schema_path("$ref"),
                    )


def _cycle(site: Site) -> tuple[Node, str, list[str]] | None:
    """A ``$ref`` that reaches its own position again: (ref node, target, ref paths).

    A reference leads to every reference inside its target. The first reference (in
    document order) that lies on a cycle of that graph is found with one strongly
    connected components pass, then one depth-first search from it gives the cycle: linear
    in the number of references and their depth, whatever the schema.
    """
    refs: list[tuple[Node, str]] = []
    for node in site.refs[:_MAX_REFS]:
        ref = node.value.get("$ref")
        if isinstance(ref, str):
            target = target_of(site, ref)
            if isinstance(target, str):
                refs.append((node, target))
    if not refs:
        return None
    targets = {target for _, target in refs}
    inside: dict[str, list[int]] = {}  # target -> the references at or below it, in order
    for index, (node, _) in enumerate(refs):
        for prefix in _prefixes(node.path):
            if prefix in targets:
                inside.setdefault(prefix, []).append(index)
    successors = [inside.get(target, []) for _, target in refs]
    on_cycle = _on_cycle(successors)
    start = next((k for k, looped in enumerate(on_cycle) if looped), None)
    if start is None:
        return None
    start_node, start_target = refs[start]
    # (target, item it was reached from, path of the reference that led there)
    items: list[tuple[str, int, str]] = [(start_target, -1, start_node.path)]
    stack = [0]
    visited: set[str] = set()
    while stack:
        item = stack.pop()
        target = items[item][0]
        if target in visited:
            continue
        visited.add(target)
        for other in inside.get(target, ()):
            if other == start:
                trail: list[str] = []
                while item != -1:
                    trail.append(items[item][2])
                    item = items[item][1]
                trail.reverse()
                return start_node, start_target, trail
            items.append((refs[other][1], item, refs[other][0].path))
            stack.append(len(items) - 1)
    return None  # pragma: no cover - a reference on a cycle reaches itself


def _prefixes(path: str) -> list[str]:
    """``/a/b`` -> ``""``, ``/a``, ``/a/b``: the pointers of a node and its ancestors."""
    out = [""]
    out.extend(path[:i] for i, char in enumerate(path) if char == "/" and i)
    if path:
        out.append(path)
    return out


def _on_cycle(successors: list[list[int]]) -> list[bool]:
    """Which vertices of a graph lie on a cycle (Tarjan's algorithm, without recursion)."""
    count = len(successors)
    order = [-1] * count
    low = [0] * count
    on_stack = [False] * count
    stack: list[int] = []
    result = [False] * count
    counter = 0
    for root in range(count):
        if order[root] != -1:
            continue
        work = [(root, 0)]
        while work:
            vertex, position = work.pop()
            if position == 0:
                order[vertex] = low[vertex] = counter
                counter += 1
                stack.append(vertex)
                on_stack[vertex] = True
            following = successors[vertex]
            descended = False
            while position < len(following):
                other = following[position]
                position += 1
                if order[other] == -1:
                    work.append((vertex, position))
                    work.append((other, 0))
                    descended = True
                    break
                if on_stack[other]:
                    low[vertex] = min(low[vertex], order[other])
            if descended:
                continue
            if low[vertex] == order[vertex]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack[member] = False
                    component.append(member)
                    if member == vertex:
                        break
                if len(component) > 1 or vertex in following:
                    for member in component:
                        result[member] = True
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[vertex])
    return result


def _through_optional(site: Site, trail: list[str]) -> bool:
    """Whether the cycle passes a property its object does not require."""
    for path in trail:
        tokens = pointer_tokens(path)
        node: Any = site.schema
        for index, token in enumerate(tokens):
            if isinstance(node, dict) and index > 0 and tokens[index - 1] == "properties":
                owner = get_in(site.schema, tokens[: index - 1])
                required = owner.get("required", []) if isinstance(owner, dict) else []
                if isinstance(required, list) and token not in required:
                    return True
            if isinstance(node, dict):
                node = node.get(token)
            elif isinstance(node, list) and token.isdigit():
                node = node[int(token)] if int(token) < len(node) else None
            else:
                break
    return False


class RefWithSiblings(NodeRule):
    """## What it does
    Checks keywords written next to `$ref`: in draft-07 and older dialects every sibling of
    `$ref` is ignored; OpenAI strict mode accepts only annotations there (`description`,
    `title`...); Gemini accepts only keywords starting with `$`.

    ## Why is this bad?
    The constraint you wrote next to the reference is not enforced, or the provider rewrites
    the schema to apply it (the OpenAI Agents SDK inlines the target; Pydantic AI wraps it in
    `anyOf`), so the model sees a different schema from the one you validate with.

    ## Example
    ```json
    {"$schema": "http://json-schema.org/draft-07/schema#",
     "properties": {"to": {"$ref": "#/definitions/address", "required": ["city"]}}}
    ```

    ## Use instead
    ```json
    {"$schema": "http://json-schema.org/draft-07/schema#",
     "properties": {"to": {"allOf": [{"$ref": "#/definitions/address"},
                                     {"required": ["city"]}]}}}
    ```

    ## References
    - JSON Schema draft-07 core, section 8.3 (`$ref` siblings are ignored)
    - OpenAI Agents SDK, `strict_schema.py` (`$ref` with constraining siblings is inlined)
    - python-genai `Schema` docs ("If `$ref` is set on a sub-schema, no other properties,
      except those starting with `$`, may be set")
    """

    code = "JC151"
    name = "ref-with-siblings"
    family = Family.HYGIENE
    summary = "Keywords next to $ref are ignored or rejected"
    profiles = by_profile({ALL: W})
    triggers = frozenset({"$ref"})

    def check(self, node: Node, active: frozenset[str]) -> Iterator[Issue]:
        value = node.value
        siblings = [k for k in value if k != "$ref"]
        if not siblings:
            return
        constraining = [k for k in siblings if k not in ANNOTATIONS and not k.startswith("x-")]
        reasons: list[str] = []
        narrowed: list[str] = []
        everywhere = bool(constraining) and (node.site.effective_draft in REF_OVERRIDES_SIBLINGS)
        if everywhere:
            reasons.append(f"{node.site.effective_draft} ignores keywords next to $ref")
        if constraining and OPENAI_STRICT in active:
            narrowed.append(OPENAI_STRICT)
            reasons.append("OpenAI strict mode allows only annotations there")
        dollar = [k for k in siblings if not k.startswith("$")]
        if dollar and GEMINI in active and not node.site.openapi:
            narrowed.append(GEMINI)
            reasons.append("Gemini allows only $-keywords next to $ref")
        if not everywhere and not narrowed:
            return
        shown = constraining or dollar
        yield Issue(
            f"{', '.join(shown)} next to $ref: {'; '.join(reasons)}",
            node.pointer(shown[0]),
            keyword="$ref",
            hint='combine them with allOf: [{"$ref": ...}, {...}], or move them into the '
            "referenced schema",
            profiles=None if everywhere else tuple(narrowed),
            schema_path=node.schema_path(shown[0]),
        )


class DefinitionUnused(ToolRule):
    """## What it does
    Finds entries of `$defs` (or `definitions`) at the schema root that no `$ref` uses.

    ## Why is this bad?
    Unused definitions are dead weight in every request (they count towards provider size
    limits and prompt tokens) and usually mean a reference was renamed or deleted by
    mistake.

    ## Example
    ```json
    {"type": "object", "properties": {"to": {"$ref": "#/$defs/address"}},
     "$defs": {"address": {"type": "string"}, "legacyAddress": {"type": "string"}}}
    ```

    ## Use instead
    ```json
    {"type": "object", "properties": {"to": {"$ref": "#/$defs/address"}},
     "$defs": {"address": {"type": "string"}}}
    ```

    ## References
    - sourcemeta jsonschema lint rule `orphan_definitions`
    - OpenAI Structured Outputs: definition names count towards the 120,000-character limit
    """

    code = "JC154"
    name = "definition-unused"
    family = Family.HYGIENE
    summary = "A $defs entry is never referenced"
    profiles = by_profile({ALL: INFO})

    def check(self, tool: ToolCtx, active: frozenset[str]) -> Iterator[Issue]:
        for site in tool.sites:
            schema = site.schema
            if not isinstance(schema, dict) or site.anchors:
                continue
            used: set[str] = set()
            for node in site.refs:
                ref = node.value.get("$ref")
                if not isinstance(ref, str):
                    continue
                target = target_of(site, ref)
                if not isinstance(target, str):
                    if not ref.startswith("#/"):
                        used.add("*")
                    continue
                used.add(target)
            if "*" in used:
                continue
            # a definition is used when a target is the definition or lies inside it
            reached = {"/".join(u.split("/", 3)[:3]) for u in used}
            for key in ("$defs", "definitions"):
                defs = schema.get(key)
                if not isinstance(defs, dict):
                    continue
                for name in defs:
                    path = f"/{key}/{escape_pointer_token(name)}"
                    if path in reached:
                        continue
                    yield Issue(
                        f"definition {name!r} is never referenced",
                        site.pointer(path),
                        hint="remove it, or reference it where it was meant to be used",
                        schema_path="#" + path,
                    )
