"""Package attributes imported on first use (PEP 562).

A package's ``__init__`` names what it offers in a table, attribute -> module, and imports
a module only when one of its attributes is first read: ``import jsoncontract`` stays cheap,
and ``--help`` reads the capture registry's table or the case kinds without loading the
reader or the generator behind them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any


def lazy_attributes(package: str, table: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: ``name`` is imported from the module
    ``table[name]`` (relative to ``package`` when it starts with a dot) when first read.

    >>> getattr_ = lazy_attributes("jsoncontract", {"Hop": ".model"})
    >>> getattr_("Hop").MODEL.value
    'model'
    """

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        from importlib import import_module

        return getattr(import_module(module, package), name)

    return __getattr__
