"""Suite files: finding, reading (checked against the shipped schema), and writing them.

A suite file is JSON, ``<tool>.suite.json``, checked against
``jsoncontract/schemas/suite.schema.json``. A file that breaks it stops the run (exit 2)
with the file, line and column of the problem. Files are written so that they diff well in
review: one member per line at the top, one case per block, members of a case in a fixed
order, and any value that fits on one line kept on one line.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Final

import orjson

from jsoncontract._files import expand, load_document, read_bytes, write_output
from jsoncontract._json import short_repr
from jsoncontract._locate import PositionIndex
from jsoncontract._spelling import did_you_mean
from jsoncontract.errors import InputError
from jsoncontract.model import Anomaly
from jsoncontract.pointer import escape_pointer_token, get
from jsoncontract.suites.model import (
    CASE_KEYS,
    SUITE_SUFFIX,
    Case,
    InputKind,
    Suite,
    json_line,
    json_scalar,
)

#: Lines a writer tries not to exceed by keeping short values on one line.
LINE_WIDTH: Final = 100
#: Levels the slow layout (values orjson does not write) breaks into lines; deeper, the
#: rest stays on one line.
_LAYOUT_DEPTH: Final = 64
_WEAK: Final = frozenset({"anyOf", "oneOf", "allOf", "not", "if", "then", "else"})
_INPUTS: Final = tuple(k.value for k in InputKind)


class SuiteError(InputError):
    """A suite file is not a valid suite (exit 2, with its location)."""


@cache
def suite_schema() -> dict[str, Any]:
    """The JSON Schema of suite files, as shipped in the package."""
    raw = (resources.files("jsoncontract") / "schemas" / "suite.schema.json").read_bytes()
    schema: dict[str, Any] = orjson.loads(raw)
    return schema


@cache
def _validator() -> Any:
    import jsonschema_rs

    return jsonschema_rs.validator_for(suite_schema())


@cache
def _expectation_validator() -> Any:
    """The object form of ``expect`` alone, to say what is wrong with one."""
    import jsonschema_rs

    return jsonschema_rs.validator_for(suite_schema()["$defs"]["expectation"]["anyOf"][1])


def find_suite_files(paths: Iterable[str | Path]) -> list[Path]:
    """Suite files named directly, plus every ``*.suite.json`` under named directories.

    Raises:
        InputError: a path does not exist, or a directory holds no suite file.
    """
    return expand(paths, (SUITE_SUFFIX,), what="suite")


def read_suite(path: str | Path) -> Suite:
    """Read and check one suite file.

    Raises:
        SuiteError: the file is not JSON, breaks the suite schema, repeats a case name,
            or names a capture file that does not exist; the error carries the location.
        InputError: the file cannot be read.
    """
    data = read_bytes(path)
    return parse_suite(data, path=Path(path))


def parse_suite(data: bytes | str, *, path: Path | None = None) -> Suite:
    """Check and read a suite document (see :func:`read_suite`)."""
    name = str(path) if path is not None else "<suite>"
    document, anomalies = load_document(
        name, data.encode("utf-8") if isinstance(data, str) else data
    )
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    text = text.removeprefix("\ufeff")
    index = PositionIndex(text)
    # a lone surrogate is exact in a Python string and written back escaped: it may stand
    # (a case can test one); anything a parser would resolve differently may not
    surrogates = [a for a in anomalies if a.kind == "lone_surrogate"]
    anomalies = tuple(a for a in anomalies if a.kind != "lone_surrogate")
    if anomalies:
        first = anomalies[0]
        raise _at(
            index,
            first.pointer,
            name,
            f"{first.detail}; a suite file must be plain JSON (to test such a payload, put "
            "it in a case's text or in a capture_file)",
        )
    validator = _validator()
    if not validator.is_valid(document):
        raise _explain(list(validator.iter_errors(document)), document, index, name)
    assert isinstance(document, dict)
    value: dict[str, Any] = document
    seen: dict[str, int] = {}
    cases: list[Case] = []
    base = path.parent if path is not None else Path()
    for i, raw in enumerate(value["cases"]):
        case = Case.from_json(raw, i)
        if case.name in seen:
            raise _at(
                index,
                f"/cases/{i}/name",
                name,
                f"case name {case.name!r} is used twice (first by case {seen[case.name] + 1}); "
                "names must be unique in a suite",
            )
        seen[case.name] = i
        if case.expect.code is not None or case.input_kind is InputKind.CAPTURE_FILE:
            _check_case(case, index, name, base)
        cases.append(case)
    for anomaly in surrogates:
        _attach(cases, anomaly)
    return Suite(
        tool=value["tool"],
        cases=cases,
        path=path,
        seed=value.get("seed"),
        description=value.get("description"),
        text=text,
    )


def _attach(cases: list[Case], anomaly: Anomaly) -> None:
    """Give a case the lone surrogate in its ``arguments`` value, as a capture holding that
    value would give its call (the parse gate reports it)."""
    tokens = anomaly.pointer.split("/", 4)  # "", "cases", index, member, rest
    if len(tokens) >= 4 and tokens[1] == "cases" and tokens[3] == "arguments":
        case = cases[int(tokens[2])]
        inner = "/" + tokens[4] if len(tokens) == 5 else ""
        case.anomalies = (*case.anomalies, Anomaly(anomaly.kind, inner, anomaly.detail))


def _check_case(case: Case, index: PositionIndex, name: str, base: Path) -> None:
    """What the schema cannot say about a case."""
    expect = case.expect
    where = f"/cases/{case.index}"
    if expect.code is not None and expect.stage is not None:
        prefix = expect.code.split(".", 1)[0]
        if prefix != expect.stage.value:
            raise _at(
                index,
                f"{where}/expect/code",
                name,
                f"code {expect.code!r} belongs to the {prefix} stage, but the case expects a "
                f"failure at {expect.stage.value}",
            )
    if case.input_kind is InputKind.CAPTURE_FILE:
        target = base / str(case.input)
        if not _inside(base, str(case.input)):
            raise _at(
                index,
                f"{where}/capture_file",
                name,
                f"capture file {short_repr(str(case.input))} is outside the suite's project; "
                "name a file by a relative path that stays in the project",
            )
        if not target.is_file():
            raise _at(
                index,
                f"{where}/capture_file",
                name,
                f"capture file {case.input!r} does not exist (looked for {target})",
            )


def _inside(base: Path, relative: str) -> bool:
    """Whether a suite's ``capture_file`` stays inside the suite's project (see
    :func:`~jsoncontract._files.inside_project`)."""
    from jsoncontract._files import inside_project

    return inside_project(base, relative)


def _at(index: PositionIndex, pointer: str, name: str, message: str) -> SuiteError:
    found = index.position(pointer)
    line, column = found if found else (None, None)
    return SuiteError(message, file=name, line=line, column=column)


def _pointer(tokens: Iterable[Any]) -> str:
    return "".join("/" + escape_pointer_token(t) for t in tokens)


def _explain(
    errors: list[Any],
    node_root: Any,
    index: PositionIndex,
    name: str,
    *,
    base: str = "",
    document: Any = None,
) -> SuiteError:
    """The most specific schema error, said for a person, at its location.

    ``base`` is the pointer of ``node_root`` in ``document`` (errors of a subschema).
    """
    document = node_root if document is None else document
    ranked = sorted(
        errors,
        key=lambda e: (e.kind.name in _WEAK, -len(list(e.instance_path))),
    )
    error = ranked[0]
    pointer = base + _pointer(error.instance_path)
    kind = error.kind.name
    params = error.kind.as_dict()
    node = get(document, pointer)
    what = _describe_location(pointer)
    if kind == "oneOf" and isinstance(node, dict):
        given = [k for k in _INPUTS if k in node]
        have = ", ".join(given) if given else "none"
        message = (
            f"{what} needs exactly one input: arguments, text, capture or capture_file "
            f"(it has: {have})"
        )
    elif kind == "additionalProperties":
        unexpected = params.get("unexpected", ["?"])
        message = f"{what}: unknown member {unexpected[0]!r}" + _did_you_mean(
            unexpected[0], pointer
        )
    elif kind == "required":
        missing = params.get("property")
        message = f"{what}: missing member {missing!r}"
        if missing == "stage":
            message += " (a code, keyword or path needs the stage the failure happens at)"
    elif kind == "anyOf" and pointer.endswith("/expect") and isinstance(node, dict):
        inner = list(_expectation_validator().iter_errors(node))
        if inner:
            return _explain(inner, node, index, name, base=pointer, document=document)
        message = f'{what}: expect must be "ok" or an object'
    elif kind == "anyOf" and pointer.endswith("/expect"):
        message = (
            f'{what}: expect must be "ok" or an object with stage, code or keyword, path '
            "and/or fields"
        )
    elif (
        kind in ("type", "minLength")
        and pointer.startswith("/cases/")
        and pointer.endswith("/skip")
    ):
        message = (
            f"{what}: skip takes the reason the case does not run, as a string "
            f'("skip": "waiting for the v2 schema"), not {_given(node)}'
        )
        if node is False:
            message += "; to run the case, leave skip out"
    elif kind == "enum" and pointer.endswith("/hop"):
        message = f"{what}: hop must be model, mcp or downstream (text is for model or downstream)"
    else:
        message = f"{what}: {error.message}"
    return _at(index, pointer, name, message)


def _given(value: Any) -> str:
    """A value as the user wrote it, for a message: ``true``, ``""``, ``an object``."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    return "an empty string" if value == "" else json_scalar(value)


def _did_you_mean(word: str, pointer: str) -> str:
    if "/expect" in pointer:
        known: tuple[str, ...] = ("stage", "code", "keyword", "path", "fields")
    elif pointer.startswith("/cases/"):
        known = CASE_KEYS
    else:
        known = ("version", "tool", "description", "seed", "cases")
    match = did_you_mean(word, known)
    return f" (did you mean {match!r}?)" if match else f" (known: {', '.join(known)})"


def _describe_location(pointer: str) -> str:
    parts = pointer.split("/")
    if len(parts) >= 3 and parts[1] == "cases":
        rest = "/".join(parts[3:])
        return f"case {int(parts[2]) + 1}" + (f" ({rest})" if rest else "")
    return f"suite member {pointer or '(top)'}"


# -- writing --------------------------------------------------------------------------------


def dump_suite(suite: Suite) -> bytes:
    """The suite as file content: stable, reviewable JSON ending with a newline."""
    return (_Layout().format(suite.to_json(), 0, 0, 3) + "\n").encode("utf-8")


def write_suite(suite: Suite, path: str | Path) -> None:
    """Write a suite file atomically (the old file stays whole until the new one is).

    Raises:
        InputError: the file cannot be written.
    """
    target = Path(path)
    content = dump_suite(suite)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror or exc}", file=str(target)) from None
    write_output(target, content)


class _Layout:
    """Writes JSON with the first levels broken into lines and short values kept flat."""

    __slots__ = ("_seen",)

    def __init__(self) -> None:
        self._seen: dict[bytes, str] = {}  # short values met before (tags, expectations)

    def format(self, value: Any, indent: int, used: int, expand_levels: int) -> str:
        """``value`` at ``indent``, ``used`` columns already taken on its first line.

        The first ``expand_levels`` levels of containers are always broken into lines (the
        suite, its case list, each case). Below, a value stays on one line when it fits in
        :data:`LINE_WIDTH`, and is written as indented JSON, one member per line, when not.
        """
        if not isinstance(value, dict | list) or not value:
            return json_line(value)
        if expand_levels <= 0:
            room = LINE_WIDTH - indent - used
            try:
                raw = orjson.dumps(value)
            except TypeError:  # a lone surrogate, or deeper than orjson writes: the slow way
                raw = None
            if raw is None or len(raw) <= room:  # the spaced form is a little longer
                flat = self._seen.get(raw) if raw is not None else None
                if flat is None:
                    flat = json_line(value)
                    if raw is not None:
                        self._seen[raw] = flat
                if len(flat) <= room or expand_levels <= -_LAYOUT_DEPTH:
                    return flat
            if raw is not None:
                indented = orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
                return indented.replace("\n", "\n" + " " * indent)
        pad = " " * (indent + 2)
        below = expand_levels - 1
        if isinstance(value, dict):
            lines = []
            for key, member in value.items():
                head = json_scalar(key) + ": "
                if isinstance(member, dict | list):
                    lines.append(pad + head + self.format(member, indent + 2, len(head), below))
                else:
                    lines.append(pad + head + json_scalar(member))
            return "{\n" + ",\n".join(lines) + "\n" + " " * indent + "}"
        lines = [pad + self.format(item, indent + 2, 0, below) for item in value]
        return "[\n" + ",\n".join(lines) + "\n" + " " * indent + "]"
