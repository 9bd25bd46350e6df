"""The local backend's evaluation of 003's closure nodes (plan/closure_nodes.py): each reads its input
plans into id columns and hands them to a kernel (``closure.py``, ``closure_diff.py``); registered on
``execute.stream`` like every other node."""

from __future__ import annotations

from typing import Iterator

import numpy as np

from deltalog.plan import ir
from deltalog.backends.local.closure import component_pairs, transitive_closure
from deltalog.backends.local.execute import Context, materialise, stream
from deltalog.backends.local.frame import Frame


def _closure_input(edges: ir.Node, restrict: ir.Node | None, ctx: Context):
    frame = materialise(edges, ctx)
    x, y = (frame.columns[c] for c in edges.columns)
    if restrict is None:
        return x, y, None
    (only,) = restrict.columns
    return x, y, materialise(restrict, ctx).columns[only]


def _pair_frames(node: ir.Node, pairs: Iterator[tuple[np.ndarray, np.ndarray]]) -> Iterator[Frame]:
    first, second = node.columns
    for x, y in pairs:
        yield Frame({first: x, second: y}, x.size)


@stream.register
def _transitive_closure(node: ir.TransitiveClosure, ctx: Context) -> Iterator[Frame]:
    x, y, sources = _closure_input(node.edges, node.sources, ctx)
    return _pair_frames(node, transitive_closure(x, y, sources, chunk=ctx.chunk_rows))


@stream.register
def _component_pairs(node: ir.ComponentPairs, ctx: Context) -> Iterator[Frame]:
    x, y, nodes = _closure_input(node.edges, node.nodes, ctx)
    return _pair_frames(node, component_pairs(x, y, nodes, chunk=ctx.chunk_rows))


def _graph_difference(node: ir.GraphDifference, ctx: Context, kernel) -> Iterator[Frame]:
    """A difference node's pairs by ``kernel(x, y, other_x, other_y, tails, chunk=...)``."""
    tails = None
    if node.changed is not None:
        tails = materialise(node.changed, ctx).columns[node.changed.columns[0]]
        if tails.size == 0:   # nothing changed: the graphs are not read
            return iter(())
    x, y, _ = _closure_input(node.edges, None, ctx)
    ox, oy, _ = _closure_input(node.other, None, ctx)
    return _pair_frames(node, kernel(x, y, ox, oy, tails, chunk=ctx.chunk_rows))


@stream.register
def _closure_difference(node: ir.ClosureDifference, ctx: Context) -> Iterator[Frame]:
    from deltalog.backends.local.closure_diff import closure_difference   # maintenance only (start-up time)
    return _graph_difference(node, ctx, closure_difference)


@stream.register
def _component_difference(node: ir.ComponentDifference, ctx: Context) -> Iterator[Frame]:
    from deltalog.backends.local.component_diff import component_difference   # maintenance only
    return _graph_difference(node, ctx, component_difference)


@stream.register
def _reaches(node: ir.Reaches, ctx: Context) -> Iterator[Frame]:
    from deltalog.backends.local.closure_diff import reaches   # maintenance only (start-up time)
    return _pairs_held(node, ctx, reaches)


@stream.register
def _connects(node: ir.Connects, ctx: Context) -> Iterator[Frame]:
    from deltalog.backends.local.component_diff import connects   # maintenance only (start-up time)
    return _pairs_held(node, ctx, connects)


def _pairs_held(node: ir.Reaches, ctx: Context, kernel) -> Iterator[Frame]:
    """The rows of ``node.pairs`` the kernel says the graph of ``node.edges`` joins."""
    pairs = materialise(node.pairs, ctx)
    if not pairs.length:
        return iter(())
    x, y, _ = _closure_input(node.edges, None, ctx)
    a, b = (pairs.columns[c] for c in node.pairs.columns)
    return iter((pairs.select(node.columns).take(kernel(x, y, a, b)),))
