"""Captures: reading provider responses, MCP frames and downstream bodies as tool calls.

One module per dialect, behind :mod:`jsoncontract.capture.interface`, listed in
:data:`jsoncontract.capture.registry.DIALECTS`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jsoncontract.capture.reader import CAPTURE_SUFFIXES, CaptureReader
    from jsoncontract.capture.registry import DIALECTS, Registry

__all__ = ["CAPTURE_SUFFIXES", "DIALECTS", "CaptureReader", "Registry"]

#: Imported on first use: the registry (which ``--help`` reads for the dialect choices)
#: without the reader.
_LAZY = {
    "CAPTURE_SUFFIXES": "reader",
    "CaptureReader": "reader",
    "DIALECTS": "registry",
    "Registry": "registry",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f"{__name__}.{module}"), name)
