"""A library MCP server (the official SDK's ``MCPServer``) that offers more than tools: a
resource, a resource template, a prompt, a tool that reports progress while it works longer
than a caller's timeout, and a tool that asks the user (elicitation).

    python library.py [--http URL_FILE] [--token TOKEN] [--broken-resource]

``--broken-resource`` lists a resource whose read fails.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ToolAnnotations
from pydantic import BaseModel, Field

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve import serve, transport_options

app = MCPServer("library", version="2.1.0")
READ_ONLY = ToolAnnotations(readOnlyHint=True, openWorldHint=False)
BOOKS = {"dune": "Dune, Frank Herbert, 1965", "emma": "Emma, Jane Austen, 1815"}


@app.resource("library://catalog", mime_type="text/plain", description="Every book.")
def catalog() -> str:
    """Every book."""
    return "\n".join(BOOKS.values())


@app.resource("library://books/{slug}", mime_type="text/plain", description="One book.")
def book(slug: str) -> str:
    """One book by its slug."""
    return BOOKS.get(slug, "unknown")


@app.prompt(description="Ask for a review of one book.")
def review(title: str = Field(description="The book's title, e.g. 'Dune'.")) -> str:
    """A review request."""
    if title.lower() not in BOOKS:
        raise ValueError(f"no book titled {title!r}")
    return f"Write a short review of {title}."


@app.tool(annotations=READ_ONLY)
async def count_shelves(
    ctx: Context,
    shelves: int = Field(3, ge=1, le=10, description="Shelves to count, e.g. 3."),
) -> str:
    """Counts the shelves one by one (0.6 s each), reporting progress."""
    for done in range(shelves):
        await anyio.sleep(0.6)
        await ctx.report_progress(done + 1, shelves, f"shelf {done + 1}")
    return f"{shelves} shelves"


class Preference(BaseModel):
    genre: str = Field(description="A genre.")


@app.tool(annotations=READ_ONLY)
async def recommend(ctx: Context) -> str:
    """Asks the reader for a genre, then recommends a book."""
    answer = await ctx.elicit("Which genre?", Preference)
    if answer.action != "accept":
        return "no recommendation"
    return f"a {answer.data.genre} book: Dune"


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    transport_options(parser)
    parser.add_argument("--broken-resource", action="store_true")
    options = parser.parse_args()
    if options.broken_resource:

        @app.resource("library://missing", mime_type="text/plain", description="Gone.")
        def missing() -> str:
            """A resource whose read fails."""
            raise RuntimeError("the shelf is empty")

    serve(app, options)
