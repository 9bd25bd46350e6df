"""The local executor: each plan node becomes a stream of bounded frames, one small function per node.

Joins, semi-joins and anti-joins against a stored relation probe that relation's keyed view
(its persistent index, for the ``rows`` representation); the streaming (left) side is cut so
that no frame exceeds ``CHUNK_ROWS`` rows, which keeps memory flat and the numpy work
cache-friendly. Stored relations are read only through the interface of storage/stored.py
(views, keyed views, membership), never by row range, so any representation plugs in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain
from typing import Iterable, Iterator, MutableMapping

import numpy as np

from deltalog.plan import ir
from deltalog.storage.dictionary import Dictionary
from deltalog.storage.stored import KeyedView, StoredRelation
from deltalog.backends.local.frame import Frame, concat_frames
from deltalog.backends.local.expressions import condition_mask, evaluate
from deltalog.backends.local.decoded import encode_vals
from deltalog.backends.local.aggregate import aggregate_frame, distinct_frame
from deltalog.backends.local.dispatch import NodeDispatch

CHUNK_ROWS = 1 << 18


@dataclass
class Context:
    """What execution needs: the stored relations, the dictionary and a metrics sink."""

    relations: dict[str, StoredRelation]
    dictionary: Dictionary
    metrics: MutableMapping[str, int] | None = None
    chunk_rows: int = CHUNK_ROWS
    writing: str | None = None   # the relation the running statement inserts into or deletes from
    _constants: dict = field(default_factory=dict)
    # a Distinct node's hash -> [(node, its rows)], for plans that share one (see ``_distinct``)
    _distinct: dict = field(default_factory=dict)
    set_projects: frozenset[int] = frozenset()   # ids of Projects whose duplicates may go (compose.set_projects)

    def constant_id(self, lit: ir.Lit, *, create: bool = False) -> int:
        """The id of a constant (-1 if unknown and not created: it then matches nothing)."""
        key = (lit.constant.kind, lit.constant.value, create)
        if key not in self._constants:
            c = lit.constant
            found = self.dictionary.encode_constant(c.kind, c.value) if create else \
                self.dictionary.lookup_constant(c.kind, c.value)
            self._constants[key] = -1 if found is None else found
        return self._constants[key]

    def count(self, label: str | None, rows: int) -> None:
        if label is not None and self.metrics is not None:
            self.metrics[label] = self.metrics.get(label, 0) + rows


def materialise(node: ir.Node, ctx: Context) -> Frame:
    """All rows of a plan as one frame."""
    return concat_frames(list(stream(node, ctx)), node.columns)


stream = NodeDispatch()


# ---- scans -----------------------------------------------------------------------------------

def match_terms(terms: tuple[ir.Term, ...], columns: list[np.ndarray], n: int, ctx: Context) -> Frame:
    """Rows of raw relation columns that match the scan terms, renamed to the term names."""
    keep: np.ndarray | None = None   # None: every row (most scans have no constant, no repeated variable)
    named: dict[str, np.ndarray] = {}
    for term, column in zip(terms, columns):
        if isinstance(term, ir.Lit):
            same = column == ctx.constant_id(term)
        elif term.name in named:
            same = column == named[term.name]
        else:
            named[term.name] = column
            continue
        keep = same if keep is None else keep & same
    frame = Frame(named, n)
    return frame if keep is None or keep.all() else frame.take(keep)


@stream.register
def _scan(node: ir.Scan, ctx: Context) -> Iterator[Frame]:
    for columns, n in ctx.relations[node.relation].scan(node, ctx.chunk_rows):   # a Scan is a view
        frame = match_terms(node.terms, columns, n, ctx)
        ctx.count(node.label, frame.length)
        yield frame


@stream.register
def _values(node: ir.Values, ctx: Context) -> Iterator[Frame]:
    columns = {name: np.array([ctx.constant_id(ir.Lit(row[i]), create=True) for row in node.rows], np.int64)
               for i, name in enumerate(node.names)}
    yield Frame(columns, len(node.rows))


# ---- index lookups -----------------------------------------------------------------------------

@dataclass
class Lookup:
    """An indexed side of a join: a keyed view of the right side, and how probe rows give its keys."""

    keyed: KeyedView
    key_sources: list[ir.Term]   # per key position: the probe column (Col) or a constant (Lit)
    positions: tuple[int, ...]   # the right-side positions the keyed view keys on
    terms: tuple[ir.Term, ...]

    def probe(self, frame: Frame, ctx: Context):
        keys = [frame.columns[t.name] if isinstance(t, ir.Col) else
                np.full(frame.length, ctx.constant_id(t), np.int64) for t in self.key_sources]
        return self.keyed.probe(keys, frame.length)


def lookup_for(right: ir.Node, on: tuple[str, ...], ctx: Context) -> Lookup:
    """Index the right side of a join on the join columns (and the scan's constants)."""
    if isinstance(right, ir.Scan):
        positions = _key_positions(right.terms, on)
        keyed = ctx.relations[right.relation].keyed(right, positions)
        return Lookup(keyed, [right.terms[p] for p in positions], positions, right.terms)
    frame = materialise(right, ctx)
    terms = tuple(ir.Col(c) for c in right.columns)
    positions = tuple(right.columns.index(c) for c in on)
    keyed = KeyedView.over([frame.columns[c] for c in right.columns], positions, frame.length)
    return Lookup(keyed, [terms[p] for p in positions], positions, terms)


def _key_positions(terms: tuple[ir.Term, ...], on: tuple[str, ...]) -> tuple[int, ...]:
    """Positions keyed by a lookup: the first occurrence of each join column, and every constant."""
    positions, seen = [], set()
    for p, term in enumerate(terms):
        if isinstance(term, ir.Lit):
            positions.append(p)
        elif term.name in on and term.name not in seen:
            positions.append(p)
            seen.add(term.name)
    return tuple(positions)


def matched_rows(lookup: Lookup, frame: Frame, rows: np.ndarray, probe_idx: np.ndarray, ctx: Context,
                 wanted: set[str] | None = None):
    """Right-side columns of matched rows (those in ``wanted``), and a mask of the rows that really
    match: a position the exact index did not key on (a repeated name, or any position of a
    fingerprint index) is compared value by value."""
    alive = lookup.keyed.alive(rows)
    keep = np.ones(rows.size, bool) if alive is None else alive
    named: dict[str, np.ndarray] = {}
    keyed = set(lookup.positions) if lookup.keyed.exact else set()
    columns = lookup.keyed.columns
    for position, term in enumerate(lookup.terms):
        if position in keyed:
            continue
        if isinstance(term, ir.Lit):
            keep &= columns[position][rows] == ctx.constant_id(term)
        elif term.name in frame.columns:
            keep &= columns[position][rows] == frame.columns[term.name][probe_idx]
        elif term.name in named:
            keep &= columns[position][rows] == named[term.name]
        elif wanted is None or term.name in wanted or _repeated(lookup.terms, term.name):
            named[term.name] = columns[position][rows]
    return named, keep


def _repeated(terms: tuple[ir.Term, ...], name: str) -> bool:
    return sum(isinstance(t, ir.Col) and t.name == name for t in terms) > 1


# ---- joins -------------------------------------------------------------------------------------

def slices_by_output(counts: np.ndarray, limit: int) -> list[tuple[int, int]]:
    """Cut probe rows into consecutive slices whose matches add up to about ``limit``."""
    total = int(counts.sum())
    if total <= limit:
        return [(0, counts.size)] if total else []
    ends = np.cumsum(counts)
    cuts = ends.searchsorted(np.arange(limit, total, limit), "left") + 1
    # nondecreasing already: equal bounds give empty slices, dropped below (np.unique's first call
    # would import numpy.ma, ~20 ms of a run)
    bounds = np.concatenate([[0], np.minimum(cuts, counts.size), [counts.size]]).tolist()
    return [(a, b) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


@stream.register
def _join(node: ir.Join, ctx: Context) -> Iterator[Frame]:
    return join_frames(node, ctx, node.columns)


def join_frames(node: ir.Join, ctx: Context, wanted: tuple[str, ...]) -> Iterator[Frame]:
    """Stream the join, producing only the ``wanted`` columns (a projection above prunes the rest).
    The right side is indexed at the first left row: a small update's plans often start from an
    empty delta, and then no index is refreshed and no right side materialised."""
    left = nonempty(stream(node.left, ctx))
    first = next(left, None)
    if first is None:
        return iter(())
    return probe_join(node, lookup_for(node.right, node.on, ctx), chain((first,), left), ctx, wanted)


def nonempty(frames: Iterable[Frame]) -> Iterator[Frame]:
    """The frames that have rows (an empty one adds nothing to a join, semi- or anti-join)."""
    return (frame for frame in frames if frame.length)


def probe_join(node: ir.Join, lookup: Lookup, left: Iterable[Frame], ctx: Context,
               wanted: tuple[str, ...]) -> Iterator[Frame]:
    """The join of the ``left`` frames with the right side's ``lookup``, in frames of bounded size."""
    wanted_set = set(wanted)
    for frame in left:
        probe = lookup.probe(frame, ctx)
        for start, stop in slices_by_output(probe.counts, ctx.chunk_rows):
            probe_idx, rows = probe.expand(start, stop)
            right, keep = matched_rows(lookup, frame, rows, probe_idx, ctx, wanted_set)
            if not keep.all():
                probe_idx, right = probe_idx[keep], {n: c[keep] for n, c in right.items()}
            columns = {n: frame.columns[n][probe_idx] if n in frame.columns else right[n] for n in wanted}
            ctx.count(node.label, probe_idx.size)
            yield Frame(columns, probe_idx.size)


# ---- row-wise operators ------------------------------------------------------------------------

@stream.register
def _filter(node: ir.Filter, ctx: Context) -> Iterator[Frame]:
    for frame in stream(node.input, ctx):
        if frame.length:
            yield filter_frame(node, frame, ctx)


def filter_frame(node: ir.Filter, frame: Frame, ctx: Context) -> Frame:
    return frame.take(condition_mask(node.condition, frame, ctx.dictionary))


@stream.register
def _bind(node: ir.Bind, ctx: Context) -> Iterator[Frame]:
    for frame in stream(node.input, ctx):
        if frame.length:
            yield bind_frame(node, frame, ctx)


def bind_frame(node: ir.Bind, frame: Frame, ctx: Context) -> Frame:
    values = evaluate(node.expr, frame, ctx.dictionary)
    ids = encode_vals(values, ctx.dictionary)
    out = Frame({**frame.columns, node.column: ids}, frame.length)
    return out if values.valid.all() else out.take(values.valid)


@stream.register
def _project(node: ir.Project, ctx: Context) -> Iterator[Frame]:
    if id(node) in ctx.set_projects and (chain := compose.chain_of(node, ctx)) is not None:
        return compose.compose(chain, ctx)
    return _project_rows(node, ctx)


def _project_rows(node: ir.Project, ctx: Context) -> Iterator[Frame]:
    used = tuple(dict.fromkeys(t.name for _, t in node.outputs if isinstance(t, ir.Col)))
    source = join_frames(node.input, ctx, used) if isinstance(node.input, ir.Join) else stream(node.input, ctx)
    for frame in source:
        yield project_frame(node, frame, ctx)


def project_frame(node: ir.Project, frame: Frame, ctx: Context) -> Frame:
    """The projection's columns of a frame; its rows count as the node's label's."""
    columns = {name: frame.columns[t.name] if isinstance(t, ir.Col)
               else np.full(frame.length, ctx.constant_id(t, create=True), np.int64)
               for name, t in node.outputs}
    ctx.count(node.label, frame.length)
    return Frame(columns, frame.length)


@stream.register
def _union(node: ir.Union_, ctx: Context) -> Iterator[Frame]:
    for child in node.inputs:
        yield from stream(child, ctx)


@stream.register
def _distinct(node: ir.Distinct, ctx: Context) -> Iterator[Frame]:
    """A Distinct is materialised anyway; its rows are kept for the rest of the evaluation, so a
    subplan used twice (a node relation of plan/hypertree.py: seed, semi-join and join) runs once.
    A node's hash walks its whole subtree (frozen dataclasses keep no hash), so it is taken once: a dict
    keyed by the node took it twice, at the lookup and at the store (~700 of the ~1,450 node hashes of a
    1,000-fact LUBM-like deletion, whose Distincts are nearly all evaluated once)."""
    key = hash(node)
    shared = ctx._distinct.get(key)
    for other, rows in shared or ():
        if other is node or other == node:
            yield rows
            return
    found = distinct_frame(materialise(node.input, ctx))
    ctx._distinct.setdefault(key, []).append((node, found))
    yield found


@stream.register
def _aggregate(node: ir.Aggregate, ctx: Context) -> Iterator[Frame]:
    # aggregate_frame makes its input distinct itself, grouped by the same sort (min and max need no
    # distinct rows at all): the planner's Distinct below it would sort the rows a second time
    source = node.input.input if isinstance(node.input, ir.Distinct) else node.input
    rows = materialise(source, ctx)
    yield aggregate_frame(rows, node.group_by, node.function, node.argument, node.output, ctx.dictionary)


from deltalog.backends.local import exists  # noqa: E402,F401  (semi-joins, anti-joins, differences)
from deltalog.backends.local import witness  # noqa: E402,F401  (registers Witnessed: early-stop existence)
from deltalog.backends.local import compose  # noqa: E402  (two-atom chains inserted as sets, by bitsets)
from deltalog.backends.local import closure_nodes  # noqa: E402,F401  (registers 003's closure nodes)
