"""jsoncontract: test the JSON contracts between AI agents, their tools and their systems.

The public API is imported lazily, so ``import jsoncontract`` (and ``jsoncontract --help``)
stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jsoncontract._lazy import lazy_attributes
from jsoncontract._version import __version__

if TYPE_CHECKING:
    from jsoncontract._tail import Follow
    from jsoncontract.api import check, iter_check
    from jsoncontract.baseline import Baseline
    from jsoncontract.business import load_business
    from jsoncontract.capture.reader import CaptureReader
    from jsoncontract.errors import JsoncontractError
    from jsoncontract.live.guard.gate import Guard
    from jsoncontract.model import (
        CallResult,
        CheckReport,
        Finding,
        Hop,
        Severity,
        Stage,
        ToolCall,
        ToolContract,
    )
    from jsoncontract.pipeline.checker import BusinessGate, Checker
    from jsoncontract.tools.toolset import ToolSet

__all__ = [
    "Baseline",
    "BusinessGate",
    "CallResult",
    "CaptureReader",
    "CheckReport",
    "Checker",
    "Finding",
    "Follow",
    "Guard",
    "Hop",
    "JsoncontractError",
    "Severity",
    "Stage",
    "ToolCall",
    "ToolContract",
    "ToolSet",
    "__version__",
    "check",
    "iter_check",
    "load_business",
]

_LAZY = {
    "Follow": "jsoncontract._tail",
    "Baseline": "jsoncontract.baseline",
    "check": "jsoncontract.api",
    "iter_check": "jsoncontract.api",
    "load_business": "jsoncontract.business",
    "CaptureReader": "jsoncontract.capture.reader",
    "JsoncontractError": "jsoncontract.errors",
    "Guard": "jsoncontract.live.guard.gate",
    "CallResult": "jsoncontract.model",
    "CheckReport": "jsoncontract.model",
    "Finding": "jsoncontract.model",
    "Hop": "jsoncontract.model",
    "Severity": "jsoncontract.model",
    "Stage": "jsoncontract.model",
    "ToolCall": "jsoncontract.model",
    "ToolContract": "jsoncontract.model",
    "BusinessGate": "jsoncontract.pipeline.checker",
    "Checker": "jsoncontract.pipeline.checker",
    "ToolSet": "jsoncontract.tools.toolset",
}


def __dir__() -> list[str]:
    """The public API, listed although it is imported lazily."""
    return sorted({*(name for name in globals() if name.startswith("__")), *__all__})


__getattr__ = lazy_attributes(__name__, _LAZY)
