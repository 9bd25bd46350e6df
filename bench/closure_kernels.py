"""The local backend's closure kernels (src/deltalog/backends/local/closure.py), in-process.

For DAG-R (random_dag_edges(10000, 100000, 1), 22,214,305 pairs), a chain of 2,000 edges
(2,001,000 pairs) under TransitiveClosure and a 1,000-node cycle under ComponentPairs (10^6 pairs):
the kernel with each reachability strategy (all chunks consumed, none kept), the floor of writing
the output (np.empty + fill of the two int64 columns, in one piece and in the kernel's 2^18-pair
chunks), networkx, the kernel through ``LocalBackend.insert`` (into a stored relation), and the
kernel's peak traced memory. Median of ``--runs`` (3); networkx on DAG-R runs ``--nx-runs`` times
(it takes ~1-2 min).

    PYTHONPATH=src python bench/closure_kernels.py [--runs 3] [--nx-runs 1] [--skip-backend]
"""

from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc
from pathlib import Path
import sys
from typing import Callable

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generators import random_dag_edges  # noqa: E402

from deltalog.backends.local import closure  # noqa: E402
from deltalog.backends.local.backend import LocalBackend  # noqa: E402
from deltalog.backends.local.memory import small_pages  # noqa: E402
from deltalog.plan import ir  # noqa: E402


def median_time(f: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def drain(chunks) -> int:
    return sum(x.size for x, _ in chunks)


def write_once(n: int) -> None:
    x, y = np.empty(n, np.int64), np.empty(n, np.int64)
    x.fill(1)
    y.fill(2)


def write_chunked(n: int, chunk: int = closure.CHUNK_PAIRS) -> None:
    for start in range(0, n, chunk):
        write_once(min(chunk, n - start))


def peak_mb(f: Callable[[], object]) -> float:
    tracemalloc.start()
    f()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def through_backend(src: np.ndarray, dst: np.ndarray, node: type) -> int:
    backend = LocalBackend()
    backend.create_relation(relation="e", arity=2)
    backend.load(relation="e", table=pl.DataFrame({"a": src, "b": dst}), generation=0)
    backend.create_relation(relation="out", arity=2)
    return backend.insert(relation="out", plan=node(ir.Scan("e", (ir.Col("X"), ir.Col("Y")))), generation=1)


def networkx_time(name: str, src: np.ndarray, dst: np.ndarray, runs: int) -> tuple[float, int]:
    import networkx as nx
    edges = list(zip(src.tolist(), dst.tolist()))
    out = {}

    def run() -> None:
        if name == "components":
            g = nx.Graph(edges)
            out["n"] = sum(len(c) ** 2 for c in nx.connected_components(g))
        else:
            out["n"] = nx.transitive_closure_dag(nx.DiGraph(edges)).number_of_edges()
    return median_time(run, runs), out["n"]


def case(label: str, src: np.ndarray, dst: np.ndarray, kind: str, args) -> list[str]:
    rows = []
    if kind == "tc":
        kernels = {"bitset": lambda: drain(closure.transitive_closure(src, dst, method="bitset")),
                   "sparse": lambda: drain(closure.transitive_closure(src, dst, method="sparse"))}
        node: type = ir.TransitiveClosure
    else:
        kernels = {"cliques": lambda: drain(closure.component_pairs(src, dst))}
        node = ir.ComponentPairs
    pairs = next(iter(kernels.values()))()
    with small_pages():   # as in LocalBackend.insert
        for method, run in kernels.items():
            seconds = median_time(run, args.runs)
            rows.append(f"| {label} | kernel, {method} | {seconds:.3f} s | {peak_mb(run):.1f} MB |")
        once = median_time(lambda: write_once(pairs), args.runs)
        chunked = median_time(lambda: write_chunked(pairs), args.runs)
        rows.append(f"| {label} | write the output: one piece / 2^18-pair chunks | {once:.3f} / {chunked:.3f} s | "
                    f"{16 * pairs / 2**20:.0f} MB / {16 * closure.CHUNK_PAIRS / 2**20:.0f} MB |")
    if not args.skip_backend:
        seconds = median_time(lambda: through_backend(src, dst, node), args.runs)
        rows.append(f"| {label} | `LocalBackend.insert` of the node (kernel + stored relation) | {seconds:.3f} s | |")
    nx_runs = args.nx_runs if label.startswith("DAG-R") else args.runs
    if nx_runs:
        seconds, n = networkx_time("components" if kind == "cc" else "tc", src, dst, nx_runs)
        assert n == pairs, (n, pairs)
        what = "connected_components" if kind == "cc" else "transitive_closure_dag"
        rows.append(f"| {label} | networkx {what} (median of {nx_runs}) | {seconds:.3f} s | |")
    print(f"{label}: {pairs:,} pairs", flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--nx-runs", type=int, default=1, help="networkx runs on DAG-R (0: skip)")
    parser.add_argument("--skip-backend", action="store_true")
    parser.add_argument("--cases", default="dag-r,chain,cycle")
    args = parser.parse_args()
    drain(closure.transitive_closure(np.arange(3), np.arange(1, 4)))   # import scipy.sparse.csgraph once
    rows = ["| case | what | time | peak traced memory / output size |", "|---|---|---|---|"]
    cases = args.cases.split(",")
    if "dag-r" in cases:
        edges = random_dag_edges(10_000, 100_000, 1)
        rows += case("DAG-R TC", edges[:, 0].copy(), edges[:, 1].copy(), "tc", args)
    if "chain" in cases:
        chain = np.arange(2001, dtype=np.int64)
        rows += case("chain-2000 TC", chain[:-1], chain[1:], "tc", args)
    if "cycle" in cases:
        ring = np.arange(1000, dtype=np.int64)
        rows += case("cycle-1000 components", ring, np.roll(ring, -1), "cc", args)
    print("\n".join(rows))


if __name__ == "__main__":
    main()
