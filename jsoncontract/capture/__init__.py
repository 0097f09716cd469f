"""Captures: reading provider responses, MCP frames and downstream bodies as tool calls.

One module per dialect, behind :mod:`jsoncontract.capture.interface`, listed in
:data:`jsoncontract.capture.registry.DIALECTS`.
"""

from jsoncontract.capture.reader import CAPTURE_SUFFIXES, CaptureReader
from jsoncontract.capture.registry import DIALECTS, Registry

__all__ = ["CAPTURE_SUFFIXES", "DIALECTS", "CaptureReader", "Registry"]
