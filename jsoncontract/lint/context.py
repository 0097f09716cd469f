"""What rules look at: the run (its :class:`LintSettings`), its files, their tools, each
tool's schemas and their nodes.

Everything here is built once per file and shared by every rule. Positions (line and
column) are only computed for nodes that get a finding.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from jsoncontract._files import refuse_anomalies
from jsoncontract._locate import PositionIndex
from jsoncontract.lint.limits import Limits
from jsoncontract.lint.profiles import DEFAULT_MCP_VERSION, GENERIC
from jsoncontract.pointer import escape_pointer_token, get

if TYPE_CHECKING:
    from jsoncontract._files import Positions
    from jsoncontract.lint.rule import Rule
    from jsoncontract.model import Anomaly, Finding, Severity, ToolContract

# -- the run's settings ------------------------------------------------------------------

#: Argument names that make a retried write detectable (compared without case and separators).
DEFAULT_KEY_NAMES: Final = (
    "idempotency_key",
    "idempotence_key",
    "request_id",
    "client_request_id",
    "client_token",
    "dedupe_key",
    "deduplication_id",
    "dedup_id",
    "operation_id",
)


@dataclass(frozen=True, slots=True)
class Suppression:
    """Silences some rules for some tools, for a stated reason.

    ``tools`` are names or shell patterns (``legacy_*``); ``path`` limits it to findings at
    or below a pointer inside the tool's schema (``/properties/filters``).
    """

    rules: tuple[str, ...]
    tools: tuple[str, ...]
    reason: str
    path: str | None = None

    def matches(self, finding: Finding) -> bool:
        """Whether this suppression covers ``finding``."""
        if finding.code not in self.rules:
            return False
        tool = finding.tool
        if tool is None or not any(fnmatch.fnmatchcase(tool, p) for p in self.tools):
            return False
        if self.path is None:
            return True
        where = (finding.schema_path or "#").removeprefix("#")
        return where == self.path or where.startswith(self.path.rstrip("/") + "/")

    def to_dict(self) -> dict[str, Any]:
        """As written in reports."""
        out: dict[str, Any] = {"rules": list(self.rules), "tools": list(self.tools)}
        if self.path is not None:
            out["path"] = self.path
        out["reason"] = self.reason
        return out


@dataclass(frozen=True, slots=True)
class IdempotencySettings:
    """How write tools and their idempotency keys are recognised."""

    key_names: tuple[str, ...] = DEFAULT_KEY_NAMES
    write_tools: tuple[str, ...] = ()
    read_tools: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class LintSettings:
    """Everything a lint run needs besides the files.

    ``select`` is the set of codes allowed to run (``None``: every rule of the profiles);
    ``ignore`` removes codes; ``severities`` overrides a code's severity.
    """

    profiles: tuple[str, ...] = (GENERIC,)
    mcp_version: str = DEFAULT_MCP_VERSION
    select: frozenset[str] | None = None
    ignore: frozenset[str] = frozenset()
    severities: Mapping[str, Severity] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    suppressions: tuple[Suppression, ...] = ()
    idempotency: IdempotencySettings = field(default_factory=IdempotencySettings)
    tool_name: str | None = None
    warnings: tuple[str, ...] = ()
    #: ``--engine-check``: the engine profiles whose installed engine compiles each schema.
    engine_check: frozenset[str] = frozenset()
    #: The project's own rules (``[[lint.rules]]``, ``--ruleset``), loaded and checked.
    user_rules: tuple[Rule, ...] = ()


# -- files, tools, schemas and nodes ----------------------------------------------------

#: ``$schema`` URIs (without a trailing ``#``) and the draft names used in messages.
DRAFTS: Final = {
    "https://json-schema.org/draft/2020-12/schema": "2020-12",
    "https://json-schema.org/draft/2019-09/schema": "2019-09",
    "http://json-schema.org/draft-07/schema": "draft-07",
    "http://json-schema.org/draft-06/schema": "draft-06",
    "http://json-schema.org/draft-04/schema": "draft-04",
    "http://json-schema.org/draft-03/schema": "draft-03",
}
DEFAULT_DRAFT: Final = "2020-12"
#: Drafts in which keywords next to ``$ref`` are ignored.
REF_OVERRIDES_SIBLINGS: Final = frozenset({"draft-07", "draft-06", "draft-04", "draft-03"})


def draft_of(schema: Any) -> str | None:
    """The JSON Schema draft a schema declares (``$schema``): a name from :data:`DRAFTS`,
    ``None`` when it declares none, or ``"unknown"`` for anything else."""
    if not isinstance(schema, dict) or "$schema" not in schema:
        return None
    declared = schema["$schema"]
    if not isinstance(declared, str):
        return "unknown"
    key = declared.rstrip("#")
    known = DRAFTS.get(key)
    if known is None and key.startswith("https://"):
        known = DRAFTS.get("http://" + key.removeprefix("https://"))
    elif known is None and key.startswith("http://"):
        known = DRAFTS.get("https://" + key.removeprefix("http://"))
    return known or "unknown"


#: What the core loader keeps from a tool file although no JSON writer can write it back,
#: nor a validator read it: invalid UTF-8, lone surrogates, NaN and Infinity.
UNWRITABLE: Final = frozenset({"invalid_utf8", "lone_surrogate", "nan_infinity"})
#: Text that may hide one of them: a surrogate escape, a NaN or Infinity literal, or an
#: exponent large enough to overflow a double.
_SUSPECT: Final = re.compile(rb"\\u[dD][89a-fA-F]|NaN|Infinity|[0-9.][eE][+]?[0-9]{3}")


def require_writable(name: str, data: bytes, index: Positions) -> None:
    """Refuse a tool file whose JSON no writer or validator can take as it is.

    Only a file that may hold such a value (not UTF-8, or holding a surrogate escape, a
    ``NaN``/``Infinity`` or a huge exponent) is parsed again to find it.

    Raises:
        InputError: the file holds one, located, with what it is.
    """
    from jsoncontract._files import load_document
    from jsoncontract._json import NotJSON
    from jsoncontract._yaml import is_yaml

    if not is_yaml(name):
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            pass
        else:
            if _SUSPECT.search(data) is None:
                return
    try:
        _, anomalies = load_document(name, data)
    except NotJSON:  # pragma: no cover - the tool loader read it already
        return
    refuse_anomalies(
        name,
        anomalies,
        UNWRITABLE,
        index,
        "tool definitions must be JSON that every parser reads the same",
    )


class RunCtx:
    """Every file of one lint run."""

    __slots__ = ("files", "settings")

    def __init__(self, settings: LintSettings) -> None:
        self.settings = settings
        self.files: list[FileCtx] = []

    def tools(self) -> Iterator[ToolCtx]:
        """Every tool, in file order."""
        for file in self.files:
            yield from file.tools


class FileCtx:
    """One tool file: its bytes, its tools, and (lazily) positions of its nodes."""

    __slots__ = ("_document", "_index", "_text", "data", "path", "tools")

    def __init__(self, path: str, data: bytes) -> None:
        self.path = path
        self.data = data
        self.tools: list[ToolCtx] = []
        self._text: str | None = None
        self._index: Positions | None = None
        self._document: Any = None

    @property
    def document(self) -> Any:
        """The whole file, parsed as written (read once, for the rules of a ruleset)."""
        if self._document is None:
            from jsoncontract._files import load_document

            self._document = (load_document(self.path, self.data)[0],)
        return self._document[0]

    @property
    def text(self) -> str:
        """The file as text (a leading BOM removed)."""
        if self._text is None:
            self._text = self.data.decode("utf-8", "replace").removeprefix("\ufeff")
        return self._text

    @property
    def yaml(self) -> bool:
        """Whether the file is YAML (``--fix`` edits JSON text only)."""
        from jsoncontract._yaml import is_yaml

        return is_yaml(self.path)

    @property
    def index(self) -> Positions:
        """Where the file's nodes are (built lazily, shared with the loader)."""
        if self._index is None:
            if self.yaml:
                from jsoncontract._files import positions_of

                self._index = positions_of(self.path, self.data)
            else:
                self._index = PositionIndex(self.text)
        return self._index

    @property
    def anomalies(self) -> tuple[Anomaly, ...]:
        """What a parser of the file would hide: duplicate keys, NaN, huge integers."""
        from jsoncontract._files import load_document
        from jsoncontract._json import NotJSON

        try:
            return load_document(self.path, self.data)[1]
        except NotJSON:  # pragma: no cover - the tool loader read it already
            return ()

    def position(self, pointer: str) -> tuple[int, int] | None:
        """1-based (line, column) of the node at ``pointer`` (or its closest ancestor)."""
        return self.index.position(pointer)


@dataclass(slots=True)
class ToolCtx:
    """One tool: its contract, where it sits in its file, and the profiles that apply."""

    contract: ToolContract
    file: FileCtx
    pointer: str
    profiles: frozenset[str]
    settings: LintSettings
    sites: list[Site] = field(default_factory=list)
    _texts: list[Text] | None = field(default=None, repr=False)

    @property
    def name(self) -> str:
        """The tool's name."""
        return self.contract.name

    @property
    def definition(self) -> dict[str, Any]:
        """The object holding name and description (``function`` for OpenAI Chat)."""
        inside = self.contract.body_pointer
        if not inside or inside == self.pointer:
            return self.contract.definition
        body: dict[str, Any] = get(self.contract.definition, inside[len(self.pointer) :])
        return body

    def member(self, *tokens: str) -> str:
        """File pointer of a member of :attr:`definition` (``member("description")``)."""
        base = self.contract.body_pointer
        if base is None:
            base = self.pointer
        return base + "".join("/" + escape_pointer_token(t) for t in tokens)

    def texts(self) -> list[Text]:
        """Every description and title the model reads, the tool's own first, then each
        schema's, in document order (computed once, after the schemas were walked)."""
        if self._texts is None:
            self._texts = list(self._iter_texts())
        return self._texts

    def _iter_texts(self) -> Iterator[Text]:
        definition = self.definition
        for key in ("description", "title"):
            text = definition.get(key)
            if isinstance(text, str):
                yield Text(text, self, None, (key,))
        annotations = self.contract.annotations
        if annotations and isinstance(annotations.get("title"), str):
            yield Text(annotations["title"], self, None, ("annotations", "title"))
        for site in self.sites:
            for node in site.texts:
                value = node.value
                for key in ("description", "title"):
                    text = value.get(key)
                    if isinstance(text, str):
                        yield Text(text, self, node, (key,))

    def site(self, kind: str) -> Site | None:
        """The ``input`` or ``output`` schema site."""
        for site in self.sites:
            if site.kind == kind:
                return site
        return None


class Text:
    """A description or title and where it sits (computed only when a rule reports it)."""

    __slots__ = ("node", "text", "tokens", "tool")

    def __init__(
        self, text: str, tool: ToolCtx, node: Node | None, tokens: tuple[str, ...]
    ) -> None:
        self.text = text
        self.tool = tool
        self.node = node
        self.tokens = tokens

    @property
    def pointer(self) -> str:
        """File pointer of the text."""
        if self.node is None:
            return self.tool.member(*self.tokens)
        return self.node.pointer(*self.tokens)

    @property
    def schema_path(self) -> str | None:
        """``#``-pointer inside the schema (``None`` for the tool's own texts)."""
        return None if self.node is None else self.node.schema_path(*self.tokens)

    @property
    def what(self) -> str:
        """How messages name it: ``the tool description``, ``the description of property 'q'``."""
        key = self.tokens[-1]
        if self.node is None:
            return f"the tool {key}"
        return f"the {key} of {self.node.label()}"


class Site:
    """One schema of a tool (its input or output schema) and where it lives in the file.

    ``openapi`` is true for Gemini ``parameters``/``response``, written in the OpenAPI 3.0
    subset: rules see their JSON Schema translation, ``raw`` keeps the original.
    """

    __slots__ = (
        "anchors",
        "base",
        "cache",
        "draft",
        "kind",
        "openapi",
        "raw",
        "refs",
        "schema",
        "texts",
        "too_deep",
        "tool",
        "truncated",
    )

    def __init__(
        self,
        tool: ToolCtx,
        kind: str,
        schema: Any,
        base: str | None,
        *,
        openapi: bool = False,
        raw: Any = None,
    ) -> None:
        self.tool = tool
        self.kind = kind
        self.schema = schema
        #: File pointer of the schema root; ``None`` when the loader made the schema up
        #: (a function without ``parameters``).
        self.base = base
        self.openapi = openapi
        self.raw = raw if raw is not None else schema
        self.draft = draft_of(schema)
        self.cache: dict[str, Any] = {}
        self.too_deep: str | None = None
        self.truncated: str | None = None
        #: Nodes holding a ``$ref``, and ``$anchor``/``$id`` values -> node path, filled by
        #: the engine's walk.
        self.refs: list[Node] = []
        self.anchors: dict[str, str] = {}
        #: Nodes holding a ``description`` or ``title``, filled by the engine's walk.
        self.texts: list[Node] = []

    @property
    def effective_draft(self) -> str:
        """The draft rules assume: the declared one, or 2020-12."""
        draft = self.draft
        return draft if draft not in (None, "unknown") else DEFAULT_DRAFT

    def pointer(self, path: str) -> str:
        """File pointer of a schema-relative pointer."""
        base = self.base if self.base is not None else self.tool.pointer
        if self.openapi and path:
            path = _openapi_path(path)
        return base + path


def _openapi_path(path: str) -> str:
    """Map a pointer into the translated schema back to the OpenAPI original."""
    if "$defs" in path or "$ref" in path or "examples" in path:
        tokens = path.split("/")
        mapped = [
            "defs"
            if t == "$defs"
            else "ref"
            if t == "$ref"
            else "example"
            if t == "examples"
            else t
            for t in tokens
        ]
        return "/".join(mapped)
    return path


class Node:
    """One schema node: a subschema object (or boolean) at a path inside a site.

    ``key`` is the keyword the node sits under (``properties``, ``items``, ``anyOf``...),
    ``prop`` the property name when ``key`` is ``properties``; ``depth`` counts subschema
    steps from the root, ``in_union`` tells whether an ``anyOf``/``oneOf``/``allOf``/``not``/
    ``if``/``then``/``else`` step lies on the way.
    """

    __slots__ = (
        "_required",
        "_types",
        "depth",
        "in_union",
        "key",
        "parent",
        "path",
        "prop",
        "site",
        "value",
    )

    def __init__(
        self,
        value: Any,
        path: str,
        depth: int,
        parent: Node | None,
        key: str | None,
        prop: str | None,
        site: Site,
        in_union: bool,
    ) -> None:
        self.value = value
        self.path = path
        self.depth = depth
        self.parent = parent
        self.key = key
        self.prop = prop
        self.site = site
        self.in_union = in_union
        self._types: frozenset[str] | None = None
        self._required: frozenset[str] | None = None

    @property
    def tool(self) -> ToolCtx:
        """The tool the node belongs to."""
        return self.site.tool

    @property
    def types(self) -> frozenset[str]:
        """The names in the node's ``type`` keyword (empty when there is none)."""
        if self._types is None:
            value = self.value.get("type") if isinstance(self.value, dict) else None
            if isinstance(value, str):
                self._types = frozenset((value,))
            elif isinstance(value, list):
                self._types = frozenset(t for t in value if isinstance(t, str))
            else:
                self._types = frozenset()
        return self._types

    @property
    def is_object(self) -> bool:
        """A schema for objects: ``type`` object, or object keywords without a ``type``."""
        value = self.value
        if not isinstance(value, dict):
            return False
        types = self.types
        if types:
            return "object" in types
        return "properties" in value or "additionalProperties" in value

    @property
    def required(self) -> bool:
        """For a property schema: whether the parent object lists it in ``required``."""
        parent = self.parent
        if self.prop is None or parent is None:
            return False
        return self.prop in parent.required_names

    @property
    def required_names(self) -> frozenset[str]:
        """The names the node's ``required`` lists (computed once: an object with thousands
        of properties asks for each of them)."""
        if self._required is None:
            names = self.value.get("required") if isinstance(self.value, dict) else None
            self._required = (
                frozenset(n for n in names if isinstance(n, str))
                if isinstance(names, list)
                else frozenset()
            )
        return self._required

    def pointer(self, *tokens: str | int) -> str:
        """File pointer of this node, or of a member below it."""
        path = self.path + "".join("/" + escape_pointer_token(t) for t in tokens)
        return self.site.pointer(path)

    def schema_path(self, *tokens: str | int) -> str:
        """``#``-pointer of this node (or a member) inside its schema."""
        return "#" + self.path + "".join("/" + escape_pointer_token(t) for t in tokens)

    def label(self) -> str:
        """How messages name the node: ``property 'status'``, ``items of 'tags'``, ``the root``."""
        if self.prop is not None:
            return f"property {self.prop!r}"
        if not self.path:
            return "the input schema" if self.site.kind == "input" else "the output schema"
        return f"the schema at {self.path}"
