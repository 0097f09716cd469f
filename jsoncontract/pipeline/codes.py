"""The codes ``check`` reports, family by family, with one line on each.

Views of the catalog of every finding code (:mod:`jsoncontract.codes`), which declares
them with what each means: add a code there, not here. Schema findings are
``schema.<keyword>`` and business findings ``business.<rule-id>``, described by pattern.
"""

from __future__ import annotations

from typing import Final

from jsoncontract import codes
from jsoncontract.codes import Family, describe


def _summaries(family: Family) -> dict[str, str]:
    return {entry.code: entry.summary for entry in codes.CATALOG.of(family)}


ENVELOPE_CODES: Final = _summaries(codes.ENVELOPE)
PARSE_CODES: Final = _summaries(codes.PARSE)
RESULT_CODES: Final = _summaries(codes.RESULT)
#: Codes about the run rather than one call (:mod:`jsoncontract.pipeline.contracts`).
SESSION_CODES: Final = _summaries(codes.SESSION)

__all__ = ["ENVELOPE_CODES", "PARSE_CODES", "RESULT_CODES", "SESSION_CODES", "describe"]
