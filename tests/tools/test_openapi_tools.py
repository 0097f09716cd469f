"""OpenAPI operations as tool contracts: each operation with an operationId is a tool whose
input is its JSON request body (or its parameters), across check, lint, fixtures and pin;
downstream bodies are checked against the operation, the model's calls against the tool."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jsoncontract.errors import ToolLoadError
from jsoncontract.model import Hop
from jsoncontract.tools.loader import load_tool_file
from jsoncontract.tools.openapi import OPENAPI
from jsoncontract.tools.toolset import ToolSet

REPO = Path(__file__).resolve().parents[2]
API = REPO / "fixtures" / "yaml" / "billing-openapi.yaml"


def test_operations_become_contracts() -> None:
    search, get_invoice = load_tool_file(API)
    assert (search.name, search.dialect) == ("searchInvoices", OPENAPI)
    assert search.description == (
        "Search invoices\n\nInvoices of one customer issued between two dates, newest first."
    )
    body = search.input_schema
    assert body["required"] == ["customerId", "dateFrom", "dateTo"]
    assert body["properties"]["status"]["type"] == ["string", "null"]  # OpenAPI 3.0 nullable
    assert "components" in body  # carried, so that $ref resolves
    assert search.input_location is not None
    assert search.input_location.pointer == "/components/schemas/InvoiceSearch"
    assert search.source.line == 9 and search.source.pointer == "/paths/~1invoices~1search/post"
    assert search.output_schema is not None and search.output_schema["type"] == "array"
    params = get_invoice.input_schema
    assert params["required"] == ["invoiceId"]
    assert set(params["properties"]) == {"invoiceId", "expand"}


def test_a_document_without_operation_ids_says_what_to_do(tmp_path: Path) -> None:
    path = tmp_path / "api.json"
    path.write_text(json.dumps({"openapi": "3.1.0", "paths": {"/a": {"post": {}}}}))
    with pytest.raises(ToolLoadError, match="no operation with an operationId"):
        load_tool_file(path)


def test_a_tool_and_its_operation_check_their_own_hops(in_repo: Path) -> None:
    tools = ToolSet.from_paths(["fixtures/tools", API])
    tool = tools.get("searchInvoices")
    api = tools.get("searchInvoices", Hop.DOWNSTREAM)
    assert tool is not None and api is not None
    assert tool.dialect != OPENAPI and api.dialect == OPENAPI
    assert tools.schema("searchInvoices").is_valid(
        {"customerId": "C31002", "startDate": "2025-07-01", "endDate": "2025-09-30"}
    )
    assert tools.schema("searchInvoices", Hop.DOWNSTREAM).is_valid(
        {"customerId": "C31002", "dateFrom": "2025-07-01", "dateTo": "2025-09-30"}
    )


def test_check_downstream_bodies_by_operation_id(
    run_cli: Callable[..., Any], in_repo: Path
) -> None:
    result = run_cli(
        "check",
        "--no-config",
        "-t",
        "fixtures/tools",
        "-t",
        str(API),
        "fixtures/yaml/downstream.jsonl",
        "-f",
        "json",
    )
    assert result.code == 1, result.stderr
    results = json.loads(result.stdout)["results"]
    assert [(r["hop"], r["tool"], r["ok"]) for r in results] == [
        ("model", "searchInvoices", True),  # the tool's startDate/endDate
        ("downstream", "searchInvoices", True),  # the API's dateFrom/dateTo, status null
        ("downstream", "searchInvoices", False),  # the tool's names, sent downstream as is
        ("downstream", "getInvoice", False),  # a query parameter outside its enum
    ]
    assert {f["code"] for f in results[2]["findings"]} == {
        "schema.required",
        "schema.additionalProperties",
    }


def test_a_bare_body_names_its_operation_with_tool(
    run_cli: Callable[..., Any], in_repo: Path, tmp_path: Path
) -> None:
    body = tmp_path / "body.json"
    body.write_text(json.dumps({"invoiceId": "INV-2025-00042"}))
    result = run_cli("check", "--no-config", "-t", str(API), "--tool", "getInvoice", str(body))
    assert result.code == 0, result.stdout + result.stderr
    typo = run_cli("check", "--no-config", "-t", str(API), "--tool", "getInvoices", str(body))
    assert typo.code == 1
    assert "did you mean 'getInvoice'?" in typo.stdout


def test_lint_fixtures_and_pin_take_operations(
    run_cli: Callable[..., Any], in_repo: Path, tmp_path: Path
) -> None:
    lint = json.loads(run_cli("lint", "--no-config", str(API), "-f", "json").stdout)
    assert lint["summary"]["tools"] == 2
    assert all(f["code"] != "JC152" for f in lint["findings"])  # carried components
    suites = tmp_path / "suites"
    assert run_cli("fixtures", "--no-config", "-t", str(API), str(suites)).code == 0
    assert sorted(p.name for p in suites.iterdir()) == [
        "getInvoice.suite.json",
        "searchInvoices.suite.json",
    ]
    test = run_cli("test", "--no-config", "-t", str(API), str(suites), "-f", "json")
    assert json.loads(test.stdout)["summary"]["cases"] > 20
    lock = tmp_path / "tools.lock"
    assert run_cli("pin", "--no-config", str(API), "--lock", str(lock)).code == 0
    assert run_cli("pin", "--no-config", str(API), "--lock", str(lock), "--check").code == 0


def test_a_yaml_downstream_schema_for_diff(run_cli: Callable[..., Any], in_repo: Path) -> None:
    result = run_cli(
        "diff",
        "--no-config",
        "-t",
        "fixtures/tools",
        "--downstream-schema",
        f"{API}#/paths/~1invoices~1search/post",
        "fixtures/diff/renamed-dates/model.json",
        "fixtures/diff/renamed-dates/mcp.json",
        "fixtures/diff/renamed-dates/downstream.json",
        "-f",
        "json",
    )
    assert result.code == 1, result.stderr
    downstream = json.loads(result.stdout)["results"][0]["hops"][2]
    assert downstream["schema"].endswith("billing-openapi.yaml#/paths/~1invoices~1search/post")
    assert downstream["valid"] is True  # dateFrom and dateTo: what the YAML API asks for


@pytest.mark.parametrize(
    "ref", ["https://example.com/parameters.json#/limit", "#/components/parameters/missing"]
)
def test_a_parameter_ref_that_cannot_be_read_is_an_error(
    tmp_path: Path, run_cli: Callable[..., Any], ref: str
) -> None:
    """Defect 14: parameters whose $ref is remote or dangling were dropped silently (exit
    0), while the same $ref in requestBody is exit 2."""
    document = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {
            "/orders": {
                "get": {"operationId": "listOrders", "parameters": [{"$ref": ref}]},
            }
        },
    }
    spec = tmp_path / "openapi.json"
    spec.write_text(json.dumps(document))
    body = tmp_path / "body.json"
    body.write_text('{"limit": "x"}')
    result = run_cli("check", "--no-config", "-t", str(spec), "--tool", "listOrders", str(body))
    assert result.code == 2, result.stdout
    assert ref in result.stderr
