"""``ir.Witnessed`` on the local backend: a left-deep pipeline run only until each leaf row's first witness.

Rederivation (001 Algorithm 4, REDERIVE) asks of every overdeleted fact whether *some* rule
instance still derives it: the head is bound to the candidates (the leaf of the plan's left
spine) and the body is a pipeline of joins over it. Enumerating the whole join is wasteful when
a candidate has hundreds of instances (``p30(X, Z) :- p22(X, Y), p21(Y, Z)`` with ~400 ``Y`` per
``(X, Z)``): one is enough. ``Probe.any_alive`` (storage/probe.py) stops early for one atom; this
module does it for a body of several atoms.

The spine is cut into steps. Row-wise steps (Filter, Bind, Project, SemiJoin, AntiJoin) map a
frame to a frame. A Join step expands each row's matches by *rank windows* (``Probe.expand_ranks``,
newest rows first): its first match, the next 4, the next 16, then all the rest; each window's rows
go through the next steps at once (vectorised), and before the next window the rows whose leaf
row has found a witness are dropped. A candidate with an early witness costs a few matches per
join; one without any (a fact that really goes) costs its full join, as before, in a few passes.
Every frame carries ``ROW``, the position of its leaf row, which is how witnesses are recorded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterator

import numpy as np

from deltalog.plan import ir
from deltalog.storage.probe import Probe
from deltalog.backends.local.execute import (
    Context,
    Lookup,
    bind_frame,
    filter_frame,
    lookup_for,
    matched_rows,
    project_frame,
    slices_by_output,
    stream,
)
from deltalog.backends.local import compose
from deltalog.backends.local.exists import exists_check
from deltalog.backends.local.frame import Frame

ROW = "#witness"   # the column holding each row's leaf row (not a variable name: '#' never starts one)
POSITION = "#position"   # a row's position in the frame a join expands (``Search.possible``)
GROWTH = 4
WINDOWS = 3
"""A Join expands ranks [0, 1), [1, 5), [5, 21), then the rest of each undecided row's matches (all at
once when its rows have at most ``ONE_WINDOW`` matches on average: windows would save little)."""
ONE_WINDOW = 4

Step = Callable[[Frame], Frame]
SPINE = (ir.Join, ir.SemiJoin, ir.AntiJoin, ir.Filter, ir.Bind, ir.Project)


@dataclass
class JoinStep:
    """A Join of the spine: its right side indexed once for every window of every frame. ``needed``: checks
    that a row must pass to have any witness (``necessary_checks``), run before its last window."""

    node: ir.Join
    lookup: Lookup
    needed: list[Step] = field(default_factory=list)


def left_spine(node: ir.Node) -> tuple[list[ir.Node], ir.Node]:
    """The spine's nodes bottom-up, and the leaf under them (any other node is a leaf: it is streamed)."""
    spine: list[ir.Node] = []
    while isinstance(node, SPINE):
        spine.append(node)
        node = node.left if isinstance(node, (ir.Join, ir.SemiJoin, ir.AntiJoin)) else node.input
    return spine[::-1], node


def compile_step(node: ir.Node, ctx: Context) -> Step | JoinStep:
    """One spine node as a step over frames that carry ``ROW``."""
    if isinstance(node, ir.Join):
        return JoinStep(node, lookup_for(node.right, node.on, ctx))
    if isinstance(node, ir.Filter):
        return lambda frame: filter_frame(node, frame, ctx)
    if isinstance(node, ir.Bind):
        return lambda frame: bind_frame(node, frame, ctx)
    if isinstance(node, ir.Project):
        return lambda frame: project_keeping_row(node, frame, ctx)
    assert isinstance(node, (ir.SemiJoin, ir.AntiJoin))
    check, keep = exists_check(node, ctx), isinstance(node, ir.SemiJoin)
    return lambda frame: frame.take(check(frame) == keep)


def necessary_checks(spine: list[ir.Node], level: int, columns: tuple[str, ...], ctx: Context) -> list[Step]:
    """For the rows entering the Join at ``level`` (with ``columns``): the later semi-joins and joins against
    a stored relation, as existence checks on the columns those rows already bind. A row without such a
    match has no witness, however many matches of this join it has: rederivation candidates that really
    go (RS2's p25(a, Z) once node a lost every p11 fact) are dropped before the last window expands all
    their matches. A Project renames columns: checks stop at the first."""
    checks: list[Step] = []
    for node in spine[level + 1:]:
        if isinstance(node, ir.Project):
            break
        bound = tuple(c for c in getattr(node, "on", ()) if c in columns)
        if isinstance(node, (ir.SemiJoin, ir.Join)) and isinstance(node.right, ir.Scan) and bound:
            checks.append(keeping(exists_check(ir.SemiJoin(node.left, node.right, bound), ctx)))
    return checks


def keeping(check: Callable[[Frame], np.ndarray]) -> Step:
    return lambda frame: frame.take(check(frame))


def project_keeping_row(node: ir.Project, frame: Frame, ctx: Context) -> Frame:
    """The projection's columns, and ``ROW``; its rows count as the label's (the rule's instances)."""
    projected = project_frame(node, frame, ctx)
    return Frame({**projected.columns, ROW: frame.columns[ROW]}, projected.length)


@stream.register
def _witnessed(node: ir.Witnessed, ctx: Context) -> Iterator[Frame]:
    spine, _ = left_spine(node.input)
    if not any(isinstance(n, ir.Join) for n in spine):
        # each leaf row gives at most one output row: the plan itself is the search (DRed's check of
        # ``p(X) :- q(X)``, a semi-join of the candidates; ~60 of the ~80 checks a 1,000-fact
        # LUBM-like deletion makes, ~150 profile events each for the steps, tags and bookkeeping)
        return stream(node.input, ctx)
    if (chain := compose.witness_chain(node, ctx)) is not None:   # a dense two-atom chain: bitsets
        return compose.witnessed(chain, ctx, lambda: _search(node, ctx))
    return _search(node, ctx)


def _search(node: ir.Witnessed, ctx: Context) -> Iterator[Frame]:
    spine, leaf = left_spine(node.input)
    steps = [compile_step(n, ctx) for n in spine]
    for level, step in enumerate(steps):
        if isinstance(step, JoinStep):
            step.needed = necessary_checks(spine, level, step.node.left.columns, ctx)
    for frame in stream(leaf, ctx):
        if frame.length:
            tagged = Frame({**frame.columns, ROW: np.arange(frame.length)}, frame.length)
            yield from Search(steps, ctx, frame.length, node.columns).run(0, tagged)


class Search:
    """The witnesses of one leaf frame: ``found[i]`` once leaf row i has produced an output row."""

    def __init__(self, steps: list[Step | JoinStep], ctx: Context, rows: int, columns: tuple[str, ...]) -> None:
        self.steps, self.ctx, self.columns = steps, ctx, columns
        self.found = np.zeros(rows, bool)

    def undecided(self, frame: Frame) -> Frame:
        pending = ~self.found[frame.columns[ROW]]
        return frame if pending.all() else frame.take(pending)

    def run(self, level: int, frame: Frame) -> Iterator[Frame]:
        """Output rows (one per newly witnessed leaf row) from ``frame``, the input of step ``level``."""
        frame = self.undecided(frame)
        while frame.length and level < len(self.steps):
            step = self.steps[level]
            if isinstance(step, JoinStep):
                yield from self.expand(level, step, frame)
                return
            frame, level = step(frame), level + 1
        if frame.length:
            yield self.emit(frame)

    def emit(self, frame: Frame) -> Frame:
        """The first output row of each leaf row not witnessed yet; they are witnessed now."""
        leaf = frame.columns[ROW]
        _, first = np.unique(leaf, return_index=True)
        self.found[leaf[first]] = True
        return frame.take(first).select(self.columns)

    def expand(self, level: int, step: JoinStep, frame: Frame) -> Iterator[Frame]:
        """Join ``frame`` by rank windows, running the later steps on each window before the next."""
        probe = step.lookup.probe(frame, self.ctx)
        counts, leaf = probe.counts, frame.columns[ROW]
        live = np.flatnonzero(counts > 0)
        start, width = 0, 1
        few = int(counts.sum()) <= ONE_WINDOW * live.size
        for window in range(WINDOWS + 1):
            stop = start + width if window < WINDOWS and not few else int(counts.max(initial=0))
            if window and step.needed and stop == int(counts.max(initial=0)):   # all the rest: prune first
                live = self.possible(step, frame, live)
            for lo, hi in slices_by_output(np.minimum(counts[live] - start, stop - start), self.ctx.chunk_rows):
                rows = live[lo:hi][~self.found[leaf[live[lo:hi]]]]
                if rows.size:
                    yield from self.run(level + 1, self.joined(step, frame, probe, rows, start, stop))
            start, width = stop, width * GROWTH
            live = live[(counts[live] > start) & ~self.found[leaf[live]]]
            if not live.size:
                return

    def possible(self, step: JoinStep, frame: Frame, live: np.ndarray) -> np.ndarray:
        """The rows of ``live`` (positions in ``frame``) that pass the join's necessary checks."""
        rows = Frame({**frame.take(live).columns, POSITION: live}, live.size)
        for check in step.needed:
            rows = check(rows)
        return rows.columns[POSITION]

    def joined(self, step: JoinStep, frame: Frame, probe: Probe, rows: np.ndarray, start: int, stop: int) -> Frame:
        """The join's output for the matches ranked ``start``..``stop`` of the given frame rows."""
        probe_idx, matched = probe.expand_ranks(rows, start, stop)
        right, keep = matched_rows(step.lookup, frame, matched, probe_idx, self.ctx, set(step.node.columns))
        if not keep.all():
            probe_idx, right = probe_idx[keep], {n: c[keep] for n, c in right.items()}
        columns = {n: frame.columns[n][probe_idx] if n in frame.columns else right[n] for n in step.node.columns}
        columns[ROW] = frame.columns[ROW][probe_idx]
        self.ctx.count(step.node.label, probe_idx.size)
        return Frame(columns, probe_idx.size)
