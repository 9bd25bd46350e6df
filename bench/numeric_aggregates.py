"""CPU time of the local sum / avg / median kernels on 1M values in 100k groups (ints; floats with three
decimals), medians of 7 runs: ``python bench/numeric_aggregates.py LABEL`` with PYTHONPATH at the tree to
measure; ``--materialise``: instead, materialising four aggregate rules (int sum and avg, float sum and
median) over those values, median of 3 (docs/benchmarks.md, Stop 18: exact numeric aggregates). The values
are fixed (seed 1) so that two trees see the same groups."""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

from deltalog.backends.local import aggregate
from deltalog.backends.local.decoded import make_floats, make_ints


PROGRAM = ("s(G, S) :- S = sum X : { e(G, X) }. a(G, S) :- S = avg X : { e(G, X) }. "
           "t(G, S) :- S = sum X : { h(G, X) }. m(G, S) :- S = median X : { h(G, X) }.")


def materialise(label: str) -> None:
    import polars as pl

    from deltalog.api import Reasoner
    rng = np.random.default_rng(1)
    n = 1_000_000
    groups, ints = rng.integers(0, 100_000, n), rng.integers(-10**6, 10**6, n)
    floats = np.round(rng.random(n) * 1000, 3)
    times = []
    for _ in range(3):
        reasoner = Reasoner(PROGRAM)
        reasoner.load("e", pl.DataFrame({"a": groups, "b": ints}))
        reasoner.load("h", pl.DataFrame({"a": groups, "b": floats}))
        start = time.process_time()
        reasoner.materialise()
        times.append(time.process_time() - start)
    print(f"{label}\tmaterialise\t{statistics.median(times):.3f} s")


def main() -> None:
    if "--materialise" in sys.argv:
        return materialise(sys.argv[1])
    rng = np.random.default_rng(1)
    n = 1_000_000
    groups = np.sort(rng.integers(0, 100_000, n))
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    counts = np.diff(np.r_[starts, n])
    ints = make_ints(rng.integers(-10**6, 10**6, n), np.ones(n, bool))
    floats = make_floats(np.round(rng.random(n) * 1000, 3), np.ones(n, bool))
    label = sys.argv[1] if len(sys.argv) > 1 else "tree"
    for name, values in (("int", ints), ("float", floats)):
        for function in ("sum", "avg", "median"):
            kernel = aggregate.AGGREGATES[function]
            times = []
            for _ in range(7):
                start = time.process_time()
                kernel(values, starts, counts)
                times.append(time.process_time() - start)
            print(f"{label}\t{function} {name}\t{statistics.median(times) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
