"""Rule plans built once per rule variant and reused across rounds and updates (issue 15).

A seminaive round or a maintenance phase plans the same rule variants again and again, with
views whose generation numbers differ and nothing else: round k reads the delta ``[a, a+1)``
and the old facts ``[0, a)``, round k+1 ``[b, b+1)`` and ``[0, b)``. So a variant is keyed by its
*shape*: the views with every generation (a positive int) replaced by the order of its first
appearance, 0 and None kept as they are. A plan found for a shape is reused with the generations
of the new call substituted in its scans, which is exact: a planner's choices depend on the
generations only through the statistics it asked for.

Those statistics are remembered with the plan (every ``rows`` answer) and asked again, in the new
generations, on reuse: if one moved by more than a factor of ``DRIFT`` the variant is planned
afresh, unless it stayed under ``SMALL_ROWS`` (a join order over so few rows costs its fixed
overhead whichever it is, and an update's small deltas jump between, say, 130 and 370 rows from
one round or update to the next, which made a 1,000-fact LUBM-like deletion plan ~15 variants
afresh each time, ~200 us each). ``distinct`` answers are not asked again (they move with the relation sizes, which the
``rows`` answers of full views follow).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field, fields
from functools import partial
from typing import Any, Callable, Hashable, Sequence

from deltalog.plan import ir
from deltalog.plan.query import FULL, View, Window

DRIFT = 2.0
"""A remembered row count may move by this factor (either way) before the plan is redone."""
SMALL_ROWS = 512
"""Row counts below this are all alike for the drift check (see above)."""
MAX_ENTRIES = 4096
"""Variants kept per reasoning (a bound, never reached by one program's rules)."""

RowsQuery = tuple[str, int, "int | None", "int | None", "tuple[int, int | None] | None"]


@dataclass
class Entry:
    owner: tuple                    # the rule and planner it was made for (compared by identity)
    generations: tuple[int, ...]    # the generations of the call that planned it, in shape order
    plan: ir.Node
    asked: list[tuple[RowsQuery, int]]
    template: Builder | None = None   # the plan for other generations, made at the first reuse


@dataclass
class PlanCache:
    """Plans per rule variant shape, for one reasoning (``Reasoning.plan_cache``)."""

    entries: dict[Hashable, Entry] = field(default_factory=dict)
    hits: int = 0
    misses: int = 0

    def plan(self, stats: Any, owner: tuple, views: Sequence[Sequence[View | Window] | View | None],
             options: tuple, build: Callable[[Any], ir.Node]) -> ir.Node:
        """``build(stats)`` once per shape of (owner, views, options); afterwards its plan in these views
        (``views``: the call's views in groups, see ``shape_of``)."""
        shape, generations = shape_of(views)
        key = (tuple(map(id, owner)), shape, options)
        entry = self.entries.get(key)
        if entry is not None and all(map(operator.is_, entry.owner, owner)):   # C loops: a hit is ~100 per update
            mapping = dict(zip(entry.generations, generations))
            if still_valid(stats, entry.asked, mapping):
                self.hits += 1
                if entry.generations == generations:
                    return entry.plan
                if entry.template is None:
                    entry.template = template(entry.plan, frozenset(entry.generations)) or (lambda m: entry.plan)
                return entry.template(mapping)
        self.misses += 1
        recorder = Recorder(stats)
        plan = build(recorder)
        if len(self.entries) >= MAX_ENTRIES:
            self.entries.clear()
        self.entries[key] = Entry(owner, generations, plan, recorder.asked)
        return plan


def shape_of(groups: Sequence[Sequence[View | Window] | View | None]) -> tuple[tuple, tuple[int, ...]]:
    """Every view of a call (groups of views or windows, a missing view as None), with each generation
    (a positive int) renamed 1, 2, ... by first appearance; and the generations in that order.
    Literal values (None, 0, negatives) stay, so they never collide with a renamed one."""
    order: dict[int, int] = {}

    def symbol(value: int | None) -> int | None:
        return value if value is None or value <= 0 else order.setdefault(value, len(order) + 1)

    shape: list[Hashable] = []
    for group in groups:
        for v in (group,) if group is None or isinstance(group, View) else group:
            if v is None or v is FULL:
                shape.append(None)
            elif isinstance(v, tuple):   # a plain (since, until) window
                shape.append((symbol(v[0]), symbol(v[1])))
            else:
                deleted = v.deleted if v.deleted is None else (symbol(v.deleted[0]), symbol(v.deleted[1]))
                shape.append((symbol(v.since), symbol(v.until), symbol(v.visible), deleted, v.relation))
    return tuple(shape), tuple(order)


def still_valid(stats: Any, asked: list[tuple[RowsQuery, int]], mapping: dict[int, int]) -> bool:
    """Every remembered row count, asked again in the new generations, within DRIFT of its old answer
    (or both under SMALL_ROWS)."""
    get = mapping.get
    for (relation, since, until, visible, deleted), before in asked:
        if deleted is not None:
            deleted = (get(deleted[0], deleted[0]), None if deleted[1] is None else get(deleted[1], deleted[1]))
        now = stats.rows(relation, get(since, since), None if until is None else get(until, until),
                         None if visible is None else get(visible, visible), deleted)
        now, before = max(now, SMALL_ROWS), max(before, SMALL_ROWS)
        if now > DRIFT * before or before > DRIFT * now:
            return False
    return True


Builder = Callable[[dict[int, int]], ir.Node]


def template(node: ir.Node, generations: frozenset[int]) -> Builder | None:
    """A function rebuilding ``node`` for other generations: only the nodes above a scan that reads one
    of ``generations`` are copied, the rest is shared (None: nothing to rebuild). Built once per plan,
    it costs a few attribute copies per reuse where a generic tree rewrite costs as much as planning."""
    if isinstance(node, ir.Scan):
        deleted = node.deleted or (None, None)
        if not generations & {node.since, node.until, node.visible, *deleted}:
            return None
        return partial(retimed, node)
    parts: list[tuple[str, Builder]] = []
    for f in fields(node):
        value = getattr(node, f.name)
        if isinstance(value, ir.Node):
            if (child := template(value, generations)) is not None:
                parts.append((f.name, child))
        elif isinstance(value, tuple) and value and all(isinstance(v, ir.Node) for v in value):
            children = [template(v, generations) for v in value]
            if any(c is not None for c in children):
                parts.append((f.name, partial(rebuilt_tuple, value, children)))
    return partial(rebuilt, node, parts) if parts else None


def clone(node: ir.Node, changes: dict[str, Any]) -> ir.Node:
    """A copy of a frozen node with some fields changed (no ``__init__``: the fields are valid already;
    one dict display: a cache hit copies ~4 nodes, and two ``update`` calls cost more)."""
    new = object.__new__(type(node))
    object.__setattr__(new, "__dict__", {**node.__dict__, **changes})   # frozen: no plain assignment
    return new


def retimed(scan: ir.Scan, mapping: dict[int, int]) -> ir.Node:
    """The scan in the new generations (``mapping``; None and unmapped values stay)."""
    get = mapping.get
    since, until, visible, deleted = scan.since, scan.until, scan.visible, scan.deleted
    return clone(scan, {"since": get(since, since), "until": until if until is None else get(until, until),
                        "visible": visible if visible is None else get(visible, visible),
                        "deleted": deleted if deleted is None else
                        (get(deleted[0], deleted[0]), None if deleted[1] is None else get(deleted[1], deleted[1]))})


def rebuilt(node: ir.Node, parts: list[tuple[str, Builder]], mapping: dict[int, int]) -> ir.Node:
    return clone(node, {name: build(mapping) for name, build in parts})


def rebuilt_tuple(values: tuple[ir.Node, ...], builders: list[Builder | None], mapping: dict[int, int]):
    return tuple(v if b is None else b(mapping) for v, b in zip(values, builders))


class Recorder:
    """The statistics a planner sees, remembering every ``rows`` answer; anything else is the reasoning's."""

    def __init__(self, stats: Any) -> None:
        self._stats = stats
        self.asked: list[tuple[RowsQuery, int]] = []

    def rows(self, relation: str, since: int, until: int | None, visible: int | None = None,
             deleted: tuple[int, int | None] | None = None) -> int:
        answer = self._stats.rows(relation, since, until, visible, deleted)
        self.asked.append(((relation, since, until, visible, deleted), answer))
        return answer

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stats, name)
