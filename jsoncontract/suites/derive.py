"""Negative cases derived from one valid instance and the schema.

Each case changes the valid instance in one place, the way real tool calls go wrong, and
says where and why the contract must reject it:

- missing-field: drop each required property, at every depth;
- wrong-enum: replace each ``enum`` / ``const`` value by a near miss (``"STANDARD"``);
- wrong-type: send each typed value as another type (``"20"`` for ``20``);
- extra-field: add an undeclared member to each object (on an open object, the case
  is accepted, and the runner reports the weakness);
- out-of-range: step just past each ``minimum``/``maximum`` (and exclusive forms),
  ``minLength``/``maxLength`` and ``minItems``/``maxItems``;
- malformed: the arguments text truncated, wrapped in a code fence, with a trailing
  comma (model hop);
- string-arguments: the arguments sent as a JSON string (MCP hop);
- result-valid, result-missing-field, result-wrong-type: the valid arguments at the MCP hop,
  answered with a result (structured content) built from the tool's output schema: valid,
  then without each required property, then with each typed value of another type; the
  result stage must reject the broken ones (``result.structured_content``).

The expectation comes from the schema, never from running the case: a case the contract
accepts is exactly what the runner is there to show.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final

import orjson

from jsoncontract import codes
from jsoncontract._schema_walk import type_allows
from jsoncontract.model import Hop, Stage
from jsoncontract.pointer import join_pointer, remove_at, set_at
from jsoncontract.suites.instance import Node, Skip
from jsoncontract.suites.kinds import CaseKind
from jsoncontract.suites.model import Expectation, InputKind

#: Longest string or array an out-of-range case writes into a suite file.
MAX_CASE_STRING: Final = 1024
MAX_CASE_ITEMS: Final = 256
_EXTRA_NAMES: Final = ("unexpected_field", "extra_field", "x_unexpected")


@dataclass(frozen=True, slots=True)
class Draft:
    """A case the generator wants in the suite."""

    name: str
    kind: CaseKind
    hop: Hop
    input_kind: InputKind
    input: Any
    expect: Expectation
    description: str | None = None
    call: int | None = None
    result: Any = None  # the structured content of a result case (``None``: none)

    def to_data(self) -> dict[str, Any]:
        """The case object as written (without its fingerprint).

        A capture says its own hop, so capture cases carry none.
        """
        data: dict[str, Any] = {"name": self.name}
        if self.description is not None:
            data["description"] = self.description
        data["tags"] = ["generated", self.kind.value]
        if self.input_kind not in (InputKind.CAPTURE, InputKind.CAPTURE_FILE):
            data["hop"] = self.hop.value
        data["expect"] = self.expect.to_json()
        data[self.input_kind.value] = self.input
        if self.result is not None:
            data["result"] = self.result
        if self.call is not None:
            data["call"] = self.call
        return data


def case_name(kind: str, pointer: str | None = None) -> str:
    """``kind`` or ``kind:/pointer`` (the root adds nothing)."""
    return f"{kind}:{pointer}" if pointer else kind


def derive(
    base: Any, nodes: list[Node], kinds: Iterable[CaseKind]
) -> tuple[list[Draft], list[Skip]]:
    """Every case of the requested kinds for one valid instance (the valid cases included),
    each kind by its maker in :data:`MAKERS`.

    Returns:
        The drafts in the order they are written (kind by kind, in the order of
        :data:`~jsoncontract.suites.kinds.DERIVED_KINDS`), and the cases that could not be
        built, with the reason.
    """
    wanted = set(kinds)
    drafts: list[Draft] = []
    skips: list[Skip] = []
    for kind, maker in MAKERS.items():
        if kind in wanted:
            maker(base, nodes, drafts, skips)
    return drafts, skips


#: Where a result case's structured content sits in the response the result stage checks.
RESULT_BASE: Final = "/result/structuredContent"


def derive_results(
    arguments: Any, base: Any, nodes: list[Node], kinds: Iterable[CaseKind]
) -> list[Draft]:
    """The result cases for one tool: valid ``arguments`` answered with ``base`` (a valid
    instance of the output schema) and with each broken copy of it."""
    wanted = set(kinds)
    drafts: list[Draft] = []
    if CaseKind.RESULT_VALID in wanted:
        drafts.append(
            Draft(
                CaseKind.RESULT_VALID.value,
                CaseKind.RESULT_VALID,
                Hop.MCP,
                InputKind.ARGUMENTS,
                arguments,
                Expectation(),
                result=base,
            )
        )
    makers = (
        (CaseKind.RESULT_MISSING_FIELD, _missing_field),
        (CaseKind.RESULT_WRONG_TYPE, _wrong_type),
    )
    for kind, maker in makers:
        if kind not in wanted:
            continue
        broken: list[Draft] = []
        for node in nodes:
            maker(base, node, broken, [])
        for draft in broken:
            pointer = draft.name.partition(":")[2]
            expect = draft.expect
            drafts.append(
                Draft(
                    case_name(kind, pointer),
                    kind,
                    Hop.MCP,
                    InputKind.ARGUMENTS,
                    arguments,
                    Expectation(
                        Stage.RESULT,
                        code=codes.RESULT_STRUCTURED_CONTENT,
                        keyword=expect.keyword,
                        path=RESULT_BASE + (expect.path or ""),
                    ),
                    result=draft.input,
                )
            )
    return drafts


def _draft(
    name: str, kind: CaseKind, hop: Hop, value: Any, expect: Expectation, *, text: bool = False
) -> Draft:
    return Draft(name, kind, hop, InputKind.TEXT if text else InputKind.ARGUMENTS, value, expect)


def _schema_failure(node: Node, keyword: str, path: str, member: str | None = None) -> Expectation:
    kw, where = node.failure(keyword, path, member=member)
    return Expectation(Stage.SCHEMA, keyword=kw, path=where)


# -- the kinds -----------------------------------------------------------------------------

#: Builds the cases of one kind: ``(valid instance, its nodes, drafts, skips)``; appends
#: what it builds to ``drafts`` and what it cannot build, with the reason, to ``skips``.
Maker = Callable[[Any, list[Node], list[Draft], list[Skip]], None]
NodeMaker = Callable[[Any, Node, list[Draft], list[Skip]], None]


def each_node(maker: NodeMaker) -> Maker:
    """A maker that runs ``maker`` on every node of the instance, in document order."""

    def run(base: Any, nodes: list[Node], drafts: list[Draft], skips: list[Skip]) -> None:
        for node in nodes:
            maker(base, node, drafts, skips)

    return run


def _valid(base: Any, nodes: list[Node], drafts: list[Draft], skips: list[Skip]) -> None:
    drafts.append(_draft("valid", CaseKind.VALID, Hop.MODEL, base, Expectation()))
    drafts.append(_draft("valid.mcp", CaseKind.VALID, Hop.MCP, base, Expectation()))


def _missing_field(base: Any, node: Node, drafts: list[Draft], skips: list[Skip]) -> None:
    value = node.value
    if not isinstance(value, dict):
        return
    for name in node.eff.schema.get("required") or ():
        if not isinstance(name, str) or name not in value:
            continue
        path = join_pointer(node.pointer, name)
        drafts.append(
            _draft(
                case_name(CaseKind.MISSING_FIELD, path),
                CaseKind.MISSING_FIELD,
                Hop.MODEL,
                remove_at(base, path),
                _schema_failure(node, "required", path, member=name),
            )
        )


def _near_miss(options: list[Any], value: Any) -> Any:
    """A value of the same type as ``value`` that is not among ``options``."""
    taken = {orjson.dumps(o, option=orjson.OPT_SORT_KEYS) for o in options}

    def free(candidate: Any) -> bool:
        return orjson.dumps(candidate, option=orjson.OPT_SORT_KEYS) not in taken

    if isinstance(value, str):
        for candidate in (value.upper(), value.capitalize(), value.lower(), f"{value}_other"):
            if candidate != value and free(candidate):
                return candidate
        return "not-a-listed-value"
    if isinstance(value, bool):
        return not value if free(not value) else "not-a-listed-value"
    if isinstance(value, int | float):
        numbers = [o for o in options if isinstance(o, int | float) and not isinstance(o, bool)]
        return max(numbers, default=value) + 1
    return "not-a-listed-value"


def _wrong_enum(base: Any, node: Node, drafts: list[Draft], skips: list[Skip]) -> None:
    if not node.pointer:
        return
    schema = node.eff.schema
    if "const" in schema:
        keyword, options = "const", [schema["const"]]
    elif isinstance(schema.get("enum"), list):
        keyword, options = "enum", schema["enum"]
    else:
        return
    wrong = _near_miss(options, node.value)
    drafts.append(
        _draft(
            case_name(CaseKind.WRONG_ENUM, node.pointer),
            CaseKind.WRONG_ENUM,
            Hop.MODEL,
            set_at(base, node.pointer, wrong),
            _schema_failure(node, keyword, node.pointer),
        )
    )


def _wrong_value(allowed: tuple[str, ...], value: Any) -> Any:
    """The most realistic value of a type ``allowed`` does not include."""
    candidates: list[Any] = []
    if "string" not in allowed:
        if isinstance(value, bool | int | float) or value is None:
            candidates.append(json.dumps(value))  # 20 -> "20", true -> "true"
        elif isinstance(value, dict | list):
            candidates.append(orjson.dumps(value).decode())  # an object sent as its JSON text
        candidates.append("text")
    candidates += [42, True, [], {}, None, 1.5]
    for candidate in candidates:
        if not type_allows(allowed, candidate):
            return candidate
    return None


def _wrong_type(base: Any, node: Node, drafts: list[Draft], skips: list[Skip]) -> None:
    if not node.pointer:
        return  # a non-object root is the parse gate's business (parse.not_object)
    allowed = node.types
    if allowed is None:
        return
    wrong = _wrong_value(allowed, node.value)
    if wrong is None and "null" in allowed:
        return  # every type is allowed
    drafts.append(
        _draft(
            case_name(CaseKind.WRONG_TYPE, node.pointer),
            CaseKind.WRONG_TYPE,
            Hop.MODEL,
            set_at(base, node.pointer, wrong),
            _schema_failure(node, "type", node.pointer),
        )
    )


def _extra_field(base: Any, node: Node, drafts: list[Draft], skips: list[Skip]) -> None:
    value = node.value
    if not isinstance(value, dict):
        return
    schema = node.eff.schema
    name_of_case = case_name(CaseKind.EXTRA_FIELD, node.pointer)
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict) and extra:
        skips.append(
            Skip(
                name_of_case,
                "additionalProperties is a schema: members of that shape are allowed by design",
            )
        )
        return
    keyword = "additionalProperties"
    if extra is None and schema.get("unevaluatedProperties") is False:
        keyword = "unevaluatedProperties"
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    assert isinstance(props, dict)
    patterns = (
        list(schema.get("patternProperties") or ())
        if isinstance(schema.get("patternProperties"), dict)
        else []
    )
    name = next(
        (
            n
            for n in _EXTRA_NAMES
            if n not in props and n not in value and not _matches_any(patterns, n)
        ),
        None,
    )
    if name is None:
        skips.append(Skip(name_of_case, "every candidate name for an extra member is declared"))
        return
    path = join_pointer(node.pointer, name)
    drafts.append(
        _draft(
            name_of_case,
            CaseKind.EXTRA_FIELD,
            Hop.MODEL,
            set_at(base, node.pointer, {**value, name: "unexpected"}),
            _schema_failure(node, keyword, path),
        )
    )


def _matches_any(patterns: list[str], name: str) -> bool:
    from jsoncontract._regex import InvalidPattern, search

    for pattern in patterns:
        try:
            if search(pattern, name):
                return True
        except InvalidPattern:
            return True  # cannot tell: do not use the name
    return False


def _out_of_range(base: Any, node: Node, drafts: list[Draft], skips: list[Skip]) -> None:
    value = node.value
    schema = node.eff.schema
    pointer = node.pointer

    def add(keyword: str, wrong: Any) -> None:
        drafts.append(
            _draft(
                case_name(f"{CaseKind.OUT_OF_RANGE}.{keyword}", pointer),
                CaseKind.OUT_OF_RANGE,
                Hop.MODEL,
                set_at(base, pointer, wrong),
                _schema_failure(node, keyword, pointer),
            )
        )

    if not pointer:
        return
    if isinstance(value, int | float) and not isinstance(value, bool):
        for keyword in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
            limit = schema.get(keyword)
            if not isinstance(limit, int | float) or isinstance(limit, bool):
                continue
            if isinstance(schema.get(_PARTNER[keyword]), bool):
                continue  # draft 4 spells exclusivity as a flag; not derived
            wrong = (
                limit - 1 if keyword == "minimum" else limit + 1 if keyword == "maximum" else limit
            )
            add(keyword, wrong)
        return
    if isinstance(value, str | list):
        text = isinstance(value, str)
        low_kw, high_kw = ("minLength", "maxLength") if text else ("minItems", "maxItems")
        cap = MAX_CASE_STRING if text else MAX_CASE_ITEMS
        least, most = schema.get(low_kw), schema.get(high_kw)
        if isinstance(least, int) and least > 0:
            add(low_kw, value[: least - 1])
        if not isinstance(most, int):
            return
        if most + 1 > cap:
            skips.append(
                Skip(
                    case_name(f"{CaseKind.OUT_OF_RANGE}.{high_kw}", pointer),
                    f"{high_kw} is {most}: a case {most + 1} long would be too large to review "
                    f"(the generator writes at most {cap})",
                )
            )
        elif isinstance(value, str):
            add(high_kw, value + "x" * (most + 1 - len(value)))
        elif value:
            add(high_kw, [*value, *[value[-1]] * (most + 1 - len(value))])
        else:
            skips.append(
                Skip(
                    case_name(f"{CaseKind.OUT_OF_RANGE}.{high_kw}", pointer),
                    "the valid instance has no item to repeat",
                )
            )


_PARTNER: Final = {
    "minimum": "exclusiveMinimum",
    "exclusiveMinimum": "minimum",
    "maximum": "exclusiveMaximum",
    "exclusiveMaximum": "maximum",
}


#: The ways ``malformed`` cases break the arguments text -> the code that must report it.
_MALFORMED: Final = {
    "truncated": codes.PARSE_TRUNCATED,
    "code-fence": codes.PARSE_CODE_FENCE,
    "trailing-comma": codes.PARSE_TRAILING_COMMA,
}


def _malformed(base: Any, nodes: list[Node], drafts: list[Draft], skips: list[Skip]) -> None:
    text = orjson.dumps(base).decode()

    def add(variant: str, broken: str) -> None:
        drafts.append(
            _draft(
                case_name(f"{CaseKind.MALFORMED}.{variant}"),
                CaseKind.MALFORMED,
                Hop.MODEL,
                broken,
                Expectation(Stage.PARSE, code=_MALFORMED[variant], path=""),
                text=True,
            )
        )

    add("truncated", text[: max(1, len(text) * 2 // 3)])
    add("code-fence", f"```json\n{text}\n```")
    if isinstance(base, dict) and base:
        add("trailing-comma", text[:-1] + ",}")
    else:
        skips.append(
            Skip(
                case_name(f"{CaseKind.MALFORMED}.trailing-comma"),
                "the valid instance has no member to put a trailing comma after",
            )
        )


def _string_arguments(base: Any, nodes: list[Node], drafts: list[Draft], skips: list[Skip]) -> None:
    drafts.append(
        _draft(
            "string-arguments",
            CaseKind.STRING_ARGUMENTS,
            Hop.MCP,
            orjson.dumps(base).decode(),
            Expectation(Stage.PARSE, code=codes.PARSE_STRING_ARGUMENTS, path=""),
        )
    )


#: The maker of each kind derived from the valid instance, in the order of
#: :data:`~jsoncontract.suites.kinds.DERIVED_KINDS` (``business`` cases come from the business
#: rules, in :mod:`jsoncontract.suites.generate`). Adding a kind is its member in
#: :class:`~jsoncontract.suites.kinds.CaseKind` and its maker here.
MAKERS: Final[dict[CaseKind, Maker]] = {
    CaseKind.VALID: _valid,
    CaseKind.MISSING_FIELD: each_node(_missing_field),
    CaseKind.WRONG_ENUM: each_node(_wrong_enum),
    CaseKind.WRONG_TYPE: each_node(_wrong_type),
    CaseKind.EXTRA_FIELD: each_node(_extra_field),
    CaseKind.OUT_OF_RANGE: each_node(_out_of_range),
    CaseKind.MALFORMED: _malformed,
    CaseKind.STRING_ARGUMENTS: _string_arguments,
}
