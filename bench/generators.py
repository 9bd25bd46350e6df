"""Deterministic (seeded) generators for the benchmark cases under bench/data/<case>/."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import polars as pl

BENCH_DIR = Path(__file__).resolve().parent
DATA_DIR = BENCH_DIR / "data"
FORMAT_VERSION = 1

PROGRAMS = {
    "tc-linear": """\
path(X, Y) :- edge(X, Y).
path(X, Z) :- edge(X, Y), path(Y, Z).
""",
    "tc-nonlinear": """\
path(X, Y) :- edge(X, Y).
path(X, Z) :- path(X, Y), path(Y, Z).
""",
    "symtrans": """\
r(X, Y) :- e(X, Y).
r(X, Y) :- r(Y, X).
r(X, Z) :- r(X, Y), r(Y, Z).
""",
    "pc": """\
pc(X, Y) :- cw(X, Z1), ca(X, Z2), pc(Z1, Y), pc(Z2, Y).
""",
    "rs1": """\
hasNeighbour(X, Y) :- hasNeighbour(Y, X).
hasNeighbour(X, Y) :- hasNeighbour(X, Z), hasNeighbour(Z, Y), X != Y.
hasNeighbourAirTemperatureMeasurementNumber(X, Z) :- Z = count T : { hasNeighbour(X, Y), hasAirTemperatureMeasurement(Y, T) }.
hasMedianAirTemperatureMeasurementNearby(X, Z) :- Z = median T : { hasNeighbour(X, Y), hasAirTemperatureMeasurement(Y, T) }.
moreThan3Neighbours(X) :- hasNeighbourAirTemperatureMeasurementNumber(X, N), N >= 3.
sensorAnomalyWindTurbine(X) :- hasMedianAirTemperatureMeasurementNearby(X, M), moreThan3Neighbours(X), hasAirTemperatureMeasurement(X, T), D = abs(T - M), D > 5.
""",
    "rs2": """\
p11(X, Y) :- p1(X, Y).
p11(X, Y) :- p11(Y, X).
p11(X, Y) :- p11(X, Z), p11(Z, Y), X != Y.
p12(X, Y) :- p2(X, Y).
p12(X, Y) :- p12(X, Z), p12(Z, Y), X != Y.
p13(X, Y) :- p3(X, Y).
p14(X, Y) :- p13(X, Y).
p13(X, Y) :- p14(Y, X).
p20(X, Y) :- p11(X, Y).
p20(X, Y) :- p12(X, Y).
p20(X, Y) :- p13(X, Y).
p21(X, Y) :- p20(X, Y).
p22(X, Y) :- p21(X, Y).
p20(X, Y) :- p22(X, Y).
p25(X, Z) :- p11(X, Y), p12(Y, Z), not p5(Y, Z).
p26(X, Z) :- p12(X, Y), p13(Z, Y), not p5(Z, Y).
p30(X, Z) :- p22(X, Y), p21(Y, Z).
p31(X, Y) :- p25(X, Y), p26(Y, Z).
""",
}

RS1_PREDS = [
    "hasNeighbour",
    "hasNeighbourAirTemperatureMeasurementNumber",
    "hasMedianAirTemperatureMeasurementNearby",
    "moreThan3Neighbours",
    "sensorAnomalyWindTurbine",
]
RS2_PREDS = ["p11", "p12", "p13", "p14", "p20", "p21", "p22", "p25", "p26", "p30", "p31"]


@dataclass
class CaseData:
    """What a generator returns: the facts, the predicates to check and their reference counts."""

    family: str
    description: str
    facts: dict[str, pl.DataFrame]
    check: list[str]
    expected: dict[str, int]
    params: dict = field(default_factory=dict)


# ---------------------------------------------------------------- graph helpers


def random_dag_edges(n: int, m: int, seed: int) -> np.ndarray:
    """m distinct edges (i, j), i < j, from uniform random pairs of n nodes, in draw order."""
    rng = np.random.default_rng(seed)
    chosen = np.empty(0, dtype=np.int64)
    while chosen.size < m:
        a = rng.integers(0, n, size=2 * m, dtype=np.int64)
        b = rng.integers(0, n, size=2 * m, dtype=np.int64)
        keep = a != b
        keys = np.minimum(a, b)[keep] * n + np.maximum(a, b)[keep]
        keys = np.concatenate([chosen, keys])
        _, first = np.unique(keys, return_index=True)
        chosen = keys[np.sort(first)]
    chosen = chosen[:m]
    return np.stack([chosen // n, chosen % n], axis=1)


def dag_closure_size(n: int, edges: np.ndarray) -> int:
    """Number of (x, y) with a non-empty path x -> y in a DAG whose edges go from low to high ids."""
    succ: list[list[int]] = [[] for _ in range(n)]
    for x, y in edges.tolist():
        succ[x].append(y)
    reach = [0] * n
    total = 0
    for x in range(n - 1, -1, -1):
        bits = 0
        for y in succ[x]:
            bits |= reach[y] | (1 << y)
        reach[x] = bits
        total += bits.bit_count()
    return total


def bool_closure(adj: np.ndarray) -> np.ndarray:
    """Transitive closure (paths of length >= 1) of a boolean adjacency matrix by repeated squaring."""
    reach = adj.astype(bool)
    while True:
        step = reach | ((reach.astype(np.float32) @ reach.astype(np.float32)) > 0)
        if np.array_equal(step, reach):
            return reach
        reach = step


def pairs_frame(pairs: np.ndarray, prefix: str | None = None) -> pl.DataFrame:
    """Two-column frame from an (n, 2) int array, optionally turning ids into strings prefix<id>."""
    cols = [pairs[:, 0], pairs[:, 1]]
    if prefix is None:
        return pl.DataFrame({"c0": cols[0], "c1": cols[1]})
    return pl.DataFrame({f"c{i}": [f"{prefix}{v}" for v in c.tolist()] for i, c in enumerate(cols)})


# ---------------------------------------------------------------- case builders


def build_dag(n: int, m: int, seed: int, linear: bool) -> CaseData:
    """Random DAG transitive closure, linear or nonlinear rules."""
    edges = random_dag_edges(n, m, seed)
    kind = "linear" if linear else "nonlinear"
    return CaseData(
        family=f"tc-{kind}",
        description=f"random DAG {n} nodes / {m} distinct edges i<j (seed {seed}), {kind} TC",
        facts={"edge": pairs_frame(edges)},
        check=["path"],
        expected={"path": dag_closure_size(n, edges)},
        params={"nodes": n, "edges": m, "seed": seed},
    )


def build_chain(n: int, linear: bool) -> CaseData:
    """Chain 0 -> 1 -> ... -> n (n edges), transitive closure."""
    i = np.arange(n, dtype=np.int64)
    kind = "linear" if linear else "nonlinear"
    return CaseData(
        family=f"tc-{kind}",
        description=f"chain of {n} edges i->i+1 ({n + 1} nodes), {kind} TC",
        facts={"edge": pairs_frame(np.stack([i, i + 1], axis=1))},
        check=["path"],
        expected={"path": (n + 1) * n // 2},
        params={"edges": n},
    )


def build_cycle(n: int) -> CaseData:
    """Directed cycle of n nodes closed under symmetry and transitivity (all n*n pairs)."""
    i = np.arange(n, dtype=np.int64)
    return CaseData(
        family="symtrans",
        description=f"cycle of {n} nodes, symmetric + transitive rules",
        facts={"e": pairs_frame(np.stack([i, (i + 1) % n], axis=1))},
        check=["r"],
        expected={"r": n * n},
        params={"nodes": n},
    )


def build_pc(n: int, k: int) -> CaseData:
    """The PossibleCollaborator rule and data of seed 000, section 3."""
    i = np.repeat(np.arange(n), k)
    j = np.tile(np.arange(1, k + 1), n)
    ij = (i * k + j).tolist()
    a = [f"a{v}" for v in i.tolist()]
    cw = pl.DataFrame({"c0": a + [f"a{n}"], "c1": [f"b{v}" for v in ij] + ["a2"]})
    ca = pl.DataFrame({"c0": a + [f"a{n}"], "c1": [f"c{v}" for v in ij] + ["a3"]})
    d = [f"d{v}" for v in j.tolist()]
    pc = pl.DataFrame({"c0": [f"b{v}" for v in ij] + [f"c{v}" for v in ij], "c1": d + d})
    return CaseData(
        family="pc",
        description=f"PC rule of seed 000 sec. 3, n={n}, k={k} (derives n*k+k facts)",
        facts={"cw": cw, "ca": ca, "pc": pc},
        check=["pc"],
        expected={"pc": 2 * n * k + (n + 1) * k},
        params={"n": n, "k": k},
    )


def rs1_temperatures(n: int, seed: int) -> np.ndarray:
    """Integer air temperatures around 15 degrees, about 3% of them anomalous (+-8..12)."""
    rng = np.random.default_rng(seed)
    temps = rng.integers(12, 19, size=n)
    bad = rng.choice(n, size=max(1, n // 33), replace=False)
    temps[bad] += rng.choice([-1, 1], size=bad.size) * rng.integers(8, 13, size=bad.size)
    return temps


def rs1_expected(temps: np.ndarray) -> dict[str, int]:
    """Reference counts for RS1 on a connected chain: every turbine neighbours every other."""
    n = temps.size
    anomalies = 0
    for x in range(n):
        med = float(np.median(np.delete(temps, x)))
        anomalies += int(n - 1 >= 3 and abs(temps[x] - med) > 5)
    per_turbine = n if n >= 2 else 0
    return dict(zip(RS1_PREDS, [n * (n - 1), per_turbine, per_turbine, n if n >= 4 else 0, anomalies]))


def build_rs1(n: int, seed: int) -> CaseData:
    """Rule set 1 of seed 004 (appendix A) on a chain of n wind turbines."""
    names = [f"wt_{i}" for i in range(1, n + 1)]
    temps = rs1_temperatures(n, seed)
    return CaseData(
        family="rs1",
        description=f"RS1 of seed 004 on a chain of {n} turbines, int temperatures (seed {seed})",
        facts={
            "hasNeighbour": pl.DataFrame({"c0": names[:-1], "c1": names[1:]}),
            "hasAirTemperatureMeasurement": pl.DataFrame({"c0": names, "c1": temps}),
        },
        check=list(RS1_PREDS),
        expected=rs1_expected(temps),
        params={"turbines": n, "seed": seed},
    )


def random_pairs(n: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """m distinct ordered pairs (x, y), x != y, over n constants."""
    flat = rng.choice(n * (n - 1), size=m, replace=False)
    x, r = flat // (n - 1), flat % (n - 1)
    return np.stack([x, r + (r >= x)], axis=1).astype(np.int64)


def matrix(n: int, pairs: np.ndarray) -> np.ndarray:
    """Boolean n x n matrix of a pair list."""
    mat = np.zeros((n, n), dtype=bool)
    mat[pairs[:, 0], pairs[:, 1]] = True
    return mat


def rs2_expected(n: int, base: dict[str, np.ndarray]) -> dict[str, int]:
    """Reference counts for RS2 computed with boolean matrices."""
    m = {p: matrix(n, base[p]) for p in base}
    off = ~np.eye(n, dtype=bool)
    p11 = m["p1"] | (bool_closure(m["p1"] | m["p1"].T) & off)
    p12 = m["p2"] | (bool_closure(m["p2"]) & off)
    p13 = m["p3"] | m["p3"].T
    p20 = p11 | p12 | p13

    def mm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return (a.astype(np.float32) @ b.astype(np.float32)) > 0

    p25 = mm(p11, p12 & ~m["p5"])
    p26 = mm(p12, (p13 & ~m["p5"]).T)
    p30 = mm(p20, p20)
    p31 = p25 & p26.any(axis=1)[None, :]
    mats = [p11, p12, p13, p13, p20, p20, p20, p25, p26, p30, p31]
    return {p: int(x.sum()) for p, x in zip(RS2_PREDS, mats)}


def build_rs2(n: int, m: int, seed: int) -> CaseData:
    """Rule set 2 of seed 004 (appendix B) on m random pairs over n constants for p1, p2, p3, p5."""
    rng = np.random.default_rng(seed)
    base = {p: random_pairs(n, m, rng) for p in ("p1", "p2", "p3", "p5")}
    return CaseData(
        family="rs2",
        description=f"RS2 of seed 004, {n} int constants, {m} random pairs each for p1 p2 p3 p5 (seed {seed})",
        facts={p: pairs_frame(v) for p, v in base.items()},
        check=list(RS2_PREDS),
        expected=rs2_expected(n, base),
        params={"constants": n, "pairs": m, "seed": seed},
    )


CASES: dict[str, Callable[[], CaseData]] = {
    "dag-r-linear": lambda: build_dag(10_000, 100_000, 1, True),
    "dag-r-nonlinear": lambda: build_dag(10_000, 100_000, 1, False),
    "dag-s-linear": lambda: build_dag(2_000, 20_000, 2, True),
    "dag-s-nonlinear": lambda: build_dag(2_000, 20_000, 2, False),
    "chain-linear": lambda: build_chain(2_000, True),
    "chain-nonlinear": lambda: build_chain(2_000, False),
    "cycle-symtrans": lambda: build_cycle(1_000),
    "pc": lambda: build_pc(1_000, 100),
    "rs1-100": lambda: build_rs1(100, 4),
    "rs1-200": lambda: build_rs1(200, 4),
    "rs2-400": lambda: build_rs2(400, 1_000, 5),
    # issue 13's "RS2 over 800 constants" (peers.md: 5.4M facts; this seed gives 5.34M)
    "rs2-800": lambda: build_rs2(800, 2_000, 5),
}


# ---------------------------------------------------------------- writing


def column_types(df: pl.DataFrame) -> list[str]:
    """'int' or 'string' for each column of a facts frame."""
    return ["int" if dtype.is_integer() else "string" for dtype in df.dtypes]


def write_case(name: str, data: CaseData, root: Path = DATA_DIR) -> Path:
    """Write program.dl, facts/<pred>.tsv and meta.json for one case; returns the case directory."""
    case_dir = root / name
    (case_dir / "facts").mkdir(parents=True, exist_ok=True)
    (case_dir / "program.dl").write_text(PROGRAMS[data.family])
    for pred, df in data.facts.items():
        df.write_csv(case_dir / "facts" / f"{pred}.tsv", separator="\t", include_header=False)
    meta = {
        "format": FORMAT_VERSION,
        "case": name,
        "family": data.family,
        "description": data.description,
        "params": data.params,
        "check": data.check,
        "expected": data.expected,
        "expected_total": sum(data.expected.values()),
        "facts": {p: {"rows": df.height, "types": column_types(df)} for p, df in data.facts.items()},
    }
    (case_dir / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    return case_dir


def load_meta(case_dir: Path) -> dict:
    """The meta.json of a generated case directory."""
    return json.loads((case_dir / "meta.json").read_text())


def ensure_case(name: str, root: Path = DATA_DIR, force: bool = False) -> Path:
    """Generate a case unless an up-to-date copy already exists; returns its directory."""
    case_dir = root / name
    meta_path = case_dir / "meta.json"
    if not force and meta_path.exists() and load_meta(case_dir).get("format") == FORMAT_VERSION:
        return case_dir
    if name not in CASES:
        raise KeyError(f"unknown case {name!r}; known: {', '.join(CASES)}")
    return write_case(name, CASES[name](), root)


def main(argv: list[str] | None = None) -> int:
    """CLI: python bench/generators.py [CASE ...] [--force] [--root DIR]."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("cases", nargs="*", help="case names (default: all)")
    ap.add_argument("--force", action="store_true", help="regenerate even if present")
    ap.add_argument("--root", type=Path, default=DATA_DIR)
    args = ap.parse_args(argv)
    for name in args.cases or list(CASES):
        case_dir = ensure_case(name, args.root, args.force)
        meta = load_meta(case_dir)
        print(f"{name:18s} {meta['expected_total']:>12,d} facts  {case_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
