"""Uniform and random-walk samples of explicit facts (001 section 10.1), stable in the sample size."""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np
import polars as pl

STALE_STEPS = 50
"""Random walk: steps in a row that find no new fact before the walk restarts at a random fact."""


@dataclass
class FactTable:
    """All explicit facts of a dataset numbered 0..n-1 (predicates in sorted order, rows in order)."""

    facts: dict[str, pl.DataFrame]

    def __post_init__(self) -> None:
        self.predicates = sorted(self.facts)
        sizes = [self.facts[p].height for p in self.predicates]
        self.starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self._graph: tuple | None = None

    @property
    def size(self) -> int:
        return int(self.starts[-1])

    def split(self, indices: np.ndarray) -> dict[str, np.ndarray]:
        """Global fact numbers -> row numbers per predicate."""
        out = {}
        for i, p in enumerate(self.predicates):
            rows = indices[(indices >= self.starts[i]) & (indices < self.starts[i + 1])] - self.starts[i]
            if rows.size:
                out[p] = np.sort(rows)
        return out

    def rows(self, indices: np.ndarray) -> dict[str, pl.DataFrame]:
        """The facts with these numbers, per predicate."""
        return {p: self.facts[p][rows] for p, rows in self.split(indices).items()}

    def without(self, indices: np.ndarray) -> dict[str, pl.DataFrame]:
        """Every explicit fact except these, per predicate."""
        dropped = self.split(indices)
        out = {}
        for p in self.predicates:
            keep = np.ones(self.facts[p].height, dtype=bool)
            keep[dropped.get(p, np.empty(0, dtype=np.int64))] = False
            out[p] = self.facts[p].filter(pl.Series(keep))
        return out

    def graph(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Facts as a graph through shared constants: (fact -> constants) and (constant -> facts) in CSR form."""
        if self._graph is None:
            self._graph = constant_graph(self)
        return self._graph


def constant_ids(table: FactTable) -> tuple[np.ndarray, np.ndarray]:
    """(fact number, constant id) for every cell; equal values (compared as text) share an id."""
    facts, values = [], []
    for i, p in enumerate(table.predicates):
        df = table.facts[p]
        numbers = np.arange(table.starts[i], table.starts[i + 1], dtype=np.int64)
        for column in df.columns:
            facts.append(numbers)
            values.append(df[column].cast(pl.Utf8))
    ids = pl.concat(values).cast(pl.Categorical).to_physical().to_numpy().astype(np.int64)
    return np.concatenate(facts), ids


def csr(keys: np.ndarray, values: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Row pointers and values of the mapping key -> values, keys in 0..n-1."""
    order = np.argsort(keys, kind="stable")
    pointers = np.concatenate([[0], np.cumsum(np.bincount(keys, minlength=n))]).astype(np.int64)
    return pointers, values[order]


def constant_graph(table: FactTable):
    fact, const = constant_ids(table)
    fact_ptr, fact_consts = csr(fact, const, table.size)
    const_ptr, const_facts = csr(const, fact, int(const.max()) + 1)
    return fact_ptr, fact_consts, const_ptr, const_facts


def uniform(table: FactTable, k: int, seed: int) -> np.ndarray:
    """k fact numbers without replacement; the first k of one seeded permutation (so nested in k)."""
    return np.random.default_rng(seed).permutation(table.size)[:k]


def random_walk(table: FactTable, k: int, seed: int) -> np.ndarray:
    """k fact numbers met by a random walk that moves to a fact sharing a constant with the current one,
    restarting at a random fact after STALE_STEPS steps without a new fact (nested in k)."""
    fact_ptr, fact_consts, const_ptr, const_facts = table.graph()
    rng = random.Random(seed)
    chosen: dict[int, None] = {}
    current, stale = rng.randrange(table.size), 0
    chosen[current] = None
    while len(chosen) < min(k, table.size):
        if stale >= STALE_STEPS:
            current, stale = restart(rng, table.size, chosen), 0
            chosen[current] = None
            continue
        current = step(rng, current, fact_ptr, fact_consts, const_ptr, const_facts)
        stale = stale + 1 if current in chosen else 0
        chosen[current] = None
    return np.fromiter(chosen, dtype=np.int64, count=len(chosen))[:k]


def step(rng: random.Random, fact: int, fact_ptr, fact_consts, const_ptr, const_facts) -> int:
    """A uniformly chosen constant of the fact, then a uniformly chosen fact containing it."""
    c = int(fact_consts[fact_ptr[fact] + rng.randrange(int(fact_ptr[fact + 1] - fact_ptr[fact]))])
    return int(const_facts[const_ptr[c] + rng.randrange(int(const_ptr[c + 1] - const_ptr[c]))])


def restart(rng: random.Random, n: int, chosen: dict[int, None]) -> int:
    """A random fact not chosen yet."""
    while True:
        fact = rng.randrange(n)
        if fact not in chosen:
            return fact


SAMPLERS = {"uniform": uniform, "walk": random_walk}
