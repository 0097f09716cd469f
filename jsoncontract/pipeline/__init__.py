"""The checking pipeline: envelope -> parse -> schema -> business, one module per gate."""

from jsoncontract.pipeline.checker import BusinessGate, Checker
from jsoncontract.pipeline.parse import ParseOutcome, parse_arguments
from jsoncontract.pipeline.schema import schema_findings

__all__ = ["BusinessGate", "Checker", "ParseOutcome", "parse_arguments", "schema_findings"]
