"""Captures: reading provider responses, MCP frames and downstream bodies as tool calls.

One module per dialect, behind :mod:`jsoncontract.capture.interface`, listed in
:data:`jsoncontract.capture.registry.DIALECTS`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jsoncontract._lazy import lazy_attributes

if TYPE_CHECKING:
    from jsoncontract.capture.reader import CAPTURE_SUFFIXES, CaptureReader
    from jsoncontract.capture.registry import DIALECTS, Registry

__all__ = ["CAPTURE_SUFFIXES", "DIALECTS", "CaptureReader", "Registry"]

#: Imported on first use (the registry's table is read for ``--help`` without the reader).
_LAZY = {
    "CAPTURE_SUFFIXES": ".reader",
    "CaptureReader": ".reader",
    "DIALECTS": ".registry",
    "Registry": ".registry",
}
__getattr__ = lazy_attributes(__name__, _LAZY)
