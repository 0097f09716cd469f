"""The generator: valid instances, every derived kind, merging with hand edits, bad schemas."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from jsoncontract._regex_sample import PatternUnsupported, sample
from jsoncontract.suites import (
    Case,
    CaseKind,
    RulePass,
    RuleViolation,
    Status,
    SuiteRunner,
    build_valid,
    generate_cases,
    generate_suites,
    read_suite,
    run_suites,
    write_suite,
)
from jsoncontract.suites.generate import suite_file_names

if TYPE_CHECKING:
    from jsoncontract.model import ToolContract
    from jsoncontract.tools import ToolSet


def cases_of(tools: ToolSet, name: str = "ship", **kwargs: Any) -> dict[str, Any]:
    tool = tools.get(name)
    assert tool is not None
    drafts, skips, error = generate_cases(tool, tools.schema(name), **kwargs)
    assert error is None, error
    return {d.name: d for d in drafts} | {"_skips": {s.what: s.reason for s in skips}}


def test_every_kind_is_derived(toolset: Callable[..., ToolSet]) -> None:
    cases = cases_of(toolset())
    names = [n for n in cases if n != "_skips"]
    assert names == [
        "valid",
        "valid.mcp",
        "missing-field:/order_id",
        "missing-field:/priority",
        "missing-field:/address/city",
        "missing-field:/address/country",
        "wrong-enum:/priority",
        "wrong-type:/order_id",
        "wrong-type:/priority",
        "wrong-type:/address",
        "wrong-type:/address/city",
        "wrong-type:/address/country",
        "wrong-type:/count",
        "extra-field",
        "extra-field:/address",
        "out-of-range.minLength:/address/city",
        "out-of-range.minimum:/count",
        "out-of-range.maximum:/count",
        "malformed.truncated",
        "malformed.code-fence",
        "malformed.trailing-comma",
        "string-arguments",
    ]
    valid = cases["valid"].input
    assert valid == {
        "order_id": "ORD-123456",
        "priority": "standard",
        "address": {"city": "example city", "country": "BC"},
        "count": 1,
    }
    assert cases["wrong-enum:/priority"].input["priority"] == "STANDARD"
    assert cases["wrong-type:/count"].input["count"] == "1"  # a number sent as text
    assert cases["wrong-type:/address"].input["address"] == json.dumps(
        valid["address"], separators=(",", ":")
    )
    assert "city" not in cases["missing-field:/address/city"].input["address"]
    assert cases["out-of-range.maximum:/count"].input["count"] == 11
    assert cases["string-arguments"].hop.value == "mcp"
    assert cases["malformed.code-fence"].input.startswith("```json\n")


def test_generated_cases_pass_against_their_own_schema(toolset: Callable[..., ToolSet]) -> None:
    tools = toolset()
    report = SuiteRunner(tools).run([_suite(tools)])
    assert report.ok, [o.message for o in report.outcomes if not o.ok]


def _suite(tools: ToolSet, name: str = "ship", **kwargs: Any) -> Any:
    from jsoncontract.suites.generate import ToolGeneration, merge

    tool = tools.get(name)
    assert tool is not None
    drafts, _, error = generate_cases(tool, tools.schema(name), **kwargs)
    assert error is None
    return merge(None, name, drafts, record=ToolGeneration(name, Path("x")))


def test_open_objects_show_as_weaknesses(
    toolset: Callable[..., ToolSet], shipment: dict[str, Any]
) -> None:
    del shipment["additionalProperties"]
    shipment["properties"]["address"]["additionalProperties"] = True
    tools = toolset(shipment)
    report = SuiteRunner(tools).run([_suite(tools)])
    weak = [(o.name, o.hint) for o in report.outcomes if o.status is Status.WEAKNESS]
    assert weak == [
        ("extra-field", 'close the root object with "additionalProperties": false; or, if the '
         "input is acceptable, make the case expect ok (--update)"),
        ("extra-field:/address", 'close the object at /address with "additionalProperties": '
         "false; or, if the input is acceptable, make the case expect ok (--update)"),
    ]  # fmt: skip
    assert report.summary.failed == 0


def test_seeds_are_deterministic(toolset: Callable[..., ToolSet]) -> None:
    tools = toolset()
    first = cases_of(tools, seed=7)["valid"].input
    assert cases_of(tools, seed=7)["valid"].input == first
    assert cases_of(tools, seed=8)["valid"].input != first
    for seed in range(1, 30):
        assert tools.schema("ship").is_valid(cases_of(tools, seed=seed)["valid"].input)


def test_values_come_from_const_examples_default_enum_formats(
    toolset: Callable[..., ToolSet],
) -> None:
    schema = {
        "type": "object",
        "properties": {
            "kind": {"const": "invoice"},
            "city": {"type": "string", "examples": ["Porto", "Lyon"]},
            "limit": {"type": "integer", "default": 20, "maximum": 100},
            "unit": {"enum": ["celsius", "fahrenheit"]},
            "day": {"type": "string", "format": "date"},
            "id": {"type": "string", "format": "uuid"},
            "mail": {"type": "string", "format": "email"},
            "code": {"type": "string", "pattern": "^[A-Z]{3}-\\d{2}$"},
            "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
            "step": {"type": "integer", "multipleOf": 5, "minimum": 7},
            "tags": {
                "type": "array",
                "items": {"type": "string"},
                "minItems": 2,
                "uniqueItems": True,
            },
        },
    }
    valid = cases_of(toolset(schema))["valid"].input
    assert valid == {
        "kind": "invoice",
        "city": "Porto",
        "limit": 20,
        "unit": "celsius",
        "day": "2024-01-15",
        "id": "123e4567-e89b-42d3-a456-426614174000",
        "mail": "user@example.com",
        "code": "BCD-45",
        "ratio": 0.5,
        "step": 10,
        "tags": ["example", "example 2"],
    }


def test_refs_unions_and_recursion(toolset: Callable[..., ToolSet]) -> None:
    schema = {
        "$defs": {
            "node": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
                },
                "required": ["name"],
                "additionalProperties": False,
            }
        },
        "type": "object",
        "properties": {
            "tree": {"$ref": "#/$defs/node"},
            "note": {"anyOf": [{"type": "string", "maxLength": 5}, {"type": "null"}]},
            "target": {
                "oneOf": [
                    {"type": "object", "properties": {"email": {"type": "string"}},
                     "required": ["email"], "additionalProperties": False},
                    {"type": "object", "properties": {"phone": {"type": "string"}},
                     "required": ["phone"], "additionalProperties": False},
                ]
            },
        },
        "required": ["tree", "note", "target"],
        "additionalProperties": False,
    }  # fmt: skip
    tools = toolset(schema)
    cases = cases_of(tools)
    assert cases["valid"].input["tree"]["children"][0] == {"name": "example name"}
    # a change under a union fails as the union, where the union is
    assert cases["wrong-type:/note"].expect.to_json() == {
        "stage": "schema",
        "keyword": "anyOf",
        "path": "/note",
    }
    assert cases["missing-field:/target/email"].expect.to_json()["keyword"] == "oneOf"
    report = SuiteRunner(tools).run([_suite(tools)])
    assert report.ok, [o.message for o in report.outcomes if not o.ok]


@pytest.mark.parametrize(
    ("schema", "reason"),
    [
        ({"not": {}}, "`not: {}` forbids every value (at #)"),
        (False, "the schema is false: no value is allowed (at #)"),
        (
            {"type": "object", "properties": {"a": {"not": {}}}, "required": ["a"]},
            "`not: {}` forbids every value (at #/properties/a)",
        ),
        (
            {"type": "object", "properties": {"a": {"enum": []}}, "required": ["a"]},
            "`enum` is empty",
        ),
        (
            {"type": "object", "allOf": [{"properties": {"a": {"type": "string"}}},
                                         {"properties": {"a": {"type": "integer"}}}],
             "required": ["a"]},
            "the types required by allOf have nothing in common",
        ),
        (
            {"type": "object", "properties": {"n": {"type": "integer", "minimum": 5, "maximum": 1}},
             "required": ["n"]},
            "no integer lies between 5.0 and 1.0",
        ),
        (
            {"$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}},
                             "required": ["next"]}},
             "$ref": "#/$defs/n"},
            "no instance within 16 levels of nesting",
        ),
        ({"type": "string"}, "tool arguments are an object"),
        (
            {"type": "object", "properties": {"code": {"type": "string", "pattern": "^(?=x)y$"}},
             "required": ["code"]},
            "cannot build a valid instance: the pattern uses lookaround",
        ),
        (
            {"type": "object", "properties": {"a": {"type": "string", "minLength": 3_000_000_000}},
             "required": ["a"]},
            "minLength is 3000000000: a valid string would be too large for a suite file",
        ),
        (
            {"type": "object", "properties": {"a": {"type": "array", "minItems": 300_000_000}},
             "required": ["a"]},
            "a valid instance would hold more than 5,000 values",
        ),
        (
            {"type": "object", "properties": {"a": {"type": "object", "minProperties": 10**8}},
             "required": ["a"]},
            "a valid instance would hold more than 5,000 values",
        ),
        (
            {"type": "object", "required": ["a"], "properties": {"a": {
                "type": "array", "minItems": 200,
                "items": {"type": "array", "minItems": 200, "items": {"type": "integer"}}}}},
            "a valid instance would hold more than 5,000 values",
        ),
        (
            {"type": "object", "required": ["a"],
             "properties": {"a": {"type": "string", "pattern": "^(a{300}){300}$"}}},
            "could not build a string matching the pattern '^(a{300}){300}$' with a length in "
            "0..10000",
        ),
        (
            {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1e300}},
             "required": ["n"]},
            "does not fit in 64 bits",
        ),
        (
            {"type": "object", "required": ["n"],
             "properties": {"n": {"type": "number", "minimum": 1e300, "multipleOf": 1e-300}}},
            "no multiple of 1e-300 near 1e+300 can be written as a number",
        ),
        (
            {"type": "object", "properties": {"x": {"$ref": "#/$defs/a0"}}, "required": ["x"],
             "$defs": {f"a{i}": {"allOf": [{"$ref": f"#/$defs/a{i + 1}"}] * 2} for i in range(30)}
             | {"a30": {"type": "string"}}},
            "allOf and $ref here combine more than 10,000 subschemas",
        ),
    ],
)  # fmt: skip
def test_schemas_without_a_valid_instance_are_named_fast(
    toolset: Callable[..., ToolSet], schema: Any, reason: str
) -> None:
    tools = toolset(schema)
    tool = tools.get("ship")
    assert tool is not None
    start = time.process_time()  # CPU: what load on a shared machine disturbs least
    built = build_valid(tool, tools.schema("ship"))
    assert time.process_time() - start < 1.0
    assert built.error is not None and reason in built.error


def test_a_hand_edited_base_under_a_schema_the_walk_gives_up_on(
    toolset: Callable[..., ToolSet],
) -> None:
    defs = {f"a{i}": {"allOf": [{"$ref": f"#/$defs/a{i + 1}"}] * 2} for i in range(30)}
    defs["a30"] = {"type": "string"}
    schema = {"type": "object", "properties": {"x": {"$ref": "#/$defs/a0"}}, "$defs": defs}
    tools = toolset(schema)
    tool = tools.get("ship")
    assert tool is not None
    drafts, _, error = generate_cases(tool, tools.schema("ship"), base={"x": "a"})
    assert drafts == []
    assert error is not None and error.startswith("cannot derive cases: allOf and $ref")


@pytest.mark.parametrize(
    "items", [{"const": "a"}, {"type": "boolean"}, {"type": "array", "items": {"type": "integer"}}]
)
def test_repeated_items_are_fine_without_unique_items(
    toolset: Callable[..., ToolSet], items: dict[str, Any]
) -> None:
    def build(unique: bool) -> Any:
        array = {"type": "array", "minItems": 3, "items": items, "uniqueItems": unique}
        tools = toolset({"type": "object", "properties": {"a": array}, "required": ["a"]})
        tool = tools.get("ship")
        assert tool is not None
        return build_valid(tool, tools.schema("ship"))

    built = build(False)
    assert built.error is None and len(built.value["a"]) == 3
    if "const" in items:
        assert "could not build distinct items for uniqueItems" in str(build(True).error)


def test_an_unsatisfiable_schema_gets_no_suite(
    toolset: Callable[..., ToolSet], tmp_path: Path
) -> None:
    tools = toolset(broken={"not": {}})
    report = generate_suites(tools, tmp_path)
    broken = report.tools[1]
    assert broken.tool == "broken" and broken.cases == 0 and not broken.changed
    assert broken.error == "no valid instance: `not: {}` forbids every value (at #)"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ship.suite.json"]
    assert report.errors == 1


def test_unbuildable_optional_members_skip_their_cases(toolset: Callable[..., ToolSet]) -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "string"},
            "secret": {"type": "string", "pattern": "^(?=.*[A-Z])(?=.*\\d).{8,}$"},
            "blob": {"type": "string", "maxLength": 100000},
        },
        "required": ["a"],
        "additionalProperties": False,
    }
    cases = cases_of(toolset(schema))
    assert "secret" not in cases["valid"].input
    skips = cases["_skips"]
    assert skips["/secret"].startswith(
        "left out of the valid instance, so its cases are skipped: the pattern uses lookaround"
    )
    assert skips["out-of-range.maxLength:/blob"].startswith("maxLength is 100000")


def test_extra_field_on_a_typed_additional_properties_is_skipped(
    toolset: Callable[..., ToolSet],
) -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "additionalProperties": {"type": "integer"},
    }
    cases = cases_of(toolset(schema))
    assert "extra-field" not in cases
    assert "allowed by design" in cases["_skips"]["extra-field"]


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("^ORD-[0-9]{6}$", "ORD-123456"),
        ("^[a-z][a-z0-9_-]{2,15}$", "bcd"),
        ("(?<year>\\d{4})-(?:a|b)", "1234-a"),
        ("^(ab)\\1$", "abab"),
        ("^[^0-9]+$", "a"),
        ("^\\w+@\\w+\\.com$", "b@c.com"),
    ],
)
def test_patterns_are_satisfied(pattern: str, expected: str) -> None:
    assert sample(pattern) == expected


def test_patterns_reach_min_length() -> None:
    assert len(sample("^[a-z]+$", min_length=12)) == 12


@pytest.mark.parametrize("pattern", ["(?=a)b", "\\p{L}+", "^a{3}$"])
def test_patterns_beyond_the_generator(pattern: str) -> None:
    with pytest.raises(PatternUnsupported):
        sample(pattern, max_length=2)


class _Rules:
    """A business-rule writer: ends before starts."""

    def violations(self, tool: ToolContract, valid: Any) -> list[RuleViolation]:
        return [
            RuleViolation(
                "no_overnight",
                {**valid, "priority": "overnight"},
                "/priority",
                description="Overnight shipping is closed.",
            ),
            RuleViolation("breaks_schema", {**valid, "priority": "never"}),
        ]


def test_business_rules_contribute_cases(toolset: Callable[..., ToolSet]) -> None:
    cases = cases_of(toolset(), sources=[_Rules()])
    case = cases["business:no_overnight"]
    assert case.expect.to_json() == {
        "stage": "business",
        "code": "business.no_overnight",
        "path": "/priority",
    }
    assert case.input["priority"] == "overnight"
    assert case.to_data()["description"] == "Overnight shipping is closed."
    assert "business:breaks_schema" not in cases
    assert cases["_skips"]["business:breaks_schema"].startswith("the arguments written to break")


class _RulesThatHold(_Rules):
    """Also says where its rules hold."""

    def passes(self, tool: ToolContract, valid: Any) -> list[RulePass]:
        return [
            RulePass("other_rule", valid, "Holds on the valid instance."),
            RulePass("no_overnight", {**valid, "priority": "standard"}, "Standard is fine."),
            RulePass("bad", {**valid, "priority": "never"}),
        ]


def test_passing_cases_follow_the_breaking_ones(toolset: Callable[..., ToolSet]) -> None:
    from jsoncontract.suites import PassSource

    assert isinstance(_RulesThatHold(), PassSource) and not isinstance(_Rules(), PassSource)
    cases = cases_of(toolset(), sources=[_RulesThatHold()])
    names = [n for n in cases if n.startswith("business")]
    assert names == ["business:no_overnight", "business-ok:no_overnight", "business-ok:other_rule"]
    held = cases["business-ok:no_overnight"]
    assert held.expect.to_json() == "ok" and held.input["priority"] == "standard"
    assert held.to_data()["description"] == "Standard is fine."
    assert "business-ok:bad" not in cases  # arguments that fail the schema are not kept


def test_rule_cases_near_the_last_representable_date(
    toolset: Callable[..., ToolSet], tmp_path: Path
) -> None:
    from jsoncontract.business import BusinessRules, load_rules
    from jsoncontract.suites.rule_cases import RuleViolations

    day = {"type": "string", "format": "date"}
    schema = {
        "type": "object",
        "properties": {
            "start": day | {"default": "9999-12-30"},
            "end": day | {"default": "9999-12-31"},
        },
        "required": ["start", "end"],
    }
    rules = tmp_path / "rules.toml"
    rules.write_text(
        '[[tools.ship]]\nid = "order"\nrule = "date(self.start) <= date(self.end)"\n'
        'fieldPath = "/end"\n'
    )
    tools = toolset(schema)
    tool = tools.get("ship")
    assert tool is not None
    source = RuleViolations(BusinessRules(load_rules([rules])), tools)
    (violation,) = source.violations(tool, {"start": "9999-12-30", "end": "9999-12-31"})
    assert violation.arguments["end"] == "9998-12-30"  # a day later does not exist


def test_regenerating_keeps_edits_adds_and_reports_stale(
    toolset: Callable[..., ToolSet], shipment: dict[str, Any], tmp_path: Path
) -> None:
    tools = toolset()
    first = generate_suites(tools, tmp_path).tools[0]
    assert first.created and len(first.added) == first.cases == 22
    path = tmp_path / "ship.suite.json"
    before = path.read_bytes()

    again = generate_suites(tools, tmp_path).tools[0]
    assert not again.changed and again.unchanged == 22 and path.read_bytes() == before

    suite = read_suite(path)
    edited = suite.cases[2]
    edited.data["arguments"] = {"priority": "express"}  # an edit by hand
    mine = {"order_id": "ORD-999999", "priority": "overnight"}
    suite.cases.append(
        Case.from_json({"name": "mine", "expect": "ok", "arguments": mine}, len(suite.cases))
    )
    write_suite(suite, path)
    shipment["properties"]["priority"]["enum"].append("economy")  # the schema moves on
    del shipment["properties"]["count"]
    shipment["properties"]["gift"] = {"type": "boolean"}
    record = generate_suites(toolset(shipment), tmp_path).tools[0]
    assert record.kept == ["missing-field:/order_id"]
    assert record.added == ["wrong-type:/gift"]
    assert record.stale == [
        "wrong-type:/count",
        "out-of-range.minimum:/count",
        "out-of-range.maximum:/count",
    ]
    assert record.updated  # the valid instance lost count and gained gift
    after = read_suite(path)
    names = [c.name for c in after.cases]
    assert "mine" in names and "wrong-type:/count" in names  # stale cases stay until --prune
    assert after.cases[2].data["arguments"] == {"priority": "express"}

    pruned = generate_suites(toolset(shipment), tmp_path, prune=True).tools[0]
    assert (
        pruned.removed
        == pruned.stale
        == [
            "wrong-type:/count",
            "out-of-range.minimum:/count",
            "out-of-range.maximum:/count",
        ]
    )
    assert "wrong-type:/count" not in [c.name for c in read_suite(path).cases]


def test_a_hand_edited_valid_case_is_the_base(
    toolset: Callable[..., ToolSet], tmp_path: Path
) -> None:
    tools = toolset()
    generate_suites(tools, tmp_path)
    path = tmp_path / "ship.suite.json"
    suite = read_suite(path)
    suite.cases[0].data["arguments"] = {"order_id": "ORD-424242", "priority": "overnight"}
    write_suite(suite, path)
    generate_suites(tools, tmp_path)
    missing = next(c for c in read_suite(path).cases if c.name == "missing-field:/priority")
    assert missing.input == {"order_id": "ORD-424242"}


def test_an_edited_case_with_a_lone_surrogate_is_kept(
    toolset: Callable[..., ToolSet], tmp_path: Path
) -> None:
    tools = toolset()
    generate_suites(tools, tmp_path)
    path = tmp_path / "ship.suite.json"
    suite = read_suite(path)
    for case in suite.cases:
        if case.name in ("valid", "wrong-enum:/priority"):
            case.data["arguments"] = {**case.data["arguments"], "order_id": "ORD-000001\ud800"}
    write_suite(suite, path)
    report = generate_suites(tools, tmp_path)
    assert report.tools[0].kept == ["valid", "wrong-enum:/priority"]
    again = {c.name: c for c in read_suite(path).cases}
    assert again["valid"].input["order_id"] == "ORD-000001\ud800"
    assert again["missing-field:/priority"].input["order_id"] == "ORD-123456"  # built, not edited


def test_check_writes_nothing(toolset: Callable[..., ToolSet], tmp_path: Path) -> None:
    report = generate_suites(toolset(), tmp_path, check=True)
    assert report.changed == 1 and not any(tmp_path.iterdir())


def test_seed_is_kept_per_suite(toolset: Callable[..., ToolSet], tmp_path: Path) -> None:
    generate_suites(toolset(), tmp_path, seed=5)
    path = tmp_path / "ship.suite.json"
    assert read_suite(path).seed == 5
    assert not generate_suites(toolset(), tmp_path).tools[0].changed  # keeps 5
    assert generate_suites(toolset(), tmp_path, seed=6).tools[0].changed


def test_regression_cases_from_captures(toolset: Callable[..., ToolSet], tmp_path: Path) -> None:
    capture = tmp_path / "captures" / "call.json"
    capture.parent.mkdir()
    message: dict[str, Any] = {
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": "a", "name": "ship",
             "input": {"order_id": "ORD-000001", "priority": "standard"}},
            {"type": "tool_use", "id": "b", "name": "nowhere", "input": {}},
        ],
    }  # fmt: skip
    capture.write_text(json.dumps(message))
    suites = tmp_path / "suites"
    report = generate_suites(toolset(), suites, captures=[capture], kinds=[CaseKind.VALID])
    [unrecorded] = report.unrecorded
    assert unrecorded.to_dict() == {
        "code": "envelope.unknown_tool",
        "severity": "error",
        "message": "tool 'nowhere' is not in the tool list",
        "path": "",
        "stage": "envelope",
        "hop": "model",
        "tool": "nowhere",
        "call_id": "b",
        "source": {"file": str(capture), "line": 1},
        "hint": "known tools: ship",
    }
    assert report.errors == 1 and report.findings() == [unrecorded]
    case = next(c for c in read_suite(suites / "ship.suite.json").cases if "regression" in c.tags)
    assert case.name == "regression:captures/call.json#0"
    assert case.data["capture_file"] == "../captures/call.json" and case.call == 0
    assert case.data["expect"] == {"fields": ["order_id", "priority"]}
    assert run_suites([suites], tools=toolset()).ok
    message["content"][0]["input"] = {"order_id": "ORD-000001"}  # the model drops a field
    capture.write_text(json.dumps(message))
    outcome = next(o for o in run_suites([suites], tools=toolset()).outcomes if not o.ok)
    assert outcome.mismatch is not None and outcome.mismatch.value == "unexpected_failure"


def test_suite_file_names_are_safe_and_unique() -> None:
    names = suite_file_names(["get_weather", "a/b", "a_b", "Tool", "tool", ".hidden"])
    assert names["get_weather"] == "get_weather.suite.json"
    assert names["Tool"] == "Tool.suite.json"
    assert names["tool"].startswith("tool-") and names["tool"].endswith(".suite.json")
    assert names["a/b"] == "a_b.suite.json"
    assert names["a_b"].startswith("a_b-")
    assert names[".hidden"] == "_.hidden.suite.json"
    assert len(set(names.values())) == 6


def test_rule_cases_change_members_whose_names_need_escaping(
    toolset: Callable[..., ToolSet], tmp_path: Path
) -> None:
    from jsoncontract.business import BusinessRules, load_rules
    from jsoncontract.suites.rule_cases import RuleViolations

    schema = {
        "type": "object",
        "properties": {
            "limits": {
                "type": "object",
                "properties": {"per/day": {"type": "integer", "enum": [5, 500]}},
                "required": ["per/day"],
            }
        },
        "required": ["limits"],
    }
    rules = tmp_path / "rules.toml"
    rules.write_text(
        '[[tools.ship]]\nid = "cap"\nrule = "self.limits[\'per/day\'] <= 100"\n'
        'fieldPath = "/limits"\n'
    )
    tools = toolset(schema)
    tool = tools.get("ship")
    assert tool is not None
    source = RuleViolations(BusinessRules(load_rules([rules])), tools)
    (violation,) = source.violations(tool, {"limits": {"per/day": 5}})
    assert violation.arguments == {"limits": {"per/day": 500}}
