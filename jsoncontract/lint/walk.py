"""Walking a schema: every subschema, in document order, without recursion.

The walk is an explicit stack, so a schema nested thousands of levels deep costs memory in
proportion to its size and never overflows the interpreter stack. It stops descending below
``max_depth`` and stops altogether after ``max_nodes`` nodes, recording where on the site
(:attr:`Site.too_deep`, :attr:`Site.truncated`) so a rule can report it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from jsoncontract.lint.context import Node, Site
from jsoncontract.pointer import escape_pointer_token

#: Keywords whose value is one subschema.
SINGLE: Final = frozenset(
    {
        "additionalProperties",
        "items",
        "additionalItems",
        "unevaluatedItems",
        "unevaluatedProperties",
        "contains",
        "propertyNames",
        "not",
        "if",
        "then",
        "else",
    }
)
#: Keywords whose value maps names to subschemas.
MAPS: Final = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}
)
#: Keywords whose value is a list of subschemas.
LISTS: Final = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})
#: Steps after which a subschema only sometimes applies to the instance.
UNION: Final = frozenset({"allOf", "anyOf", "oneOf", "not", "if", "then", "else"})


def walk(site: Site, *, max_depth: int, max_nodes: int) -> Iterator[Node]:
    """Every node of ``site``'s schema, the root first, children in document order."""
    root = Node(site.schema, "", 0, None, None, None, site, False)
    stack = [root]
    count = 0
    while stack:
        node = stack.pop()
        count += 1
        if count > max_nodes:
            site.truncated = node.path
            return
        yield node
        value = node.value
        if not isinstance(value, dict):
            continue
        children: list[Node] = []
        path = node.path
        depth = node.depth + 1
        in_union = node.in_union
        for key, sub in value.items():
            if key in SINGLE and isinstance(sub, dict | bool):
                children.append(
                    Node(
                        sub, f"{path}/{key}", depth, node, key, None, site, in_union or key in UNION
                    )
                )
            elif key in MAPS and isinstance(sub, dict):
                prefix = f"{path}/{escape_pointer_token(key)}/"
                for name, item in sub.items():
                    if isinstance(item, dict | bool):
                        children.append(
                            Node(
                                item,
                                prefix + escape_pointer_token(name),
                                depth,
                                node,
                                key,
                                name if key == "properties" else None,
                                site,
                                in_union,
                            )
                        )
            elif key in LISTS and isinstance(sub, list):
                union = in_union or key in UNION
                for index, item in enumerate(sub):
                    if isinstance(item, dict | bool):
                        children.append(
                            Node(item, f"{path}/{key}/{index}", depth, node, key, None, site, union)
                        )
        if not children:
            continue
        if depth > max_depth:
            if site.too_deep is None:
                site.too_deep = node.path
            continue
        children.reverse()
        stack.extend(children)
