"""Reports of ``mcp resources`` and ``mcp prompts``: what a server offers besides tools."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Never

import orjson

from jsoncontract.masking import masked
from jsoncontract.reporters.interface import Reporter
from jsoncontract.reporters.live import server_line
from jsoncontract.reporters.text import LineWriter, Segment

if TYPE_CHECKING:
    from jsoncontract.live.catalog import Catalog

_NOUN = {"resources": "resource", "templates": "resource template", "prompts": "prompt"}


class TextCatalogReporter(Reporter[Never, "list[Catalog]"]):
    """For people: the server line, then each kind's items with their description."""

    def close(self, catalogs: list[Catalog]) -> None:
        """Write every listing."""
        out = LineWriter(self.stream, self.options.color, self.options.width)
        lines: list[list[Segment]] = []
        if catalogs:
            lines.append(server_line(catalogs[0].server, catalogs[0].negotiated))
        for catalog in catalogs:
            noun = _NOUN[catalog.kind]
            if catalog.undeclared:
                lines.append([(f"no {noun}s: the server does not declare the capability", "")])
                continue
            if catalog.unsupported:
                from jsoncontract.live.catalog import KINDS

                method = KINDS[catalog.kind][0]
                lines.append([(f"no {noun}s: {method} is Method not found (-32601)", "")])
                continue
            count = len(catalog.items)
            pages = f"{catalog.pages} page{'s' if catalog.pages != 1 else ''}"
            lines.append([(f"{count} {noun}{'s' if count != 1 else ''} ({pages})", "")])
            lines.extend(_item(catalog.kind, item) for item in catalog.items)
        out.write(lines)
        out.close()


def _item(kind: str, item: Any) -> list[Segment]:
    if not isinstance(item, dict):
        return [("  (not an object)", "red")]
    key = {"resources": "uri", "templates": "uriTemplate", "prompts": "name"}[kind]
    head = str(item.get(key, "(unnamed)"))
    row: list[Segment] = [("  ", ""), (masked(head), "bold magenta")]
    if isinstance(item.get("mimeType"), str):
        row.append((f"  {item['mimeType']}", "dim"))
    if kind == "prompts" and isinstance(item.get("arguments"), list):
        names = [
            str(a.get("name")) + ("*" if a.get("required") is True else "")
            for a in item["arguments"]
            if isinstance(a, dict)
        ]
        if names:
            row.append((f"  ({', '.join(names)})", "dim"))
    description = item.get("description") or item.get("name")
    if isinstance(description, str) and description != head:
        first = masked(description.strip().splitlines()[0]) if description.strip() else ""
        row.append((f"  {first[:80]}", ""))
    return row


class JsonCatalogReporter(Reporter[Never, "list[Catalog]"]):
    """The list result (every page): ``resources/list`` with the templates beside it, or
    ``prompts/list``."""

    def close(self, catalogs: list[Catalog]) -> None:
        """Write one result object."""
        out: dict[str, Any] = {}
        for catalog in catalogs:
            result = catalog.result()
            meta = result.pop("_meta")
            out.update(result)
            out["_meta"] = meta
        self.stream.write(orjson.dumps(out, option=orjson.OPT_INDENT_2) + b"\n")
