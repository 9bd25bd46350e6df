"""Small strata on the driver: copy a stratum's inputs into an embedded backend, materialise it there, copy back.

A Spark round costs about a second whatever its size, so a deep recursion over little data
(a chain of 2,000 edges: 2,000 rounds) is hopeless on Spark and instant in-process. Before
each stratum the seminaive materialisation asks this policy; when the relations the
stratum's rules read (and its own predicates) hold few enough rows, the stratum runs on a
LocalBackend and only its new facts travel back: one transfer instead of one Spark job per
round. It moves data only through the Protocol's exact interchange (``export_rows`` /
``import_rows``, tagged text), so any pair of backends works and neither knows of strata.

>>> OffloadPolicy(max_rows=10).max_rows
10
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

from deltalog.reasoning.context import Reasoning, StratumStats
from deltalog.backends.base import Backend, Offloading, embedded_backend
from deltalog.analysis.program import Stratum, split_body
from deltalog.modules.base import Module
from deltalog.modules.closure import ClosureModule

DEFAULT_MAX_ROWS = 2_000_000


def read_predicates(stratum: Stratum) -> set[str]:
    """Every predicate a stratum's rules read (positive, negated, inside aggregates) and its own."""
    found = set(stratum.predicates)
    for info in stratum.rules:
        found |= {a.predicate for a in info.positive + info.negative}
        for aggregate in info.aggregates:
            positive, negative, *_ = split_body(aggregate.body)
            found |= {a.predicate for a in list(positive) + list(negative)}
    return found


@dataclass
class OffloadPolicy:
    """Run a stratum on an embedded backend when its inputs hold at most ``max_rows`` rows in total
    (only for backends with the ``Offloading`` capability: rounds elsewhere cost nothing fixed)."""

    max_rows: int = DEFAULT_MAX_ROWS
    offloaded: list[int] = field(default_factory=list)   # strata run on the driver
    rows_in: int = 0                                     # rows copied to the driver
    rows_out: int = 0                                    # new facts copied back
    embedded: Callable[[], Backend] = embedded_backend   # makes the backend a stratum runs on
    closures_stay: bool = True   # strata that closure modules evaluate whole stay: the backend runs their closure
    #                              nodes on the driver or its executors by the result's size (docs/spark.md, Closures)

    def __call__(self, reasoning: Reasoning, stratum: Stratum, modules: Sequence[Module]) -> StratumStats | None:
        """Materialise the stratum on the driver and return its statistics, or None to leave it to the backend."""
        if self.closures_stay and modules and all(isinstance(m, ClosureModule) for m in modules):
            return None
        inputs = sorted(p for p in read_predicates(stratum) if p in reasoning.backend.relations())
        if not self.wants(reasoning, inputs):
            return None
        return self.run(reasoning, stratum, modules, inputs)

    def wants(self, reasoning: Reasoning, inputs: list[str]) -> bool:
        if not isinstance(reasoning.backend, Offloading) or self.max_rows <= 0:
            return False
        return sum(reasoning.backend.count(relation=p) for p in inputs) <= self.max_rows

    def run(self, reasoning: Reasoning, stratum: Stratum, modules: Sequence[Module], inputs: list[str]) -> StratumStats:
        from deltalog.algorithms.seminaive import materialise_stratum
        started = time.perf_counter()
        remote, local = reasoning.backend, self.embedded()
        arities = remote.relations()
        for predicate in inputs:
            local.create_relation(relation=predicate, arity=arities[predicate])
            self.rows_in += local.import_rows(relation=predicate, table=remote.export_rows(relation=predicate),
                                              generation=0)
        first = reasoning.tick()
        here = Reasoning(reasoning.program, local, generation=first, stats=reasoning.stats,
                         collect_metrics=reasoning.collect_metrics, arities=dict(reasoning.arities),
                         budget=reasoning.budget, on_round=reasoning.on_round,
                         planner=reasoning.planner, planners=reasoning.planners)
        stats = materialise_stratum(here, stratum, modules)
        reasoning.generation = here.tick()
        for predicate in sorted(stratum.predicates):
            new = local.export_rows(relation=predicate, since=first)
            self.rows_out += remote.import_rows(relation=predicate, table=new, generation=reasoning.generation)
        self.offloaded.append(stratum.index)
        stats.seconds = time.perf_counter() - started
        return stats


def default_policy(backend) -> OffloadPolicy | None:
    """The policy for a backend: for an ``Offloading`` one, ``max_rows`` from DELTALOG_OFFLOAD_ROWS (0: off);
    none for the others (in-process rounds cost nothing fixed)."""
    if not isinstance(backend, Offloading):
        return None
    rows = int(os.environ.get("DELTALOG_OFFLOAD_ROWS", DEFAULT_MAX_ROWS))
    return OffloadPolicy(rows) if rows > 0 else None
