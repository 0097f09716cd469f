"""Bad rules files stop the run at load, with file, line (and column) and what is wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from jsoncontract.business import RulesError, load_rules
from jsoncontract.errors import ConfigError


def load(tmp_path: Path, text: str, **kwargs: object) -> object:
    path = tmp_path / "rules.toml"
    path.write_text(text, encoding="utf-8")
    return load_rules([path], **kwargs)  # type: ignore[arg-type]


def error_of(tmp_path: Path, text: str) -> RulesError:
    with pytest.raises(RulesError) as caught:
        load(tmp_path, text)
    assert isinstance(caught.value, ConfigError)  # exit 2 in the CLI
    return caught.value


def test_cel_syntax_error_names_rule_line_and_column(tmp_path: Path) -> None:
    error = error_of(tmp_path, '[[tools.t]]\nid = "date-order"\nrule = "self.a <= "\n')
    assert (error.line, error.column) == (3, 19)  # the file column of the expression's end
    assert "rule 'date-order' (tool t): CEL syntax error in rule at column 11" in error.message
    assert str(error).startswith(f"{tmp_path / 'rules.toml'}:3:19: ")


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("contxt.role == 'ops'", "undeclared reference to 'contxt.role'"),
        ("self.id in data.ordrs", "undeclared reference to 'data.ordrs'"),
        ("'a' + 1 == 'b'", "found no matching overload for '_+_' applied to '(string, int)'"),
        ("nosuch(self)", "undeclared reference to 'nosuch'"),
    ],
)
def test_cel_type_errors_are_found_at_load(tmp_path: Path, expression: str, message: str) -> None:
    error = error_of(tmp_path, f'[[tools.t]]\nid = "x"\nrule = "{expression}"\n')
    assert "CEL type error in rule" in error.message
    assert message in error.message
    assert error.line == 3 and error.column is not None


def test_error_in_a_multi_line_expression_points_at_its_line(tmp_path: Path) -> None:
    text = "[[tools.t]]\nid = \"x\"\nrule = '''\n  self.a > 0 &&\n  self.b + 'x' > 0\n'''\n"
    error = error_of(tmp_path, text)
    assert (error.line, error.column) == (5, 16)
    assert "at line 2, column 16" in error.message


def test_rule_and_message_types(tmp_path: Path) -> None:
    error = error_of(tmp_path, '[[tools.t]]\nid = "x"\nrule = "1 + 1"\n')
    assert "rule must give a bool, but it gives int" in error.message
    error = error_of(tmp_path, '[[tools.t]]\nid = "x"\nrule = "true"\nmessageExpression = "42"\n')
    assert "messageExpression must give a string, but it gives int" in error.message
    assert error.line == 4


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (
            '[[tools.t]]\nid = "x"\nrule = "true"\nseverty = "error"\n',
            4,
            "unknown key 'severty'; did you mean 'severity'?",
        ),
        (
            '[[tools.t]]\nid = "x"\n',
            1,
            "a rule needs exactly one of rule = (a CEL expression) or python = (module:function)",
        ),
        (
            '[[tools.t]]\nid = "x"\nrule = "true"\npython = "m:f"\n',
            1,
            "a rule needs exactly one of",
        ),
        ('[[tools.t]]\nrule = "true"\n', 1, "missing 'id'"),
        ('[[tools.t]]\nid = "Bad Id"\nrule = "true"\n', 2, "id 'Bad Id' must be lower case"),
        ('[[tools.t]]\nid = "x"\nrule = "true"\nseverity = "fatal"\n', 4, "severity"),
        ('[[tools.t]]\nid = "x"\nrule = "true"\nscope = "price"\n', 4, "must be a JSON Pointer"),
        ('[[tools.t]]\nid = "x"\npython = "not a target"\n', 3, "must look like 'module:function'"),
        ('[data.d]\ncsv = "a.csv"\njson = "b.json"\n', 1, "name exactly one source"),
        ('[data.d]\nsqlite = "a.db"\n', 1, "sqlite = needs query ="),
        ("version = 2\n", 1, "version"),
        ('[tool.t]\nid = "x"\n', 1, "unknown key 'tool'; did you mean 'tools'?"),
        ('[tools.t]\nid = "x"\nrule = "true"\n', 1, "write [[tools.t]] (double brackets)"),
        ('[data]\nd = "d.csv"\n', 2, "dataset 'd' must be a table such as [data.d]"),
        ('[[tools.t]]\nid = "x"\nrule = "true"\ntimeout = 0\n', 4, "timeout"),
    ],
)
def test_schema_errors_have_a_line_and_a_plain_message(
    tmp_path: Path, text: str, line: int, message: str
) -> None:
    error = error_of(tmp_path, text)
    assert error.line == line
    assert message in error.message


def test_not_toml(tmp_path: Path) -> None:
    error = error_of(tmp_path, '[[tools.t]]\nid = "x\n')
    assert error.message.startswith("not valid TOML")
    assert error.line == 2


def test_missing_and_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(RulesError, match="rules file not found"):
        load_rules([tmp_path / "nope.toml"])
    with pytest.raises(RulesError, match="is a directory"):
        load_rules([tmp_path])
    (tmp_path / "latin1.toml").write_bytes(b"# caf\xe9\n")
    with pytest.raises(RulesError, match="not UTF-8"):
        load_rules([tmp_path / "latin1.toml"])


def test_duplicate_rule_ids_and_datasets(tmp_path: Path) -> None:
    error = error_of(
        tmp_path, '[[tools.t]]\nid = "x"\nrule = "true"\n[[tools.t]]\nid = "x"\nrule = "true"\n'
    )
    assert "rule id 'x' is used twice for tool 't'" in error.message
    assert error.line == 4
    (tmp_path / "other.toml").write_text('[data.d]\nvalues = ["b"]\n')
    (tmp_path / "one.toml").write_text('[data.d]\nvalues = ["a"]\n')
    with pytest.raises(RulesError, match="dataset 'd' is declared twice"):
        load_rules([tmp_path / "one.toml", tmp_path / "other.toml"])


def test_same_rule_id_for_two_tools_is_fine(tmp_path: Path) -> None:
    rules = load(
        tmp_path, '[[tools.a]]\nid = "x"\nrule = "true"\n[[tools.b]]\nid = "x"\nrule = "true"\n'
    )
    assert len(rules) == 2  # type: ignore[arg-type]


def test_rules_for_an_unknown_tool_warn_with_the_closest_name(tmp_path: Path) -> None:
    rules = load(
        tmp_path,
        '[[tools.update_shipmnt]]\nid = "x"\nrule = "true"\n',
        tool_names=["update_shipment", "searchInvoices"],
    )
    (warning,) = rules.warnings  # type: ignore[attr-defined]
    assert "rules.toml:1: rules for tool 'update_shipmnt'" in warning
    assert "did you mean 'update_shipment'?" in warning


def test_python_rule_that_cannot_be_imported(tmp_path: Path) -> None:
    error = error_of(tmp_path, '[[tools.t]]\nid = "x"\npython = "no_such_module_here:f"\n')
    assert "cannot import 'no_such_module_here'" in error.message
    assert error.line == 3
    (tmp_path / "hooks_missing_fn.py").write_text("x = 1\n")
    error = error_of(tmp_path, '[[tools.t]]\nid = "x"\npython = "hooks_missing_fn:f"\n')
    assert "has no function 'f'" in error.message


def test_missing_reference_data_names_the_declaration(tmp_path: Path) -> None:
    error = error_of(tmp_path, '\n[data.orders]\ncsv = "orders.csv"\nkey = "id"\n')
    assert error.line == 2
    assert error.message.startswith("dataset 'orders': file not found")


def test_reserved_ids_and_python_rule_fields(tmp_path: Path) -> None:
    error = error_of(tmp_path, '[[tools.t]]\nid = "idempotency.conflict"\nrule = "true"\n')
    assert "is reserved" in error.message and error.line == 2
    error = error_of(tmp_path, '[[tools.t]]\nid = "x"\npython = "m:f"\nscope = "/a"\n')
    assert "scope applies to CEL rules" in error.message and error.line == 4
