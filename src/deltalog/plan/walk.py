"""Walking and rewriting IR trees without one function per node type.

A node's children are its fields holding nodes (or tuples of nodes, as in ``Union_``), so both
helpers work for every node, present and future.

>>> from deltalog.plan.ir import Col, Join, Project, Scan
>>> plan = Project(Join(Scan("e", (Col("X"), Col("Y"))), Scan("f", (Col("Y"), Col("Z"))), ("Y",)),
...                (("c0", Col("X")),))
>>> [type(n).__name__ for n in walk(plan)]
['Project', 'Join', 'Scan', 'Scan']
>>> [s.relation for s in walk(plan) if isinstance(s, Scan)]
['e', 'f']
>>> rename_f = lambda n: replace(n, relation="g") if isinstance(n, Scan) and n.relation == "f" else n
>>> print(transform(plan, rename_f))
Project[c0=X]
  Join[Y]
    Scan e(X, Y) gen[0:)
    Scan g(Y, Z) gen[0:)
"""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Callable, Iterator

from deltalog.plan.ir import Node

__all__ = ["replace", "transform", "walk"]


def walk(node: Node) -> Iterator[Node]:
    """Every node of the tree, parents before children, left to right."""
    yield node
    for child in node.children():
        yield from walk(child)


def transform(node: Node, rewrite: Callable[[Node], Node]) -> Node:
    """The tree rewritten bottom-up: ``rewrite`` sees each node with its children already rewritten.
    Subtrees it leaves alone are returned as they were (the same objects)."""
    changes: dict[str, Node | tuple[Node, ...]] = {}
    for f in fields(node):
        value = getattr(node, f.name)
        if isinstance(value, Node):
            new = transform(value, rewrite)
            if new is not value:
                changes[f.name] = new
        elif isinstance(value, tuple) and value and all(isinstance(v, Node) for v in value):
            new_children = tuple(transform(v, rewrite) for v in value)
            if any(n is not v for n, v in zip(new_children, value)):
                changes[f.name] = new_children
    return rewrite(replace(node, **changes) if changes else node)
